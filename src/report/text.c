/*
 * Terminal report: the notable changes as an aligned table, then one summary
 * line with the verdict, totals and settings. Colour is the caller's choice
 * (only on a TTY, never with NO_COLOR).
 */
#include <assert.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/utf8.h"
#include "report/report.h"

#define RED "\033[31m"
#define GREEN "\033[32m"
#define BOLD "\033[1m"
#define RESET "\033[0m"

static const char *status_color(enum pd_status s)
{
	switch (s) {
	case PD_REGRESSED:
	case PD_ADDED:
		return RED;
	case PD_IMPROVED:
	case PD_REMOVED:
		return GREEN;
	default:
		return "";
	}
}

static void cell(struct pd_buf *b, const char *s, int width, int right)
{
	/* Width in characters: count UTF-8 lead bytes only. */
	int n = 0;
	const char *p;

	for (p = s; *p; p++)
		n += ((unsigned char)*p & 0xc0) != 0x80;
	if (right)
		while (n++ < width)
			pd_buf_addch(b, ' ');
	pd_buf_adds(b, s);
	if (!right)
		while (n++ < width)
			pd_buf_addch(b, ' ');
	pd_buf_addch(b, ' ');
}

static void safe_name(struct pd_buf *b, const char *s)
{
	/* Control characters would garble (or command) a terminal. */
	pd_buf_add_term_line(b, s);
}

static void row(struct pd_buf *b, const struct pd_diff *d,
		const struct pd_row *r, int color)
{
	struct pd_buf t = PD_BUF_INIT, name = PD_BUF_INIT;
	const struct pd_metric *m = r->m;
	enum pd_unit u = d->base.unit;

	assert(m->status < PD_STATUS_COUNT);
	/* a cost shift names a function of this diff */
	assert(m->shift < 0 || (size_t)m->shift < d->fn->v.n);
	if (color && *status_color(m->status))
		pd_buf_adds(b, status_color(m->status));
	cell(b, pd_status_name(m->status), 12, 0);
	if (color && *status_color(m->status))
		pd_buf_adds(b, RESET);
	cell(b, r->metric, 5, 0);
	pd_fmt_pct(&t, m->delta_pct);
	cell(b, t.buf, 9, 1);
	pd_buf_reset(&t);
	pd_fmt_ratio_ci(&t, m);
	cell(b, t.buf, 18, 1);
	pd_buf_reset(&t);
	pd_fmt_weight(&t, m->base, u);
	cell(b, t.buf, 12, 1);
	pd_buf_reset(&t);
	pd_fmt_weight(&t, m->cand, u);
	cell(b, t.buf, 12, 1);
	pd_buf_reset(&t);
	pd_fmt_p(&t, m->q);
	cell(b, t.buf, 7, 1);
	pd_fmt_func(&name, d, r->f->func);
	safe_name(b, name.buf);
	if (m->shift >= 0) {
		struct pd_buf o = PD_BUF_INIT;

		pd_fmt_func(&o, d, (uint32_t)m->shift);
		pd_buf_adds(b, m->status == PD_REGRESSED ? " (cost shift from "
							 : " (cost shift to ");
		safe_name(b, o.buf);
		pd_buf_addch(b, ')');
		pd_buf_release(&o);
	}
	if (m->tau_points)
		pd_buf_addf(b, " (threshold learned from %d commits: %.1f %%)",
			    m->tau_points, m->tau_pct);
	pd_buf_addch(b, '\n');
	pd_buf_release(&t);
	pd_buf_release(&name);
}

static int table_row_notable(const struct pd_metric *m)
{
	return m->status == PD_REGRESSED || m->status == PD_IMPROVED ||
	       (m->status == PD_INCONCLUSIVE && pd_metric_beyond(m)) ||
	       ((m->status == PD_ADDED || m->status == PD_REMOVED) &&
		m->impact_pct >= 0.5);
}

/* Counts in full (4800000000, not 4.8e+09), fractions to 6 digits. */
static void table_num(struct pd_buf *b, double v)
{
	if (fabs(v) < 1e15 && fabs(v - floor(v)) < 1e-9)
		pd_buf_addf(b, "%.0f", v);
	else
		pd_buf_addf(b, "%.6g", v);
}

