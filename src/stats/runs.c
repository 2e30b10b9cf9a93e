/*
 * Several runs per side (statistics.md): the moderated Welch t-test on
 * each function's log weight, its variance shrunk toward a prior (from
 * history, else from the functions of similar counts) and floored by the
 * Poisson variance; Mann-Whitney as a check, suggested runs, bimodality.
 * A function's log weight in a run is taken relative to the run's level,
 * the shift the run's other functions show against all runs' means (a
 * loaded machine slows a whole run), so that what is compared is the
 * function beyond the machine; the total and the functions on every
 * stack are the whole program and keep their level.
 */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/sort.h"
#include "core/xalloc.h"
#include "stats/diff_int.h"
#include "stats/noise.h"
#include "stats/run_levels.h"
#include "stats/stats.h"

/* Per-run values of one function and metric, on the log scale. */
struct series {
	double *ya, *yb;
	double wa, wb, ca, cb; /* means of weights and counts */
};

static void fill_series(struct series *s, const struct pd_agg *a, size_t na,
			const struct pd_agg *b, size_t nb, size_t f, int total,
			int share)
{
	size_t i;

	s->wa = s->wb = s->ca = s->cb = 0;
	for (i = 0; i < na + nb; i++) {
		const struct pd_agg *r = i < na ? &a[i] : &b[i - na];
		double w = total ? r->total_w[f] : r->self_w[f];
		double c = total ? r->total_c[f] : r->self_c[f];
		double y = share
			       ? log((c + 0.5) / (r->all_c > 0 ? r->all_c : 1))
			       : log(w + pd_run_eps(r));

		if (i < na) {
			s->ya[i] = y;
			s->wa += w / (double)na;
			s->ca += c / (double)na;
		} else {
			s->yb[i - na] = y;
			s->wb += w / (double)nb;
			s->cb += c / (double)nb;
		}
	}
}

static void mean_var(const double *y, size_t n, double *mean, double *var)
{
	double m = 0, v = 0;
	size_t i;

	for (i = 0; i < n; i++)
		m += y[i];
	m /= (double)n;
	for (i = 0; i < n; i++)
		v += (y[i] - m) * (y[i] - m);
	*mean = m;
	*var = n > 1 ? v / (double)(n - 1) : 0;
}

/* Bimodal runs: one gap holds most of the range, each side of it 2+ runs. */
static int bimodal(const double *y, size_t n)
{
	double *v, gap = 0, range;
	size_t i, at = 0;

	if (n < 4)
		return 0;
	v = pd_xmalloc(n * sizeof(*v));
	memcpy(v, y, n * sizeof(*v));
	pd_median(v, n);
	range = v[n - 1] - v[0];
	for (i = 1; i < n; i++)
		if (v[i] - v[i - 1] > gap) {
			gap = v[i] - v[i - 1];
			at = i;
		}
	free(v);
	return range > 0 && gap > 0.6 * range && at >= 2 && n - at >= 2;
}

/*
 * A function far noisier than the prior says (its own variance, ss/df,
 * beyond the prior's F quantile at 1 %) is not shrunk toward it: a
 * memory-bound function among CPU-bound ones would otherwise borrow
 * their stability and look changed when it only varied (statistics.md;
 * limma's robust option protects such rows in its own way).
 */
static int outlier(double ss, double df, double s0, double d0)
{
	return df > 0 && s0 > 0 && pd_f_sf(ss / df / s0, df, d0) < 0.01;
}

/*
 * The ratio, its 95 % and 90 % intervals on df degrees of freedom, the
 * MDE, and the runs per side that would resolve a change of the
 * threshold given vd, the variance of one difference of runs.
 */
