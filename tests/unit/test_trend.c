/*
 * Unit tests for stats/trend: E-Divisive and alert grouping. Expected
 * values come from the definition: for 0 0 0 1 1 1 the best split has
 * Q = 3 and only 2 of the C(6,3) = 20 orderings reach it, so p = 0.1.
 */
#include "testutil.h"

#include "core/xalloc.h"
#include "report/report.h"
#include "stats/trend.h"

/* Deterministic noise in [-1, 1]. */
static double noise(uint64_t *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return (double)(*s >> 11) / 4503599627370496.0 - 1;
}

static void test_exact_p(void **state)
{
	const double x[] = { 0, 0, 0, 1, 1, 1 };
	size_t cps[6];
	double p[6];
	size_t n;

	(void)state;
	n = pd_edivisive(x, 6, 1.0, 19999, 2, 7, cps, p, 1);
	assert_int_equal(n, 1);
	assert_int_equal(cps[0], 3);
	assert_near(p[0], 0.1, 0.01);
}

/*
 * Orderings that reach the best Q must count however their sums round:
 * 13 points, 3 equal low values then 10 equal high ones (a counter that
 * moved once). The best Q is reached by the orderings with the 3 low
 * values first or last: 2 of C(13,3) = 286, p = 0.007. Compared with a
 * strict >=, running sums that rounded the other way dropped about half
 * of them and p came out 0.004.
 */
static void test_ties_counted(void **state)
{
	double x[13], p[13];
	size_t cps[13], i, n;

	(void)state;
	for (i = 0; i < 13; i++)
		x[i] = log(i < 3 ? 0.37 : 0.37 * 1.05);
	n = pd_edivisive(x, 13, 1.0, 19999, 3, 7, cps, p, 1);
	assert_int_equal(n, 1);
	assert_int_equal(cps[0], 3);
	assert_near(p[0], 2.0 / 286, 0.0015);
}

static void test_step_found_noise_silent(void **state)
{
	double x[60];
	size_t cps[60], n, i;
	uint64_t s = 42;

	(void)state;
	for (i = 0; i < 60; i++)
		x[i] = (i < 33 ? 100 : 112) + 2 * noise(&s);
	n = pd_edivisive(x, 60, 0.001, 999, 3, 1, cps, NULL, 60);
	assert_int_equal(n, 1);
	assert_int_equal(cps[0], 33);
	/* the same noise without the step: nothing at p = 0.001 */
	s = 42;
	for (i = 0; i < 60; i++)
		x[i] = 100 + 2 * noise(&s);
	n = pd_edivisive(x, 60, 0.001, 999, 3, 1, cps, NULL, 60);
	assert_int_equal(n, 0);
}

static void test_two_steps(void **state)
{
	double x[90];
	size_t cps[90], n, i;
	uint64_t s = 9;

	(void)state;
	for (i = 0; i < 90; i++)
		x[i] = (i < 30 ? 10 : i < 60 ? 14 : 11) + 0.5 * noise(&s);
	n = pd_edivisive(x, 90, 0.001, 999, 3, 1, cps, NULL, 90);
	assert_int_equal(n, 2);
	assert_int_equal(cps[0], 30);
	assert_int_equal(cps[1], 60);
}

/* 12 commits x 3 runs; the series steps by step from commit at on. */
static void series(struct pd_tseries *ts, const char *name, double base,
		   double step, size_t at, uint64_t seed)
{
	size_t c, k;
	uint64_t s = seed;

	memset(ts, 0, sizeof(*ts));
	ts->name = pd_xstrdup(name);
	ts->tau = 0.05;
	for (c = 0; c < 12; c++) {
		struct pd_tpoint pt;
		char sha[16];

		memset(&pt, 0, sizeof(pt));
		snprintf(sha, sizeof(sha), "c%02zu", c);
		pt.sha = pd_xstrdup(sha);
		pt.date = pd_xstrdup("");
		pt.n = 3;
		pt.v = pd_xmalloc(3 * sizeof(double));
		pt.mean = 0;
		for (k = 0; k < 3; k++) {
			pt.v[k] = (c >= at ? base * (1 + step) : base) *
				  (1 + 0.01 * noise(&s));
			pt.mean += pt.v[k] / 3;
		}
		PD_VEC_PUSH(&ts->pts, pt);
	}
}

