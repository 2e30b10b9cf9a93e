/* Number and name formatting shared by the human-readable reports. */
#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "core/sort.h"
#include "report/report.h"
#include "stats/noise.h"

const char *pd_unit_display(enum pd_unit u)
{
	switch (u) {
	case PD_UNIT_NS:
		return "ms";
	case PD_UNIT_BYTES:
		return "bytes";
	case PD_UNIT_SAMPLES:
		return "samples";
	case PD_UNIT_COUNT:
		return "events";
	}
	return "";
}

double pd_unit_display_scale(enum pd_unit u)
{
	return u == PD_UNIT_NS ? 1e-6 : 1;
}

void pd_fmt_weight(struct pd_buf *b, double v, enum pd_unit u)
{
	if (isnan(v)) {
		pd_buf_adds(b, "n/a");
		return;
	}
	if (u == PD_UNIT_NS)
		pd_buf_addf(b, "%.3f", v * 1e-6);
	else if (fabs(v - floor(v)) < 1e-9 || fabs(v) >= 1e6)
		pd_buf_addf(b, "%.0f", v);
	else
		pd_buf_addf(b, "%.2f", v);
}

void pd_fmt_pct(struct pd_buf *b, double pct)
{
	if (isnan(pct) || isinf(pct))
		pd_buf_adds(b, "n/a");
	else if (fabs(pct) >= 1000)
		pd_buf_addf(b, "%+.0f %%", pct);
	else
		pd_buf_addf(b, "%+.1f %%", pct);
}

void pd_fmt_ratio_ci(struct pd_buf *b, const struct pd_metric *m)
{
	/* an interval printed is ordered (stats/decide.c tests it so) */
	assert(isnan(m->ci_low) || !(m->ci_low > m->ci_high));
	if (isnan(m->ratio))
		pd_buf_adds(b, "n/a");
	else if (isnan(m->ci_low)) /* exact counts: no interval */
		pd_buf_addf(b, "%.2f (exact)", m->ratio);
	else
		pd_buf_addf(b, "%.2f (%.2f…%.2f)", m->ratio, m->ci_low,
			    m->ci_high);
}

void pd_fmt_p(struct pd_buf *b, double p)
{
	if (isnan(p))
		pd_buf_adds(b, "-");
	else if (p < 1e-16)
		pd_buf_adds(b, "<1e-16");
	else if (p < 1e-4)
		pd_buf_addf(b, "%.0e", p);
	else
		pd_buf_addf(b, "%.4f", p);
}

void pd_fmt_func(struct pd_buf *b, const struct pd_diff *d, uint32_t func)
{
	const char *mod;

	assert(func < d->fn->v.n); /* a function of this diff's table */
	mod = pd_func_module(d->fn, func);
	pd_buf_adds(b, pd_func_name(d->fn, func));
	if (*mod)
		pd_buf_addf(b, " [%s]", mod);
}

/* statistics.md, "How a function follows the machine" */
static void level_slopes(struct pd_buf *b, const struct pd_diff *d)
{
	if (d->level_slopes)
		pd_buf_addf(b,
			    "; %zu function%s taken beyond how far %s its"
			    " run's level, as the history learned",
			    d->level_slopes, d->level_slopes == 1 ? "" : "s",
			    d->level_slopes == 1 ? "it follows"
						 : "each follows");
	else if (d->slopes_short)
		pd_buf_addf(b,
			    "; the history's window has %zu repeat%s within"
			    " commits, too few to learn how each function"
			    " follows its run's level (%d needed: 3 runs a"
			    " commit, or more commits)",
			    d->window_repeats,
			    d->window_repeats == 1 ? "" : "s",
			    PD_SLOPE_MIN_DF + 1);
}