static void interval(struct pd_metric *m, double L, double se2, double df,
		     const struct pd_settings *set, double vd)
{
	double t95 = pd_t_quantile(0.975, df), t90 = pd_t_quantile(0.95, df);
	double delta = log(1 + set->threshold_pct / 100);

	/* the floors above keep the variance and df from going below 0 */
	assert(!(se2 < 0) && !(df <= 0));
	pd_diff_set_test(m, L, sqrt(se2), df);
	m->ratio = exp(L);
	m->ci_low = exp(L - t95 * sqrt(se2));
	m->ci_high = exp(L + t95 * sqrt(se2));
	m->ci90_low = exp(L - t90 * sqrt(se2));
	m->ci90_high = exp(L + t90 * sqrt(se2));
	m->mde_pct = pd_mde_pct(sqrt(se2), t95, set->threshold_pct);
	m->mde_se = sqrt(se2);
	m->suggested_runs =
	    ceil((1.96 + 0.84) * (1.96 + 0.84) * vd / (delta * delta));
}

/* Variance of the differences of paired runs, yb[i] - ya[i]. */
static void paired_var(const struct series *s, size_t n, double *mean,
		       double *var)
{
	double *dv = pd_xmalloc((n + 1) * sizeof(*dv));
	size_t i;

	for (i = 0; i < n; i++)
		dv[i] = s->yb[i] - s->ya[i];
	mean_var(dv, n, mean, var);
	free(dv);
}

/*
 * --paired (runs recorded A B A B, statistics.md): the moderated paired
 * t-test on the differences of each pair's log weights, whose variance is
 * shrunk toward twice the prior (s0 is per side), floored by the Poisson
 * variance of a difference, 1/ca + 1/cb. What the two runs of a pair
 * share (the machine's state that hour) cancels.
 */
static void measure_paired(struct pd_metric *m, const struct pd_expo *x,
			   const struct series *s, size_t n, double s0,
			   double d0, const struct pd_settings *set)
{
	double L, vd, sd, se2, df;

	pd_diff_measure_common(m, x, s->wa, s->wb, s->ca, s->cb, set->share);
	if (s->wa <= 0 && s->wb <= 0)
		return;
	paired_var(s, n, &L, &vd);
	if (!(d0 > 0))
		s0 = d0 = 0;
	if (d0 > 0 &&
	    outlier((double)(n - 1) * vd / 2, (double)(n - 1), s0, d0))
		s0 = d0 = 0;
	sd = d0 + (double)(n - 1) > 0
		 ? (d0 * 2 * s0 + (double)(n - 1) * vd) / (d0 + (double)(n - 1))
		 : vd;
	sd = fmax(sd, 1 / fmax(s->ca, 0.5) + 1 / fmax(s->cb, 0.5));
	se2 = sd / (double)n;
	df = fmax(d0 + (double)n - 1, 1);
	m->p = pd_t_sf2(fabs(L) / sqrt(se2), df);
	if (s->wa <= 0 || s->wb <= 0)
		return;
	interval(m, L, se2, df, set, sd);
}

/*
 * The moderated Welch t-test of one metric: variances shrunk toward the
 * prior (s0, d0), floored by the Poisson variance 1/c.
 */
