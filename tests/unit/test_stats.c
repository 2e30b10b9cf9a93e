/*
 * Unit tests for stats/. Expected values are computed independently:
 * binomial tails summed by hand from the binomial formula, normal tails from
 * standard tables, BH from its definition on a small example.
 */
#include "stats_util.h"

#include "stats/stats.h"

static double binom_cdf_exact(int k, int n, double p)
{
	double s = 0, c = 1;
	int i;

	for (i = 0; i <= n; i++) {
		if (i > 0)
			c = c * (n - i + 1) / i;
		if (i <= k)
			s += c * pow(p, i) * pow(1 - p, n - i);
	}
	return s;
}

static void test_normal(void **state)
{
	(void)state;
	assert_near(pd_norm_sf(0), 0.5, 1e-15);
	assert_near(pd_norm_sf(1.959963984540054), 0.025, 1e-12);
	assert_near(pd_norm_sf(-1.6448536269514722), 0.95, 1e-12);
	assert_near(pd_norm_sf(5), 2.866515718791939e-07, 1e-18);
	/* quantiles from standard tables; 1 - 1e-10 (a tail of 1.0000000827e-10
	 * in doubles) from an independent inverse normal */
	assert_near(pd_norm_quantile(0.975), 1.959963984540054, 1e-13);
	assert_near(pd_norm_quantile(0.95), 1.6448536269514722, 1e-13);
	assert_near(pd_norm_quantile(0.025), -1.959963984540054, 1e-13);
	assert_near(pd_norm_quantile(0.5), 0, 1e-15);
	assert_near(pd_norm_quantile(1 - 1e-10), 6.361340889697421, 1e-9);
}

/* The chi-square tail against its closed forms: erfc for 1 df, a finite
 * sum for even df; and tabled 1 % points. */
static void test_chi2(void **state)
{
	double x, sum, term;
	int k, df;

	(void)state;
	for (x = 0.01; x < 200; x *= 1.7) {
		assert_near(pd_chi2_sf(x, 1), erfc(sqrt(x / 2)), 1e-13);
		for (df = 2; df <= 60; df += 2) {
			sum = term = 1;
			for (k = 1; k < df / 2; k++) {
				term *= x / 2 / k;
				sum += term;
			}
			assert_near(pd_chi2_sf(x, df), exp(-x / 2) * sum,
				    1e-12 * fmax(1, exp(-x / 2) * sum));
		}
	}
	assert_near(pd_chi2_sf(30.57791416689249, 15), 0.01, 1e-12);
	assert_near(pd_chi2_sf(3.841458820694124, 1), 0.05, 1e-12);
	assert_near(pd_chi2_sf(0, 7), 1, 0);
}

static void test_t_quantile(void **state)
{
	double dfs[] = { 0.7, 1.5, 4.5, 17.25, 250 },
	       ps[] = { 0.6, 0.975, 0.9995 };
	size_t i, k;

	(void)state;
	/* Closed forms: df 1 is Cauchy, tan(pi (p - 1/2)); df 2 is
	 * (2p - 1) / sqrt(2 p (1 - p)). */
	assert_near(pd_t_quantile(0.975, 1),
		    tan(3.14159265358979323846 * 0.475), 1e-9);
	assert_near(pd_t_quantile(0.9995, 1),
		    tan(3.14159265358979323846 * 0.4995), 1e-7);
	assert_near(pd_t_quantile(0.975, 2), 0.95 / sqrt(2 * 0.975 * 0.025),
		    1e-12);
	assert_near(pd_t_quantile(0.6, 2), 0.2 / sqrt(2 * 0.6 * 0.4), 1e-12);
	/* Tables: t(0.975; 10) and t(0.995; 3). */
	assert_near(pd_t_quantile(0.975, 10), 2.228138852, 1e-9);
	assert_near(pd_t_quantile(0.995, 3), 5.840909310, 1e-9);
	/* Fractional df: the quantile's two-sided tail is what was asked. */
	for (i = 0; i < sizeof(dfs) / sizeof(dfs[0]); i++)
		for (k = 0; k < sizeof(ps) / sizeof(ps[0]); k++) {
			double q = pd_t_quantile(ps[k], dfs[i]);

			assert_near(pd_t_sf2(q, dfs[i]) / (2 * (1 - ps[k])), 1,
				    1e-10);
		}
	assert_near(pd_t_quantile(0.5, 3), 0, 0);
}