void pd_fmt_method(struct pd_buf *b, const struct pd_diff *d)
{
	switch (d->method) {
	case PD_METHOD_EXACT:
		pd_buf_adds(b, "exact counts (no sampling), judged by the"
			       " threshold alone");
		return;
	case PD_METHOD_PAIRED_T:
		pd_buf_addf(b,
			    "moderated paired t-test over %d pairs of runs"
			    " (prior from %s)",
			    d->base.runs, d->prior_source);
		level_slopes(b, d);
		return;
	case PD_METHOD_MODERATED_T:
		pd_buf_addf(b,
			    "moderated t-test over %d + %d runs (prior from"
			    " %s), Mann–Whitney as a check",
			    d->base.runs, d->cand.runs, d->prior_source);
		level_slopes(b, d);
		return;
	default:
		break;
	}
	if (!strcmp(d->phi_source, "history"))
		pd_buf_adds(b, "quasi-Poisson test on sample counts,"
			       " run-to-run variation learned from history");
	else if (d->lambda_n)
		pd_buf_addf(b,
			    "quasi-Poisson test on sample counts, dispersion"
			    " %.2f (%g assumed, moderated by how %zu"
			    " well-sampled functions scatter), run-to-run"
			    " variation %g %% a function",
			    d->phi, d->set.dispersion, d->lambda_n,
			    d->set.run_cv * 100);
	else
		pd_buf_addf(b,
			    "quasi-Poisson test on sample counts, dispersion"
			    " %.2f assumed, run-to-run variation %g %% a"
			    " function",
			    d->phi, d->set.run_cv * 100);
	if (d->whole_cv > d->set.run_cv)
		pd_buf_addf(b, ", %g %% the whole program", d->whole_cv * 100);
	if (d->shift_voters && !d->set.share)
		pd_buf_addf(b,
			    "; functions judged beyond the program's shift"
			    " (%+.1f %%, %zu of %zu well-sampled functions"
			    " alike)",
			    (exp(d->shift) - 1) * 100, d->shift_alike,
			    d->shift_voters);
}

static int cmp_row(const void *pa, const void *pb)
{
	const struct pd_row *a = pa, *b = pb;

	/*
	 * Own time first: a total row is shown only when the function's self
	 * did not move alike, so its change is its callees', and a wrapper
	 * (main, a thread's start routine) would otherwise lead every table.
	 */
	if (a->metric[0] != b->metric[0])
		return a->metric[0] == 's' ? -1 : 1;
	if (a->m->impact_pct > b->m->impact_pct)
		return -1;
	if (a->m->impact_pct < b->m->impact_pct)
		return 1;
	return (a->f->func > b->f->func) - (a->f->func < b->f->func);
}

/* The key a row sorts by, largest first; ties as cmp_row. */
static double row_key(const struct pd_row *r, enum pd_sort sort)
{
	double v;

	switch (sort) {
	case PD_SORT_SELF:
		v = fabs(r->f->self.delta);
		break;
	case PD_SORT_TOTAL:
		v = fabs(r->f->total.delta);
		break;
	case PD_SORT_CUM:
		v = r->f->total.cand;
		break;
	default:
		v = r->m->impact_pct;
	}
	return isnan(v) ? -HUGE_VAL : v;
}

#define CMP_BY(name, key)                                                      \
	static int name(const void *pa, const void *pb)                        \
	{                                                                      \
		double x = row_key(pa, key), y = row_key(pb, key);             \
                                                                               \
		if (x > y)                                                     \
			return -1;                                             \
		if (x < y)                                                     \
			return 1;                                              \
		return cmp_row(pa, pb);                                        \
	}
CMP_BY(cmp_self, PD_SORT_SELF)
CMP_BY(cmp_total, PD_SORT_TOTAL)
CMP_BY(cmp_cum, PD_SORT_CUM)

size_t pd_report_rows_by(const struct pd_diff *d, enum pd_status want,
			 enum pd_sort sort, struct pd_row **rows)
{
	size_t n = pd_report_rows(d, want, rows);

