/*
 * Markdown for a pull-request comment (GitHub-flavoured). The first line is
 * the verdict and the number that matters; regressions and improvements
 * follow, the rest sits in collapsed <details>, provenance last. The whole
 * comment stays under PD_MD_LIMIT characters: the longest tables are cut
 * first and say how many rows were left out.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/limits.h"
#include "core/blob.h"
#include "core/utf8.h"
#include "report/report.h"

#define PD_MD_LIMIT PD_LIMIT_MARKDOWN_BYTES
#define NAME_MAX_CHARS 200

/*
 * Entity-escapes everything Markdown or HTML could read as syntax, and
 * breaks what a forge would turn into something else (docs/architecture.md,
 * "Untrusted text"): an empty comment after '@' (no mention pings a
 * stranger) and inside "://" and "www." (no autolink, no image from a
 * name); bidi controls and zero-width characters shown as \u202e, C1
 * controls likewise, invalid UTF-8 as U+FFFD, other controls as spaces.
 */
void pd_md_text(struct pd_buf *b, const char *s, size_t max)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t chars = 0, n = strlen(s), i = 0;

	while (i < n) {
		int ok;
		size_t k = pd_utf8_seq(p + i, n - i, &ok);
		unsigned cp = ok ? pd_utf8_cp(p + i, k) : 0xfffd;
		unsigned char c = p[i];

		if (++chars > max) {
			pd_buf_adds(b, "…");
			return;
		}
		if (!ok)
			pd_buf_adds(b, "&#xfffd;");
		else if ((cp >= 0x80 && cp <= 0x9f) || pd_utf8_invisible(cp))
			pd_buf_addf(b, "&#92;u%04x", cp);
		else if (c < 0x20 || c == 0x7f)
			pd_buf_addch(b, ' ');
		else if (c == '@')
			pd_buf_adds(b, "&#64;<!-- -->");
		else if (c == ':' && p[i + 1] == '/' && p[i + 2] == '/')
			pd_buf_adds(b, "&#58;<!-- -->");
		else if ((c == 'w' || c == 'W') && i + 3 < n &&
			 (p[i + 1] | 0x20) == 'w' && (p[i + 2] | 0x20) == 'w' &&
			 p[i + 3] == '.') {
			pd_buf_add(b, p + i, 3);
			pd_buf_adds(b, "<!-- -->");
			k = 3;
		} else if (strchr("&<>\"'|`*_~[]\\#!()$", c))
			pd_buf_addf(b, "&#%d;", c);
		else
			pd_buf_add(b, p + i, k);
		i += k;
	}
}

/* Where a long name may wrap in a table cell: after these. */
#define NAME_BREAK_AFTER ":,"
/* ... and before these. */
#define NAME_BREAK_BEFORE "(<"
/*
 * Names shorter than this are never broken (a kernel's 28-character
 * sched_balance_find_src_group is broken at its underscores).
 */
#define NAME_BREAK_FROM 24
/* ... and at an underscore only after this many characters of a piece. */
#define NAME_WORDS 12

