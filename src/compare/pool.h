/*
 * The import pool of the comparison commands: a side's files imported
 * two at a time, each into its own profile (each profile owns its string
 * table, so the threads share nothing).
 */
#ifndef PD_COMPARE_POOL_H
#define PD_COMPARE_POOL_H

#include <stddef.h>

#include "core/compat.h"
#include "core/err.h"
#include "import/import.h"
#include "model/profile.h"

/* One file to import; p and err are the job's, released by the caller. */
struct pd_import_job {
	const char *path;
	const struct pd_import_opts *o;
	struct pd_profile p;
	struct pd_err err;
	int rc;
};

/*
 * Imports paths[0..n) with io into jobs[0..n) (the caller's array) on
 * two threads. Every job's profile is initialised, whatever happens:
 * release them with pd_profile_release. 0, or the error code of the
 * first file (in order) that failed, with its message copied into err.
 */
PD_NODISCARD int pd_import_pool(const char *const *paths, size_t n,
				const struct pd_import_opts *io,
				struct pd_import_job *jobs, struct pd_err *err);

#endif
