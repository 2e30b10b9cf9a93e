/*
 * E-Divisive means (Matteson & James 2014), as Apache Otava uses it.
 *
 * Algorithm note: for a segment and a split at t, the energy statistic is
 *   Q(t) = (m n / (m + n)) * (2/(mn) sum|x_i - y_j| - 1/C(m,2) sum|x_i - x_k|
 *          - 1/C(n,2) sum|y_j - y_l|)
 * with X the m values before t and Y the n after (alpha = 1). The best
 * split maximises Q. Its significance is the share of random shuffles of
 * the segment whose best Q is at least as large. Splits are searched
 * recursively; pairwise distances make a segment O(n^2), which is small for
 * nightly histories (hundreds of points).
 */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/compat.h"
#include "core/xalloc.h"
#include "stats/stats.h"
#include "stats/trend.h"

static uint64_t next_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/*
 * Best split of v[0..n) and its statistic. O(n^2) with running sums:
 * within-before, within-after and between distances updated as t moves.
 */
static double best_split(const double *v, size_t n, size_t min_size, size_t *at)
{
	double best = -1, total_within = 0;
	double *row = pd_xcalloc(n + 1, sizeof(*row)); /* sum_j |v_i - v_j| */
	double within_x = 0, between = 0, within_y;
	size_t i, j, t;

	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++) {
			double d = fabs(v[i] - v[j]);

			row[i] += d;
			row[j] += d;
			total_within += d;
		}
	*at = 0;
	within_y = total_within;
	between = 0;
	for (t = 1; t < n; t++) {
		/* move v[t-1] from Y to X */
		double to_x = 0;

		for (j = 0; j < t - 1; j++)
			to_x += fabs(v[t - 1] - v[j]);
		/* distances of v[t-1] to Y (the rest) */
		{
			double to_y = row[t - 1] - to_x;

			within_x += to_x;
			within_y -= to_y;
			between = between - to_x + to_y;
		}
		if (t >= min_size && n - t >= min_size) {
			double m = (double)t, nn = (double)(n - t), q;
			double ex = m > 1 ? within_x / (m * (m - 1) / 2) : 0;
			double ey = nn > 1 ? within_y / (nn * (nn - 1) / 2) : 0;

			q = m * nn / (m + nn) *
			    (2 * between / (m * nn) - ex - ey);
			if (q > best) {
				best = q;
				*at = t;
			}
		}
	}
	free(row);
	return best;
}

/* What judging a series' change points takes. */
struct trend_opts {
	double pmax, floor;
	int reps;
	size_t persist;
};

struct seg {
	size_t lo, hi;
};

/* Samples of commit means behind the commit-level p, at least. */
#define PD_TREND_MC_REPS 19999

