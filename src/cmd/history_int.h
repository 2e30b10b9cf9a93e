/*
 * What the history commands share (history.c: ingest and runs;
 * bundle_init.c: bundle init): their options and how they are parsed.
 */
#ifndef PD_CMD_HISTORY_INT_H
#define PD_CMD_HISTORY_INT_H

#include "core/vec.h"

struct hist_args {
	const char *db, *sha, *scenario, *cache, *repo, *cflags_from,
	    *build_cmd, *fmt;
	int verbose, rekey;
	PD_VEC(const char *) datasets;
};

/*
 * Parses the options of history command cmd (the option table's set for
 * it): 0 to go on, 1 after printing the help, -1 after an error.
 */
int pd_hist_parse(int argc, char **argv, struct hist_args *a, const char *usage,
		  const char *cmd);

#endif