static void measure_runs(struct pd_metric *m, const struct pd_expo *x,
			 const struct series *s, size_t na, size_t nb,
			 double s0, double d0, const struct pd_settings *set)
{
	double ma, mb, va, vb, sa, sb, se2, df, L, u;

	pd_diff_measure_common(m, x, s->wa, s->wb, s->ca, s->cb, set->share);
	if (s->wa <= 0 && s->wb <= 0)
		return;
	mean_var(s->ya, na, &ma, &va);
	mean_var(s->yb, nb, &mb, &vb);
	if (!(d0 > 0))
		s0 = d0 = 0;
	if (d0 > 0 && outlier((double)(na - 1) * va + (double)(nb - 1) * vb,
			      (double)(na + nb - 2), s0, d0))
		s0 = d0 = 0;
	sa = (d0 * s0 + (double)(na - 1) * va) / (d0 + (double)(na - 1));
	sb = (d0 * s0 + (double)(nb - 1) * vb) / (d0 + (double)(nb - 1));
	if (!(d0 + (double)(na - 1) > 0))
		sa = va;
	if (!(d0 + (double)(nb - 1) > 0))
		sb = vb;
	sa = fmax(sa, 1 / fmax(s->ca, 0.5));
	sb = fmax(sb, 1 / fmax(s->cb, 0.5));
	se2 = sa / (double)na + sb / (double)nb;
	df = se2 * se2 /
	     ((sa / (double)na) * (sa / (double)na) /
		  fmax(d0 + (double)na - 1, 1) +
	      (sb / (double)nb) * (sb / (double)nb) /
		  fmax(d0 + (double)nb - 1, 1));
	L = mb - ma;
	m->p = pd_t_sf2(fabs(L) / sqrt(se2), df);
	m->mw_p = pd_mann_whitney(s->ya, na, s->yb, nb, &u);
	/* With 10+ runs a side the rank test is the main one. */
	if (na >= 10 && nb >= 10)
		m->p = m->mw_p;
	if (s->wa <= 0 || s->wb <= 0)
		return;
	/* a difference of one run a side varies by sa + sb */
	interval(m, L, se2, df, set, sa + sb);
	/* Unstable: the tests point opposite ways, or runs split in two. */
	if ((L > 0) != (u > (double)na * (double)nb / 2) && m->p < 0.5 &&
	    m->mw_p < 0.5 && fabs(u - (double)na * (double)nb / 2) > 0)
		m->unstable = 1;
	if (bimodal(s->ya, na) || bimodal(s->yb, nb))
		m->unstable = 1;
}

/* The profile total of every run. */
static void total_series(struct series *s, const struct pd_agg *a, size_t na,
			 const struct pd_agg *b, size_t nb)
{
	size_t i;

	s->wa = s->wb = s->ca = s->cb = 0;
	for (i = 0; i < na; i++) {
		s->ya[i] = log(a[i].all_w > 0 ? a[i].all_w : 1e-300);
		s->wa += a[i].all_w / (double)na;
		s->ca += a[i].all_c / (double)na;
	}
	for (i = 0; i < nb; i++) {
		s->yb[i] = log(b[i].all_w > 0 ? b[i].all_w : 1e-300);
		s->wb += b[i].all_w / (double)nb;
		s->cb += b[i].all_c / (double)nb;
	}
}

/* Several runs per side. */
/* The runs of both sides, and what every row of the diff reads. */
struct runs_in {
	struct pd_agg *a, *b;
	size_t na, nb;
	int paired;
	struct series s; /* scratch: one row's values over the runs */
	struct pd_levels lv;
	double *lvl; /* scratch: one function's levels, a run each */
	/* per row of d->funcs, self then total: its share did not follow */
	unsigned char *veto;
};

/*
 * A function judged as it is (its runs not taken beyond their levels)
 * is called changed only where its share of the run moved the same way
 * by at least this part of what its own move would move it, the rest
 * of the run unchanged: else the move is the machine's (statistics.md,
 * "Several runs per side").
 */
#define SHARE_FOLLOWS (1.0 / 3.0)

/*
 * Whether the move L of function f judged as it is lacks a share that
 * followed it (SHARE_FOLLOWS): a share s moved by L alone moves by
 * L - ln(s e^L + 1 - s). in->s is overwritten.
 */
static int share_lags(struct runs_in *in, size_t f, int k, double L)
{
	double ma, mb, va, vb, sm, s, want;

	fill_series(&in->s, in->a, in->na, in->b, in->nb, f, k, 1);
	mean_var(in->s.ya, in->na, &ma, &va);
	mean_var(in->s.yb, in->nb, &mb, &vb);
	sm = mb - ma;
	s = fmin(exp(ma), 1);
	want = L - log(s * exp(L) + 1 - s);
	return !(L * sm > 0 && fabs(sm) >= SHARE_FOLLOWS * fabs(want));
}

/* A call whose share did not follow is left undecided (share_lags). */
static void veto_calls(struct pd_diff *d, const struct runs_in *in)
{
	size_t i;

	for (i = 0; i < d->funcs.n * 2; i++) {
		struct pd_fdiff *f = &d->funcs.v[i / 2];
		struct pd_metric *m = i % 2 ? &f->total : &f->self;

		if (!in->veto[i] ||
		    (m->status != PD_REGRESSED && m->status != PD_IMPROVED))
			continue;
		if (i % 2 == 0) {
			assert(d->nstatus[m->status] > 0);
			d->nstatus[m->status]--;
			d->nstatus[PD_INCONCLUSIVE]++;
		}
		m->status = PD_INCONCLUSIVE;
	}
}

