/*
 * Loading a trend from the history: the series of a scenario's total and
 * of its most important functions over the stored commits.
 */
#ifndef PD_STORE_TREND_H
#define PD_STORE_TREND_H

#include <regex.h>

#include "stats/trend.h"
#include "store/db.h"
#include "store/key.h"

struct pd_trend_query {
	struct pd_hkey key;	 /* cache, tool: NULL to settle */
	const char *since;	 /* ISO date; NULL for all */
	size_t last;		 /* last N commits; 0 for all */
	size_t top;		 /* function series wanted */
	const regex_t *function; /* only names matching; or NULL */
	char *const *order;	 /* git order, oldest first */
	size_t norder;		 /* 0: commit-date order */
	double threshold_pct;	 /* where nothing is learned */
};

/*
 * Fills t (scenario, series with points, thresholds) for pd_trend_analyse.
 * Functions are ranked by impact over the window: their mean share of the
 * run plus how far that share moved from the first commit to the last.
 * Notes about commits left out go to t->notes.
 */
PD_NODISCARD int pd_store_trend(struct pd_db *db,
				const struct pd_trend_query *q,
				struct pd_trend *t, struct pd_err *err);

#endif