size_t pd_edivisive(const double *x, size_t n, double pmax, int reps,
		    size_t min_size, uint64_t seed, size_t *cps, double *p_out,
		    size_t max)
{
	struct seg *stack = pd_xmalloc((2 * n + 2) * sizeof(*stack));
	double *tmp = pd_xmalloc((n + 1) * sizeof(*tmp));
	size_t sp = 0, found = 0, i, j;
	uint64_t rs = seed ? seed : 0x9e3779b97f4a7c15ULL;

	if (min_size < 2)
		min_size = 2;
	stack[sp].lo = 0;
	stack[sp++].hi = n;
	while (sp && found < max) {
		struct seg s = stack[--sp];
		size_t len = s.hi - s.lo, at, ge = 0;
		double q, p;
		int r;

		if (len < 2 * min_size)
			continue;
		q = best_split(x + s.lo, len, min_size, &at);
		if (q <= 0 || !at)
			continue;
		/* both halves hold min_size values: the split is inside */
		assert(at >= min_size && len - at >= min_size);
		for (r = 0; r < reps; r++) {
			size_t a;

			memcpy(tmp, x + s.lo, len * sizeof(*tmp));
			for (i = len; i > 1; i--) { /* Fisher-Yates */
				j = (size_t)(next_rand(&rs) % i);
				{
					double t = tmp[i - 1];

					tmp[i - 1] = tmp[j];
					tmp[j] = t;
				}
			}
			/*
			 * An ordering that reaches q by another summation
			 * order may round a little below it: equal within
			 * a relative 1e-9 counts as reaching it.
			 */
			if (best_split(tmp, len, min_size, &a) >=
			    q - 1e-9 * fabs(q))
				ge++;
			/* p only grows from here: stop once it is above pmax */
			if ((double)(ge + 1) > pmax * (double)(reps + 1))
				break;
		}
		p = (double)(ge + 1) / (double)(reps + 1);
		assert(p > 0 && p <= 1);
		if (p > pmax)
			continue;
		cps[found] = s.lo + at;
		if (p_out)
			p_out[found] = p;
		found++;
		stack[sp].lo = s.lo;
		stack[sp++].hi = s.lo + at;
		stack[sp].lo = s.lo + at;
		stack[sp++].hi = s.hi;
	}
	/* sorted, p values alongside */
	for (i = 1; i < found; i++)
		for (j = i; j > 0 && cps[j - 1] > cps[j]; j--) {
			size_t t = cps[j];

			cps[j] = cps[j - 1];
			cps[j - 1] = t;
			if (p_out) {
				double pt = p_out[j];

				p_out[j] = p_out[j - 1];
				p_out[j - 1] = pt;
			}
		}
	free(stack);
	free(tmp);
	return found;
}

void pd_trend_release(struct pd_trend *t)
{
	size_t i, k;

	for (i = 0; i < t->series.n; i++) {
		struct pd_tseries *s = &t->series.v[i];

		for (k = 0; k < s->pts.n; k++) {
			free(s->pts.v[k].sha);
			free(s->pts.v[k].date);
			free(s->pts.v[k].v);
		}
		PD_VEC_FREE(&s->pts);
		PD_VEC_FREE(&s->changes);
		free(s->name);
		free(s->unit);
	}
	PD_VEC_FREE(&t->series);
	for (i = 0; i < t->alerts.n; i++) {
		PD_VEC_FREE(&t->alerts.v[i].series);
		PD_VEC_FREE(&t->alerts.v[i].moved);
		PD_VEC_FREE(&t->alerts.v[i].delta);
	}
	PD_VEC_FREE(&t->alerts);
	for (i = 0; i < t->notes.n; i++)
		free(t->notes.v[i]);
	PD_VEC_FREE(&t->notes);
	free(t->scenario);
	free(t->cache);
	free(t->tool);
}

/* Mean over commits [lo, hi) of the per-commit means. */
static double mean_of(const struct pd_tseries *s, size_t lo, size_t hi)
{
	double m = 0;
	size_t i, n = 0;

	for (i = lo; i < hi && i < s->pts.n; i++) {
		if (!s->pts.v[i].n)
			continue;
		m += s->pts.v[i].mean;
		n++;
	}
	return n ? m / (double)n : PD_NAN;
}

/*
 * Mean and variance (n - 1) of the commit means' logs over commits
 * [a, b); the variance is 0 for one commit.
 */
static size_t log_stats(const struct pd_tseries *s, size_t a, size_t b,
			double floor, double *mean, double *var)
{
	double n = 0, m = 0, v = 0;
	size_t i;

	for (i = a; i < b; i++)
		if (s->pts.v[i].n) { /* a commit without runs has no mean */
			m += log(s->pts.v[i].mean + floor);
			n++;
		}
	m = n > 0 ? m / n : 0;
	for (i = a; i < b && n > 1; i++)
		if (s->pts.v[i].n) {
			double d = log(s->pts.v[i].mean + floor) - m;

			v += d * d / (n - 1);
		}
	*mean = m;
	*var = v;
	return (size_t)n;
}

/*
 * The two-sample t (pooled variance) of y[0..k) against y[k..n), from
 * the sums of y and of its squares over [0, k) and [k, n).
 */