static void test_binomial(void **state)
{
	(void)state;
	/* 8 of 10 at p = 1/2: P(X >= 8) = 56/1024, two-sided 0.109375. */
	assert_near(pd_binom_two_sided(8, 10, 0.5), 0.109375, 1e-12);
	assert_near(pd_binom_two_sided(5, 10, 0.5), 1, 1e-12);
	/* Against the sum of the binomial formula, asymmetric p. */
	{
		double lo = binom_cdf_exact(3, 40, 0.3);
		double hi = 1 - binom_cdf_exact(29, 40, 0.6);

		assert_near(pd_binom_two_sided(3, 40, 0.3), 2 * lo, 1e-10);
		assert_near(pd_binom_two_sided(30, 40, 0.6), 2 * hi, 1e-10);
	}
	/* Fractional counts sit between their integer neighbours. */
	{
		double a = pd_binom_two_sided(8, 10, 0.5);
		double b = pd_binom_two_sided(9, 10, 0.5);
		double m = pd_binom_two_sided(8.5, 10, 0.5);

		assert_true(m < a && m > b);
	}
	assert_near(pd_betai(2, 3, 0.4), 0.5248,
		    1e-12); /* 1-(.6^4+4*.4*.6^3) */
	/*
	 * mid-p: k itself counts half. 8 of 10: (P(X >= 9) + P(X = 8)/2)
	 * = (11 + 45/2)/1024, doubled: 67/1024.
	 */
	assert_near(pd_binom_mid_p(8, 10, 0.5), 67.0 / 1024, 1e-12);
	assert_near(pd_binom_mid_p(5, 10, 0.5), 1, 1e-12);
	{
		double c2 = binom_cdf_exact(2, 40, 0.3);
		double c3 = binom_cdf_exact(3, 40, 0.3);

		assert_near(pd_binom_mid_p(3, 40, 0.3), 2 * (c2 + c3) / 2,
			    1e-10);
	}
}

/* Known values: -Euler's gamma, pi^2/6, -2 zeta(3), -gamma - 2 ln 2. */
static void test_polygamma(void **state)
{
	(void)state;
	assert_near(pd_digamma(1), -0.5772156649015329, 1e-12);
	assert_near(pd_digamma(0.5), -1.9635100260214235, 1e-12);
	assert_near(pd_trigamma(1), 1.6449340668482264, 1e-12);
	assert_near(pd_tetragamma(1), -2.404113806319188, 1e-11);
	assert_near(pd_trigamma_inv(1.6449340668482264), 1, 1e-9);
	assert_near(pd_trigamma_inv(pd_trigamma(37.5)), 37.5, 1e-6);
}

static void test_bh_and_median(void **state)
{
	double p[] = { 0.01, 0.04, 0.03, 0.5 }, q[4];
	double v[] = { 5, 1, 4, 2, 3 };

	(void)state;
	pd_bh(p, 4, q);
	/*
	 * sorted .01 .03 .04 .5; p*n/rank = .04 .06 .0533 .5; running
	 * minimum from the top: .04 .0533 .0533 .5
	 */
	assert_near(q[0], 0.04, 1e-12);
	assert_near(q[2], 0.16 / 3, 1e-12);
	assert_near(q[1], 0.16 / 3, 1e-12);
	assert_near(q[3], 0.5, 1e-12);
	assert_near(pd_median(v, 5), 3, 0);
	assert_near(pd_median(v, 4), 2.5, 0);
	/* 0.8851138347145466 * 3 / 3 rounds below itself in doubles */
	p[0] = p[1] = p[2] = 0.8851138347145466;
	pd_bh(p, 3, q);
	assert_true(q[0] >= p[0] && q[1] >= p[1] && q[2] >= p[2]);
}