static void test_alert_grouping(void **state)
{
	struct pd_trend t;
	struct pd_tseries ts;
	size_t i;
	int found_a = 0, found_b = 0;

	(void)state;
	memset(&t, 0, sizeof(t));
	t.pmax = 0.001;
	t.ncommits = 12;
	series(&ts, "total", 1000, 0.10, 7, 1);
	PD_VEC_PUSH(&t.series, ts);
	series(&ts, "parse", 250, 0.40, 7, 2);
	PD_VEC_PUSH(&t.series, ts);
	series(&ts, "flat", 500, 0, 7, 3);
	PD_VEC_PUSH(&t.series, ts);
	/* a step two commits from the end has not persisted yet */
	series(&ts, "late", 100, 0.5, 10, 4);
	PD_VEC_PUSH(&t.series, ts);
	assert_int_equal(pd_trend_analyse(&t, 999, 3), 1);
	assert_int_equal(t.alerts.v[0].at, 7);
	assert_near(t.alerts.v[0].total, 0.10, 0.01);
	for (i = 0; i < t.alerts.v[0].series.n; i++) {
		size_t k = t.alerts.v[0].series.v[i];

		if (k == 1) {
			found_a = 1;
			assert_near(t.alerts.v[0].moved.v[i], 0.40, 0.02);
		}
		found_b |= k == 2 || k == 3;
	}
	assert_true(found_a);
	assert_false(found_b);
	assert_int_equal(t.series.v[3].changes.n, 0);
	pd_trend_release(&t);
}

/*
 * n commits of 3 runs, nights varying by 4 % (a sum of three uniforms),
 * runs by 0.5 %; from commit at on, the values are (1 + step) times.
 */
static void nights(struct pd_trend *t, size_t n, double step, size_t at,
		   uint64_t *s)
{
	struct pd_tseries ts;
	size_t c, k;

	memset(t, 0, sizeof(*t));
	t->pmax = 0.001;
	t->ncommits = n;
	memset(&ts, 0, sizeof(ts));
	ts.name = pd_xstrdup("total");
	ts.tau = 0.05;
	for (c = 0; c < n; c++) {
		struct pd_tpoint pt;
		double night = 0.04 * (noise(s) + noise(s) + noise(s));

		memset(&pt, 0, sizeof(pt));
		pt.sha = pd_xstrdup("c");
		pt.date = pd_xstrdup("");
		pt.n = 3;
		pt.v = pd_xmalloc(3 * sizeof(double));
		for (k = 0; k < 3; k++) {
			pt.v[k] = 1000 * (c >= at ? 1 + step : 1) *
				  exp(night + 0.005 * noise(s));
			pt.mean += pt.v[k] / 3;
		}
		PD_VEC_PUSH(&ts.pts, pt);
	}
	PD_VEC_PUSH(&t->series, ts);
}

/*
 * A null history with night effects: every commit's runs share a random
 * offset (4 %) much larger than their spread within the commit (0.5 %).
 * Permuting runs as if exchangeable across commits finds "change points"
 * in such series far more often than p says; the commit-level check
 * keeps false change points at or below 1 % of the series.
 */
static void test_night_effects_null(void **state)
{
	size_t i, false_cp = 0, nser = 200;
	uint64_t s = 99;

	(void)state;
	for (i = 0; i < nser; i++) {
		struct pd_trend t;

		nights(&t, 12, 0, 12, &s);
		t.series.v[0].tau = 0.001; /* no size filter: count every one */
		pd_trend_analyse(&t, 999, 3);
		false_cp += t.series.v[0].changes.n > 0;
		pd_trend_release(&t);
	}
	assert_true(false_cp <= nser / 100);
}

/*
 * The newest commits: a +40 % step on the last commit, or on the last
 * two, is watched (not a change point: it has not held for 3 commits);
 * held for 3 it is a change point and no longer watched. On 200 null
 * series with night effects (20 commits) at most 1 % are watched, as
 * the prediction test's p <= 0.001 promises (0.1 % a series).
 */
