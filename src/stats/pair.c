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
 * variance's ratio to Poisson. A function whose counts scatter over the
 * profiles' time blocks beyond sampling (bursty) has its sampling part
 * raised to that scatter, never lowered (statistics.md, "Bursty
 * functions").
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/sort.h"
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

/*
 * Bursty: the time blocks' dispersion beyond sampling at this level,
 * moderated up toward the profile's typical dispersion as BURST_PRIOR_DF
 * blocks' worth of it (never down: a few blocks' count of bursts is
 * already an estimate on the low side).
 */
#define BURST_P 0.01
#define BURST_PRIOR_DF 8

/* Both sides' block dispersion of function i's metric k, pooled. */
static double pooled_burst(const struct pd_agg *aa, const struct pd_agg *ab,
			   size_t i, int k, double *df)
{
	const struct pd_agg *s[2] = { aa, ab };
	double x2 = 0;
	int j;

	*df = 0;
	for (j = 0; j < 2; j++)
		if (s[j]->bdf[k] && i < s[j]->n && s[j]->bdf[k][i] > 0) {
			x2 += s[j]->bdisp[k][i] * s[j]->bdf[k][i];
			*df += s[j]->bdf[k][i];
		}
	return *df > 0 ? x2 / *df : 0;
}

/* The typical dispersion of the program's functions' self counts, >= 1. */
static double common_burst(const struct pd_diff *d, const struct pd_agg *aa,
			   const struct pd_agg *ab)
{
	size_t nf = d->fn->v.n, i, n = 0;
	double *v = pd_xmalloc((nf ? nf : 1) * sizeof(*v)), df, m;

	for (i = 0; i < nf; i++) {
		double disp = pooled_burst(aa, ab, i, 0, &df);

		if (df > 0 && !d->fn->v.v[i].system)
			v[n++] = disp;
	}
	m = n ? pd_median(v, n) : 1;
	free(v);
	return fmax(m, 1);
}

/* Function i's metric k's moderated dispersion when bursty, else 0. */
static double burst_of(const struct pd_agg *aa, const struct pd_agg *ab,
		       size_t i, int k, double common)
{
	double df, disp = pooled_burst(aa, ab, i, k, &df);

	if (!(df > 0) || pd_chi2_sf(disp * df, df) >= BURST_P)
		return 0;
	return fmax(disp, (df * disp + BURST_PRIOR_DF * common) /
			      (df + BURST_PRIOR_DF));
}

struct bursty {
	double v;
	uint32_t func;
};

static int cmp_bursty(const void *x, const void *y)
{
	const struct bursty *a = x, *b = y;

	if (a->v < b->v || a->v > b->v)
		return a->v < b->v ? 1 : -1;
	return (a->func > b->func) - (a->func < b->func);
}

/* Names the program's bursty functions in one warning, the burstiest first. */
static void warn_bursty(struct pd_diff *d)
{
	struct pd_buf b = PD_BUF_INIT;
	struct bursty *v;
	size_t i, n = 0;

	v = pd_xmalloc((d->funcs.n ? d->funcs.n : 1) * sizeof(*v));
	for (i = 0; i < d->funcs.n; i++) {
		const struct pd_fdiff *f = &d->funcs.v[i];
		double x = fmax(f->self.burst, f->total.burst);

		if (x > 0 && !pd_diff_set_apart(d, f)) {
			v[n].v = x;
			v[n++].func = f->func;
		}
	}
	if (!n) {
		free(v);
		return;
	}
	pd_sort(v, n, sizeof(*v), cmp_bursty);
	for (i = 0; i < n && i < 5; i++)
		pd_buf_addf(&b, "%s%s (%.1fx)", i ? ", " : "",
			    pd_func_name(d->fn, v[i].func), v[i].v);
	if (n > 5)
		pd_buf_addf(&b, " and %zu more", n - 5);
	pd_diff_warn(d,
		     "bursty: %s; their time comes in bursts within a run, so"
		     " one run tells less of it: judged with the sampling"
		     " variance raised that many times (statistics.md,"
		     " \"Bursty functions\")",
		     b.buf);
	pd_buf_release(&b);
	free(v);
}

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
 * own well-sampled functions show) when that is larger. A bursty
 * function's sampling part is at least burst times Poisson's either way.
 */
