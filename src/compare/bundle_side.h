/*
 * Bundle folders as comparison sides: their profiles as runs grouped in
 * series, a bundle's perf stat counters joined to a run, what differs
 * between the two builds and each side's provenance. Nothing here prints:
 * errors come back in struct pd_err, warnings as the diff's warnings.
 */
#ifndef PD_COMPARE_BUNDLE_SIDE_H
#define PD_COMPARE_BUNDLE_SIDE_H

#include <stddef.h>

#include "core/compat.h"
#include "core/err.h"
#include "import/bundle.h"
#include "import/import.h"
#include "model/profile.h"
#include "stats/diff.h"

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

/* Paths, owned by whoever made them (a bundle's by the bundle). */
struct pd_run_paths {
	const char **v;
	size_t n, cap;
};

/*
 * A bundle folder as one side: every supported profile under profiles/ is
 * a run, keyed by its cache state and tool (docs/cli.md, "Bundles"): the
 * comparison groups them into series. Adds their paths to files and their
 * series to keys, reads build_meta.json into meta; *stat (when stat is
 * not NULL) is the bundle's perf stat output (perf.stat.txt), whose
 * counters join the first run's tables, or NULL. 0, or an error code
 * with err set (a bundle that cannot be read, or has no profile).
 */
PD_NODISCARD int pd_expand_bundle(const char *dir, struct pd_run_paths *files,
				  struct pd_series_list *keys,
				  struct pd_bundle *b, struct pd_meta *meta,
				  const char **stat, struct pd_err *err);

/* Warns (into d's warnings, first) about build metadata that differs. */
void pd_meta_warn(struct pd_diff *d, const struct pd_meta *a,
		  const struct pd_meta *b);

/*
 * Provenance of one side for the reports: the bundle's commit, scenario,
 * cache state and (when given) tool when b is given, and every run (paths)
 * when there are several or a bundle.
 */
void pd_side_provenance(struct pd_diff *d, int cand, const struct pd_bundle *b,
			const char *tool, const char *const *paths, size_t n);

/*
 * Moves the tables of the perf stat output at path into p, and its notes.
 * 0, or the import's error code with err set.
 */
PD_NODISCARD int pd_attach_stat(struct pd_profile *p, const char *path,
				const struct pd_import_opts *io,
				struct pd_err *err);

#endif