static void test_watch_newest(void **state)
{
	struct pd_trend t;
	uint64_t s = 7;
	size_t i, k, watched = 0;

	(void)state;
	for (k = 1; k <= 3; k++) {
		nights(&t, 20, 0.4, 20 - k, &s);
		pd_trend_analyse(&t, 999, 3);
		if (k < 3) {
			assert_int_equal(t.series.v[0].changes.n, 0);
			assert_int_equal(t.series.v[0].watch.at, 20 - k);
			assert_true(t.series.v[0].watch.change > 0.3);
			assert_true(t.series.v[0].watch.p <= 0.001);
		} else {
			assert_int_equal(t.series.v[0].changes.n, 1);
			assert_int_equal(t.series.v[0].watch.at, 0);
		}
		pd_trend_release(&t);
	}
	/* too few commits before it: nothing to predict from */
	nights(&t, PD_TREND_WATCH_MIN, 0.4, PD_TREND_WATCH_MIN - 1, &s);
	pd_trend_analyse(&t, 999, 3);
	assert_int_equal(t.series.v[0].watch.at, 0);
	pd_trend_release(&t);
	for (i = 0; i < 200; i++) {
		nights(&t, 20, 0, 20, &s);
		t.series.v[0].tau = 0.001; /* no size filter */
		pd_trend_analyse(&t, 199, 3);
		watched += t.series.v[0].watch.at > 0;
		pd_trend_release(&t);
	}
	assert_true(watched <= 2);
}

/* A standard normal from the deterministic noise (Box-Muller). */
static double gauss(uint64_t *s)
{
	double u = (noise(s) + 1) / 2, v = (noise(s) + 1) / 2;

	return sqrt(-2 * log(u > 0 ? u : 1e-300)) * cos(6.283185307179586 * v);
}

/* A sample count of mean lambda (large): normal, rounded. */
static double count(double lambda, uint64_t *s)
{
	return fmax(0, floor(lambda + sqrt(lambda) * gauss(s) + 0.5));
}

static void push_point(struct pd_tseries *ts, const double *v, size_t n,
		       size_t c)
{
	struct pd_tpoint pt;
	char sha[16];
	size_t k;

	memset(&pt, 0, sizeof(pt));
	snprintf(sha, sizeof(sha), "c%02zu", c);
	pt.sha = pd_xstrdup(sha);
	pt.date = pd_xstrdup("");
	pt.n = n;
	pt.v = pd_xmalloc((n + 1) * sizeof(double));
	for (k = 0; k < n; k++) {
		pt.v[k] = v[k];
		pt.mean += v[k] / (double)n;
	}
	pt.lo = pt.hi = v[0];
	PD_VEC_PUSH(&ts->pts, pt);
}

/*
 * A recorded program's history: n commits of 3 runs of 0.65 s at
 * 1999 Hz (about 1300 samples), parse_record half of them; each night
 * moves a commit's runs by 1 %, each run moves by 1 %, and the counts
 * are Poisson. From commit at on, parse_record takes (1 + step) times
 * as long; series 0 is the total, 1 parse_record.
 */
static void recorded(struct pd_trend *t, size_t n, double step, size_t at,
		     uint64_t *s)
{
	struct pd_tseries ts[2];
	double tot[3], fn[3];
	size_t c, k;

	memset(t, 0, sizeof(*t));
	memset(ts, 0, sizeof(ts));
	t->pmax = 0.001;
	t->ncommits = n;
	t->scenario = pd_xstrdup("small");
	t->cache = pd_xstrdup("warm");
	t->tool = pd_xstrdup("perf");
	ts[0].name = pd_xstrdup("total");
	ts[1].name = pd_xstrdup("parse_record");
	ts[0].tau = ts[1].tau = 0.05;
	for (c = 0; c < n; c++) {
		double night = exp(0.01 * gauss(s));

		for (k = 0; k < 3; k++) {
			double f = 0.65 * 1999 * night * exp(0.01 * gauss(s));

			fn[k] = count(0.8 * f * (c >= at ? 1 + step : 1), s);
			tot[k] = fn[k] + count(0.2 * f, s);
		}
		push_point(&ts[0], tot, 3, c);
		push_point(&ts[1], fn, 3, c);
	}
	PD_VEC_PUSH(&t->series, ts[0]);
	PD_VEC_PUSH(&t->series, ts[1]);
}

/*
 * A history of n commits of 3 runs: series 0 the total, 1 the function
 * (fn samples a run, (1 + step) times from commit at), 2 .. 1 + nv the
 * other functions (vl samples each), and other samples in no series. Each
 * run's every count is moved by the machine alike, exp(run_sd N(0, 1)).
 */
struct machine {
	size_t n, at, nv;
	double fn, vl, other, run_sd, step;
};

