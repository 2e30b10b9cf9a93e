/*
 * Report writers: each renders a computed pd_diff (or one profile) to a
 * stdio stream and never recomputes statistics. Writers return 0 or -PD_EIO;
 * the caller owns the stream and decides where it goes.
 */
#ifndef PD_REPORT_H
#define PD_REPORT_H

#include <regex.h>
#include <stdio.h>

#include "core/buf.h"
#include "core/err.h"
#include "core/utf8.h"
#include "stats/diff.h"

/* How the text report orders each table's rows (--sort). */
enum pd_sort {
	PD_SORT_IMPACT, /* |change| as a share of the baseline (default) */
	PD_SORT_SELF,	/* |change| of the function's own time */
	PD_SORT_TOTAL,	/* |change| of its total */
	PD_SORT_CUM,	/* its total in the candidate, as pprof -cum */
};

struct pd_report_opts {
	int top;	   /* rows per table in text/md, default 20 */
	int color;	   /* ANSI colours in text */
	int warnings;	   /* warnings were also written to stderr */
	enum pd_sort sort; /* text: the order of rows */
};

PD_NODISCARD int pd_report_text(FILE *f, const struct pd_diff *d,
				const struct pd_report_opts *o);
PD_NODISCARD int pd_report_md(FILE *f, const struct pd_diff *d,
			      const struct pd_report_opts *o);
/* One series of a bundle diff (docs/cli.md, "Bundles"), for Markdown. */
struct pd_md_series {
	const char *cache, *tool;
	const struct pd_diff *d;
};
/*
 * A function that regressed cold while its tool's warm series held
 * (docs/cli.md, "Cold against warm"); delta_pct: its self time's, cold.
 */
struct pd_md_cold {
	const char *tool, *func, *module;
	double delta_pct;
};
/*
 * A function's cold-cache cost in both builds (its cold self time less
 * its warm one, docs/cli.md "Cold against warm"), and its change judged.
 */
struct pd_cold_cost {
	const char *tool, *func, *module; /* borrowed */
	enum pd_unit unit;
	double base, cand;     /* cold - warm self weight, each build */
	double delta;	       /* its change, beyond each series' shift */
	double lo, hi;	       /* delta's 95 % interval */
	double p, q;	       /* no change; q: Benjamini-Hochberg */
	enum pd_status status; /* PD_REGRESSED, PD_IMPROVED or PD_SAME */
};
/* Cold against warm, for the lines under a report's first one. */
struct pd_md_colds {
	const struct pd_md_cold *only; /* regressed cold, warm held */
	size_t nonly;
	const struct pd_cold_cost *cost; /* changed ones first */
	size_t ncost;
};
/*
 * The Markdown of n series in one comment, under PD_LIMIT_MARKDOWN_BYTES
 * (docs/reports.md, "Markdown"): a first line naming each series' verdict
 * and each regressed function, then the regressed series, the improved
 * and the rest, each as pd_report_md shows one; the regressions whole,
 * what did not fit left out and said. only: what one side lacks, or "";
 * cold: the "cold cache only" line and the changed cold-cache costs
 * under the first.
 */
PD_NODISCARD int pd_report_md_series(FILE *f, const struct pd_md_series *s,
				     size_t n, const char *only,
				     const struct pd_md_colds *cold);
PD_NODISCARD int pd_report_json(FILE *f, const struct pd_diff *d,
				const struct pd_report_opts *o);
/*
 * One self-contained HTML file. pa/pb (may be NULL) give the flame graph
 * and callers/callees; fn is the diff's function table.
 */
PD_NODISCARD int pd_report_html(FILE *f, const struct pd_diff *d,
				const struct pd_report_opts *o,
				const struct pd_profile *pa,
				const struct pd_profile *pb,
				struct pd_funcs *fn);

/*
 * Writes root and a newline to f as cJSON_Print would, streamed; 0 or
 * PD_EIO.
 */
