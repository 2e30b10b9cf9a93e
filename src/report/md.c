/*
 * Markdown for a pull-request comment (GitHub-flavoured). The first line is
 * the verdict and the number that matters; regressions and improvements
 * follow, the rest sits in collapsed <details>, provenance last. The whole
 * comment stays under PD_MD_LIMIT characters: the longest tables are cut
 * first and say how many rows were left out. Several series in one
 * comment are md_series.c's.
 */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/limits.h"
#include "core/blob.h"
#include "core/utf8.h"
#include "report/md_int.h"
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

/* The name (at most max characters) and, after sep, its module, small. */
void pd_md_name_module(struct pd_buf *b, const char *name, const char *mod,
		       const char *sep, size_t max)
{
	pd_buf_adds(b, "<code>");
	md_name(b, name, max);
	pd_buf_adds(b, "</code>");
	if (*mod) {
		pd_buf_addf(b, "%s<sub>", sep);
		pd_md_text(b, mod, 60);
		pd_buf_adds(b, "</sub>");
	}
}

static void md_func_sep(struct pd_buf *b, const struct pd_diff *d,
			uint32_t func, const char *sep, size_t max)
{
	pd_md_name_module(b, pd_func_name(d->fn, func),
			  pd_func_module(d->fn, func), sep, max);
}

void pd_md_func(struct pd_buf *b, const struct pd_diff *d, uint32_t func,
		size_t max)
{
	md_func_sep(b, d, func, " ", max);
}