static void test_planted_change(void **state)
{
	double a[40], b[40];
	struct pd_profile pa, pb;
	struct pd_settings set;
	struct pd_funcs fn;
	struct pd_diff d;
	size_t i;
	const struct pd_fdiff *f;

	(void)state;
	/* 40 functions of 1000 samples; f0 grows by 30 % in the candidate. */
	for (i = 0; i < 40; i++)
		a[i] = b[i] = 1000;
	b[0] = 1300;
	flat(&pa, a, 40, 1e6, NULL);
	flat(&pb, b, 40, 1e6, NULL);
	pd_settings_default(&set);
	pd_funcs_init(&fn, 0);
	pd_diff_compute(&d, &pa, &pb, &fn, &set);
	f = find(&d, "f0");
	assert_non_null(f);
	assert_int_equal(f->self.status, PD_REGRESSED);
	assert_near(f->self.delta_pct, 30, 1e-9);
	/*
	 * By hand (statistics.md, "The test"): f0 is judged against the
	 * other 39 functions, which did not move (shift 0). The pair's own
	 * dispersion: the 40 functions' residuals are 0 but f0's, so their
	 * median is 0 and the own dispersion is its floor 0.25; moderated
	 * toward the assumed 1.5 as 8 functions' worth against 40:
	 * phi = (8 * 1.5 + 40 * 0.25) / 48. The shift's variance is one
	 * over the sum of the 39 others' precisions, each 1 / (phi * 2 /
	 * 1000.5 + 2 * 0.02^2). A t tail on 6 degrees of freedom.
	 */
	{
		double phi = (8 * 1.5 + 40 * 0.25) / 48;
		double vo = phi * 2 / 1000.5 + 0.0008, vshift = vo / 39;
		double L = log(1300.5 / 1000.5);
		double se =
		    sqrt(phi * (1 / 1000.5 + 1 / 1300.5) + 0.0008 + vshift);
		/* qt(1 - 0.05/82, 6) */
		double z = 5.7362242;

		assert_near(d.phi, phi, 1e-12);
		assert_near(f->self.p, pd_t_sf2(L / se, 6), 1e-12);
		assert_int_equal(d.verdict, PD_REGRESSED);
		assert_int_equal(d.funcs.v[0].func, f->func); /* largest */
		/*
		 * Against the 5 % threshold: the same t at ln(1.05) from
		 * the estimate, doubled. q adjusts p (first of 41: 40
		 * functions and the total). Selected alone, its interval is
		 * at level 1 - 0.05/41.
		 */
		assert_near(f->self.p_tau, pd_t_sf2((L - log(1.05)) / se, 6),
			    1e-12);
		assert_near(f->self.q, f->self.p * 41, 1e-12);
		assert_near(f->self.ci_adj_low, exp(L - z * se), 1e-6);
		assert_near(f->self.ci_adj_high, exp(L + z * se), 1e-6);
		assert_true(isnan(find(&d, "f1")->self.ci_adj_low));
	}
	/* The unchanged functions are equivalent, not noise-flagged. */
	f = find(&d, "f1");
	assert_int_equal(f->self.status, PD_SAME);
	/* 40 well-sampled functions: the pair's own dispersion is told. */
	assert_near(d.lambda, 0.25, 0);
	assert_int_equal(d.lambda_n, 40);
	pd_diff_release(&d);
	pd_funcs_release(&fn);
	pd_profile_release(&pa);
	pd_profile_release(&pb);
}

/*
 * A change beyond the threshold only by a little, among many tested
 * functions: its own 95 % interval just clears +5 %. By default (tested
 * against no change, then the interval) it is regressed. With --treat,
 * as one of 41 claims that the change is beyond 5 % it could be chance:
 * inconclusive. Alone (two functions and the total) a change whose
 * interval clears +5 % as narrowly is regressed either way.
 *
 * The intervals by hand, with no run-to-run variation (--run-cv 0: the
 * family is the point here), t on 6 degrees of freedom (qt(.975, 6) =
 * 2.4469). Among 40 (f0 1e6 samples, 39 of 1000): f0 is judged against
 * the 39 others' precision-weighted mean, whose variance is phi * 2 /
 * 1000.5 / 39 with phi = 22/48 (test_planted_change); se 0.00494, so a
 * ratio of 1.0653 has its lower end at 1.0525, and against ln 1.05 it
 * is t = 2.9, p 0.026, times 41: inconclusive with --treat. Alone (f1
 * 100000 samples, phi 1.5: too few functions to tell the pair's own):
 * se 0.005745, a ratio of 1.0750 has its lower end at 1.0600, t = 4.1
 * against ln 1.05, p 0.0064, times 3: regressed with --treat too.
 */
