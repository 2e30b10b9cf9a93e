/*
 * A comparison's verdict as an exit status (docs/cli.md, "Exit status"):
 * diff(1)'s for diff and compare, git bisect run's for check.
 */
#ifndef PD_COMPARE_STATUS_H
#define PD_COMPARE_STATUS_H

#include <regex.h>

#include "stats/diff.h"

/*
 * 1 when d regressed, else 0. With check: 1 (bad) when a function whose
 * name fre matches (or, when function is NULL, anything) regressed, 125
 * (skip) when the evidence cannot tell, 0 (good) when it is the same or
 * better; when function is given and no function matches it, 125 with
 * *unmatched set to 1 (the caller says so).
 */
int pd_compare_status(const struct pd_diff *d, int check, const char *function,
		      const regex_t *fre, int *unmatched);

#endif