static void machine_history(struct pd_trend *t, const struct machine *m,
			    uint64_t *s)
{
	struct pd_tseries ts[10];
	double v[10][3];
	size_t c, k, j, ns = 2 + m->nv;

	assert_true(ns <= 10);
	memset(t, 0, sizeof(*t));
	memset(ts, 0, sizeof(ts));
	t->pmax = 0.001;
	t->ncommits = m->n;
	t->scenario = pd_xstrdup("s");
	t->cache = pd_xstrdup("warm");
	t->tool = pd_xstrdup("perf");
	for (j = 0; j < ns; j++) {
		char name[16];

		snprintf(name, sizeof(name), j ? "f%zu" : "total", j);
		ts[j].name = pd_xstrdup(name);
		ts[j].tau = 0.05;
	}
	for (c = 0; c < m->n; c++) {
		for (k = 0; k < 3; k++) {
			double f = exp(m->run_sd * gauss(s));

			v[1][k] = count(
			    m->fn * f * (c >= m->at ? 1 + m->step : 1), s);
			v[0][k] = v[1][k] + count(m->other * f, s);
			for (j = 2; j < ns; j++) {
				v[j][k] = count(m->vl * f, s);
				v[0][k] += v[j][k];
			}
		}
		for (j = 0; j < ns; j++)
			push_point(&ts[j], v[j], 3, c);
	}
	for (j = 0; j < ns; j++)
		PD_VEC_PUSH(&t->series, ts[j]);
}

/* Of h histories of m, how many have a change point in series 1 at at. */
static size_t machine_found(const struct machine *m, size_t h, uint64_t *s)
{
	size_t i, found = 0;

	for (i = 0; i < h; i++) {
		struct pd_trend t;
		const struct pd_tseries *f;

		machine_history(&t, m, s);
		pd_trend_analyse(&t, 999, 3);
		f = &t.series.v[1];
		found += m->at < m->n
			     ? f->changes.n == 1 && f->changes.v[0].at == m->at
			     : f->changes.n > 0;
		pd_trend_release(&t);
	}
	return found;
}

/*
 * A function is judged beyond the machine's level only when the level
 * takes out more of the runs' spread within their commits than the
 * voters' noise puts in. A machine that moves whole runs by 15 %: a
 * +25 % step in a function is found beyond the level (on its own values
 * the runs' spread hides it). A quiet machine (runs 1 %) whose other
 * functions are small and noisy (60 samples each, 13 %): the function's
 * 2000 samples find a +20 % step on their own, which the level's noise
 * would hide. Identical builds stay quiet either way.
 */
static void test_level_when_it_helps(void **state)
{
	struct machine busy = { 9, 6, 6, 600, 300, 600, 0.15, 0.25 };
	struct machine quiet = { 9, 6, 5, 2000, 60, 200, 0.01, 0.20 };
	uint64_t s = 77;
	size_t fb, fq, nb, nq;

	(void)state;
	fb = machine_found(&busy, 20, &s);
	fq = machine_found(&quiet, 20, &s);
	busy.at = busy.n;
	quiet.at = quiet.n;
	nb = machine_found(&busy, 100, &s);
	nq = machine_found(&quiet, 100, &s);
	print_message("level: busy %zu/20 quiet %zu/20, null %zu %zu of 100\n",
		      fb, fq, nb, nq);
	assert_true(fb >= 18);
	assert_true(fq >= 18);
	assert_true(nb <= 1);
	assert_true(nq <= 1);
}

/*
 * Nine commits of three runs, a +26 % step in parse_record held for the
 * last three (and +13 % in the total): a change point at the step's
 * commit in both series, in 20 histories of 20 (the commit means' test
 * was Welch's t, each side's variance on its own commits -- 2 degrees of
 * freedom after the step -- times 8 places, and found it in about half).
 * The same histories with identical binaries have none.
 */
static void test_short_history_step(void **state)
{
	uint64_t s = 2026;
	size_t i, k, found[2] = { 0, 0 }, false_cp = 0;

	(void)state;
	for (i = 0; i < 20; i++) {
		struct pd_trend t;

		recorded(&t, 9, 0.26, 6, &s);
		pd_trend_analyse(&t, 1999, 3);
		for (k = 0; k < 2; k++)
			found[k] += t.series.v[k].changes.n == 1 &&
				    t.series.v[k].changes.v[0].at == 6;
		if (t.series.v[1].changes.n) /* the size, within its noise */
			assert_near(t.series.v[1].changes.v[0].change, 0.26,
				    0.06);
		pd_trend_release(&t);
	}
	assert_int_equal(found[0], 20);
	assert_int_equal(found[1], 20);
	for (i = 0; i < 200; i++) {
		struct pd_trend t;

		recorded(&t, 9, 0, 9, &s);
		pd_trend_analyse(&t, 1999, 3);
		false_cp +=
		    t.series.v[0].changes.n + t.series.v[1].changes.n > 0;
		pd_trend_release(&t);
	}
	assert_int_equal(false_cp, 0);
}