static void test_threshold_family(void **state)
{
	double a[40], b[40];
	struct pd_profile pa, pb;
	struct pd_settings set;
	struct pd_funcs fn;
	struct pd_diff d;
	const struct pd_fdiff *f;
	size_t i, n, k;

	(void)state;
	for (k = 0; k < 4; k++) {
		n = k % 2 ? 2 : 40;
		for (i = 0; i < n; i++)
			a[i] = b[i] = n == 2 ? 100000 : 1000;
		a[0] = 1000000;
		b[0] = n == 2 ? 1075010 : 1065300;
		flat(&pa, a, n, 1e6, NULL);
		flat(&pb, b, n, 1e6, NULL);
		pd_settings_default(&set);
		set.treat = k >= 2;
		set.run_cv = 0;
		pd_funcs_init(&fn, 0);
		pd_diff_compute(&d, &pa, &pb, &fn, &set);
		f = find(&d, "f0");
		assert_near(d.phi, n == 2 ? 1.5 : 22.0 / 48, 1e-12);
		assert_near(f->self.ci_low, n == 2 ? 1.0600 : 1.0525, 1e-3);
		if (n == 40 && set.treat) {
			assert_true(f->self.q > 0.5);
			assert_int_equal(f->self.status, PD_INCONCLUSIVE);
			assert_true(isnan(f->self.ci_adj_low));
		} else {
			assert_true(f->self.q < 0.05);
			assert_int_equal(f->self.status, PD_REGRESSED);
			/* selected: an adjusted interval, which with --treat
			 * is what clears the threshold */
			assert_false(isnan(f->self.ci_adj_low));
			if (set.treat)
				assert_true(f->self.ci_adj_low > 1.05);
		}
		pd_diff_release(&d);
		pd_funcs_release(&fn);
		pd_profile_release(&pa);
		pd_profile_release(&pb);
	}
}

static void test_small_counts_and_one_sided(void **state)
{
	double a[3] = { 20, 30, 0 }, b[3] = { 30, 30, 40 };
	struct pd_profile pa, pb;
	struct pd_settings set;
	struct pd_funcs fn;
	struct pd_diff d;
	const struct pd_fdiff *f;

	(void)state;
	flat(&pa, a, 3, 1e6, NULL);
	flat(&pb, b, 3, 1e6, NULL);
	pd_settings_default(&set);
	pd_funcs_init(&fn, 0);
	pd_diff_compute(&d, &pa, &pb, &fn, &set);
	/* 20 -> 30 samples: +50 % but far too few samples to call. */
	f = find(&d, "f0");
	assert_int_equal(f->self.status, PD_INCONCLUSIVE);
	/*
	 * f0 is judged against the one other function with samples on both
	 * sides, f1 (30 and 30: no shift), whose variance the reference
	 * carries: 1.5 (1/30.5 + 1/30.5) + 2 * 0.02^2. A t tail on 6
	 * degrees of freedom (the reference's variance is an estimate).
	 */
	{
		double vshift = 1.5 * (2 / 30.5) + 0.0008;
		double se = sqrt(1.5 * (1 / 20.5 + 1 / 30.5) + 0.0008 + vshift);

		assert_near(f->self.p, pd_t_sf2(log(30.5 / 20.5) / se, 6),
			    1e-12);
	}
	f = find(&d, "f2");
	assert_int_equal(f->self.status, PD_ADDED);
	assert_true(isnan(f->self.ratio));
	assert_true(isnan(d.lambda)); /* 3 functions: not estimated */
	assert_string_equal(d.phi_source, "default");
	pd_diff_release(&d);
	pd_funcs_release(&fn);
	pd_profile_release(&pa);
	pd_profile_release(&pb);
}