	if (sort != PD_SORT_IMPACT)
		pd_sort(*rows, n, sizeof(**rows),
			sort == PD_SORT_SELF	? cmp_self
			: sort == PD_SORT_TOTAL ? cmp_total
						: cmp_cum);
	return n;
}

/* Rows of want, of the program's functions or of the system's. */
static size_t rows_of(const struct pd_diff *d, enum pd_status want, int system,
		      struct pd_row **rows)
{
	size_t i, n = 0;

	*rows = pd_xmalloc((d->funcs.n * 2 + 1) * sizeof(**rows));
	for (i = 0; i < d->funcs.n; i++) {
		const struct pd_fdiff *f = &d->funcs.v[i];

		if (f->system != system)
			continue;
		if (f->self.status == want && f->self.notable) {
			(*rows)[n].f = f;
			(*rows)[n].m = &f->self;
			(*rows)[n++].metric = "self";
		}
		/* A total row only says more when self did not move alike. */
		if (f->total.status == want && f->total.notable &&
		    f->self.status != want) {
			(*rows)[n].f = f;
			(*rows)[n].m = &f->total;
			(*rows)[n++].metric = "total";
		}
	}
	pd_sort(*rows, n, sizeof(**rows), cmp_row);
	return n;
}

size_t pd_report_rows(const struct pd_diff *d, enum pd_status want,
		      struct pd_row **rows)
{
	return rows_of(d, want, 0, rows);
}

/* Whether f's own time moved past its threshold and the data left it open. */
static int undecided(const struct pd_diff *d, const struct pd_fdiff *f)
{
	const struct pd_metric *m = &f->self;

	return !f->system && m->status == PD_INCONCLUSIVE && m->base > 0 &&
	       m->cand > 0 && pd_metric_beyond(m) &&
	       m->impact_pct >= d->set.min_impact_pct;
}

size_t pd_report_undecided(const struct pd_diff *d, struct pd_row **rows)
{
	size_t i, n = 0;

	*rows = pd_xmalloc((d->funcs.n + 1) * sizeof(**rows));
	for (i = 0; i < d->funcs.n; i++)
		if (undecided(d, &d->funcs.v[i])) {
			(*rows)[n].f = &d->funcs.v[i];
			(*rows)[n].m = &d->funcs.v[i].self;
			(*rows)[n++].metric = "self";
		}
	pd_sort(*rows, n, sizeof(**rows), cmp_row);
	return n;
}

/* Undecided functions named under a headline. */
#define UNDECIDED_NAMED 3

int pd_fmt_undecided(struct pd_buf *b, const struct pd_diff *d,
		     void (*name)(struct pd_buf *, const struct pd_diff *,
				  uint32_t))
{
	struct pd_row *rows;
	size_t n = pd_report_undecided(d, &rows), i;
	int said = n && d->verdict != PD_REGRESSED && d->verdict != PD_IMPROVED;

	for (i = 0; said && i < n && i < UNDECIDED_NAMED; i++) {
		pd_buf_adds(b, i ? ", " : " ");
		name(b, d, rows[i].f->func);
		pd_buf_adds(b, " ");
		pd_fmt_pct(b, rows[i].m->delta_pct);
		if (rows[i].m->mde_pct >= 1e4)
			pd_buf_adds(b, " (MDE over 10000 %)");
		else if (!isnan(rows[i].m->mde_pct))
			pd_buf_addf(b, " (MDE %.0f %%)", rows[i].m->mde_pct);
	}
	if (said && n > UNDECIDED_NAMED)
		pd_buf_addf(b, " and %zu more", n - UNDECIDED_NAMED);
	free(rows);
	return said;
}

size_t pd_report_system_rows(const struct pd_diff *d, struct pd_row **rows)
{
	static const enum pd_status order[] = { PD_REGRESSED, PD_IMPROVED,
						PD_ADDED, PD_REMOVED };
	struct pd_row *all = NULL, *part;
	size_t n = 0, k, m;

	for (k = 0; k < PD_ARRAY_SIZE(order); k++) {
		m = rows_of(d, order[k], 1, &part);
		all = pd_xreallocarray(all, n + m + 1, sizeof(*all));
		memcpy(all + n, part, m * sizeof(*all));
		n += m;
		free(part);
	}
	*rows = all;
	return n;
}

