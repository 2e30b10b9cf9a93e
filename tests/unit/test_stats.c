/*
 * Unit tests for stats/. Expected values are computed independently:
 * binomial tails summed by hand from the binomial formula, normal tails from
 * standard tables, BH from its definition on a small example.
 */
#include "testutil.h"

#include "stats/diff.h"
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
}

/* Builds a flat profile: function i gets counts[i] samples of weight w. */
static void flat(struct pd_profile *p, const double *counts, size_t n, double w,
		 const char *extra)
{
	char name[32];
	size_t i;

	pd_profile_init(p);
	p->unit = PD_UNIT_NS;
	p->format = "folded";
	p->interval = w;
	p->source = strdup("synthetic");
	for (i = 0; i < n; i++) {
		uint32_t f, node;

		if (counts[i] <= 0)
			continue;
		snprintf(name, sizeof(name), "f%zu", i);
		f = pd_profile_frame(p, pd_intern_cstr(&p->strs, name), 0);
		node = pd_profile_child(p, PD_ROOT, f);
		pd_profile_add(p, node, counts[i] * w, counts[i]);
	}
	if (extra) {
		uint32_t f =
		    pd_profile_frame(p, pd_intern_cstr(&p->strs, extra), 0);

		pd_profile_add(p, pd_profile_child(p, PD_ROOT, f), 500 * w,
			       500);
	}
	pd_profile_finish(p);
}

static const struct pd_fdiff *find(const struct pd_diff *d, const char *name)
{
	size_t i;

	for (i = 0; i < d->funcs.n; i++)
		if (!strcmp(pd_func_name(d->fn, d->funcs.v[i].func), name))
			return &d->funcs.v[i];
	return NULL;
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
	/* z = ln(1300.5/1000.5)/sqrt(2(1/1000.5+1/1300.5)) by hand */
	assert_near(f->self.p,
		    2 * pd_norm_sf(log(1300.5 / 1000.5) /
				   sqrt(2 * (1 / 1000.5 + 1 / 1300.5))),
		    1e-12);
	assert_int_equal(d.verdict, PD_REGRESSED);
	assert_int_equal(d.funcs.v[0].func, f->func); /* largest first */
	/* The unchanged functions are equivalent, not noise-flagged. */
	f = find(&d, "f1");
	assert_int_equal(f->self.status, PD_SAME);
	/* 40 functions with >= 50 samples: lambda is estimated (~0 here). */
	assert_false(isnan(d.lambda));
	assert_int_equal(d.lambda_n, 40);
	assert_near(d.phi, 2, 0);
	pd_diff_release(&d);
	pd_funcs_release(&fn);
	pd_profile_release(&pa);
	pd_profile_release(&pb);
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
	/* exact test on counts / phi: 15 of 25 at E ratio 1 */
	assert_near(f->self.p, pd_binom_two_sided(15, 25, 0.5), 1e-12);
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
	/* Absolute: f1 is unchanged (90 % CI 0.99..1.01). */
	pd_settings_default(&set);
	pd_funcs_init(&fn, 0);
	pd_diff_compute(&d, &pa, &pb, &fn, &set);
	assert_int_equal(find(&d, "f1")->self.status, PD_SAME);
	assert_int_equal(find(&d, "f0")->self.status, PD_REGRESSED);
	pd_diff_release(&d);
	pd_funcs_release(&fn);
	pd_profile_release(&pa);
	pd_profile_release(&pb);
	/* 1000 samples cannot show equivalence within 5 % at phi 2. */
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
	assert_true(d.lambda > 2);
	assert_near(d.phi, d.lambda, 0);
	assert_string_equal(d.phi_source, "estimated");
	pd_diff_release(&d);
	pd_funcs_release(&fn);
	pd_profile_release(&pa);
	pd_profile_release(&pb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_normal),
		cmocka_unit_test(test_binomial),
		cmocka_unit_test(test_bh_and_median),
		cmocka_unit_test(test_planted_change),
		cmocka_unit_test(test_small_counts_and_one_sided),
		cmocka_unit_test(test_share_mode),
		cmocka_unit_test(test_lambda_inflates_phi),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
