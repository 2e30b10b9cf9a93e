/*
 * Noise learned from history (statistics.md, "The noise model";
 * history.md, "Noise learned from history"): from a window of stored
 * runs, each function's and the total's single-run variance of
 * ln(weight) -- within commits (repeats) and from one commit to the next
 * (night to night) -- and per-function thresholds. The store loads the
 * runs (store/noise.c); the arithmetic is here.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/xalloc.h"
#include "stats/noise.h"
#include "stats/stats.h"

void pd_noise_init(struct pd_noise *n, size_t nfuncs)
{
	int k;

	memset(n, 0, sizeof(*n));
	n->n = nfuncs;
	for (k = 0; k < 2; k++) {
		n->s0[k] = pd_xcalloc(nfuncs + 1, sizeof(double));
		n->d0[k] = pd_xcalloc(nfuncs + 1, sizeof(double));
		n->tau[k] = pd_xcalloc(nfuncs + 1, sizeof(double));
		n->cbar[k] = pd_xcalloc(nfuncs + 1, sizeof(double));

		n->tau_points[k] = pd_xcalloc(nfuncs + 1, sizeof(int));
	}
}

void pd_noise_release(struct pd_noise *n)
{
	int k;

	for (k = 0; k < 2; k++) {
		free(n->s0[k]);
		free(n->d0[k]);
		free(n->tau[k]);
		free(n->cbar[k]);

		free(n->tau_points[k]);
	}
	memset(n, 0, sizeof(*n));
}

/* The q quantile of sorted v (linear interpolation). */
static double quantile(const double *v, size_t n, double q)
{
	double pos = q * (double)(n - 1);
	size_t lo = (size_t)floor(pos);

	if (lo + 1 >= n)
		return v[n - 1];
	return v[lo] + (pos - (double)lo) * (v[lo + 1] - v[lo]);
}

/* A run's weight (k 0: self, 1: total) of function f, nfun the total. */
static double run_w(const struct pd_agg *a, size_t f, size_t nfun, int k)
{
	if (f == nfun)
		return a->all_w;
	return k ? a->total_w[f] : a->self_w[f];
}

/* The same, its sample count. */
static double run_c(const struct pd_agg *a, size_t f, size_t nfun, int k)
{
	if (f == nfun)
		return a->all_c;
	return k ? a->total_c[f] : a->self_c[f];
}

/*
 * One function's (or, for f == nfun, the profile total's) run-to-run
 * noise over the window (statistics.md, "the noise model"): the pooled
 * variance of ln(weight) within commits (repeats), the variance of
 * commit means from one commit to the next (night-to-night, from the
 * median of squared successive differences, which a few real steps do
 * not move), the single-run variance they imply, and the threshold from
 * neighbouring commits' ratios.
 */
static void learn_one(const struct pd_agg *const *runs, const size_t *commit,
		      size_t n, size_t f, size_t nfun, int k,
		      struct pd_noise *noise)
{
	double pooled = 0, df = 0, cbar = 0, groups = 0, s2w, v, d0;
	PD_VEC(double) means = PD_VEC_INIT, lmeans = PD_VEC_INIT;
	size_t i, j;

	for (i = 0; i < n;) {
		double m = 0, vv = 0, mw = 0;
		size_t e = i, g;

		while (e < n && commit[e] == commit[i])
			e++;
		g = e - i;
		for (j = i; j < e; j++) {
			const struct pd_agg *a = runs[j];
			double eps =
			    a->all_c > 0 ? 0.5 * a->all_w / a->all_c : 0.5;

			m += log(run_w(a, f, nfun, k) + eps) / (double)g;
			mw += run_w(a, f, nfun, k) / (double)g;
			cbar += run_c(a, f, nfun, k) / (double)n;
		}
		for (j = i; j < e && g > 1; j++) {
			const struct pd_agg *a = runs[j];
			double eps =
			    a->all_c > 0 ? 0.5 * a->all_w / a->all_c : 0.5;
			double y = log(run_w(a, f, nfun, k) + eps);

			vv += (y - m) * (y - m);
		}
		if (g > 1) {
			pooled += vv;
			df += (double)(g - 1);
		}
		PD_VEC_PUSH(&means, mw);
		PD_VEC_PUSH(&lmeans, m);
		groups += 1;
		i = e;
	}
	s2w = df > 0 ? pooled / df : 0;
	v = s2w;
	d0 = df;
	/*
	 * Night to night: commit means' successive differences, the largest
	 * tenth (at least one) left out: a real step in the window is one
	 * large difference. Keeping the lower fraction p of a chi-square(1)
	 * sample keeps, on average, P(chi2(3) < q) / p of its mean, q its p
	 * quantile (z^2 with z the (1 + p)/2 normal quantile; 0.623 for p =
	 * 0.9), and the estimate is divided by that.
	 */
	if (lmeans.n >= 5) {
		PD_VEC(double) d2 = PD_VEC_INIT;
		double vcm = 0, nbar = (double)n / groups;
		size_t keep;

		for (j = 1; j < lmeans.n; j++)
			PD_VEC_PUSH(&d2, (lmeans.v[j] - lmeans.v[j - 1]) *
					     (lmeans.v[j] - lmeans.v[j - 1]));
		pd_median(d2.v, d2.n); /* sorts */
		keep = d2.n - (d2.n + 9) / 10;
		for (j = 0; j < keep; j++)
			vcm += d2.v[j] / (double)keep;
		{
			double p = (double)keep / (double)d2.n;
			double z = pd_t_quantile((1 + p) / 2, 1e9);
			/* sqrt(2 / pi) = 0.79788... */
			double kept = erf(z / sqrt(2)) -
				      z * 0.7978845608028654 * exp(-z * z / 2);

			vcm /= 2 * kept / p;
		}
		/* a single run's variance: night part plus within part */
		v = fmax(v, vcm + s2w * (1 - 1 / nbar));
		/* a trimmed mean keeps about 70 % of the information */
		d0 += 0.7 * (double)d2.n;
		PD_VEC_FREE(&d2);
	}
	if (d0 >= 2) {
		noise->s0[k][f] = v;
		noise->d0[k][f] = fmin(d0, 30);
		noise->cbar[k][f] = cbar;
	}
	/* Thresholds from neighbouring commits: Q3 + 3 IQR. */
	if (f < nfun && means.n >= PD_NOISE_WINDOW) {
		PD_VEC(double) d = PD_VEC_INIT;

		for (j = 1; j < means.n; j++)
			if (means.v[j - 1] > 0 && means.v[j] > 0)
				PD_VEC_PUSH(
				    &d, fabs(means.v[j] / means.v[j - 1] - 1));
		if (d.n + 1 >= PD_NOISE_WINDOW) {
			double q1, q3;

			pd_median(d.v, d.n); /* sorts */
			q1 = quantile(d.v, d.n, 0.25);
			q3 = quantile(d.v, d.n, 0.75);
			noise->tau[k][f] = q3 + 3 * (q3 - q1);
			noise->tau_points[k][f] = (int)means.n;
		}
		PD_VEC_FREE(&d);
	}
	PD_VEC_FREE(&means);
	PD_VEC_FREE(&lmeans);
}

void pd_noise_learn(struct pd_noise *noise, const struct pd_agg *const *runs,
		    const size_t *commit, size_t n, size_t nfun)
{
	size_t f;
	int k;

	for (k = 0; k < 2; k++)
		for (f = 0; f <= nfun; f++)
			learn_one(runs, commit, n, f, nfun, k, noise);
}
