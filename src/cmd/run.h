/*
 * What diff, show, check and compare share: importing
 * files on two threads, bundle operands, metadata warnings and rendering.
 */
#ifndef PD_CMD_RUN_H
#define PD_CMD_RUN_H

#include <regex.h>

#include "cmd/parse.h"
#include "core/compat.h"
#include "import/bundle.h"
#include "import/import.h"
#include "report/report.h"
#include "stats/diff.h"

struct job {
	const char *path;
	const struct pd_import_opts *o;
	struct pd_profile p;
	struct pd_err err;
	int rc;
};

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
			       struct job *jobs);

/* Warns about build metadata that differs between the two sides. */
void pd_meta_warn(struct pd_diff *d, const struct pd_meta *a,
		  const struct pd_meta *b);

/*
 * The series of a bundle's runs (docs/cli.md, "Bundles"): its cache state
 * ("warm", "cold" or PD_CACHE_UNSPECIFIED) and the tool that recorded it
 * (pd_tool_name: from the file's name, else its format). Both strings
 * are static or owned by the bundle.
 */
struct pd_series {
	const char *cache, *tool;
};
struct pd_series_list {
	struct pd_series *v;
	size_t n, cap;
};

/*
 * A bundle folder as one side: every supported profile under profiles/ is
 * a run. Adds their paths to files and their series to keys.
 */
PD_NODISCARD int pd_expand_bundle(const char *dir, struct pd_strlist *files,
				  struct pd_series_list *keys,
				  struct pd_bundle *b, struct pd_meta *meta,
				  const char **stat);
/*
 * Provenance of one side for the reports: the bundle's commit, scenario,
 * cache state and (when given) tool when b is given, and every run (paths)
 * when there are several or a bundle.
 */
void pd_side_provenance(struct pd_diff *d, int cand, const struct pd_bundle *b,
			const char *tool, const char *const *paths, size_t n);
/* Moves the tables of the perf stat output at path into p. */
PD_NODISCARD int pd_attach_stat(struct pd_profile *p, const char *path,
				const struct pd_import_opts *io);

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