static void table_section(struct pd_buf *b, const struct pd_diff *d,
			  const struct pd_tdiff *t,
			  const struct pd_report_opts *o)
{
	size_t r, k, n = 0, untested = 0;
	struct pd_buf x = PD_BUF_INIT;

	(void)d;
	pd_buf_addf(b, "table \"%s\" (%zu and %zu rows in): %zu changes\n",
		    t->base->name, t->base->rows_in, t->cand->rows_in,
		    pd_table_notable(t));
	for (r = 0; r < t->rows.n; r++) {
		for (k = 0; k < t->nmeasures; k++) {
			const struct pd_metric *m = &t->rows.v[r].m[k];

			if (!table_row_notable(m))
				continue;
			if ((int)n++ >= o->top)
				continue;
			pd_buf_reset(&x);
			pd_buf_addf(&x, "%s%s", pd_status_name(m->status),
				    m->tested ? "" : "*");
			untested += !m->tested;
			cell(b, x.buf, 13, 0);
			cell(b, t->base->measures.v[k], 24, 0);
			pd_buf_reset(&x);
			pd_fmt_pct(&x, m->delta_pct);
			cell(b, x.buf, 9, 1);
			pd_buf_reset(&x);
			table_num(&x, m->base);
			cell(b, x.buf, 12, 1);
			pd_buf_reset(&x);
			table_num(&x, m->cand);
			cell(b, x.buf, 12, 1);
			pd_buf_reset(&x);
			pd_mtable_key_text(&x, t->rows.v[r].key);
			pd_buf_adds(b, x.buf);
			pd_buf_addch(b, '\n');
		}
	}
	if (n > (size_t)o->top)
		pd_buf_addf(b, "(%zu more changes)\n", n - (size_t)o->top);
	if (untested)
		pd_buf_adds(b, "* untested: no noise estimate for this measure;"
			       " judged by the threshold alone\n");
	pd_buf_addch(b, '\n');
	pd_buf_release(&x);
}

/* One line formatted, then made safe for a terminal (names, paths). */
static void line_term(struct pd_buf *b, const char *fmt, ...) PD_PRINTF(2, 3);

static void line_term(struct pd_buf *b, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = pd_vstrf(fmt, ap);
	va_end(ap);
	safe_name(b, s);
	pd_buf_addch(b, '\n');
	free(s);
}

static void side_line(struct pd_buf *b, const char *label,
		      const struct pd_side *s)
{
	struct pd_buf w = PD_BUF_INIT;

	pd_fmt_weight(&w, s->total, s->unit);
	line_term(b, "%s: %s (%s%s%s, %.0f samples, total %s %s)", label,
		  s->source, s->format, s->event ? ", " : "",
		  s->event ? s->event : "", s->samples, w.buf,
		  pd_unit_display(s->unit));
	if (s->provenance) {
		pd_buf_adds(b, "  ");
		safe_name(b, s->provenance);
		pd_buf_addch(b, '\n');
	}
	pd_buf_reset(&w);
	pd_fmt_threads(&w, s);
	if (w.len) {
		pd_buf_adds(b, "  ");
		safe_name(b, w.buf);
		pd_buf_addch(b, '\n');
	}
	pd_buf_release(&w);
}

static void table_header(struct pd_buf *b, const struct pd_diff *d)
{
	struct pd_buf h = PD_BUF_INIT;

	pd_buf_addf(&h, "BASE %s", pd_unit_display(d->base.unit));
	cell(b, "VERDICT", 12, 0);
	cell(b, "", 5, 0);
	cell(b, "DELTA", 9, 1);
	cell(b, "RATIO (95% CI)", 18, 1);
	cell(b, h.buf, 12, 1);
	pd_buf_reset(&h);
	pd_buf_addf(&h, "CAND %s", pd_unit_display(d->base.unit));
	cell(b, h.buf, 12, 1);
	cell(b, "q", 7, 1);
	pd_buf_adds(b, "FUNCTION\n");
	pd_buf_release(&h);
}

/* Regressions, improvements, additions and removals, --top of each. */
static void change_rows(struct pd_buf *b, const struct pd_diff *d,
			const struct pd_report_opts *o)
{
	static const enum pd_status order[] = { PD_REGRESSED, PD_IMPROVED,
						PD_ADDED, PD_REMOVED };
	size_t k, shown = 0, hidden = 0;

	for (k = 0; k < PD_ARRAY_SIZE(order); k++) {
		struct pd_row *rows;
		size_t n = pd_report_rows_by(d, order[k], o->sort, &rows), i;

		for (i = 0; i < n; i++) {
			if ((int)i >= o->top) {
				hidden += n - i;
				break;
			}
			if (!shown++)
				table_header(b, d);
			row(b, d, &rows[i], o->color);
		}
		free(rows);
	}
	if (hidden)
		pd_buf_addf(b, "(%zu more rows; --top to show more)\n", hidden);
	if (shown)
		pd_buf_addch(b, '\n');
}