static void test_share_mode(void **state)
{
	/* Enough samples that "unchanged" can be shown equivalent. */
	double a[2] = { 100000, 100000 }, b[2] = { 200000, 100000 };
	struct pd_profile pa, pb;
	struct pd_settings set;
	struct pd_funcs fn;
	struct pd_diff d;

	(void)state;
	flat(&pa, a, 2, 1e6, NULL);
	flat(&pb, b, 2, 1e6, NULL);
	/*
	 * Absolute: f0 doubled against f1. f1's only reference is f0, which
	 * moved the other way from f1's own time (0): f1 is judged as it
	 * is, with the whole program's 20 % run-to-run variation, which a
	 * pair cannot show within 5 % (the machine may have moved and f1
	 * with it).
	 */
	pd_settings_default(&set);
	pd_funcs_init(&fn, 0);
	pd_diff_compute(&d, &pa, &pb, &fn, &set);
	assert_int_equal(find(&d, "f1")->self.status, PD_INCONCLUSIVE);
	assert_int_equal(find(&d, "f0")->self.status, PD_REGRESSED);
	pd_diff_release(&d);
	pd_funcs_release(&fn);
	pd_profile_release(&pa);
	pd_profile_release(&pb);
	/* 1000 samples cannot show equivalence within 5 %. */
	a[0] = a[1] = b[1] = 1000;
	b[0] = 2000;
	flat(&pa, a, 2, 1e6, NULL);
	flat(&pb, b, 2, 1e6, NULL);
	pd_funcs_init(&fn, 0);
	pd_diff_compute(&d, &pa, &pb, &fn, &set);
	assert_int_equal(find(&d, "f1")->self.status, PD_INCONCLUSIVE);
	pd_diff_release(&d);
	pd_funcs_release(&fn);
	/* Shares: f1 fell from 50 % to 33 % of the total. */
	set.share = 1;
	pd_funcs_init(&fn, 0);
	pd_diff_compute(&d, &pa, &pb, &fn, &set);
	assert_int_equal(find(&d, "f1")->self.status, PD_IMPROVED);
	assert_near(find(&d, "f1")->self.delta_pct, (1.0 / 3 / 0.5 - 1) * 100,
		    1e-9);
	pd_diff_release(&d);
	pd_funcs_release(&fn);
	pd_profile_release(&pa);
	pd_profile_release(&pb);
}

static void test_lambda_inflates_phi(void **state)
{
	double a[60], b[60];
	struct pd_profile pa, pb;
	struct pd_settings set;
	struct pd_funcs fn;
	struct pd_diff d;
	size_t i;

	(void)state;
	/* Every function moves by +-12 %: far more than Poisson noise. */
	for (i = 0; i < 60; i++) {
		a[i] = 1000;
		b[i] = i % 2 ? 1120 : 880;
	}
	flat(&pa, a, 60, 1e6, NULL);
	flat(&pb, b, 60, 1e6, NULL);
	pd_settings_default(&set);
	pd_funcs_init(&fn, 0);
	pd_diff_compute(&d, &pa, &pb, &fn, &set);
	/*
	 * the pair's own dispersion, moderated toward the assumed 1.5 as 8
	 * functions' worth against the 60 that tell it; with it, a scatter
	 * of +-12 % is this pair's noise: nothing is called changed
	 */
	assert_true(d.lambda > 2);
	assert_near(d.phi, (8 * 1.5 + 60 * d.lambda) / 68, 1e-12);
	assert_string_equal(d.phi_source, "this pair");
	for (i = 0; i < d.funcs.n; i++)
		assert_true(d.funcs.v[i].self.status != PD_REGRESSED &&
			    d.funcs.v[i].self.status != PD_IMPROVED);
	pd_diff_release(&d);
	pd_funcs_release(&fn);
	pd_profile_release(&pa);
	pd_profile_release(&pb);
}

/* A run under main: main -> f0..f(n-1), each with counts[i] samples. */
static void tree_run(struct pd_profile *p, const double *counts, size_t n)
{
	char name[32];
	uint32_t m;
	size_t i;

	pd_profile_init(p);
	p->unit = PD_UNIT_NS;
	p->format = "folded";
	p->interval = 1e6;
	p->source = strdup("synthetic");
	m = pd_profile_child(
	    p, PD_ROOT,
	    pd_profile_frame(p, pd_intern_cstr(&p->strs, "main"), 0));
	for (i = 0; i < n; i++) {
		uint32_t f;

		snprintf(name, sizeof(name), "f%zu", i);
		f = pd_profile_frame(p, pd_intern_cstr(&p->strs, name), 0);
		pd_profile_add(p, pd_profile_child(p, m, f), counts[i] * 1e6,
			       counts[i]);
	}
	pd_profile_finish(p);
}

