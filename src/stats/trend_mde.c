/*
 * The smallest step a trend's window can show (statistics.md, "Trends",
 * "What a window can show"): a change point must stand out among commit
 * means, so a series whose commit means scatter needs a step that clears
 * the commit-level test at --p; a history called steady has shown no
 * step that large, and says nothing of smaller ones.
 */
#include <assert.h>
#include <math.h>
#include <stdlib.h>

#include "core/xalloc.h"
#include "stats/stats.h"
#include "stats/trend.h"

/* The commit means' logs in [from, to) that have runs, into y. */
static size_t segment_logs(const struct pd_tseries *s, size_t from, size_t to,
			   double lf, double *y)
{
	size_t i, n = 0;

	for (i = from; i < to; i++)
		if (s->pts.v[i].n)
			y[n++] = log(s->pts.v[i].mean + lf);
	return n;
}

/*
 * The spread of y[0..n) about its means on each side of the split that
 * leaves the least (each side 2 or more; none below 4): a step the
 * window holds but did not keep is not taken for noise. *parts: 1 or 2.
 */
static double segment_ss(const double *y, size_t n, size_t *parts)
{
	double best = pd_sum_sq(y, n);
	size_t k;

	*parts = 1;
	for (k = 2; n >= 4 && k + 2 <= n; k++) {
		double x = pd_sum_sq(y, k) + pd_sum_sq(y + k, n - k);

		if (x < best) {
			best = x;
			*parts = 2;
		}
	}
	return best;
}

double pd_trend_series_mde(const struct pd_tseries *s, double pmax,
			   size_t persist)
{
	double lf = pd_trend_log_floor(s), ss = 0, a, tc, *y;
	size_t i, n = 0, k = 0, from = 0, nseg = 0, places, half;

	if (persist < 1)
		persist = 1;
	for (i = 0; i < s->pts.n; i++)
		n += s->pts.v[i].n > 0;
	if (n < PD_TREND_BEFORE + persist || !(pmax > 0 && pmax < 1))
		return 0;
	/* segments bounded by the change points kept */
	y = pd_xmalloc(n * sizeof(*y));
	while (from < s->pts.n) {
		size_t to = k < s->changes.n ? s->changes.v[k++].at : s->pts.n;
		size_t m, parts = 0;

		assert(to > from && to <= s->pts.n); /* in commit order */
		m = segment_logs(s, from, to, lf, y);
		if (m)
			ss += segment_ss(y, m, &parts);
		nseg += parts;
		from = to;
	}
	free(y);
	if (n < nseg + 2 || !(ss > 0))
		return 0;
	/* the most telling place: as near the middle as the rules allow */
	half = n / 2;
	if (half < PD_TREND_BEFORE)
		half = PD_TREND_BEFORE;
	if (n - half < persist)
		half = n - persist;
	a = (double)half;
	places = n - persist - PD_TREND_BEFORE + 1;
	tc = pd_t_quantile(1 - pmax / (2 * (double)places), (double)(n - 2));
	return exp(tc * sqrt(ss / (double)(n - nseg)) *
		   sqrt(1 / a + 1 / ((double)n - a))) -
	       1;
}