static void measure_pair(struct pd_diff *d, struct pd_metric *m,
			 const struct pd_expo *x, double wa, double wb,
			 double a, double b, const struct learned *l,
			 double burst, double vshift, double sig2)
{
	double phi = d->phi, s = 1 / (a + 0.5) + 1 / (b + 0.5);
	int raised = 0;

	if (l->df > 0) {
		double va = learned_var(l, a), vb = learned_var(l, b);

		if (burst / (a + 0.5) > va || burst / (b + 0.5) > vb) {
			va = fmax(va, burst / (a + 0.5));
			vb = fmax(vb, burst / (b + 0.5));
			raised = 1;
		}
		pd_diff_measure_v(m, x, wa, wb, a, b, 0, (va + vb + vshift) / 2,
				  l->df, d->set.share);
		m->burst = raised ? burst : 0;
		return;
	}
	if (!isnan(d->lambda) &&
	    d->lambda * (s + 2 * sig2) > phi * s + 2 * sig2) {
		phi = d->lambda;
		sig2 *= d->lambda;
	}
	if (burst > phi) {
		phi = burst;
		raised = 1;
	}
	pd_diff_measure_v(m, x, wa, wb, a, b, phi, sig2 + vshift / 2, 0,
			  d->set.share);
	m->burst = raised ? burst : 0;
}

/*
 * The whole program's run-to-run variation without history: measured on
 * a busy two-core machine, 0.4 % to 9.7 % by program (a memory-bound or
 * threaded program's total moves with the load; statistics.md,
 * "Machine-wide shifts"). It is assumed when the machine may have moved:
 * a shift was taken out, or no well-sampled function shows the machine
 * steady. When one does, the total's change is the functions', and
 * --run-cv serves as for them.
 */
#define WHOLE_RUN_CV 0.08

/* Sets d->whole_cv once the shift is known; returns its square. */
static double whole_cv2(struct pd_diff *d)
{
	d->whole_cv = d->set.run_cv;
	if (d->shift_alike || !d->shift_steady)
		d->whole_cv = fmax(d->set.run_cv, WHOLE_RUN_CV);
	return d->whole_cv * d->whole_cv;
}

/*
 * Whether a metric is the whole program's: main's or a start routine's
 * total, at least WHOLE_SHARE of each side's samples (the rest is the
 * kernel's or the loader's). Its run-to-run variation is the program's.
 */
#define WHOLE_SHARE 0.95

static int whole(double a, double b, const struct pd_expo *x)
{
	return a >= WHOLE_SHARE * x->ca && b >= WHOLE_SHARE * x->cb;
}

/*
 * A function judged against the program's shift: its change (in weight
 * and per cent) and impact are what it moved beyond the shift, as its
 * ratio is.
 */
static void beyond_shift(struct pd_metric *m, double shift, double ta)
{
	double wb = m->cand / exp(shift);

	if (!(fabs(shift) > 0) || !(m->base > 0))
		return;
	m->delta = wb - m->base; /* cost shifts and sorting read it too */
	m->delta_pct = (wb / m->base - 1) * 100;
	m->impact_pct = ta > 0 ? fabs(wb - m->base) / ta * 100 : 0;
}

/*
 * Names the shift taken out, if any; the functions are judged against
 * it, the total (and a function on every stack) as it is.
 */
static void take_shift(struct pd_diff *d, const struct pd_agg *aa,
		       const struct pd_agg *ab, const struct pd_expo *x,
		       struct pd_expo *xf)
{
	double beyond;

	*xf = *x;
	/*
	 * Exact counts (allocations) and shares have no machine behind
	 * them to shift, and no whole-program variation of their own.
	 */
	if (d->set.share || d->base.exact || d->cand.exact) {
		d->shift_steady = 1;
		return;
	}
	d->shift =
	    pd_diff_program_shift(d, aa, ab, x, &d->shift_var, &d->shift_alike,
				  &d->shift_voters, &d->shift_steady, &beyond);
	if (fabs(beyond) > 0)
		pd_diff_warn(d,
			     "most of the program's functions moved together,"
			     " by %+.0f %%: more than a machine's shift from"
			     " run to run, so a change of the program's own"
			     " work (each function judged as it is)",
			     (exp(beyond) - 1) * 100);
	if (!d->shift_alike)
		return;
	xf->eb = x->eb * exp(d->shift);
	pd_diff_warn(d,
		     "the whole program moved %+.1f %% (%zu of %zu"
		     " well-sampled functions alike): a machine-wide shift"
		     " (load, frequency, another machine) or a change that"
		     " touches all of the code; each function is judged"
		     " against it (docs/statistics.md, \"Machine-wide"
		     " shifts\")",
		     (exp(d->shift) - 1) * 100, d->shift_alike,
		     d->shift_voters);
}