/*
 * The table measures that moved, for the headline: regressed, improved,
 * and beyond the threshold but untested. Returns how many; with lead,
 * starts with "; " and says nothing when none moved.
 */
static size_t table_counts(struct pd_buf *b, const struct pd_diff *d, int lead)
{
	size_t i, r, k, tr = 0, ti = 0, tu = 0;

	for (i = 0; i < d->tables.n; i++)
		for (r = 0; r < d->tables.v[i].rows.n; r++)
			for (k = 0; k < d->tables.v[i].nmeasures; k++) {
				const struct pd_metric *m =
				    &d->tables.v[i].rows.v[r].m[k];

				tr += m->status == PD_REGRESSED;
				ti += m->status == PD_IMPROVED;
				tu += m->status == PD_INCONCLUSIVE &&
				      pd_metric_beyond(m);
			}
	if (lead && (tr || ti || tu))
		pd_buf_adds(b, "; ");
	if (tr)
		pd_buf_addf(b, "%zu measure%s regressed", tr,
			    tr == 1 ? "" : "s");
	if (ti)
		pd_buf_addf(b, "%s%zu measure%s improved", tr ? ", " : "", ti,
			    ti == 1 ? "" : "s");
	if (tu)
		pd_buf_addf(b,
			    "%s%zu measure%s beyond the threshold, untested"
			    " (repeat the runs to judge)",
			    tr || ti ? ", " : "", tu, tu == 1 ? "" : "s");
	return tr + ti + tu;
}

/* Whether f is on one side only (want: added or removed), and notable. */
static int one_sided(const struct pd_fdiff *f, enum pd_status want)
{
	return (f->self.status == want && f->self.notable) ||
	       (f->total.status == want && f->total.notable);
}

/* "2 functions regressed", after a comma when something came before. */
static void count_phrase(struct pd_buf *b, size_t n, const char *what,
			 size_t before)
{
	if (n)
		pd_buf_addf(b, "%s%zu function%s %s", before ? ", " : "", n,
			    n == 1 ? "" : "s", what);
}

/* The total's change and interval, as the headline gives it. */
static void total_phrase(struct pd_buf *b, const struct pd_diff *d)
{
	const struct pd_metric *t = &d->total;

	assert(isnan(t->ci_low) || !(t->ci_low > t->ci_high));
	pd_buf_adds(b, "total ");
	pd_fmt_pct(b, t->delta_pct);
	if (!isnan(t->ci_low))
		pd_buf_addf(b, " (CI %+.1f … %+.1f %%)", (t->ci_low - 1) * 100,
			    (t->ci_high - 1) * 100);
	/*
	 * read first: the functions moved alike, a machine-wide shift or a
	 * change of all the code (statistics.md, "Machine-wide shifts")
	 */
	if (pd_diff_shift_named(d))
		pd_buf_addf(b,
			    ", %zu of %zu functions moved %+.1f %% alike:"
			    " machine-wide?",
			    d->shift_alike, d->shift_voters,
			    (exp(d->shift) - 1) * 100);
}

/*
 * The row the headline names, of the verdict's direction: the function
 * whose own time moved most (by impact), else the one that appeared (or
 * went), else the first total. 0 when nothing moved that way.
 */