static double pooled_t(double s1, double q1, double s2, double q2, size_t k,
		       size_t n)
{
	double a = (double)k, b = (double)(n - k);
	double ss = fmax(0, q1 - s1 * s1 / a) + fmax(0, q2 - s2 * s2 / b);

	return fabs(s2 / b - s1 / a) /
	       sqrt(ss / (double)(n - 2) * (1 / a + 1 / b));
}

/*
 * The largest pooled t over the places a step could be in y[0..n):
 * k = PD_TREND_BEFORE .. n - after, so that it has PD_TREND_BEFORE
 * commits before it and `after` after it.
 */
static double max_pooled_t(const double *y, size_t n, size_t after)
{
	double s1 = 0, q1 = 0, s2 = 0, q2 = 0, best = 0;
	size_t k;

	for (k = 0; k < n; k++) {
		s2 += y[k];
		q2 += y[k] * y[k];
	}
	for (k = 1; k + after <= n; k++) {
		s1 += y[k - 1];
		q1 += y[k - 1] * y[k - 1];
		s2 -= y[k - 1];
		q2 -= y[k - 1] * y[k - 1];
		if (k >= PD_TREND_BEFORE)
			best = fmax(best, pooled_t(s1, q1, s2, q2, k, n));
	}
	return best;
}

static double std_normal(uint64_t *rs)
{
	double u = ((double)(next_rand(rs) >> 11) + 0.5) / 9007199254740992.0;
	double v = ((double)(next_rand(rs) >> 11) + 0.5) / 9007199254740992.0;

	return sqrt(-2 * log(u)) * cos(6.283185307179586 * v);
}

/*
 * The chance that n commit means with no step (independent, normal; any
 * mean and spread, which the t does not see) give a largest t
 * (max_pooled_t) of at least t0: reps samples, seeded, stopped once p is
 * above pmax, as the permutation test is.
 */
static double max_t_p(size_t n, size_t after, double t0, int reps, double pmax)
{
	double *y = pd_xmalloc((n + 1) * sizeof(*y));
	uint64_t rs = 0x7e11d5eedULL + n;
	size_t ge = 0, k;
	int r;

	for (r = 0; r < reps; r++) {
		for (k = 0; k < n; k++)
			y[k] = std_normal(&rs);
		ge += max_pooled_t(y, n, after) >= t0;
		if ((double)(ge + 1) > pmax * (double)(reps + 1))
			break;
	}
	free(y);
	return (double)(ge + 1) / (double)(reps + 1);
}

/*
 * The step at commit c between the segments [lo, c) and [c, hi), judged
 * on commit means (log scale), so that a history whose nights differ
 * more than its repeats do is judged by the nights (statistics.md,
 * "Trends"): the two-sample t of the two sides' means, the variance
 * pooled from both sides' commit means. With no step, which is what is
 * tested, both sides vary alike, and n commits give the variance n - 2
 * degrees of freedom; Welch's estimate from each side alone had as few
 * as 2 with 3 commits after the step. The place was chosen from the
 * data, so the p is that of the largest such t over the places a change
 * point could be (PD_TREND_BEFORE commits after lo, `after` before hi),
 * by simulation (PD_TREND_MC_REPS samples, or reps if more); the one
 * place's p and Bonferroni's bound when either already decides. 1 (no evidence
 * at this level) when c is no such place.
 */
