/*
 * What diff, show, check and compare share: importing files (the pool
 * of compare/pool.h) with the first error said, and rendering.
 */
#ifndef PD_CMD_RUN_H
#define PD_CMD_RUN_H

#include <regex.h>

#include "cmd/parse.h"
#include "compare/bundle_side.h"
#include "compare/pool.h"
#include "core/compat.h"
#include "import/bundle.h"
#include "import/import.h"
#include "report/report.h"
#include "stats/diff.h"

/* Writes the report; returns the exit status (0, 1, 2; check: 125). */
PD_NODISCARD int pd_render(struct pd_diff *d, struct pd_args *r,
			   const struct pd_profile *pa,
			   const struct pd_profile *pb, struct pd_funcs *fn);

/*
 * The parts of pd_render, for a report of several comparisons: d's
 * warnings on stderr (after "SERIES: " when series is given); d in
 * r->fmt (not xlsx) written to f, 0 or negative; and the exit status
 * of d once written (0, 1; check: 125).
 */
void pd_render_warnings(const struct pd_diff *d, struct pd_args *r,
			const char *series);
PD_NODISCARD int pd_render_body(FILE *f, struct pd_diff *d, struct pd_args *r,
				const struct pd_profile *pa,
				const struct pd_profile *pb,
				struct pd_funcs *fn);
int pd_render_status(const struct pd_diff *d, struct pd_args *r);

/* Imports paths on two threads; prints the first error; 0 or -1. */
PD_NODISCARD int pd_import_all(const char *const *paths, size_t n,
			       const struct pd_import_opts *io,
			       struct pd_import_job *jobs);

/*
 * Whether p can be written as folded stacks that read back to the same
 * verdicts (pd_folded_plan): -1 after saying why not, 0 as they are, 1 as
 * sample counts after a warning that the weights stay behind.
 */
int pd_folded_plan_say(const struct pd_profile *p, int counts);

/* How show and convert write their one profile. */
struct pd_one_out {
	int fmt;	    /* PD_FMT_TEXT, _JSON, _FOLDED or _SPEEDSCOPE */
	const char *output; /* NULL: standard output */
	int counts;	    /* folded: sample counts whatever the weights */
	int top;	    /* text: rows */
	int notes;	    /* say the import's notes on stderr */
	int text_notes;	    /* text: repeat them in the report */
	int stacks_only;    /* refuse a profile of metric tables alone */
};

/* Imports path with io and writes it as o says; the exit status. */
PD_NODISCARD int pd_write_one(const char *path, const struct pd_import_opts *io,
			      const struct pd_one_out *o);

/* check with a stored side (db:REV...): the exit status. */
PD_NODISCARD int pd_check_db(struct pd_args *r, char **operands);

#endif