/*
 * What the program's bursty functions add to its total's variance beyond
 * sampling, in samples squared, per side: each one's self count times its
 * dispersion beyond phi. The whole program's count is its steady work
 * plus however many bursts came, so its variation is theirs too.
 */
static void burst_extra(const struct pd_diff *d, const struct pd_agg *aa,
			const struct pd_agg *ab, double common, double *ea,
			double *eb)
{
	size_t i;

	*ea = *eb = 0;
	if (!aa->bdf[0] && !ab->bdf[0])
		return;
	for (i = 0; i < d->fn->v.n; i++) {
		double over;

		if (d->fn->v.v[i].system)
			continue;
		over = burst_of(aa, ab, i, 0, common) - d->phi;
		if (over > 0) {
			*ea += over * aa->self_c[i];
			*eb += over * ab->self_c[i];
		}
	}
}

/*
 * The variance on the log scale that ea and eb add to counts a and b of
 * the whole program, the two sides together; passed beside the
 * between-run part, so that lambda does not scale it again (the bursts'
 * dispersion is already beyond phi). None with history: the learned
 * variance holds the bursts.
 */
static double bursts_var(const struct learned *l, double ea, double eb,
			 double a, double b)
{
	if (l->df > 0)
		return 0;
	return ea / ((a + 0.5) * (a + 0.5)) + eb / ((b + 0.5) * (b + 0.5));
}

/* One profile per side. */
void pd_diff_counts(struct pd_diff *d, const struct pd_agg *aa,
		    const struct pd_agg *ab, const struct pd_noise *noise)
{
	struct pd_expo x =
	    pd_diff_exposure(d, aa->all_w, aa->all_c, ab->all_w, ab->all_c);
	struct pd_expo xf;
	size_t nf = d->fn->v.n, i, nz = 0, nlearned = 0;
	double *z2, cv2 = d->set.run_cv * d->set.run_cv, common = 1, wcv2;
	double ea, eb;
	struct learned l;

	d->method = PD_METHOD_QUASI_POISSON;
	take_shift(d, aa, ab, &x, &xf);
	wcv2 = whole_cv2(d);
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
		pd_diff_log_ratio(&xf, aa->self_c[i], ab->self_c[i], 1, cv2, &L,
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
	if (aa->bdf[0] || ab->bdf[0])
		common = common_burst(d, aa, ab);
	burst_extra(d, aa, ab, common, &ea, &eb);

	PD_VEC_RESERVE(&d->funcs, nf);
	for (i = 0; i < nf; i++) {
		struct pd_fdiff f;
		int k, system;

		memset(&f, 0, sizeof(f));
		if (aa->total_w[i] <= 0 && ab->total_w[i] <= 0)
			continue;
		f.func = (uint32_t)i;
		system =
		    d->fn->v.v[i].system && !(d->fn->flags & PD_FUNCS_SYSTEM);
		for (k = 0; k < 2; k++) {
			struct pd_metric *m = k ? &f.total : &f.self;
			double a = k ? aa->total_c[i] : aa->self_c[i];
			double b = k ? ab->total_c[i] : ab->self_c[i];
			/*
			 * on every stack (and not a leaf, whose total is its
			 * self): the profile's total, judged as it
			 */
			int all = k && whole(a, b, &x) && !d->set.share &&
				  (a > aa->self_c[i] || b > ab->self_c[i]) &&
				  !system;

			l = learned_of(d, noise, all ? SIZE_MAX : i, k);
			nlearned += l.df > 0;
			measure_pair(
			    d, m, all ? &x : &xf,
			    k ? aa->total_w[i] : aa->self_w[i],
			    k ? ab->total_w[i] : ab->self_w[i], a, b, &l,
			    all ? 0 : burst_of(aa, ab, i, k, common),
			    all ? bursts_var(&l, ea, eb, a, b) : d->shift_var,
			    all ? wcv2 : cv2);
			if (!all)
				beyond_shift(m, d->shift, x.ta);
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
	measure_pair(d, &d->total, &x, x.ta, x.tb, x.ca, x.cb, &l, 0,
		     bursts_var(&l, ea, eb, x.ca, x.cb), wcv2);
	d->total.tau_pct = d->set.threshold_pct;
	pd_diff_test_all(d, &x);
	warn_bursty(d);
}