static double commit_step_p(const struct pd_tseries *s, size_t lo, size_t c,
			    size_t hi, size_t after, double floor, int reps,
			    double pmax)
{
	size_t n, na = 0, nb = 0, k, places;
	double s1 = 0, q1 = 0, s2 = 0, q2 = 0, t, p1, bonf;

	if (after < 1)
		after = 1;
	for (k = lo; k < hi; k++) {
		double y;

		if (!s->pts.v[k].n)
			continue; /* a commit without runs (a counter it lacks)
				   */
		y = log(s->pts.v[k].mean + floor);
		if (k < c) {
			s1 += y;
			q1 += y * y;
			na++;
		} else {
			s2 += y;
			q2 += y * y;
			nb++;
		}
	}
	if (na < PD_TREND_BEFORE || nb < after)
		return 1;
	n = na + nb;
	t = pooled_t(s1, q1, s2, q2, na, n);
	if (isnan(t)) /* no spread and no step */
		return 1;
	places = n - after - PD_TREND_BEFORE + 1;
	p1 = pd_t_sf2(t, (double)(n - 2));
	bonf = fmin(1, p1 * (double)places);
	if (p1 > pmax || bonf <= pmax || reps <= 0 || places < 2)
		return bonf;
	/* normals are cheap: enough samples to place p near pmax */
	return fmin(bonf,
		    max_t_p(n, after, t,
			    reps > PD_TREND_MC_REPS ? reps : PD_TREND_MC_REPS,
			    pmax));
}

/* A split E-Divisive found: the commit it belongs to and its p. */
struct cand {
	size_t at;
	double p;
	int alive;
	size_t lo, hi; /* the segment judged last, and its commit-level p */
	double cp;
};

enum verdict { KEPT, SMALL, UNHELD, WEAK };

/*
 * Candidate i of cv[0..nc), its segment bounded by the live others:
 * KEPT with *ch filled, or why not (SMALL: under the series' threshold;
 * UNHELD: fewer than persist commits after it; WEAK: the commit means
 * do not bear it out). ch->p is the p used either way; the commit
 * level p is kept in cv[i] for the segment it was found for.
 */
static enum verdict judge(const struct pd_tseries *s, struct cand *cv,
			  size_t nc, size_t i, const struct trend_opts *o,
			  struct pd_tchange *ch)
{
	size_t c = cv[i].at, prev_c = 0, next_c = s->pts.n, k;
	double before, after;

	for (k = 0; k < nc; k++) {
		if (k == i || !cv[k].alive)
			continue;
		if (cv[k].at < c && cv[k].at > prev_c)
			prev_c = cv[k].at;
		if (cv[k].at > c && cv[k].at < next_c)
			next_c = cv[k].at;
	}
	/* candidates are distinct commits inside the series */
	assert(prev_c < c && c < next_c && next_c <= s->pts.n);
	before = mean_of(s, prev_c, c);
	after = mean_of(s, c, next_c);
	ch->at = c;
	ch->change = before > 0 ? after / before - 1 : PD_NAN;
	ch->p = cv[i].p;
	if (next_c - c < o->persist)
		return UNHELD; /* it has not held for long enough yet */
	/*
	 * Runs were permuted as if exchangeable; nights may differ more
	 * than runs of one night. The step must also stand out among
	 * commit means.
	 */
	if (cv[i].lo != prev_c || cv[i].hi != next_c || !(cv[i].cp >= 0)) {
		cv[i].lo = prev_c;
		cv[i].hi = next_c;
		cv[i].cp = commit_step_p(s, prev_c, c, next_c, o->persist,
					 o->floor, o->reps, o->pmax);
	}
	ch->p = fmax(cv[i].p, cv[i].cp);
	if (ch->p > o->pmax)
		return WEAK;
	if (!(before > 0) || !(after >= 0) || fabs(ch->change) < s->tau)
		return SMALL;
	return KEPT;
}

/*
 * The splits of E-Divisive are judged together: one that fails is
 * dropped and the others judged again without it as a boundary, so that
 * a split the commit means reject does not cut its neighbours' segments
 * short: first those the commit means do not bear out, the largest p
 * first, then those that have not held, the newest first (one may have
 * held too little only because a rejected split came after it). A step
 * on the newest commits that has not held yet, as large as the series'
 * threshold, is kept apart as pending.
 */
