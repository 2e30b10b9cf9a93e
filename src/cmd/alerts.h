/*
 * Alert states in the commands that read trends (docs/history.md,
 * "Alerts"): trend and culprit mark their change points with the stored
 * states, trend --record stores them, perfdiff alerts lists and sets them.
 */
#ifndef PD_CMD_ALERTS_H
#define PD_CMD_ALERTS_H

#include <stddef.h>

#include "core/compat.h"
#include "stats/trend.h"
#include "store/db.h"

/*
 * Marks t's alerts with their stored states and leaves out those marked
 * invalid, with a note; 0, or 2 with the message printed.
 */
PD_NODISCARD int pd_trend_mark_alerts(struct pd_db *db, struct pd_trend *t);
/*
 * trend --record: stores t's new alerts in the history at path (opened
 * for writing) and marks t; *fresh counts the new regressions. 0, or 2
 * with the message printed.
 */
PD_NODISCARD int pd_trend_record_alerts(const char *path, struct pd_trend *t,
					size_t *fresh);

#endif