/*
 * main is on every stack: its total is the profile's, the same samples,
 * so one member of the family, not two. Four leaves under it (f0 +30 %)
 * and the total make five members: f0's q is its p times 5 (it is the
 * smallest), where counting main apart would make it 6; main's total
 * shares the total's q.
 */
static void test_one_member_per_sample_set(void **state)
{
	double a[4] = { 1000, 1000, 1000, 1000 },
	       b[4] = { 1300, 1000, 1000, 1000 };
	struct pd_profile pa, pb;
	struct pd_settings set;
	struct pd_funcs fn;
	struct pd_diff d;
	const struct pd_fdiff *f, *m;

	(void)state;
	tree_run(&pa, a, 4);
	tree_run(&pb, b, 4);
	pd_settings_default(&set);
	pd_funcs_init(&fn, 0);
	pd_diff_compute(&d, &pa, &pb, &fn, &set);
	f = find(&d, "f0");
	m = find(&d, "main");
	assert_near(f->self.q, f->self.p * 5, 1e-12);
	assert_near(m->total.q, d.total.q, 0);
	assert_near(m->total.p_tau, d.total.p_tau, 0);
	assert_true(d.total.p * 5 / 2 > f->self.p * 5);
	pd_diff_release(&d);
	pd_funcs_release(&fn);
	pd_profile_release(&pa);
	pd_profile_release(&pb);
}

/*
 * Several runs per side: the profile total and main's total hold the
 * same samples, so they get one answer. Runs vary by a common factor
 * (+-3 %) and by noise; the candidate is 8 % slower everywhere. Before
 * the total was a row of the prior's trend, its test had no prior while
 * main's had the functions', and the two disagreed.
 */
static void test_runs_total_is_main(void **state)
{
	struct pd_profile p[10];
	const struct pd_profile *a[5], *b[5];
	struct pd_settings set;
	struct pd_funcs fn;
	struct pd_diff d;
	const struct pd_fdiff *m;
	uint64_t s = 7;
	size_t r, i;

	(void)state;
	for (r = 0; r < 10; r++) {
		double c[12], run = 1 + 0.03 * ((double)(r % 3) - 1);

		for (i = 0; i < 12; i++) {
			s = s * 6364136223846793005ULL + 1;
			c[i] =
			    floor((double)(400 + 300 * i) * run *
				  (r >= 5 ? 1.08 : 1) *
				  (1 + 0.02 * ((double)(s >> 40) / 16777216.0 -
					       0.5)));
		}
		tree_run(&p[r], c, 12);
		if (r < 5)
			a[r] = &p[r];
		else
			b[r - 5] = &p[r];
	}
	pd_settings_default(&set);
	pd_funcs_init(&fn, 0);
	pd_diff_profiles(&d, a, 5, b, 5, &fn, &set);
	assert_int_equal(d.method, PD_METHOD_MODERATED_T);
	assert_string_equal(pd_method_name(d.method), "moderated-t");
	m = find(&d, "main");
	assert_non_null(m);
	assert_int_equal(m->total.status, d.total.status);
	assert_near(m->total.ci_low, d.total.ci_low, 0.005);
	assert_near(m->total.ci_high, d.total.ci_high, 0.005);
	/* main's log weights carry half a sample's weight more */
	assert_near(m->total.ratio, d.total.ratio, 1e-4);
	pd_diff_release(&d);
	pd_funcs_release(&fn);
	for (r = 0; r < 10; r++)
		pd_profile_release(&p[r]);
}

/*
 * Twelve runs a side: the rank test decides, and its threshold test
 * moves the candidate's runs back by 5 %. f0 +5.5 % with runs spread
 * +-3 %: every candidate run is above its baseline partner's level, so
 * against 0 the change is real (Mann-Whitney p < 0.001), but moved back
 * by the threshold the runs interleave: inconclusive. f1 +40 % the same
 * way: still apart after the move, regressed. Each run's level (what
 * the machine did in it) comes from the functions alike in that run:
 * f2 and f3, which never move, so f0's runs keep their values (f1's
 * residuals, +-0.17 about its mean, are never alike with them).
 */