static void settle(struct pd_tseries *s, struct cand *cv, size_t nc,
		   const struct trend_opts *o)
{
	struct pd_tchange ch;
	size_t i;

	for (;;) {
		size_t worst = nc;
		double worst_key = -2;

		for (i = 0; i < nc; i++) {
			enum verdict v;
			double key;

			if (!cv[i].alive)
				continue;
			v = judge(s, cv, nc, i, o, &ch);
			if (v == KEPT || v == SMALL)
				continue;
			/* weak ones first, the largest p; then the newest */
			key =
			    v == WEAK
				? ch.p
				: (double)cv[i].at / (double)(s->pts.n + 1) - 1;
			if (key > worst_key) {
				worst_key = key;
				worst = i;
			}
		}
		if (worst == nc)
			break;
		/* unheld on the newest commits: pending */
		if (worst_key < 0 && cv[worst].at + o->persist > s->pts.n) {
			(void)judge(s, cv, nc, worst, o, &ch);
			if (fabs(ch.change) >= s->tau &&
			    (!s->pending.at || ch.at > s->pending.at))
				s->pending = ch;
		}
		cv[worst].alive = 0;
	}
	for (i = 0; i < nc; i++)
		if (cv[i].alive && judge(s, cv, nc, i, o, &ch) == KEPT)
			PD_VEC_PUSH(&s->changes, ch);
}

static void analyse_series(struct pd_tseries *s, const struct trend_opts *o)
{
	PD_VEC(double) x = PD_VEC_INIT;
	PD_VEC(size_t) commit_of = PD_VEC_INIT;
	struct trend_opts so = *o;
	struct cand *cv;
	size_t *cps, *starts, i, k, n, nc = 0;
	double *ps;

	so.floor = pd_trend_log_floor(s);
	memset(&s->pending, 0, sizeof(s->pending));
	starts = pd_xmalloc((s->pts.n + 1) * sizeof(*starts));
	for (i = 0; i < s->pts.n; i++) {
		starts[i] = x.n;
		for (k = 0; k < s->pts.v[i].n; k++) {
			/* log scale: a change is a ratio, whatever the size */
			PD_VEC_PUSH(&x, log(s->pts.v[i].v[k] + so.floor));
			PD_VEC_PUSH(&commit_of, i);
		}
	}
	starts[s->pts.n] = x.n;
	cps = pd_xmalloc((x.n + 1) * sizeof(*cps));
	ps = pd_xmalloc((x.n + 1) * sizeof(*ps));
	cv = pd_xmalloc((x.n + 1) * sizeof(*cv));
	n = x.n >= 6 ? pd_edivisive(x.v, x.n, so.pmax, so.reps, 3, 0x5eed, cps,
				    ps, x.n)
		     : 0;
	for (i = 0; i < n; i++) {
		/* A change inside a commit's runs belongs to the commit after.
		 */
		size_t c = commit_of.v[cps[i]];

		if (starts[c] != cps[i])
			c++;
		if (c == 0 || c >= s->pts.n || (nc && cv[nc - 1].at == c))
			continue;
		cv[nc].at = c;
		cv[nc].p = ps[i];
		cv[nc].cp = -1; /* not judged yet */
		cv[nc].lo = cv[nc].hi = 0;
		cv[nc++].alive = 1;
	}
	settle(s, cv, nc, &so);
	PD_VEC_FREE(&x);
	PD_VEC_FREE(&commit_of);
	free(cps);
	free(ps);
	free(starts);
	free(cv);
}

/*
 * The newest commits, which the persistence rule keeps from making a
 * change point yet: the mean of the last k (1 .. persist - 1) against the
 * commits since the series' last change point, as a prediction from
 * those commits' means (Student's t on n - 1 degrees of freedom: their
 * spread, nights included, is the noise), Bonferroni over the k tried.
 * Kept when p <= pmax and the move passes the series' threshold.
 */
