/*
 * The parts of the Markdown report, shared by md.c (one comparison, each
 * part within a size) and md_series.c (several series in one comment,
 * the parts of each shortened in the order docs/reports.md gives).
 */
#ifndef PD_REPORT_MD_INT_H
#define PD_REPORT_MD_INT_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "report/report.h"

/* The parts of one comparison's report, in the order they are shown. */
enum md_part {
	MD_HEAD,      /* the headline and the undecided line */
	MD_REGRESSED, /* an open table */
	MD_IMPROVED,  /* an open table */
	MD_ONE_SIDED, /* added and removed functions, collapsed */
	MD_SYSTEM,    /* system frames set apart, collapsed */
	MD_TABLES,    /* metric tables (perf stat, WPA) */
	MD_ALL,	      /* every function by self change, collapsed */
	MD_TAIL,      /* settings and provenance, collapsed */
	MD_NPARTS
};

/*
 * A comparison as the Markdown report shows it: rows[k] are part k's rows
 * (owned, NULL for the head, the tables and the tail), nrows[k] how many
 * (for MD_TABLES the measures that changed, at most 50 a table).
 */
struct md_report {
	const struct pd_diff *d;
	struct pd_row *rows[MD_NPARTS];
	size_t nrows[MD_NPARTS];
	const char *how; /* Markdown ending a cut table's note: "see ..." */
	int legend;	 /* the tail ends with the legend and the version */
};

/*
 * Fills r from d (which, and how, must outlive it). Release with
 * pd_md_report_release.
 */
void pd_md_report_init(struct md_report *r, const struct pd_diff *d,
		       const char *how, int legend);
void pd_md_report_release(struct md_report *r);

/*
 * Appends part k of r using at most limit bytes (SIZE_MAX: all of it): a
 * table stops at the last row that fits and says how many rows it left
 * out. Headings, the head and the tail are never cut, so a part may use
 * more than a limit too small for them. Returns the rows shown; *left
 * gets the rows left out.
 */
size_t pd_md_part(struct pd_buf *b, const struct md_report *r, enum md_part k,
		  size_t limit, size_t *left);

/* name in <code> (at most max characters), then after sep its module. */
void pd_md_name_module(struct pd_buf *b, const char *name, const char *mod,
		       const char *sep, size_t max);
/* "<code>NAME</code> <sub>MODULE</sub>", the name cut at max characters. */
void pd_md_func(struct pd_buf *b, const struct pd_diff *d, uint32_t func,
		size_t max);

#endif