/*
 * Whether function f's total must hold part of the one function its runs'
 * levels mostly are (more of that one's self samples, in some run, than
 * the run has outside f's total): judged beyond it, f's total would be
 * judged against itself (a Go program whose every function calls one
 * inlined spin loop). A level whose largest voter is f itself does not
 * keep the second: taken as under, as for one pair.
 */
static int level_under(const struct runs_in *in, size_t f)
{
	size_t r;

	for (r = 0; r < in->na + in->nb; r++) {
		const struct pd_agg *x = pd_run_of(in->a, in->na, in->b, r);
		size_t t = in->lv.ftop[r];

		if (x->total_c[f] <= x->self_c[f])
			continue;
		if (t == f || x->self_c[t] > x->all_c - x->total_c[f])
			return 1;
	}
	return 0;
}

/*
 * Whether function f is a frame of waits in some run: time waited,
 * which the machine's speed does not move (statistics.md, "Waiting
 * time"); its runs are judged as they are, not beyond the levels of the
 * functions that run.
 */
static int waits_in_runs(const struct runs_in *in, size_t f)
{
	size_t r;

	for (r = 0; r < in->na + in->nb; r++) {
		const struct pd_agg *x = pd_run_of(in->a, in->na, in->b, r);

		if (x->self_waits && x->self_waits[f] > 0)
			return 1;
	}
	return 0;
}

/*
 * Function f's metric k over the runs in in->s, each run's value taken
 * beyond its level without f when the others show one (else as it is);
 * *shift is then how far the candidate's levels lie above the
 * baseline's (0 when not taken). all: the whole program's metric, as it
 * is.
 */
static int fill_beyond(struct pd_diff *d, struct runs_in *in, size_t f, int k,
		       int all, double *shift)
{
	size_t r, na = in->na, nb = in->nb;
	double la = 0, lb = 0, ma = 0, mb = 0, raw;
	int single;

	fill_series(&in->s, in->a, na, in->b, nb, f, k, d->set.share);
	*shift = 0;
	if (all || waits_in_runs(in, f) ||
	    !pd_levels_for(&in->lv, in->a, na, in->b, f, in->lvl, &single))
		return 0;
	for (r = 0; r < na + nb; r++) {
		if (r < na) {
			la += in->lvl[r] / (double)na;
			ma += in->s.ya[r] / (double)na;
		} else {
			lb += in->lvl[r] / (double)nb;
			mb += in->s.yb[r - na] / (double)nb;
		}
	}
	/*
	 * Levels that are mostly one other function's: the two moved
	 * against each other, and f's change beyond them stands only where
	 * its own time moved the same way and more than the levels did (as
	 * for one pair, statistics.md "Machine-wide shifts"), and, for a
	 * total, only when that function is not partly under it; else f is
	 * judged as it is.
	 */
	raw = mb - ma;
	if (single &&
	    ((k && level_under(in, f)) || raw * (raw - (lb - la)) < 0 ||
	     (fabs(raw) < 1e-12 && fabs(lb - la) > 1e-12) ||
	     fabs(raw) < fabs(lb - la)))
		return 0;
	for (r = 0; r < na + nb; r++) {
		if (r < na)
			in->s.ya[r] -= in->lvl[r];
		else
			in->s.yb[r - na] -= in->lvl[r];
	}
	*shift = lb - la;
	return 1;
}

/*
 * With a history that learned how function f follows its run's level
 * (stats/noise.c), its runs are taken beyond that slope of their levels,
 * and judged on the variance the history saw beyond it, widened by the
 * slope's own uncertainty over the sides' difference of levels
 * (statistics.md, "How a function follows the machine"). 0: not
 * learned, or no levels here; f is then judged as fill_beyond says.
 */
