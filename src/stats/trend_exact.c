/*
 * Change points of a series of exact counts (statistics.md, "Trends",
 * exact counts): no sampling noise and no night's machine state to test
 * against, so a step is one when it passes the series' threshold and
 * holds, as diff judges two exact profiles by the threshold alone.
 */
#include <math.h>
#include <string.h>

#include "core/compat.h"
#include "stats/trend.h"

/* The value of commit i, or PD_NAN for a commit without runs. */
static double level(const struct pd_tseries *s, size_t i)
{
	return s->pts.v[i].n ? s->pts.v[i].mean : PD_NAN;
}

/* Mean of the commits [lo, hi) that have runs; PD_NAN without any. */
static double mean_from(const struct pd_tseries *s, size_t lo, size_t hi)
{
	double m = 0;
	size_t n = 0;

	for (; lo < hi && lo < s->pts.n; lo++)
		if (s->pts.v[lo].n) {
			m += s->pts.v[lo].mean;
			n++;
		}
	return n ? m / (double)n : PD_NAN;
}

/* +1 or -1 when v is off ref by the threshold or more, else 0. */
static int off(double v, double ref, double tau)
{
	if (!(ref > 0) || isnan(v))
		return 0;
	if (v / ref - 1 >= tau)
		return 1;
	if (v / ref - 1 <= -tau)
		return -1;
	return 0;
}

/*
 * Whether the step at c, to side dir of ref, holds for persist commits
 * with runs (c among them): 1 it does, 0 a commit went back, -1 the
 * series ends first.
 */
static int holds(const struct pd_tseries *s, size_t c, double ref, double tau,
		 int dir, size_t persist)
{
	size_t seen = 0, i;

	for (i = c; i < s->pts.n && seen < persist; i++) {
		if (!s->pts.v[i].n)
			continue;
		if (off(level(s, i), ref, tau) != dir)
			return 0;
		seen++;
	}
	return seen < persist ? -1 : 1;
}

/*
 * The level before a step is the mean of the commits since the last
 * change point that were within the threshold of it (a commit that went
 * off and back is left out of it); a commit off by the threshold that
 * stays off for persist commits is a change point, and the level starts
 * again from it. The size of each change point is then the mean after
 * over the mean before, between its neighbours, as for sampled series.
 */
void pd_trend_exact_series(struct pd_tseries *s, size_t persist)
{
	double sum = 0, ref = PD_NAN;
	size_t n = 0, i, k, start = s->changes.n;

	memset(&s->watch, 0, sizeof(s->watch));
	memset(&s->pending, 0, sizeof(s->pending));
	if (persist < 1)
		persist = 1;
	for (i = 0; i < s->pts.n; i++) {
		double v = level(s, i);
		int dir, h;

		if (isnan(v))
			continue;
		dir = n ? off(v, ref, s->tau) : 0;
		h = dir ? holds(s, i, ref, s->tau, dir, persist) : 0;
		if (h > 0) {
			struct pd_tchange ch;

			memset(&ch, 0, sizeof(ch));
			ch.at = i;
			PD_VEC_PUSH(&s->changes, ch);
			sum = n = 0;
		} else if (h < 0) {
			/* on the newest commits: not held yet */
			s->pending.at = i;
			s->pending.change = mean_from(s, i, s->pts.n) / ref - 1;
			break;
		} else if (dir) {
			continue; /* off and back: not part of the level */
		}
		sum += v;
		n++;
		ref = sum / (double)n;
	}
	for (k = start; k < s->changes.n; k++) {
		size_t lo = k > start ? s->changes.v[k - 1].at : 0;
		size_t hi =
		    k + 1 < s->changes.n ? s->changes.v[k + 1].at : s->pts.n;
		double before = mean_from(s, lo, s->changes.v[k].at);

		s->changes.v[k].change =
		    mean_from(s, s->changes.v[k].at, hi) / before - 1;
	}
}
