/*
 * What the trend reports share (trend.c, trend_xlsx.c): not for other
 * layers.
 */
#ifndef PD_REPORT_TREND_INT_H
#define PD_REPORT_TREND_INT_H

#include "core/buf.h"
#include "stats/trend.h"

/* A series' unit as shown, and the factor from stored values to it. */
const char *pd_trend_series_unit(const struct pd_trend *t,
				 const struct pd_tseries *s);
double pd_trend_series_scale(const struct pd_trend *t,
			     const struct pd_tseries *s);
/*
 * "cannot detect change points with ..." when the history is too short
 * for the permutation test to reach --p; 0 (nothing written) otherwise.
 */
int pd_trend_quiet_text(struct pd_buf *b, const struct pd_trend *t);
/* The scenario, cache, tool, commits and series counted, one line. */
void pd_trend_heading(struct pd_buf *b, const struct pd_trend *t);

#endif