/* Characters of s, as pd_md_text counts them (lead bytes). */
static size_t chars_of(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

/*
 * A name in a table cell, able to wrap where a C++, Rust or Java name has
 * seams (after "::" and ",", before "(" and "<") and a C name has words
 * (after "_"): unbroken, a long name would push the table past a pull
 * request's width.
 */
static void md_name(struct pd_buf *b, const char *s, size_t max)
{
	size_t n = strlen(s), i, start = 0, left = max;
	char *piece;

	if (n < NAME_BREAK_FROM) {
		pd_md_text(b, s, max);
		return;
	}
	piece = pd_xmalloc(n + 1);
	for (i = 1; i <= n; i++) {
		/* never inside "::" or "://" (the escaping must see it whole)
		 */
		int brk = i == n ||
			  (strchr(NAME_BREAK_AFTER, s[i - 1]) &&
			   s[i] != s[i - 1] && s[i] != '/') ||
			  (strchr(NAME_BREAK_BEFORE, s[i]) && i - start > 1) ||
			  /* a C name's words, in pieces of a dozen or more */
			  (s[i - 1] == '_' && s[i] != '_' &&
			   i - start >= NAME_WORDS && n - i >= 4);
		size_t chars;

		if (!brk)
			continue;
		memcpy(piece, s + start, i - start);
		piece[i - start] = 0;
		chars = chars_of(piece);
		pd_md_text(b, piece, left); /* an ellipsis when cut */
		if (chars > left)
			break;
		left -= chars;
		if (!left && i < n) { /* cut just at a seam */
			pd_buf_adds(b, "…");
			break;
		}
		if (i < n)
			pd_buf_adds(b, "<wbr>");
		start = i;
	}
	free(piece);
}

/* The name and, after sep, its module, small. */
static void md_func_sep(struct pd_buf *b, const struct pd_diff *d,
			uint32_t func, const char *sep)
{
	const char *mod = pd_func_module(d->fn, func);

	pd_buf_adds(b, "<code>");
	md_name(b, pd_func_name(d->fn, func), NAME_MAX_CHARS);
	pd_buf_adds(b, "</code>");
	if (*mod) {
		pd_buf_addf(b, "%s<sub>", sep);
		pd_md_text(b, mod, 60);
		pd_buf_adds(b, "</sub>");
	}
}

static void md_func(struct pd_buf *b, const struct pd_diff *d, uint32_t func)
{
	md_func_sep(b, d, func, " ");
}

void pd_md_nobreak(struct pd_buf *b, struct pd_buf *cell)
{
	size_t i;

	for (i = 0; i < cell->len; i++) {
		if (cell->buf[i] == ' ') {
			pd_buf_adds(b, "\xc2\xa0"); /* U+00A0 */
		} else if (i + 2 < cell->len &&
			   !memcmp(cell->buf + i, "\xe2\x80\xa6", 3)) {
			/*
			 * A line may break after an ellipsis; after a no-break
			 * space it may not (nor before one).
			 */
			pd_buf_adds(b, "\xc2\xa0\xe2\x80\xa6\xc2\xa0");
			i += 2;
		} else {
			pd_buf_addch(b, cell->buf[i]);
		}
	}
	pd_buf_reset(cell);
}

/*
 * One row in five columns, so that a pull request shows the table
 * without scrolling sideways: the metric goes with the name, the interval
 * with the change, and q with the MDE.
 */
static void md_row(struct pd_buf *b, const struct pd_diff *d,
		   const struct pd_fdiff *f, const struct pd_metric *m,
		   const char *metric)
{
	enum pd_unit u = d->base.unit;
	struct pd_buf cell = PD_BUF_INIT;

	pd_buf_adds(b, "| ");
	/* the module under the name: the column as narrow as its name */
	md_func_sep(b, d, f->func, "<br>");
	pd_buf_addf(b, " | %s %s | ", pd_status_name(m->status), metric);
	/* two lines a cell: each never breaks, the cell stays narrow */
	pd_fmt_pct(&cell, m->delta_pct);
	pd_md_nobreak(b, &cell);
	if (!isnan(m->ci_low)) {
		pd_buf_addf(&cell, "(%+.0f…%+.0f)", (m->ci_low - 1) * 100,
			    (m->ci_high - 1) * 100);
		pd_buf_adds(b, "<br>");
		pd_md_nobreak(b, &cell);
	}
	pd_buf_adds(b, " | ");
	pd_fmt_weight(&cell, m->base, u);
	pd_buf_adds(&cell, " →");
	pd_md_nobreak(b, &cell);
	pd_buf_adds(b, "<br>");
	pd_fmt_weight(&cell, m->cand, u);
	pd_md_nobreak(b, &cell);
	pd_buf_adds(b, " | ");
	pd_fmt_p(&cell, m->q);
	pd_md_nobreak(b, &cell);
	if (!isnan(m->mde_pct)) {
		pd_buf_addf(&cell, "MDE %.0f %%", m->mde_pct);
		pd_buf_adds(b, "<br>");
		pd_md_nobreak(b, &cell);
	}
	pd_buf_adds(b, " |\n");
	pd_buf_release(&cell);
}

static void md_head(struct pd_buf *b, const struct pd_diff *d)
{
	pd_buf_addf(b,
		    "| Function | Verdict | Δ (95 %% CI) | Baseline → Candidate"
		    " (%s) | q · MDE |\n"
		    "|---|---|--:|--:|--:|\n",
		    pd_unit_display(d->base.unit));
}

/* Appends rows while the budget allows; returns how many were left out. */
static size_t md_table(struct pd_buf *b, const struct pd_diff *d,
		       const struct pd_row *rows, size_t n, size_t budget)
{
	struct pd_buf one = PD_BUF_INIT;
	size_t i, start = b->len;

	md_head(b, d);
	for (i = 0; i < n; i++) {
		pd_buf_reset(&one);
		md_row(&one, d, rows[i].f, rows[i].m, rows[i].metric);
		if (b->len - start + one.len + 80 > budget)
			break;
		pd_buf_add(b, one.buf, one.len);
	}
	pd_buf_release(&one);
	if (i < n)
		pd_buf_addf(b,
			    "\n_%zu more rows left out to fit a comment;"
			    " see the JSON or HTML report._\n",
			    n - i);
	return n - i;
}

static void md_side(struct pd_buf *b, const char *label,
		    const struct pd_side *s)
{
	pd_buf_addf(b, "- %s: <code>", label);
	pd_md_text(b, s->source, 300);
	pd_buf_adds(b, "</code>");
	if (s->provenance) {
		pd_buf_adds(b, " — ");
		pd_md_text(b, s->provenance, 1500);
	}
	/* the event is the profile's (perf's -e, a stored run's column) */
	pd_buf_adds(b, " (");
	pd_md_text(b, s->format, 100);
	if (s->event) {
		pd_buf_adds(b, ", event ");
		pd_md_text(b, s->event, 200);
	}
	pd_buf_addf(b, ", %.0f samples, total ", s->samples);
	pd_fmt_weight(b, s->total, s->unit);
	pd_buf_addf(b, " %s)", pd_unit_display(s->unit));
	if (s->count_rule) {
		pd_buf_adds(b, "; ");
		pd_md_text(b, s->count_rule, 400);
	}
	{
		struct pd_buf t = PD_BUF_INIT;

		pd_fmt_threads(&t, s);
		if (t.len) {
			pd_buf_adds(b, "; ");
			pd_md_text(b, t.buf, 400);
		}
		pd_buf_release(&t);
	}
	pd_buf_addch(b, '\n');
}

static void provenance(struct pd_buf *b, const struct pd_diff *d)
{
	const struct pd_blob *legend = pd_blob_get("reports/legend.md");
	size_t i;

	pd_buf_adds(
	    b, "\n<details><summary>Settings and provenance</summary>\n\n");
	md_side(b, "Baseline", &d->base);
	md_side(b, "Candidate", &d->cand);
	pd_buf_addf(b,
		    "- Settings: threshold %g %%, min impact %g %% of the"
		    " baseline total, alpha %g (Benjamini–Hochberg), %s"
		    " weights\n",
		    d->set.threshold_pct, d->set.min_impact_pct, d->set.alpha,
		    d->set.share ? "shares of total" : "absolute");
	pd_buf_adds(b, "- Method: ");
	pd_fmt_method(b, d);
	pd_buf_addch(b, '\n');
	{
		const struct pd_fdiff *f = pd_report_needs_runs(d);

		if (f) {
			pd_buf_addf(
			    b,
			    "- Runs: %.0f per side would resolve a %g %%"
			    " change in ",
			    f->self.suggested_runs, d->set.threshold_pct);
			md_func(b, d, f->func);
			pd_buf_addf(b, " (inconclusive with %d + %d)\n",
				    d->base.runs, d->cand.runs);
		}
	}
	for (i = 0; i < d->warnings.n && i < 20; i++) {
		pd_buf_adds(b, "- ⚠️ ");
		pd_md_text(b, d->warnings.v[i], 500);
		pd_buf_addch(b, '\n');
	}
	if (legend)
		pd_buf_addf(b, "\n%s", legend->data);
	pd_buf_addf(b, "\n<sub>perfdiff %s</sub>\n</details>\n", PD_VERSION);
}

/* A metric table's changes, at most 50 rows, open when it moved. */
static void md_mtable(struct pd_buf *b, const struct pd_tdiff *t,
		      size_t tail_len)
{
	size_t r, k, shown = 0;

	pd_buf_addf(b, "\n<details%s><summary>Table ",
		    pd_table_notable(t) ? " open" : "");
	pd_md_text(b, t->base->name, 100);
	pd_buf_addf(b,
		    " (%zu changes)</summary>\n\n| Key | Measure | Verdict |"
		    " Baseline | Candidate | Δ |\n|---|---|---|--:|--:|--:|\n",
		    pd_table_notable(t));
	for (r = 0; r < t->rows.n; r++)
		for (k = 0; k < t->nmeasures; k++) {
			const struct pd_metric *m = &t->rows.v[r].m[k];
			struct pd_buf key = PD_BUF_INIT;

			if (m->status == PD_SAME ||
			    (m->status == PD_INCONCLUSIVE &&
			     !pd_metric_beyond(m)) ||
			    shown >= 50 ||
			    b->len + 2000 > PD_MD_LIMIT - tail_len)
				continue;
			shown++;
			pd_mtable_key_text(&key, t->rows.v[r].key);
			pd_buf_adds(b, "| ");
			pd_md_text(b, key.buf, 120);
			pd_buf_adds(b, " | ");
			pd_md_text(b, t->base->measures.v[k], 60);
			pd_buf_addf(b, " | %s%s | %.6g | %.6g | ",
				    pd_status_name(m->status),
				    m->tested ? "" : " (untested)", m->base,
				    m->cand);
			pd_fmt_pct(&key, m->delta_pct);
			pd_md_nobreak(b, &key);
			pd_buf_adds(b, " |\n");
			pd_buf_release(&key);
		}
	pd_buf_adds(b, "\n</details>\n");
}

/*
 * A section of rows in a collapsed <details>, "TITLE (N NOTE)", using at
 * most limit characters; the space used is taken off *budget.
 */
static void md_details(struct pd_buf *b, const struct pd_diff *d,
		       const char *title, const char *note, struct pd_row *rows,
		       size_t n, size_t limit, size_t *budget)
{
	size_t start = b->len;

	pd_buf_addf(b, "\n<details><summary>%s (%zu%s)</summary>\n\n", title, n,
		    note);
	md_table(b, d, rows, n, limit);
	pd_buf_adds(b, "\n</details>\n");
	*budget -= b->len - start;
}

/* An open section of rows under a heading; the space used off *budget. */
static void md_section(struct pd_buf *b, const struct pd_diff *d,
		       const char *title, struct pd_row *rows, size_t n,
		       size_t limit, size_t *budget)
{
	size_t start = b->len;

	pd_buf_addf(b, "\n#### %s\n\n", title);
	md_table(b, d, rows, n, limit);
	*budget -= b->len - start;
}

/* As the text report: what moved past the threshold, undecided. */
static void undecided_line(struct pd_buf *b, const struct pd_diff *d)
{
	size_t at = b->len;

	pd_buf_adds(b, "\nUndecided, past the threshold but not told from"
		       " noise (record longer or repeat runs):");
	if (pd_fmt_undecided(b, d, md_func))
		pd_buf_adds(b, "\n");
	else
		pd_buf_setlen(b, at);
}

int pd_report_md(FILE *f, const struct pd_diff *d,
		 const struct pd_report_opts *o)
{
	struct pd_buf b = PD_BUF_INIT, tail = PD_BUF_INIT;
	struct pd_row *reg, *imp, *add, *rem, *rest, *sys;
	size_t nreg, nimp, nadd, nrem, nsys, nrest = 0, i, budget;
	int rc;

	(void)o;
	pd_buf_addf(&b, "**perfdiff: %s** — ", pd_status_name(d->verdict));
	pd_fmt_headline(&b, d, md_func);
	pd_buf_adds(&b, "\n");
	undecided_line(&b, d);
	provenance(&tail, d);
	nreg = pd_report_rows(d, PD_REGRESSED, &reg);
	nimp = pd_report_rows(d, PD_IMPROVED, &imp);
	nadd = pd_report_rows(d, PD_ADDED, &add);
	nrem = pd_report_rows(d, PD_REMOVED, &rem);
	nsys = pd_report_system_rows(d, &sys);
	rest = pd_xmalloc((d->funcs.n + 1) * sizeof(*rest));
	for (i = 0; i < d->funcs.n; i++) {
		const struct pd_fdiff *fd = &d->funcs.v[i];

		if (fd->self.base <= 0 && fd->self.cand <= 0)
			continue;
		rest[nrest].f = fd;
		rest[nrest].m = &fd->self;
		rest[nrest++].metric = "self";
	}
	/* Space left for tables: the limit less head, tail and slack. */
	budget = PD_MD_LIMIT - b.len - tail.len - 600;
	if (nreg)
		md_section(&b, d, "Regressions", reg, nreg, budget * 2 / 5,
			   &budget);
	if (nimp)
		md_section(&b, d, "Improvements", imp, nimp, budget / 2,
			   &budget);
	if (nadd + nrem) {
		struct pd_row *both =
		    pd_xmalloc((nadd + nrem + 1) * sizeof(*both));

		memcpy(both, add, nadd * sizeof(*both));
		memcpy(both + nadd, rem, nrem * sizeof(*both));
		md_details(&b, d, "Added and removed functions", "", both,
			   nadd + nrem, budget / 3, &budget);
		free(both);
	}
	if (nsys)
		md_details(
		    &b, d, "System and unnamed library frames, set apart",
		    "; not in the verdict", sys, nsys, budget / 4, &budget);
	for (i = 0; i < d->tables.n; i++)
		md_mtable(&b, &d->tables.v[i], tail.len);
	if (nrest)
		md_details(&b, d, "All functions by self change", "", rest,
			   nrest, budget > 200 ? budget - 200 : 0, &budget);
	pd_buf_add(&b, tail.buf, tail.len);
	rc = pd_report_put(f, &b);
	free(reg);
	free(imp);
	free(add);
	free(rem);
	free(sys);
	free(rest);
	pd_buf_release(&b);
	pd_buf_release(&tail);
	return rc;
}
