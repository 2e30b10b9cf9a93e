/*
 * What the trend's two halves share: reading the runs and series
 * (trend.c) and choosing which functions to show (trend_rank.c).
 */
#ifndef PD_STORE_TREND_INT_H
#define PD_STORE_TREND_INT_H

#include <regex.h>
#include <stdint.h>

#include "core/compat.h"
#include "store/db.h"
#include "store/trend.h"

struct trun {
	int64_t id;
	double total, interval;
	size_t commit;
};

struct tcommit {
	char *sha, *date;
	size_t first_run, nruns; /* in the runs vector, after regrouping */
	long order;		 /* position in git order, -1 unknown */
};

struct rank {
	double *mean, *first, *last; /* shares, summed */
	size_t n, n1, n2;
	char *allow; /* func id -> 1 if the pattern matches; or NULL */
	size_t nallow;
	double run_total;
	int in_first, in_last;
};

struct scored {
	size_t id;
	double score;
};

/*
 * Chooses the series to show: the functions --function allows, else the
 * q->top with the largest mean share plus change from the first commit
 * to the last (at least half a percent); *sc sorted, *nsel of them.
 */
PD_NODISCARD int pd_trend_rank(struct pd_db *db, const struct pd_trend_query *q,
			       const struct pd_trend *t,
			       const struct tcommit *cs, size_t ncs,
			       const struct trun *rs, size_t nrs,
			       struct rank *rk, struct scored **sc,
			       size_t *nsel, struct pd_err *err);
/* One function's self weight in each of the nrs runs (0 without a row). */
PD_NODISCARD int pd_trend_series(struct pd_db *db,
				 const struct pd_trend_query *q,
				 const struct pd_trend *t,
				 const struct trun *rs, size_t nrs, int64_t id,
				 double *w, struct pd_err *err);

#endif
