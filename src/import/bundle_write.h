/*
 * Writing a bundle folder as the runbook lays it out (docs/history.md,
 * "Bundles"): its folders, the templates and a build_meta.json filled in
 * from the compilers, the compiler flags, the datasets and this host.
 * bundle.h reads what this writes.
 */
#ifndef PD_BUNDLE_WRITE_H
#define PD_BUNDLE_WRITE_H

#include <stddef.h>

#include "core/err.h"

/* What the caller knows of the run; the strings stay the caller's. */
struct pd_bundle_spec {
	const char *sha;	 /* the build's commit, full id */
	const char *commit_date; /* that commit's own date, or NULL */
	const char *scenario, *cache;
	const char *cflags_from;     /* a compile_commands.json, or NULL */
	const char *build_cmd;	     /* or NULL */
	const char *const *datasets; /* hashed into build_meta.json */
	size_t ndatasets;
};

/*
 * Makes dir (and its parents) with dist/, inputs/, profiles/, the two
 * templates of docs/history.md's bundle layout, for the run's arguments
 * and for notes (kept when they exist), and
 * build_meta.json, which must not exist yet. 0, or an error code with
 * err's one line naming the file and the problem (a compilation database
 * that is no JSON array, a dataset that cannot be read, a folder that
 * cannot be made, a build_meta.json already there). Files are written
 * to a temporary name and renamed into place.
 */
PD_NODISCARD int pd_bundle_write(const char *dir,
				 const struct pd_bundle_spec *spec,
				 struct pd_err *err);

#endif
