/*
 * The comparisons of diff: one per series both sides have (docs/cli.md,
 * "Bundles"), or one of all the files when neither side is a bundle,
 * each its runs picked from the imported files, compared and described.
 */
#ifndef PD_COMPARE_SECTION_H
#define PD_COMPARE_SECTION_H

#include "compare/side.h"
#include "core/vec.h"
#include "model/func.h"
#include "report/report.h"
#include "stats/diff.h"

/*
 * One comparison: the runs of one series (docs/cli.md, "Bundles"), or all
 * the files when neither side is a bundle. at[i] are the runs' indices
 * among the imported files of side i.
 */
struct pd_section {
	struct pd_series key; /* cache NULL: no series */
	PD_VEC(size_t) at[2];
	const struct pd_profile **p[2];
	struct pd_funcs fn;
	struct pd_diff d;
	char *name; /* "warm perfview", for messages */
};

/*
 * Adds to x->at[i] the indices of side i's runs (among s[i].files) in
 * x's series, every one for plain files or a section of no series.
 */
void pd_section_runs(struct pd_section *x, const struct pd_run_side *s, int i);

/*
 * x's runs, imported in jobs (side 0's files, then side 1's), compared
 * into x->d over a function table of its own (flags: PD_FUNCS_*), with
 * the build differences, each side's provenance and only (what one side
 * lacks, or NULL) as warnings.
 */
void pd_section_diff(struct pd_section *x, unsigned flags,
		     const struct pd_settings *set, struct pd_import_job *jobs,
		     const struct pd_run_side *s, const char *only);

/* Frees what x holds (x itself stays the caller's). */
void pd_section_release(struct pd_section *x);

#endif