static void test_rank_threshold(void **state)
{
	struct pd_profile p[24];
	const struct pd_profile *a[12], *b[12];
	struct pd_settings set;
	struct pd_funcs fn;
	struct pd_diff d;
	const struct pd_fdiff *f;
	size_t r;

	(void)state;
	for (r = 0; r < 24; r++) {
		/* runs spread evenly over +-3 %, the same on both sides */
		double j = 1 + 0.06 * ((double)((r % 12) * 7 % 12) / 11 - 0.5);
		double c[4] = { 100000 * j, 100000 * j, 100000, 100000 };

		if (r >= 12) {
			c[0] *= 1.055;
			c[1] *= 1.40;
		}
		flat(&p[r], c, 4, 1e6, NULL);
		if (r < 12)
			a[r] = &p[r];
		else
			b[r - 12] = &p[r];
	}
	pd_settings_default(&set);
	pd_funcs_init(&fn, 0);
	pd_diff_profiles(&d, a, 12, b, 12, &fn, &set);
	f = find(&d, "f0");
	assert_true(f->self.mw_p < 1e-3);
	assert_near(f->self.p, f->self.mw_p, 0);
	/*
	 * Moved back, a candidate run is 1.055 / 1.05 of its partner's
	 * level, less than one step (0.06 / 11) of the spread: it beats the
	 * baseline runs at or below its level, 66 + 12 = 78 of 144 pairs.
	 * Two-sided exact P(U >= 78) for 12 and 12 runs, counted by the
	 * recurrence: 2 * 1021204 / C(24, 12).
	 */
	assert_near(f->self.p_tau, 2.0 * 1021204 / 2704156, 1e-9);
	assert_int_equal(f->self.status, PD_INCONCLUSIVE);
	f = find(&d, "f1");
	assert_true(f->self.p_tau < 1e-3);
	assert_int_equal(f->self.status, PD_REGRESSED);
	pd_diff_release(&d);
	pd_funcs_release(&fn);
	for (r = 0; r < 24; r++)
		pd_profile_release(&p[r]);
}

/*
 * One pair with history: a function the history saw vary by 20 % from
 * run to run is judged by that, not by the model without history. f0
 * grows 1000 -> 1300 samples: regressed without history, inconclusive
 * with it, the t tail with the learned degrees of freedom.
 */