PD_NODISCARD int pd_json_write(FILE *f, const struct cJSON *root);

/* An XLSX workbook (libxlsxwriter) written to path. */
PD_NODISCARD int pd_report_xlsx(const char *path, const struct pd_diff *d,
				struct pd_err *err);
/* difffolded-compatible "stack base cand" lines, sorted by stack. */
PD_NODISCARD int pd_report_folded(FILE *f, const struct pd_profile *a,
				  const struct pd_profile *b);
/*
 * How one profile can be written as folded stacks so that it reads back
 * to the same verdicts (docs/cli.md, "perfdiff convert"): 0 its weights as
 * they are (they are its sample counts); 1 its sample counts, the weights
 * being *per times them; -1 not at all, err saying why (exact counts, or
 * weights no fixed multiple of the counts, such as CPU time per sample).
 */
PD_NODISCARD int pd_folded_plan(const struct pd_profile *p, double *per,
				struct pd_err *err);
/* One profile's stacks with their sample counts (plan 1). */
PD_NODISCARD int pd_report_folded_counts(FILE *f, const struct pd_profile *p);

/*
 * Trends (trend.c): a summary for a nightly mail (text, md), JSON for
 * scripts, HTML with one SVG chart per series, XLSX with line charts.
 */
struct pd_trend;
PD_NODISCARD int pd_trend_text(FILE *f, const struct pd_trend *t, int color);
PD_NODISCARD int pd_trend_md(FILE *f, const struct pd_trend *t);
PD_NODISCARD int pd_trend_json(FILE *f, const struct pd_trend *t);
PD_NODISCARD int pd_trend_html(FILE *f, const struct pd_trend *t);
PD_NODISCARD int pd_trend_xlsx(const char *path, const struct pd_trend *t,
			       struct pd_err *err);
/*
 * "parse_record +40.0 % from a1b2c3d (1 of 3 commits, p = 0.0002)": series
 * i's step in the newest commits; 0 when it has none.
 */
int pd_fmt_watch(struct pd_buf *b, const struct pd_trend *t, size_t i);
/* True when some series has a step in its newest commits. */
int pd_trend_watching(const struct pd_trend *t);
/* "total +6.2 % at a1b2c3d, from parse_record +18 %, ..." */
void pd_fmt_alert(struct pd_buf *b, const struct pd_trend *t, size_t alert,
		  int max_funcs);
/*
 * A stored alert's group and state after pd_fmt_alert's text
 * (" [alert #3: expected]"); nothing for a change point not stored.
 */
void pd_fmt_alert_state(struct pd_buf *b, const struct pd_trend *t,
			size_t alert);

/* One profile as speedscope JSON, one sampled profile per thread. */
PD_NODISCARD int pd_report_speedscope(FILE *f, const struct pd_profile *p,
				      const char *exporter);

/*
 * One profile: per-function self/total, for `perfdiff show`; the
 * import's notes at the end when notes is set.
 */
PD_NODISCARD int pd_report_profile_text(FILE *f, const struct pd_profile *p,
					int top, int notes);
PD_NODISCARD int pd_report_profile_json(FILE *f, const struct pd_profile *p);

/* Escaping: HTML text (and attribute values); Markdown table text. */
void pd_html_text(struct pd_buf *b, const char *s);
void pd_md_text(struct pd_buf *b, const char *s, size_t max_chars);

/* Shared formatting (fmt.c). */
void pd_fmt_weight(struct pd_buf *b, double v, enum pd_unit u);
const char *pd_unit_display(enum pd_unit u);
double pd_unit_display_scale(enum pd_unit u);
void pd_fmt_pct(struct pd_buf *b, double pct);
void pd_fmt_ratio_ci(struct pd_buf *b, const struct pd_metric *m);
void pd_fmt_p(struct pd_buf *b, double p);
/*
 * The headline: the function that moved most by name (written by name()),
 * then the total and the counts: "parse_record +33.0 % (self), total
 * +15.2 % (CI +9.1 … +21.6 %); 1 function regressed".
 */
