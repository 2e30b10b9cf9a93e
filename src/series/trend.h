/*
 * A stored series read as trend, culprit and site read it (docs/cli.md,
 * "perfdiff trend"; docs/history.md, "Alerts"): loaded, its change points
 * found, marked with the states a team gave them, recorded as alerts;
 * which commit an --alert-after names; which alert a command answers
 * for. Nothing here prints: errors come back in struct pd_err.
 */
#ifndef PD_SERIES_TREND_H
#define PD_SERIES_TREND_H

#include <stddef.h>

#include "core/compat.h"
#include "core/err.h"
#include "stats/trend.h"
#include "store/db.h"
#include "store/trend.h"

/*
 * The series of q from db into t, analysed at p <= pmax (PD_TREND_REPS,
 * PD_TREND_PERSIST) and marked (pd_series_mark_alerts). 0, or an error
 * code with err set and t released.
 */
PD_NODISCARD int pd_series_trend(struct pd_db *db,
				 const struct pd_trend_query *q, double pmax,
				 struct pd_trend *t, struct pd_err *err);
/*
 * Marks t's alerts with their stored states and leaves out those marked
 * invalid, with a note in t; 0 or an error code with err set.
 */
PD_NODISCARD int pd_series_mark_alerts(struct pd_db *db, struct pd_trend *t,
				       struct pd_err *err);
/*
 * trend --record: stores t's new alerts in the history at path (opened
 * for writing) and marks t; *fresh counts the new regressions. 0 or an
 * error code with err set.
 */
PD_NODISCARD int pd_series_record_alerts(const char *path, struct pd_trend *t,
					 size_t *fresh, struct pd_err *err);
/*
 * The index in t's commits of --alert-after rev: resolved by git in repo
 * when repo is given, else a stored sha prefix. -1 with err set when it
 * is none of them, or more than one.
 */
PD_NODISCARD long pd_series_commit(const struct pd_trend *t, const char *repo,
				   const char *rev, struct pd_err *err);
/*
 * trend's answer without --state or --record: whether an alert after
 * commit index after (-1: any) is a regression still open (not marked
 * expected, fixed or backed out). An improvement is news, not a failure.
 */
int pd_series_alerting(const struct pd_trend *t, long after);
/*
 * culprit's change: the latest alert after commit index after (-1: any)
 * of a regression (with improvements, of any change), not marked
 * expected, that moved a function when by_function (the total alone does
 * not decide then); NULL when none.
 */
const struct pd_alert *pd_series_latest(const struct pd_trend *t, long after,
					int improvements, int by_function);
/*
 * trend --state FILE: the first bad shas already reported, one a line.
 * t's regressions not among them are added (the file rewritten whole).
 * 1 when one of them is news (with recorded, only those --record stored
 * as new count: a change the history knew, or one a team triaged, is not
 * news to a file that missed it), 0 when not, -1 with err set.
 */
PD_NODISCARD int pd_series_state_update(const char *path,
					const struct pd_trend *t, int recorded,
					struct pd_err *err);

#endif