/*
 * A counter missing from one bundle: its commit has no runs (n 0, mean
 * 0). Twenty commits of one run, +30 % from commit 10, commit 3 empty:
 * the step is found at 10, as with every commit complete. Before, the
 * commit-level test took the empty commit's log(floor) as a value, far
 * below the others, and its t fell from 44 to 0.6.
 */
static void test_commit_without_runs(void **state)
{
	uint64_t s = 7;
	struct pd_trend t;
	struct pd_tseries ts;
	size_t c;

	(void)state;
	memset(&t, 0, sizeof(t));
	memset(&ts, 0, sizeof(ts));
	t.pmax = 0.001;
	t.ncommits = 20;
	t.scenario = pd_xstrdup("stat");
	t.cache = pd_xstrdup("warm");
	t.tool = pd_xstrdup("perf-stat");
	ts.name = pd_xstrdup("cycles");
	ts.tau = 0.05;
	for (c = 0; c < 20; c++) {
		double v = 1e9 * (c >= 10 ? 1.3 : 1) * (1 + 0.01 * gauss(&s));

		if (c == 3) {
			struct pd_tpoint pt;

			memset(&pt, 0, sizeof(pt));
			pt.sha = pd_xstrdup("c03");
			pt.date = pd_xstrdup("");
			pt.v = pd_xmalloc(sizeof(double));
			PD_VEC_PUSH(&ts.pts, pt);
			continue;
		}
		push_point(&ts, &v, 1, c);
	}
	PD_VEC_PUSH(&t.series, ts);
	pd_trend_analyse(&t, 1999, 3);
	assert_int_equal(t.series.v[0].changes.n, 1);
	assert_int_equal(t.series.v[0].changes.v[0].at, 10);
	assert_near(t.series.v[0].changes.v[0].change, 0.3, 0.03);
	pd_trend_release(&t);
}

/*
 * Exact counts (pd_trend_exact_series), counted by hand with a 5 %
 * threshold and 3 commits to hold. A commit off and back (120 between
 * 100s) is no change point and no part of the level (100, 100, 102,
 * 100: 100.5). 130 from commit 5, held for 3 commits with runs (commit 7
 * has none), is one; its size is the mean after over the mean before
 * between its neighbours, as for sampled series: 138.29 (every commit
 * after it) over 104.4 (the blip in). A creep of 2 % a commit is
 * followed by the level, as a diff of each commit with the one before
 * would pass it; 160 on the two newest commits, 19.9 % over the level
 * of 133.47, is pending.
 */
static void test_exact_series(void **state)
{
	static const double v[] = { 100,   100,	  120,	 102, 100,   130,
				    130,   -1,	  130,	 130, 132.6, 135.2,
				    137.8, 137.8, 137.8, 160, 160 };
	struct pd_tseries ts;
	double after = 0, level = 0;
	size_t c;

	(void)state;
	memset(&ts, 0, sizeof(ts));
	ts.tau = 0.05;
	for (c = 0; c < PD_ARRAY_SIZE(v); c++) {
		push_point(&ts, &v[c], v[c] < 0 ? 0 : 1, c);
		after += c >= 5 && v[c] > 0 ? v[c] / 11 : 0;
		level += c >= 5 && v[c] > 0 && v[c] < 150 ? v[c] / 9 : 0;
	}
	pd_trend_exact_series(&ts, 3);
	assert_int_equal(ts.changes.n, 1);
	assert_int_equal(ts.changes.v[0].at, 5);
	assert_near(ts.changes.v[0].change, after / 104.4 - 1, 1e-12);
	assert_near(ts.changes.v[0].p, 0, 0);
	assert_int_equal(ts.pending.at, 15);
	assert_near(ts.pending.change, 160 / level - 1, 1e-12);
	assert_int_equal(ts.watch.at, 0);
	for (c = 0; c < ts.pts.n; c++) {
		free(ts.pts.v[c].sha);
		free(ts.pts.v[c].date);
		free(ts.pts.v[c].v);
	}
	PD_VEC_FREE(&ts.pts);
	PD_VEC_FREE(&ts.changes);
}