static int beyond_slope(struct pd_diff *d, struct runs_in *in, size_t f, int k,
			const struct pd_noise *noise, double *s0, double *d0,
			double *shift)
{
	size_t r, na = in->na, nb = in->nb;
	double la = 0, lb = 0, beta;
	int single = 0;

	if (!noise || f >= noise->n || !(noise->d0b[k][f] > 0) ||
	    waits_in_runs(in, f))
		return 0;
	fill_series(&in->s, in->a, na, in->b, nb, f, k, d->set.share);
	if (!pd_levels_for(&in->lv, in->a, na, in->b, f, in->lvl, &single))
		return 0;
	beta = noise->beta[k][f];
	for (r = 0; r < na + nb; r++) {
		if (r < na) {
			la += in->lvl[r] / (double)na;
			in->s.ya[r] -= beta * in->lvl[r];
		} else {
			lb += in->lvl[r] / (double)nb;
			in->s.yb[r - na] -= beta * in->lvl[r];
		}
	}
	*shift = beta * (lb - la);
	*s0 = noise->s0b[k][f] + noise->bvar[k][f] * (lb - la) * (lb - la) /
				     (1 / (double)na + 1 / (double)nb);
	*d0 = noise->d0b[k][f];
	return 1;
}

/* Whether function f's metric k is the whole program's (mean counts). */
static int whole_metric(const struct pd_diff *d, const struct series *s,
			const struct pd_expo *x, size_t f, int k)
{
	return k && !d->set.share && pd_diff_whole(s->ca, s->cb, x) &&
	       !(d->fn->v.v[f].system && !(d->fn->flags & PD_FUNCS_SYSTEM));
}

/*
 * The prior without history (k 0: self, 1: total): the mean-variance
 * trend over the well-sampled functions and the profile total.
 */
static void fit_prior(struct pd_diff *d, struct runs_in *in, int k,
		      const struct pd_expo *x, struct pd_vtrend *pr)
{
	size_t nf = d->fn->v.n, na = in->na, nb = in->nb, nr = 0, i;
	struct pd_vrow *rows = pd_xmalloc((nf + 2) * sizeof(*rows));
	struct series *s = &in->s;

	/*
	 * The functions beyond their runs' levels; the whole program (the
	 * total, main) varies with the machine and has its own prior.
	 */
	for (i = 0; i < nf && na + nb >= 3; i++) {
		double ma, va, mb, vb, shift;

		if (d->fn->v.v[i].system && !(d->fn->flags & PD_FUNCS_SYSTEM))
			continue;
		fill_series(s, in->a, na, in->b, nb, i, k, d->set.share);
		if (whole_metric(d, s, x, i, k))
			continue;
		fill_beyond(d, in, i, k, 0, &shift);
		/* Few samples: the Poisson floor rules, not the prior */
		if (s->ca < 10 || s->cb < 10)
			continue;
		rows[nr].c = (s->ca + s->cb) / 2;
		if (in->paired) { /* per side: half a difference's */
			paired_var(s, na, &ma, &va);
			rows[nr].d = (double)(na - 1);
			rows[nr].s2 = fmax(va / 2, 1e-12);
			nr++;
			continue;
		}
		mean_var(s->ya, na, &ma, &va);
		mean_var(s->yb, nb, &mb, &vb);
		rows[nr].d = (double)(na + nb - 2);
		rows[nr].s2 =
		    fmax(((double)(na - 1) * va + (double)(nb - 1) * vb) /
			     rows[nr].d,
			 1e-12);
		nr++;
	}
	pd_vtrend_fit(rows, nr, fmax(d->set.dispersion, 0.01),
		      d->set.run_cv * d->set.run_cv, pr);
	free(rows);
}

/* The whole program's prior without history: its variation, 2 runs' worth. */
static double whole_s0(const struct pd_diff *d)
{
	double cv = fmax(d->set.run_cv, PD_WHOLE_RUN_CV);

	return cv * cv;
}