static void system_rows(struct pd_buf *b, const struct pd_diff *d,
			const struct pd_report_opts *o)
{
	struct pd_row *sys;
	size_t ns = pd_report_system_rows(d, &sys), i;

	if (ns)
		pd_buf_adds(b, "system and unnamed library frames, set apart "
			       "(not in the verdict;"
			       " --system include judges them):\n");
	for (i = 0; i < ns && (int)i < o->top; i++)
		row(b, d, &sys[i], o->color);
	if (ns > (size_t)o->top)
		pd_buf_addf(b, "(%zu more)\n", ns - (size_t)o->top);
	if (ns)
		pd_buf_addch(b, '\n');
	free(sys);
}

/* The settings line: thresholds, and how the rows were tested. */
static void settings_line(struct pd_buf *b, const struct pd_diff *d)
{
	pd_buf_addf(
	    b, "settings: threshold %g %%%s, min impact %g %%, alpha %g, %s; ",
	    d->set.threshold_pct,
	    d->set.treat ? " (each change tested against it)" : "",
	    d->set.min_impact_pct, d->set.alpha,
	    d->set.share ? "shares" : "absolute");
	pd_fmt_method(b, d);
	pd_buf_addch(b, '\n');
}

/* The function that more runs would resolve, when one would. */
static void runs_line(struct pd_buf *b, const struct pd_diff *d)
{
	const struct pd_fdiff *nf = pd_report_needs_runs(d);
	struct pd_buf n = PD_BUF_INIT;

	if (!nf)
		return;
	pd_fmt_func(&n, d, nf->func);
	pd_buf_addf(b,
		    "runs: %.0f per side would resolve a %g %% change in %s"
		    " (inconclusive with %d + %d)\n",
		    nf->self.suggested_runs, d->set.threshold_pct, n.buf,
		    d->base.runs, d->cand.runs);
	pd_buf_release(&n);
}

/*
 * Under a headline that found nothing: the functions that moved past the
 * threshold undecided, with the change each would need to be seen.
 */
static void undecided_line(struct pd_buf *b, const struct pd_diff *d)
{
	struct pd_buf x = PD_BUF_INIT;

	pd_buf_adds(&x, "undecided:");
	if (pd_fmt_undecided(&x, d, pd_fmt_func)) {
		pd_buf_adds(&x, "; the data cannot tell them from noise"
				" (record longer or repeat runs)");
		line_term(b, "%s", x.buf);
	}
	pd_buf_release(&x);
}

int pd_report_text(FILE *f, const struct pd_diff *d,
		   const struct pd_report_opts *o)
{
	struct pd_buf b = PD_BUF_INIT, x = PD_BUF_INIT;
	size_t k;
	int rc;

	change_rows(&b, d, o);
	for (k = 0; k < d->tables.n; k++)
		table_section(&b, d, &d->tables.v[k], o);
	system_rows(&b, d, o);
	if (o->color)
		pd_buf_adds(&b, d->verdict == PD_REGRESSED  ? BOLD RED
				: d->verdict == PD_IMPROVED ? BOLD GREEN
							    : BOLD);
	pd_buf_addf(&b, "%s", pd_status_name(d->verdict));
	if (o->color)
		pd_buf_adds(&b, RESET);
	pd_buf_adds(&b, ": ");
	pd_fmt_headline(&x, d, pd_fmt_func);
	safe_name(&b, x.buf);
	pd_buf_release(&x);
	pd_buf_addch(&b, '\n');
	undecided_line(&b, d);
	side_line(&b, "baseline", &d->base);
	side_line(&b, "candidate", &d->cand);
	settings_line(&b, d);
	runs_line(&b, d);
	if (d->base.count_rule)
		line_term(&b, "counts: baseline %s", d->base.count_rule);
	if (d->cand.count_rule)
		line_term(&b, "counts: candidate %s", d->cand.count_rule);
	for (k = 0; k < d->warnings.n; k++)
		line_term(&b, "warning: %s", d->warnings.v[k]);
	rc = pd_report_put(f, &b);
	pd_buf_release(&b);
	return rc;
}