static int lead_row(const struct pd_diff *d, struct pd_row *out)
{
	struct pd_row *rows, *one;
	size_t n, m;

	if (d->verdict != PD_REGRESSED && d->verdict != PD_IMPROVED)
		return 0;
	n = pd_report_rows(d, d->verdict, &rows); /* own time first */
	if (!n || rows[0].metric[0] != 's') {
		m = pd_report_rows(
		    d, d->verdict == PD_REGRESSED ? PD_ADDED : PD_REMOVED,
		    &one);
		if (m) {
			free(rows);
			rows = one;
			n = m;
		} else {
			free(one);
		}
	}
	if (n) {
		/*
		 * The headline names a change of the verdict's direction: a
		 * function whose own time fell never leads "regressed".
		 */
		assert(
		    rows[0].m->status == d->verdict ||
		    rows[0].m->status ==
			(d->verdict == PD_REGRESSED ? PD_ADDED : PD_REMOVED));
		assert(!(rows[0].m->status == PD_REGRESSED &&
			 rows[0].m->delta_pct < 0) &&
		       !(rows[0].m->status == PD_IMPROVED &&
			 rows[0].m->delta_pct > 0));
		*out = rows[0];
	}
	free(rows);
	return n > 0;
}

void pd_fmt_headline(struct pd_buf *b, const struct pd_diff *d,
		     void (*name)(struct pd_buf *, const struct pd_diff *,
				  uint32_t))
{
	size_t reg = 0, imp = 0, regt = 0, impt = 0, und = 0, add = 0, rem = 0;
	size_t i, at;
	struct pd_row lead;
	int led = 0;

	for (i = 0; i < d->funcs.n; i++) {
		const struct pd_fdiff *f = &d->funcs.v[i];

		if (f->system)
			continue; /* said apart, below */
		und += undecided(d, f);
		add += one_sided(f, PD_ADDED);
		rem += one_sided(f, PD_REMOVED);
		reg += f->self.status == PD_REGRESSED;
		imp += f->self.status == PD_IMPROVED;
		regt += f->self.status != PD_REGRESSED &&
			f->total.status == PD_REGRESSED;
		impt += f->self.status != PD_IMPROVED &&
			f->total.status == PD_IMPROVED;
	}
	if (d->no_verdict)
		pd_buf_addf(b, "no verdict (%s): ", d->no_verdict);
	if (!d->funcs.n && d->tables.n) {
		/* counters or tables only (perf stat, WPA Disk Usage) */
		if (!table_counts(b, d, 0))
			pd_buf_adds(b, "no measure changed beyond the"
				       " threshold");
		return;
	}
	if (!d->set.share && lead_row(d, &lead)) {
		/* What is read first: which function, by how much. */
		name(b, d, lead.f->func);
		if (lead.m->status == PD_ADDED ||
		    lead.m->status == PD_REMOVED) {
			pd_buf_addf(b, " %s, ", pd_status_name(lead.m->status));
		} else {
			pd_buf_adds(b, " ");
			pd_fmt_pct(b, lead.m->delta_pct);
			pd_buf_addf(b, " (%s), ", lead.metric);
		}
		total_phrase(b, d);
		pd_buf_adds(b, "; ");
		led = 1;
	}
	at = b->len;
	count_phrase(b, reg, "regressed", 0);
	count_phrase(b, imp, "improved", reg);
	/* functions on one side only, with time enough to be no chance */
	count_phrase(b, add, "added", reg + imp);
	count_phrase(b, rem, "removed", reg + imp + add);
	/*
	 * "Changed beyond the threshold" is said only where the data shows
	 * it; functions that moved past it undecided are counted, and the
	 * text and Markdown reports name them.
	 */
	if (reg + imp + add + rem == 0 && (regt || impt))
		pd_buf_adds(b, "no function's own time changed");
	else if (reg + imp + add + rem == 0 && und)
		pd_buf_addf(b,
			    "no change shown beyond the threshold (%zu"
			    " function%s moved past it, undecided)",
			    und, und == 1 ? "" : "s");
	else if (reg + imp + add + rem == 0 && d->best_mde_pct > 100)
		/* a doubling would not show: "no change" would say too much */
		pd_buf_adds(b, "too few samples to show a change: not even"
			       " a doubling of the best-sampled function");
	else if (reg + imp + add + rem == 0 && d->identical)
		pd_buf_adds(b, "the two profiles are identical, function by"
			       " function");
	else if (reg + imp + add + rem == 0)
		pd_buf_adds(b, "no function changed beyond the threshold");
	if (regt || impt) {
		pd_buf_adds(b, " (");
		if (regt)
			pd_buf_addf(b, "%zu more regressed in total time",
				    regt);
		if (impt)
			pd_buf_addf(b, "%s%zu more improved in total time",
				    regt ? ", " : "", impt);
		pd_buf_adds(b, ")");
	}
	table_counts(b, d, b->len > at);
	if (d->nsystem)
		pd_buf_addf(b, "; %zu system frame%s changed (set apart)",
			    d->nsystem, d->nsystem == 1 ? "" : "s");
	if (d->set.share) {
		pd_buf_adds(b, "; shares of the total compared");
		return;
	}
	if (led)
		return;
	pd_buf_adds(b, "; ");
	total_phrase(b, d);
}