static void md_func(struct pd_buf *b, const struct pd_diff *d, uint32_t func)
{
	md_func_sep(b, d, func, " ", NAME_MAX_CHARS);
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

	/* the interval printed low to high, a status of the table */
	assert(isnan(m->ci_low) || !(m->ci_low > m->ci_high));
	assert(m->status < PD_STATUS_COUNT);
	pd_buf_adds(b, "| ");
	/* the module under the name: the column as narrow as its name */
	md_func_sep(b, d, f->func, "<br>", NAME_MAX_CHARS);
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

/*
 * Appends rows while the budget allows, then a note ending with how
 * (within the budget too); returns how many were shown.
 */
static size_t md_table(struct pd_buf *b, const struct pd_diff *d,
		       const struct pd_row *rows, size_t n, size_t budget,
		       const char *how)
{
	struct pd_buf one = PD_BUF_INIT;
	size_t i, start = b->len, note = strlen(how) + 70;

	md_head(b, d);
	for (i = 0; i < n; i++) {
		pd_buf_reset(&one);
		md_row(&one, d, rows[i].f, rows[i].m, rows[i].metric);
		if (b->len - start + one.len + note > budget)
			break;
		pd_buf_add(b, one.buf, one.len);
	}
	pd_buf_release(&one);
	if (i < n)
		pd_buf_addf(b,
			    "\n_%zu more rows left out to fit a comment;"
			    " %s._\n",
			    n - i, how);
	return i;
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

/* Settings and provenance; with legend, the legend and the version last. */
static void provenance(struct pd_buf *b, const struct pd_diff *d, int legend)
{
	const struct pd_blob *text = pd_blob_get("reports/legend.md");
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
	if (!legend) {
		pd_buf_adds(b, "\n</details>\n");
		return;
	}
	if (text)
		pd_buf_addf(b, "\n%s", text->data);
	pd_buf_addf(b, "\n<sub>perfdiff %s</sub>\n</details>\n", PD_VERSION);
}

/* Whether a metric table's measure is shown: it changed, or may have. */
static int mtable_shown(const struct pd_metric *m)
{
	return m->status != PD_SAME &&
	       (m->status != PD_INCONCLUSIVE || pd_metric_beyond(m));
}

/* Rows of a metric table shown at most. */
#define MTABLE_ROWS 50

/*
 * A metric table's changes, at most MTABLE_ROWS rows while the part stays
 * 2000 bytes under limit (counted from start), open when it moved.
 * Returns the rows shown; *left counts those left out.
 */
static size_t md_mtable(struct pd_buf *b, const struct pd_tdiff *t,
			size_t start, size_t limit, size_t *left)
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

			if (!mtable_shown(m))
				continue;
			if (shown >= MTABLE_ROWS ||
			    b->len - start + 2000 > limit) {
				*left += shown < MTABLE_ROWS;
				continue;
			}
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
	return shown;
}

/* The measures of d's metric tables that md_mtable would show. */
static size_t mtable_rows(const struct pd_diff *d)
{
	size_t i, r, k, n = 0, one;

	for (i = 0; i < d->tables.n; i++) {
		const struct pd_tdiff *t = &d->tables.v[i];

		for (r = 0, one = 0; r < t->rows.n; r++)
			for (k = 0; k < t->nmeasures; k++)
				one += mtable_shown(&t->rows.v[r].m[k]);
		n += one < MTABLE_ROWS ? one : MTABLE_ROWS;
	}
	return n;
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

void pd_md_report_init(struct md_report *r, const struct pd_diff *d,
		       const char *how, int legend)
{
	struct pd_row *add, *rem, *all;
	size_t nadd, nrem, i, n = 0;

	memset(r, 0, sizeof(*r));
	r->d = d;
	r->how = how;
	r->legend = legend;
	r->nrows[MD_REGRESSED] =
	    pd_report_rows(d, PD_REGRESSED, &r->rows[MD_REGRESSED]);
	r->nrows[MD_IMPROVED] =
	    pd_report_rows(d, PD_IMPROVED, &r->rows[MD_IMPROVED]);
	nadd = pd_report_rows(d, PD_ADDED, &add);
	nrem = pd_report_rows(d, PD_REMOVED, &rem);
	r->rows[MD_ONE_SIDED] =
	    pd_xmalloc((nadd + nrem + 1) * sizeof(*r->rows[MD_ONE_SIDED]));
	memcpy(r->rows[MD_ONE_SIDED], add, nadd * sizeof(*add));
	memcpy(r->rows[MD_ONE_SIDED] + nadd, rem, nrem * sizeof(*rem));
	r->nrows[MD_ONE_SIDED] = nadd + nrem;
	free(add);
	free(rem);
	r->nrows[MD_SYSTEM] = pd_report_system_rows(d, &r->rows[MD_SYSTEM]);
	r->nrows[MD_TABLES] = mtable_rows(d);
	all = pd_xmalloc((d->funcs.n + 1) * sizeof(*all));
	for (i = 0; i < d->funcs.n; i++) {
		const struct pd_fdiff *fd = &d->funcs.v[i];

		if (fd->self.base <= 0 && fd->self.cand <= 0)
			continue;
		all[n].f = fd;
		all[n].m = &fd->self;
		all[n++].metric = "self";
	}
	r->rows[MD_ALL] = all;
	r->nrows[MD_ALL] = n;
}

void pd_md_report_release(struct md_report *r)
{
	size_t k;

	for (k = 0; k < MD_NPARTS; k++)
		free(r->rows[k]);
	memset(r, 0, sizeof(*r));
}

/* budget less used, never below 0. */
static size_t less(size_t budget, size_t used)
{
	return used < budget ? budget - used : 0;
}

/* Bytes of "\n</details>\n". */
#define DETAILS_END 12

/* The title of each part's table, and what its summary adds. */
static const char *const part_title[MD_NPARTS] = {
	[MD_REGRESSED] = "Regressions",
	[MD_IMPROVED] = "Improvements",
	[MD_ONE_SIDED] = "Added and removed functions",
	[MD_SYSTEM] = "System and unnamed library frames, set apart",
	[MD_ALL] = "All functions by self change",
};

size_t pd_md_part(struct pd_buf *b, const struct md_report *r, enum md_part k,
		  size_t limit, size_t *left)
{
	const struct pd_diff *d = r->d;
	size_t n = r->nrows[k], start = b->len, shown = 0, i;

	*left = 0;
	switch (k) {
	case MD_HEAD:
		pd_buf_addf(b, "**perfdiff: %s** — ",
			    pd_status_name(d->verdict));
		pd_fmt_headline(b, d, md_func);
		pd_buf_adds(b, "\n");
		undecided_line(b, d);
		return 0;
	case MD_TAIL:
		provenance(b, d, r->legend);
		return 0;
	case MD_TABLES:
		for (i = 0; i < d->tables.n; i++)
			shown +=
			    md_mtable(b, &d->tables.v[i], start, limit, left);
		return shown;
	case MD_REGRESSED:
	case MD_IMPROVED:
		if (!n)
			return 0;
		pd_buf_addf(b, "\n#### %s\n\n", part_title[k]);
		break;
	default:
		if (!n)
			return 0;
		pd_buf_addf(b, "\n<details><summary>%s (%zu%s)</summary>\n\n",
			    part_title[k], n,
			    k == MD_SYSTEM ? "; not in the verdict" : "");
	}
	/* the table's room: the limit less the heading and </details> */
	shown = md_table(b, d, r->rows[k], n,
			 less(limit, b->len - start + DETAILS_END), r->how);
	if (k != MD_REGRESSED && k != MD_IMPROVED)
		pd_buf_adds(b, "\n</details>\n");
	*left = n - shown;
	return shown;
}

/* Part k of r appended within limit; returns the bytes it took. */
static size_t put(struct pd_buf *b, const struct md_report *r, enum md_part k,
		  size_t limit)
{
	size_t start = b->len, left;

	(void)pd_md_part(b, r, k, limit, &left);
	return b->len - start;
}

int pd_report_md(FILE *f, const struct pd_diff *d,
		 const struct pd_report_opts *o)
{
	struct pd_buf b = PD_BUF_INIT, tail = PD_BUF_INIT;
	struct md_report r;
	size_t budget;
	int rc;

	(void)o;
	pd_md_report_init(&r, d, "see the JSON or HTML report", 1);
	put(&b, &r, MD_HEAD, SIZE_MAX);
	put(&tail, &r, MD_TAIL, SIZE_MAX);
	/* Space left for tables: the limit less head, tail and slack. */
	budget = less(PD_MD_LIMIT, b.len + tail.len + 600);
	budget = less(budget, put(&b, &r, MD_REGRESSED, budget * 2 / 5));
	budget = less(budget, put(&b, &r, MD_IMPROVED, budget / 2));
	budget = less(budget, put(&b, &r, MD_ONE_SIDED, budget / 3));
	budget = less(budget, put(&b, &r, MD_SYSTEM, budget / 4));
	budget = less(budget, put(&b, &r, MD_TABLES,
				  less(PD_MD_LIMIT, tail.len + b.len)));
	put(&b, &r, MD_ALL, less(budget, 200));
	pd_buf_add(&b, tail.buf, tail.len);
	rc = pd_report_put(f, &b);
	pd_md_report_release(&r);
	pd_buf_release(&b);
	pd_buf_release(&tail);
	return rc;
}
