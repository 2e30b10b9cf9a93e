/*
 * What the trend reports share (trend.c, trend_html.c, trend_xlsx.c): not for
 * other layers.
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
/* A commit's sha cut to the reports' width. */
/*
 * The page comparing commit (an index) with its predecessor, from
 * t->page_url (perfdiff site); 0 when it has none.
 */
int pd_trend_page_url(struct pd_buf *b, const struct pd_trend *t,
		      size_t commit);
void pd_trend_short_sha(struct pd_buf *b, const char *sha);
/*
 * The commit's address from t->commit_url into b, {sha} replaced and
 * characters a link or an attribute could read as syntax percent-encoded;
 * 0 when no template was given.
 */
int pd_trend_commit_url(struct pd_buf *b, const struct pd_trend *t,
			const char *sha);
/* A series' value in its unit, and its change from first to last commit. */
void pd_trend_series_value(struct pd_buf *b, const struct pd_trend *t,
			   const struct pd_tseries *s, double v);
double pd_trend_series_change(const struct pd_tseries *s);

#endif