int pd_report_put(FILE *f, const struct pd_buf *b)
{
	if (b->len && fwrite(b->buf, 1, b->len, f) != b->len)
		return PD_EIO;
	return 0;
}

const struct pd_fdiff *pd_report_needs_runs(const struct pd_diff *d)
{
	const struct pd_fdiff *best = NULL;
	size_t i;

	if (!pd_diff_several_runs(d))
		return NULL;
	for (i = 0; i < d->funcs.n; i++) {
		const struct pd_fdiff *f = &d->funcs.v[i];

		if (f->self.status != PD_INCONCLUSIVE ||
		    isnan(f->self.suggested_runs) ||
		    f->self.base / (d->base.total > 0 ? d->base.total : 1) *
			    100 <
			d->set.min_impact_pct)
			continue;
		if (!best || f->self.base > best->self.base)
			best = f;
	}
	return best;
}

void pd_fmt_threads(struct pd_buf *b, const struct pd_side *s)
{
	const struct pd_profile *p = s->profile;
	size_t order[3] = { 0, 0, 0 }, n = 0, i, k;
	double total = 0;

	if (!p || p->threads.n < 2)
		return;
	for (i = 0; i < p->threads.n; i++)
		total += p->threads.v[i].weight;
	/* the three heaviest, in order */
	for (k = 0; k < 3 && k < p->threads.n; k++) {
		size_t best = SIZE_MAX;

		for (i = 0; i < p->threads.n; i++) {
			size_t j;
			int used = 0;

			for (j = 0; j < n; j++)
				used |= order[j] == i;
			if (!used &&
			    (best == SIZE_MAX || p->threads.v[i].weight >
						     p->threads.v[best].weight))
				best = i;
		}
		order[n++] = best;
	}
	pd_buf_addf(b, "%zu threads: ", p->threads.n);
	for (k = 0; k < n; k++)
		pd_buf_addf(
		    b, "%s%s %.0f %%", k ? ", " : "",
		    pd_intern_str(&p->strs, p->threads.v[order[k]].name),
		    total > 0 ? p->threads.v[order[k]].weight / total * 100
			      : 0);
	if (p->threads.n > n)
		pd_buf_addf(b, ", %zu more", p->threads.n - n);
}

size_t pd_table_notable(const struct pd_tdiff *t)
{
	size_t r, k, n = 0;

	for (r = 0; r < t->rows.n; r++)
		for (k = 0; k < t->nmeasures; k++) {
			const struct pd_metric *m = &t->rows.v[r].m[k];

			n += m->status == PD_REGRESSED ||
			     m->status == PD_IMPROVED ||
			     (m->status == PD_INCONCLUSIVE &&
			      pd_metric_beyond(m)) ||
			     ((m->status == PD_ADDED ||
			       m->status == PD_REMOVED) &&
			      m->impact_pct >= 0.5);
		}
	return n;
}