static void watch_newest(struct pd_tseries *s, double pmax, size_t persist)
{
	size_t n = s->pts.n, lo = 0, i, k;
	double floor = pd_trend_log_floor(s);

	memset(&s->watch, 0, sizeof(s->watch));
	for (i = 0; i < s->changes.n; i++)
		if (s->changes.v[i].at > lo)
			lo = s->changes.v[i].at;
	for (k = 1; k < persist && k < n; k++) {
		size_t c = n - k, m = c > lo ? c - lo : 0, kk;
		double mo, mn, v, vn, se, p, before, after;

		if (m < PD_TREND_WATCH_MIN)
			continue;
		m = log_stats(s, lo, c, floor, &mo, &v);
		kk = log_stats(s, c, n, floor, &mn, &vn);
		if (m < PD_TREND_WATCH_MIN || !kk)
			continue;
		se = sqrt(v * (1 / (double)m + 1 / (double)kk));
		p = se > 0 ? pd_t_sf2(fabs(mn - mo) / se, (double)(m - 1))
		    : fabs(mn - mo) > 1e-12 ? 0
					    : 1;
		p = fmin(1, p * (double)(persist - 1));
		before = mean_of(s, lo, c);
		after = mean_of(s, c, n);
		if (p > pmax || !(before > 0) ||
		    fabs(after / before - 1) < s->tau ||
		    (s->watch.at && p >= s->watch.p))
			continue;
		s->watch.at = c;
		s->watch.p = p;
		s->watch.change = after / before - 1;
	}
}

/*
 * Whether s's move at commit at (up to 3 commits before it against
 * [at, end)) is min_impact of the total's mean before it.
 */
static int moves_enough(const struct pd_tseries *s, const struct pd_tseries *s0,
			size_t at, size_t end, double min_impact)
{
	double tot = mean_of(s0, at >= 3 ? at - 3 : 0, at);
	double b = mean_of(s, at >= 3 ? at - 3 : 0, at);

	return tot > 0 && fabs(mean_of(s, at, end) - b) >= min_impact * tot;
}

/*
 * Keeps the changes of s (3 commits after each) and its watched and
 * pending steps (the commits since) whose move is min_impact of the
 * total's mean.
 */
static void impact_filter(struct pd_tseries *s, const struct pd_tseries *s0,
			  double min_impact)
{
	size_t k, w = 0;

	for (k = 0; k < s->changes.n; k++)
		if (moves_enough(s, s0, s->changes.v[k].at,
				 s->changes.v[k].at + 3, min_impact))
			s->changes.v[w++] = s->changes.v[k];
	s->changes.n = w;
	if (s->watch.at &&
	    !moves_enough(s, s0, s->watch.at, s->pts.n, min_impact))
		memset(&s->watch, 0, sizeof(s->watch));
	if (s->pending.at &&
	    !moves_enough(s, s0, s->pending.at, s->pts.n, min_impact))
		memset(&s->pending, 0, sizeof(s->pending));
}

/*
 * Each series' change points: a function's beyond the machine's level
 * when the history shows one (trend_level.c) and it helps, else its
 * values as they are; exact runs by their own rule.
 */
static void analyse_all(struct pd_trend *t, const struct trend_opts *o,
			size_t persist)
{
	struct pd_tseries *beyond = pd_trend_beyond_level(t);
	size_t i;

	for (i = 0; i < t->series.n; i++) {
		struct pd_tseries *s = &t->series.v[i];

		/* counters (perf stat) are measured, exact runs or not */
		if (t->exact && !s->counter) {
			pd_trend_exact_series(s, persist);
			continue;
		}
		if (beyond && beyond[i].pts.n &&
		    pd_trend_level_helps(s, &beyond[i])) {
			struct pd_tseries *b = &beyond[i];

			analyse_series(b, o);
			watch_newest(b, t->pmax, persist);
			s->mde = pd_trend_series_mde(b, t->pmax, persist);
			PD_VEC_FREE(&s->changes);
			s->changes = b->changes;
			memset(&b->changes, 0, sizeof(b->changes));
			s->watch = b->watch;
			s->pending = b->pending;
			continue;
		}
		analyse_series(s, o);
		watch_newest(s, t->pmax, persist);
		s->mde = pd_trend_series_mde(s, t->pmax, persist);
	}
	pd_trend_level_release(beyond, t->series.n);
}

