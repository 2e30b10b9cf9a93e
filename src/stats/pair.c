/*
 * The count test for one profile per side (statistics.md, "The test" and
 * "The noise model"). Counts a (baseline) and b (candidate) have exposure
 * E (samples per unit of weight in absolute mode, the side's total
 * samples in share mode); L = ln((b+1/2)/E_b) - ln((a+1/2)/E_a). Its
 * variance has two parts: sampling, phi (1/(a+1/2) + 1/(b+1/2)), and
 * between runs, 2 sigma^2 with sigma = --run-cv; with history, each
 * side's run variance as learned for the function (moderated toward that
 * model, a t tail). phi is max(phi0, lambda) where lambda =
 * median(z^2)/0.4549 over the well-sampled functions, when there are at
 * least 30 of them. Below 200 samples the conditional binomial test b |
 * a+b (mid-p) replaces the normal tail, on counts divided by the
 * variance's ratio to Poisson.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/xalloc.h"
#include "stats/diff_int.h"
#include "stats/stats.h"

#define CHI2_1_MEDIAN 0.454936423119572

/*
 * A learned variance counts as PRIOR_DF observations of the model without
 * history: a few commits cannot make a function look quieter than that by
 * chance alone.
 */
#define PRIOR_DF 4

/* What history learned of one metric: a run's variance of ln(weight). */
struct learned {
	double s2;   /* moderated, at a run of cbar samples */
	double cbar; /* the history's mean count of a run */
	double df;   /* 0: nothing learned */
};

/*
 * Function f's metric k (f = SIZE_MAX: the profile total, which the
 * history keeps one past its last function), moderated toward the model
 * without history at the history's run length, phi0/cbar + cv^2, worth
 * PRIOR_DF observations. (A trend over the history's functions, as for
 * several runs, was measured worse here: the noisy functions lift its
 * between-run part, and quiet ones moderated toward it lost a third of
 * their power; statistics.md.)
 */
static struct learned learned_of(const struct pd_diff *d,
				 const struct pd_noise *noise, size_t f, int k)
{
	struct learned l = { 0, 0, 0 };
	double n, prior;

	if (noise && f == SIZE_MAX)
		f = noise->n;
	else if (!noise || f >= noise->n)
		return l;
	n = noise->d0[k][f];
	if (!(n > 0) || !(noise->cbar[k][f] > 0))
		return l;
	l.cbar = noise->cbar[k][f];
	prior =
	    d->set.dispersion / (l.cbar + 0.5) + d->set.run_cv * d->set.run_cv;
	l.s2 = (n * noise->s0[k][f] + PRIOR_DF * prior) / (n + PRIOR_DF);
	l.df = n + PRIOR_DF;
	return l;
}

/*
 * A run of c samples, from what history learned at cbar: the sampling
 * part moves with the count (Poisson's 1/c for 1/cbar), the rest stays;
 * never below a quarter of Poisson (periodic sampling is sub-Poisson,
 * not free of noise).
 */
static double learned_var(const struct learned *l, double c)
{
	return fmax(l->s2 + 1 / (c + 0.5) - 1 / (l->cbar + 0.5),
		    0.25 / (c + 0.5));
}

/*
 * One metric of one pair. With history: each side's learned variance, a
 * t tail with its degrees of freedom. Without: phi0 sampling plus 2 cv^2
 * between runs, or the same scaled by lambda (the excess the profile's
 * own well-sampled functions show) when that is larger.
 */
static void measure_pair(struct pd_diff *d, struct pd_metric *m,
			 const struct pd_expo *x, double wa, double wb,
			 double a, double b, const struct learned *l)
{
	double phi = d->phi, s = 1 / (a + 0.5) + 1 / (b + 0.5);
	double sig2 = d->set.run_cv * d->set.run_cv;

	if (l->df > 0) {
		pd_diff_measure_v(m, x, wa, wb, a, b, 0,
				  (learned_var(l, a) + learned_var(l, b)) / 2,
				  l->df, d->set.share);
		return;
	}
	if (!isnan(d->lambda) &&
	    d->lambda * (s + 2 * sig2) > phi * s + 2 * sig2) {
		phi = d->lambda;
		sig2 *= d->lambda;
	}
	pd_diff_measure_v(m, x, wa, wb, a, b, phi, sig2, 0, d->set.share);
}

/* One profile per side. */
void pd_diff_counts(struct pd_diff *d, const struct pd_agg *aa,
		    const struct pd_agg *ab, const struct pd_noise *noise)
{
	struct pd_expo x =
	    pd_diff_exposure(d, aa->all_w, aa->all_c, ab->all_w, ab->all_c);
	size_t nf = d->fn->v.n, i, nz = 0, nlearned = 0;
	double *z2, cv2 = d->set.run_cv * d->set.run_cv;
	struct learned l;

	d->method = PD_METHOD_QUASI_POISSON;
	/*
	 * Overdispersion: z^2 of well-sampled self counts under the model
	 * at phi = 1 (sampling plus the between-run term).
	 */
	z2 = pd_xmalloc((nf ? nf : 1) * sizeof(*z2));
	for (i = 0; i < nf; i++) {
		double c = aa->self_c[i] + ab->self_c[i], L, se;

		if (c < 50 ||
		    (d->fn->v.v[i].system && !(d->fn->flags & PD_FUNCS_SYSTEM)))
			continue;
		pd_diff_log_ratio(&x, aa->self_c[i], ab->self_c[i], 1, cv2, &L,
				  &se);
		z2[nz++] = (L / se) * (L / se);
	}
	d->phi = d->set.dispersion > 0 ? d->set.dispersion : 1;
	d->phi_source = "default";
	d->lambda_n = nz;
	if (nz >= 30) {
		d->lambda = pd_median(z2, nz) / CHI2_1_MEDIAN;
		if (d->lambda > d->phi) {
			d->phi = d->lambda;
			d->phi_source = "estimated";
		}
	}
	free(z2);

	PD_VEC_RESERVE(&d->funcs, nf);
	for (i = 0; i < nf; i++) {
		struct pd_fdiff f;
		int k;

		if (aa->total_w[i] <= 0 && ab->total_w[i] <= 0)
			continue;
		f.func = (uint32_t)i;
		for (k = 0; k < 2; k++) {
			struct pd_metric *m = k ? &f.total : &f.self;

			l = learned_of(d, noise, i, k);
			nlearned += l.df > 0;
			measure_pair(d, m, &x,
				     k ? aa->total_w[i] : aa->self_w[i],
				     k ? ab->total_w[i] : ab->self_w[i],
				     k ? aa->total_c[i] : aa->self_c[i],
				     k ? ab->total_c[i] : ab->self_c[i], &l);
			pd_diff_set_tau(m, &d->set, noise, f.func, k);
		}
		PD_VEC_PUSH(&d->funcs, f);
	}
	if (nlearned)
		d->phi_source = "history";

	/*
	 * The profile total: the same model, its run-to-run variation
	 * learned under the function id one past the last (the history's
	 * total row), else the floor; tested in the family below.
	 */
	l = learned_of(d, noise, SIZE_MAX, 1);
	measure_pair(d, &d->total, &x, x.ta, x.tb, x.ca, x.cb, &l);
	d->total.tau_pct = d->set.threshold_pct;
	pd_diff_test_all(d, &x);
}