/* The text report of t, NUL-terminated (freed by the caller). */
static char *text_of(const struct pd_trend *t)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(pd_trend_text(f, t, 0), 0);
	fclose(f);
	return buf;
}

/*
 * What a history that cannot tell would need, never "steady": a step on
 * the newest two commits of nine has not held (and eight earlier
 * commits are too few to watch it): one more commit will tell; four
 * commits are too few for any change point: one more.
 */
static void test_says_what_it_needs(void **state)
{
	uint64_t s = 77;
	struct pd_trend t;
	struct pd_trend_need nd;
	char *text;

	(void)state;
	recorded(&t, 9, 0.26, 7, &s);
	pd_trend_analyse(&t, 1999, 3);
	assert_int_equal(t.alerts.n, 0);
	assert_int_equal(t.series.v[1].watch.at, 0);
	assert_int_equal(t.series.v[1].pending.at, 7);
	assert_near(t.series.v[1].pending.change, 0.26, 0.05);
	assert_false(pd_trend_blind(&t, &nd));
	text = text_of(&t);
	assert_non_null(strstr(text, "WATCH parse_record +2"));
	assert_non_null(strstr(text, "(2 of 3 commits; too new to test: 1 more"
				     " commit will tell)"));
	assert_null(strstr(text, "is steady\n"));
	free(text);
	pd_trend_release(&t);

	recorded(&t, 4, 0.26, 2, &s);
	pd_trend_analyse(&t, 1999, 3);
	assert_true(pd_trend_blind(&t, &nd));
	assert_int_equal(nd.runs, 12);
	assert_int_equal(nd.runs_need, 14);
	assert_int_equal(nd.commits_need, 5);
	assert_int_equal(nd.more_commits, 1);
	text = text_of(&t);
	assert_non_null(strstr(text, ": 1 more commit of 3 runs; small/warm is"
				     " not known to be steady"));
	assert_null(strstr(text, "is steady\n"));
	free(text);
	pd_trend_release(&t);
}

/*
 * The smallest step a window shows (pd_trend_series_mde), against a
 * reading in Python that shares nothing with it (the t quantile by
 * bisection on the t density integrated numerically): 8 commits of one
 * run, --p 0.001, 3 commits to hold, so 4 places and t(6) at
 * 1 - 0.001 / 8 = 7.7077. Runs alternating 100 and 110: the best split
 * leaves the most spread, MDE +33.57 %. 100 and 101 four times, then
 * 150 and 151: the step is not taken for noise, MDE +2.69 %. Two
 * commits are too few: 0.
 */
/* pd_trend_series_mde of n one-run commits v, --p 0.001, 3 to hold. */
static double mde_of(const double *v, size_t n)
{
	struct pd_trend t;
	struct pd_tseries ts;
	double m;
	size_t c;

	memset(&t, 0, sizeof(t));
	memset(&ts, 0, sizeof(ts));
	ts.name = pd_xstrdup("f");
	for (c = 0; c < n; c++)
		push_point(&ts, &v[c], 1, c);
	PD_VEC_PUSH(&t.series, ts);
	m = pd_trend_series_mde(&t.series.v[0], 0.001, 3);
	pd_trend_release(&t);
	return m;
}

static void test_mde(void **state)
{
	static const double alt[] = { 100, 110, 100, 110, 100, 110, 100, 110 };
	static const double step[] = { 100, 101, 100, 101, 150, 151, 150, 151 };

	(void)state;
	assert_near(mde_of(alt, 8), 0.33567, 0.0005);
	assert_near(mde_of(step, 8), 0.026943, 0.0001);
	assert_false(mde_of(step, 2) > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact_p),
		cmocka_unit_test(test_ties_counted),
		cmocka_unit_test(test_step_found_noise_silent),
		cmocka_unit_test(test_two_steps),
		cmocka_unit_test(test_alert_grouping),
		cmocka_unit_test(test_night_effects_null),
		cmocka_unit_test(test_watch_newest),
		cmocka_unit_test(test_short_history_step),
		cmocka_unit_test(test_level_when_it_helps),
		cmocka_unit_test(test_says_what_it_needs),
		cmocka_unit_test(test_commit_without_runs),
		cmocka_unit_test(test_exact_series),
		cmocka_unit_test(test_mde),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