size_t pd_trend_analyse(struct pd_trend *t, int reps, size_t persist)
{
	struct trend_opts o;
	size_t i, k, a;

	double min_impact = t->min_impact > 0 ? t->min_impact : 0.005;

	o.pmax = t->pmax;
	o.reps = reps;
	o.persist = persist;
	o.floor = 0;
	t->persist = persist;
	analyse_all(t, &o, persist);
	/*
	 * A function's change point counts when its move is a visible part
	 * of the total: min_impact of the total's mean before it.
	 */
	for (i = 1; i < t->series.n; i++)
		if (!t->series.v[i].counter) /* its own quantity */
			impact_filter(&t->series.v[i], &t->series.v[0],
				      min_impact);
	/* Change points on one commit are one alert. */
	for (i = 0; i < t->series.n; i++) {
		const struct pd_tseries *s = &t->series.v[i];

		for (k = 0; k < s->changes.n; k++) {
			struct pd_alert al;

			/* the commit before an alert is the last good one */
			assert(s->changes.v[k].at > 0 &&
			       s->changes.v[k].at < s->pts.n);

			for (a = 0; a < t->alerts.n; a++)
				if (t->alerts.v[a].at == s->changes.v[k].at)
					break;
			if (a == t->alerts.n) {
				memset(&al, 0, sizeof(al));
				al.at = s->changes.v[k].at;
				al.total = PD_NAN;
				PD_VEC_PUSH(&t->alerts, al);
			}
			if (i == 0)
				t->alerts.v[a].total = s->changes.v[k].change;
			{
				size_t at = s->changes.v[k].at;
				double b = mean_of(s, at >= 3 ? at - 3 : 0, at);

				PD_VEC_PUSH(&t->alerts.v[a].series, i);
				PD_VEC_PUSH(&t->alerts.v[a].moved,
					    s->changes.v[k].change);
				PD_VEC_PUSH(&t->alerts.v[a].delta,
					    mean_of(s, at, at + 3) - b);
			}
		}
	}
	/*
	 * Attribute each alert to the functions whose self time moved there,
	 * detected or not: their change across the commit (up to 3 commits
	 * on each side) when it passes their threshold.
	 */
	for (a = 0; a < t->alerts.n; a++) {
		struct pd_alert *al = &t->alerts.v[a];

		for (i = 1; i < t->series.n; i++) {
			const struct pd_tseries *s = &t->series.v[i];
			size_t lo = al->at >= 3 ? al->at - 3 : 0, j;
			double b = mean_of(s, lo, al->at),
			       f = mean_of(s, al->at, al->at + 3);
			int have = 0;

			double tot = mean_of(&t->series.v[0], lo, al->at);

			if (s->counter)
				continue;
			for (j = 0; j < al->series.n; j++)
				have |= al->series.v[j] == i;
			if (have || !(b > 0) || fabs(f / b - 1) < s->tau ||
			    !(fabs(f - b) >= min_impact * tot))
				continue;
			PD_VEC_PUSH(&al->series, i);
			PD_VEC_PUSH(&al->moved, f / b - 1);
			PD_VEC_PUSH(&al->delta, f - b);
		}
		if (isnan(al->total) && t->series.n) {
			const struct pd_tseries *s = &t->series.v[0];
			size_t lo = al->at >= 3 ? al->at - 3 : 0;
			double b = mean_of(s, lo, al->at),
			       f = mean_of(s, al->at, al->at + 3);

			if (b > 0)
				al->total = f / b - 1;
		}
	}
	/* oldest first */
	for (i = 1; i < t->alerts.n; i++)
		for (k = i; k > 0 && t->alerts.v[k - 1].at > t->alerts.v[k].at;
		     k--) {
			struct pd_alert x = t->alerts.v[k];

			t->alerts.v[k] = t->alerts.v[k - 1];
			t->alerts.v[k - 1] = x;
		}
	return t->alerts.n;
}