void pd_fmt_headline(struct pd_buf *b, const struct pd_diff *d,
		     void (*name)(struct pd_buf *, const struct pd_diff *,
				  uint32_t));
/* How the rows were tested, as one sentence for the settings. */
void pd_fmt_method(struct pd_buf *b, const struct pd_diff *d);
/* Function display name "name" plus " [module]" when known. */
void pd_fmt_func(struct pd_buf *b, const struct pd_diff *d, uint32_t func);
/* Rows for the short tables: notable (function, metric) pairs by impact. */
struct pd_row {
	const struct pd_fdiff *f;
	const struct pd_metric *m;
	const char *metric; /* "self" or "total" */
};
/*
 * The system frames set apart that changed (regressed, improved, added,
 * removed, in that order), as rows; the caller frees *rows.
 */
size_t pd_report_system_rows(const struct pd_diff *d, struct pd_row **rows);
/* Whether a metric's ratio lies beyond its threshold, tested or not. */
static inline int pd_metric_beyond(const struct pd_metric *m)
{
	return m->ratio >= 1 + m->tau_pct / 100 ||
	       m->ratio <= 1 / (1 + m->tau_pct / 100);
}
/*
 * The program's functions whose own time moved past the threshold, by at
 * least --min-impact of the total, and stayed inconclusive: what the
 * data could not decide, largest impact first (caller frees *rows).
 */
size_t pd_report_undecided(const struct pd_diff *d, struct pd_row **rows);
/*
 * Under a headline that found nothing (nothing regressed or improved):
 * " NAME +21.7 % (MDE 34 %), ..." for the three largest undecided
 * functions, names written by name(); 0 and nothing written otherwise.
 */
int pd_fmt_undecided(struct pd_buf *b, const struct pd_diff *d,
		     void (*name)(struct pd_buf *, const struct pd_diff *,
				  uint32_t));
size_t pd_report_rows(const struct pd_diff *d, enum pd_status want,
		      struct pd_row **rows);
/* The same rows in the order sort names. */
size_t pd_report_rows_by(const struct pd_diff *d, enum pd_status want,
			 enum pd_sort sort, struct pd_row **rows);
/*
 * Several runs per side: the largest function whose self verdict is
 * inconclusive, for "take N runs per side" advice; NULL when none.
 */
const struct pd_fdiff *pd_report_needs_runs(const struct pd_diff *d);
/* "12 threads: main 60 %, worker 30 %, ..., 9 more" (nothing for one). */
void pd_fmt_threads(struct pd_buf *b, const struct pd_side *s);
/* How many (row, measure) changes of a table are worth listing. */
size_t pd_table_notable(const struct pd_tdiff *t);
/*
 * Appends a number's Markdown cell with nothing a line may break at (no-
 * break spaces, also around an ellipsis): in a narrow GitHub column
 * "+84.2 %" must not wrap into "+84.2" over "%". Empties cell.
 */
void pd_md_nobreak(struct pd_buf *b, struct pd_buf *cell);
/* Writes a whole buffer; returns 0 or -PD_EIO. */
PD_NODISCARD int pd_report_put(FILE *f, const struct pd_buf *b);

/* What peek reads: the pattern, each side's profiles, the function table. */
struct pd_peek_in {
	const regex_t *re;
	const struct pd_profile *const *pa;
	const struct pd_profile *const *pb;
	size_t na, nb;
	struct pd_funcs *fn;
};
/*
 * `perfdiff peek`: callers and callees of each function of d whose
 * "name [module]" matches, text or JSON. Returns how many matched, or a
 * negative code when the write failed.
 */
PD_NODISCARD int pd_report_peek(FILE *f, const struct pd_diff *d,
				const struct pd_peek_in *pk, int json);

#endif