static void test_history_noise_per_function(void **state)
{
	double a[40], b[40];
	struct pd_profile pa, pb;
	struct pd_settings set;
	struct pd_funcs fn;
	struct pd_diff d;
	struct pd_agg ga, gb;
	struct pd_side sa, sb;
	struct pd_noise noise;
	const struct pd_profile *pa1[1] = { &pa }, *pb1[1] = { &pb };
	const struct pd_fdiff *f;
	uint32_t id;
	size_t i;

	(void)state;
	for (i = 0; i < 40; i++)
		a[i] = b[i] = 1000;
	b[0] = 1300;
	flat(&pa, a, 40, 1e6, NULL);
	flat(&pb, b, 40, 1e6, NULL);
	pd_settings_default(&set);
	pd_funcs_init(&fn, 0);
	pd_diff_compute(&d, &pa, &pb, &fn, &set);
	f = find(&d, "f0");
	assert_int_equal(f->self.status, PD_REGRESSED);
	id = f->func;
	pd_diff_release(&d);

	pd_noise_init(&noise, fn.v.n);
	noise.s0[0][id] = noise.s0[1][id] = 0.04;
	noise.d0[0][id] = noise.d0[1][id] = 30;
	noise.cbar[0][id] = noise.cbar[1][id] = 1000;
	pd_agg_init(&ga);
	pd_agg_init(&gb);
	pd_agg_compute(&ga, &pa, &fn);
	pd_agg_compute(&gb, &pb, &fn);
	pd_side_of_profiles(&sa, pa1, 1);
	pd_side_of_profiles(&sb, pb1, 1);
	pd_diff_aggs(&d, &sa, &ga, 1, &sb, &gb, 1, &fn, &set, &noise);
	f = find(&d, "f0");
	assert_int_equal(f->self.status, PD_INCONCLUSIVE);
	assert_string_equal(d.phi_source, "history");
	{
		/*
		 * moderated toward phi0/cbar + cv^2 with 4 df; each side's
		 * sampling part moved from the history's 1000 samples to its
		 * own count; plus the variance of the reference, the other
		 * 39 functions (test_planted_change)
		 */
		double s2 = (30 * 0.04 + 4 * (1.5 / 1000.5 + 0.0004)) / 34;
		double phi = 22.0 / 48, vo = phi * 2 / 1000.5 + 0.0008;
		double v = s2 + (s2 + 1 / 1300.5 - 1 / 1000.5) + vo / 39;

		assert_near(f->self.p,
			    pd_t_sf2(log(1300.5 / 1000.5) / sqrt(v), 34), 1e-9);
	}
	/*
	 * the other functions, not learned, keep the model without
	 * history: f1 against the 38 functions alike (f0, 6.5 standard
	 * errors off, is not), qt(.975, 6) = 2.446912
	 */
	f = find(&d, "f1");
	{
		double phi = 22.0 / 48, vo = phi * 2 / 1000.5 + 0.0008;

		assert_near(f->self.ci_high, exp(2.446912 * sqrt(vo + vo / 38)),
			    1e-6);
	}
	pd_diff_release(&d);
	pd_agg_release(&ga);
	pd_agg_release(&gb);
	pd_noise_release(&noise);
	pd_funcs_release(&fn);
	pd_profile_release(&pa);
	pd_profile_release(&pb);
}

/*
 * Several runs: a function whose runs swing by 40 % among 60 functions
 * that vary by 1 % keeps its own variance (an outlier of the prior), so a 22 %
 * difference of its means is not called a regression; shrunk toward the
 * quiet functions' trend it would have been.
 */
static void test_runs_noisy_function_not_shrunk(void **state)
{
	static const double noisy[6] = { 1000, 1400, 700, 1300, 900, 1600 };
	struct pd_profile p[6];
	const struct pd_profile *a[3], *b[3];
	struct pd_settings set;
	struct pd_funcs fn;
	struct pd_diff d;
	const struct pd_fdiff *f;
	size_t r, i;

	(void)state;
	for (r = 0; r < 6; r++) {
		double c[61];

		for (i = 0; i < 60; i++)
			c[i] = (double)(2000 + 100 * i) *
			       (1 + 0.01 * (double)((r + i) % 3) - 0.01);
		c[60] = noisy[r];
		tree_run(&p[r], c, 61);
		if (r < 3)
			a[r] = &p[r];
		else
			b[r - 3] = &p[r];
	}
	pd_settings_default(&set);
	pd_funcs_init(&fn, 0);
	pd_diff_profiles(&d, a, 3, b, 3, &fn, &set);
	f = find(&d, "f60");
	assert_non_null(f);
	assert_true(f->self.ratio > 1.2);
	assert_int_not_equal(f->self.status, PD_REGRESSED);
	assert_true(f->self.ci_low < 1);
	pd_diff_release(&d);
	pd_funcs_release(&fn);
	for (r = 0; r < 6; r++)
		pd_profile_release(&p[r]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_normal),
		cmocka_unit_test(test_chi2),
		cmocka_unit_test(test_binomial),
		cmocka_unit_test(test_t_quantile),
		cmocka_unit_test(test_polygamma),
		cmocka_unit_test(test_bh_and_median),
		cmocka_unit_test(test_planted_change),
		cmocka_unit_test(test_threshold_family),
		cmocka_unit_test(test_small_counts_and_one_sided),
		cmocka_unit_test(test_share_mode),
		cmocka_unit_test(test_lambda_inflates_phi),
		cmocka_unit_test(test_runs_total_is_main),
		cmocka_unit_test(test_one_member_per_sample_set),
		cmocka_unit_test(test_rank_threshold),
		cmocka_unit_test(test_history_noise_per_function),
		cmocka_unit_test(test_runs_noisy_function_not_shrunk),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