/* One metric over the runs in s, with prior variance s0 on d0 df. */
static void measure(struct pd_diff *d, struct runs_in *in,
		    const struct pd_expo *x, struct pd_metric *m, double s0,
		    double d0)
{
	if (in->paired)
		measure_paired(m, x, &in->s, in->na, s0, d0, &d->set);
	else
		measure_runs(m, x, &in->s, in->na, in->nb, s0, d0, &d->set);
}

/*
 * With 10+ runs a side the rank test decides, so its threshold test is
 * the rank test too: the candidate's runs moved back by the threshold
 * toward the baseline's, then Mann-Whitney, counted only when they still
 * lie beyond (statistics.md, "The test").
 */
static void rank_p_tau(struct pd_metric *m, const struct runs_in *in)
{
	double delta = log(1 + m->tau_pct / 100), half, u, p;
	double *yb;
	size_t i;

	if (in->paired || in->na < 10 || in->nb < 10 || isnan(m->lr) ||
	    isnan(m->mw_p))
		return;
	if (m->lr < 0)
		delta = -delta;
	yb = pd_xmalloc(in->nb * sizeof(*yb));
	for (i = 0; i < in->nb; i++)
		yb[i] = in->s.yb[i] - delta;
	p = pd_mann_whitney(in->s.ya, in->na, yb, in->nb, &u);
	free(yb);
	half = (double)in->na * (double)in->nb / 2;
	m->p_tau = (m->lr > 0 ? u > half : u < half) ? p : 1;
}

/* Every function present in some run, self and total. */
static void measure_functions(struct pd_diff *d, struct runs_in *in,
			      const struct pd_expo *x,
			      const struct pd_vtrend *pr,
			      const struct pd_noise *noise)
{
	size_t nf = d->fn->v.n, i, k;

	PD_VEC_RESERVE(&d->funcs, nf);
	for (i = 0; i < nf; i++) {
		struct pd_fdiff f;
		int any = 0;

		for (k = 0; k < in->na + in->nb && !any; k++) {
			const struct pd_agg *r =
			    k < in->na ? &in->a[k] : &in->b[k - in->na];

			any = r->total_w[i] > 0;
		}
		if (!any)
			continue;
		f.func = (uint32_t)i;
		for (k = 0; k < 2; k++) {
			struct pd_metric *m = k ? &f.total : &f.self;
			double s0, d0, shift, rs, ss0 = 0, sd0 = 0;
			int all, sloped, taken = 0;

			fill_series(&in->s, in->a, in->na, in->b, in->nb, i,
				    (int)k, d->set.share);
			all = whole_metric(d, &in->s, x, i, (int)k);
			rs = all ? 0
				 : pd_diff_ready_share(d, in->a, in->na, in->b,
						       in->nb, i, (int)k);
			/* beyond a learned slope, else beyond the levels */
			sloped = !all && !(rs > 0) &&
				 beyond_slope(d, in, i, (int)k, noise, &ss0,
					      &sd0, &shift);
			if (!sloped)
				taken =
				    fill_beyond(d, in, i, (int)k, all, &shift);
			s0 = pd_vtrend_at(&pr[k], (in->s.ca + in->s.cb) / 2);
			/*
			 * a trend fitted to these runs is tempered: it weighs
			 * as PD_RUNS_PRIOR_DF runs at most, at
			 * PD_RUNS_PRIOR_SCALE times its variance; the model's
			 * own prior (too few functions for a trend) is kept
			 * (docs/statistics.md, "Several runs per side")
			 */
			d0 = pr[k].d0;
			if (pr[k].fitted) {
				d0 = fmin(d0, PD_RUNS_PRIOR_DF);
				s0 *= PD_RUNS_PRIOR_SCALE;
			}
			if (all) {
				s0 = whole_s0(d);
				d0 = PD_WHOLE_PRIOR_DF;
			}
			if (rs > 0)
				s0 = fmax(s0, PD_READY_VAR * rs * rs);
			if (noise && i < noise->n && noise->d0[k][i] > 0 &&
			    !all) {
				s0 = noise->s0[k][i];
				d0 = noise->d0[k][i];
				d->prior_source = "history";
			} else if (all && noise && noise->d0[1][noise->n] > 0) {
				s0 = noise->s0[1][noise->n];
				d0 = noise->d0[1][noise->n];
			}
			if (sloped) {
				s0 = ss0;
				d0 = sd0;
				d->prior_source = "history";
				d->level_slopes += !k;
			}
			measure(d, in, x, m, s0, d0);
			pd_diff_beyond_shift(m, shift, x->ta);
			pd_diff_set_tau(m, &d->set, noise, f.func, (int)k);
			rank_p_tau(m, in);
			/*
			 * judged as it is: its share must follow (last: in->s);
			 * not a wait's, which the machine does not move
			 */
			if (!sloped && !taken && !all && !d->set.share &&
			    !waits_in_runs(in, i))
				in->veto[2 * d->funcs.n + k] =
				    (unsigned char)share_lags(in, i, (int)k,
							      m->lr);
		}
		PD_VEC_PUSH(&d->funcs, f);
	}
}

void pd_diff_runs(struct pd_diff *d, struct pd_agg *a, size_t na,
		  struct pd_agg *b, size_t nb, const struct pd_noise *noise)
{
	double ta = 0, tb = 0, ca = 0, cb = 0;
	struct runs_in in;
	struct pd_vtrend pr[2];
	struct pd_expo x;
	size_t i;

	assert(na > 0 && nb > 0); /* every mean below divides by them */
	in.a = a;
	in.b = b;
	in.na = na;
	in.nb = nb;
	in.paired = d->set.paired && na == nb && na >= 2;
	d->method = in.paired ? PD_METHOD_PAIRED_T : PD_METHOD_MODERATED_T;
	if (d->set.paired && !in.paired)
		pd_diff_warn(d,
			     "--paired needs as many runs on each side"
			     " (%zu and %zu): compared unpaired",
			     na, nb);
	d->phi = d->set.dispersion;
	d->phi_source = "default";
	d->prior_source = "functions";
	for (i = 0; i < na; i++) {
		ta += a[i].all_w / (double)na;
		ca += a[i].all_c / (double)na;
	}
	for (i = 0; i < nb; i++) {
		tb += b[i].all_w / (double)nb;
		cb += b[i].all_c / (double)nb;
	}
	x = pd_diff_exposure(d, ta, ca, tb, cb);
	in.s.ya = pd_xmalloc((na + 1) * sizeof(double));
	in.s.yb = pd_xmalloc((nb + 1) * sizeof(double));
	in.lvl = pd_xmalloc((na + nb + 1) * sizeof(double));
	pd_levels_compute(&in.lv, d, a, na, b, nb);
	in.veto = pd_xcalloc(2 * d->fn->v.n + 2, 1);
	fit_prior(d, &in, 0, &x, &pr[0]);
	fit_prior(d, &in, 1, &x, &pr[1]);
	if (!pr[0].fitted)
		d->prior_source = "the model, too few functions for a trend";
	measure_functions(d, &in, &x, pr, noise);
	if (noise && noise->runs > 0 && !d->set.share &&
	    noise->repeats < PD_SLOPE_MIN_DF + 1) {
		d->slopes_short = 1;
		d->window_repeats = noise->repeats;
	}
	/* The total over the runs: one more row of the same model. */
	total_series(&in.s, a, na, b, nb);
	if (d->set.share) {
		pd_diff_measure_common(&d->total, &x, ta, tb, ca, cb, 1);
	} else if (noise && noise->d0[1][noise->n] > 0) {
		measure(d, &in, &x, &d->total, noise->s0[1][noise->n],
			noise->d0[1][noise->n]);
	} else {
		measure(d, &in, &x, &d->total, whole_s0(d), PD_WHOLE_PRIOR_DF);
	}
	d->total.tau_pct = d->set.threshold_pct;
	if (!d->set.share)
		rank_p_tau(&d->total, &in);
	pd_diff_test_all(d, &x);
	veto_calls(d, &in);
	free(in.veto);
	pd_levels_release(&in.lv);
	free(in.lvl);
	free(in.s.ya);
	free(in.s.yb);
}
