/*
 * The count test for one profile per side (statistics.md, "The test" and
 * "The noise model"). Counts a (baseline) and b (candidate) have exposure
 * E (samples per unit of weight in absolute mode, the side's total
 * samples in share mode); L = ln((b+1/2)/E_b) - ln((a+1/2)/E_a). A
 * function is judged against the shift the program's other functions
 * moved by together (scale.c): what it moved beyond the machine. Its
 * variance has three parts: sampling, phi (1/(a+1/2) + 1/(b+1/2)) with
 * phi the pair's own dispersion (how far its functions scatter about the
 * shift) moderated toward --dispersion; between runs, 2 sigma^2 with
 * sigma = --run-cv, or with history each side's run variance as learned
 * for the function; and the shift's own. The whole program (the total, main) is
 * judged as it is, with the whole program's variation. Below 200 samples the
 * conditional binomial test b | a+b (mid-p) replaces the normal tail, on
 * counts divided by the variance's ratio to Poisson.
 */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/sort.h"
#include "core/xalloc.h"
#include "stats/diff_int.h"
#include "stats/stats.h"

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
 * t tail with its degrees of freedom. Without: the pair's dispersion
 * times Poisson's plus 2 sig2 between runs, on df degrees of freedom (0:
 * the normal tail). vshift is the variance of the shift the metric is
 * judged against.
 */
static void measure_pair(struct pd_diff *d, struct pd_metric *m,
			 const struct pd_expo *x, double wa, double wb,
			 double a, double b, const struct learned *l,
			 double vshift, double sig2, double df, double per_wait)
{
	assert(sig2 >= 0 && vshift >= 0 && a >= 0 && b >= 0);
	if (l->df > 0) {
		double va = learned_var(l, a), vb = learned_var(l, b);

		pd_diff_measure_v(m, x, wa, wb, a, b, 0, (va + vb + vshift) / 2,
				  l->df, d->set.share);
		return;
	}
	pd_diff_measure_v(m, x, wa, wb, a, b, d->phi * per_wait,
			  sig2 + vshift / 2, df, d->set.share);
}

/*
 * Time waited comes in waits, not samples: a wait of 40 ms is one event
 * counted as 40 samples, so its count varies as the number of waits
 * does. Of a metric's T samples (both sides), W are waited in N waits:
 * the variance of its count is that of T - W samples and N waits of
 * W / N samples each, (T - W) + W^2 / N, where Poisson's is T. The
 * dispersion is raised by that ratio; 1 for a metric with no waits
 * (docs/statistics.md, "Waiting time").
 */
static double per_wait(const struct pd_agg *aa, const struct pd_agg *ab,
		       size_t i, int k)
{
	double n, w, t;

	if (!aa->self_waits && !ab->self_waits)
		return 1;
	t = k ? aa->total_c[i] + ab->total_c[i] : aa->self_c[i] + ab->self_c[i];
	n = w = 0;
	if (aa->self_waits) {
		n += k ? aa->total_waits[i] : aa->self_waits[i];
		w += k ? aa->total_wait_c[i]
		       : (aa->self_waits[i] > 0 ? aa->self_c[i] : 0);
	}
	if (ab->self_waits) {
		n += k ? ab->total_waits[i] : ab->self_waits[i];
		w += k ? ab->total_wait_c[i]
		       : (ab->self_waits[i] > 0 ? ab->self_c[i] : 0);
	}
	if (!(n > 0) || !(t > 0))
		return 1;
	return fmax(1, ((t - w) + w * w / n) / t);
}

/*
 * Whether the shift stands without the voter that weighs most in it: a
 * shift as large, the same way and told from none (with few samples
 * every function is alike with one that is most of the program, and the
 * "shift" is that function's own change).
 */
static int broad(const struct pd_shift *sh)
{
	double s, var;
	int single;
	size_t top;

	if (sh->ftop == SIZE_MAX)
		return 1;
	if (!pd_shift_without(sh, sh->ftop, &s, &var, &single, &top))
		return 0;
	return s * sh->s > 0 && fabs(exp(s) - 1) >= PD_SHIFT_NAMED &&
	       fabs(s) >= 2 * sqrt(var);
}

/*
 * The program's shift and the pair's variation (scale.c); names the
 * shift when it is one. Exact counts (allocations) and shares have no
 * machine behind them to shift.
 */
static void take_shift(struct pd_diff *d, struct pd_shift *sh,
		       const struct pd_agg *aa, const struct pd_agg *ab,
		       const struct pd_expo *x)
{
	double cv = d->set.run_cv;

	pd_shift_estimate(sh, d, aa, ab, x, d->phi, cv * cv);
	d->shift_voters = sh->voters;
	d->shift_alike = sh->alike;
	d->phi = sh->lam;
	d->lambda = sh->own_lam;
	d->lambda_n = sh->own_n;
	if (sh->own_n)
		d->phi_source = "this pair";
	if (d->set.share || d->base.exact || d->cand.exact) {
		sh->alike = 0; /* nothing to take out */
		sh->sw = sh->swl = 0;
		d->shift_alike = 0;
		return;
	}
	d->shift = sh->s;
	d->shift_var = sh->var;
	d->shift_broad = broad(sh);
	if (fabs(sh->beyond) > 0)
		pd_diff_warn(
		    d,
		    "most of the program's functions moved together,"
		    " by %+.0f %%: more than a machine moves a run, so"
		    " a change of the program's own work (each function"
		    " judged as it is)",
		    (exp(sh->beyond) - 1) * 100);
	if (pd_diff_shift_named(d))
		pd_diff_warn(d,
			     "the whole program moved %+.1f %% (%zu of %zu"
			     " well-sampled functions alike): a machine-wide"
			     " shift (load, frequency, another machine) or a"
			     " change that touches all of the code, which one"
			     " run a side cannot tell apart; each function is"
			     " judged beyond it (docs/statistics.md,"
			     " \"Machine-wide shifts\")",
			     (exp(sh->s) - 1) * 100, sh->alike, sh->voters);
}
/* What one metric of one function is judged against. */
struct against {
	const struct pd_expo *x; /* the exposures, the shift taken out */
	double vshift;		 /* the shift's variance */
	double sig2, df;	 /* between-run variance, its df (0: fixed) */
	double shift;		 /* ln of the shift, 0 for none */
};

/*
 * Function i's metrics (counts a and b) against the shift of the others;
 * with too few others, or for the whole program's own metrics, against no
 * shift at the whole program's variation. When the others' shift is one
 * function's (two functions that are most of the program, one of them
 * changed), each of them moved against the other: a function's change
 * beyond it stands only where its own time moved more than the other's
 * (by twice the noise), else it is judged as it is, against no shift;
 * and so is a total with callees
 * (k 1) when the one function must lie partly under it (more of its self
 * samples than the profile has outside the total): else it would be
 * judged against itself (statistics.md, "Machine-wide shifts").
 */
static void against_of(const struct pd_diff *d, const struct pd_shift *sh,
		       const struct pd_agg *aa, const struct pd_agg *ab,
		       size_t i, int k, int all, double a, double b,
		       const struct pd_expo *x, struct pd_expo *xf,
		       struct against *g)
{
	double s, vs, wcv = d->whole_cv, L, noise;
	int single, under;
	size_t top;

	g->x = x;
	g->vshift = 0;
	g->shift = 0;
	g->sig2 = wcv * wcv;
	g->df = 0;
	if (all || !pd_shift_without(sh, i, &s, &vs, &single, &top))
		return;
	L = log((b + 0.5) / x->eb) - log((a + 0.5) / x->ea);
	under = k && (top == SIZE_MAX || aa->self_c[top] > aa->all_c - a ||
		      ab->self_c[top] > ab->all_c - b);
	/*
	 * Two functions that moved against each other: a change beyond the
	 * other stands only where the function's own time moved the same
	 * way, and, when they moved apart by more than twice the noise of
	 * the difference, only for the one that moved more by as much (the
	 * machine's likelier move is the smaller); else it is judged as it
	 * is.
	 */
	noise = 2 * sqrt(d->phi * (1 / (a + 0.5) + 1 / (b + 0.5)) + vs);
	if (single && (under || (L - s) * L < 0 ||
		       (fabs(L) < 1e-12 && fabs(L - s) > 1e-12) ||
		       (fabs(L - s) > noise && !(fabs(L) - fabs(s) > noise))))
		return;
	*xf = *x;
	xf->eb = x->eb * exp(s);
	g->x = xf;
	g->vshift = vs;
	g->shift = s;
	g->sig2 = sh->t2;
	g->df = PD_PAIR_TAIL_DF;
}

/* One profile per side. */
void pd_diff_counts(struct pd_diff *d, const struct pd_agg *aa,
		    const struct pd_agg *ab, const struct pd_noise *noise)
{
	struct pd_expo x =
	    pd_diff_exposure(d, aa->all_w, aa->all_c, ab->all_w, ab->all_c);
	struct pd_shift sh;
	size_t nf = d->fn->v.n, i, nlearned = 0;
	struct learned l;

	/* both aggregates span the function table (pd_diff_aggs) */
	assert(aa->n >= nf && ab->n >= nf);
	d->method = PD_METHOD_QUASI_POISSON;
	d->phi = d->set.dispersion > 0 ? d->set.dispersion : 1;
	d->phi_source = "default";
	d->whole_cv = fmax(d->set.run_cv, PD_WHOLE_RUN_CV);
	if (d->set.share || d->base.exact || d->cand.exact)
		d->whole_cv = d->set.run_cv;
	take_shift(d, &sh, aa, ab, &x);

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
			int all =
			    k && pd_diff_whole(a, b, &x) && !d->set.share &&
			    (a > aa->self_c[i] || b > ab->self_c[i]) && !system;
			struct pd_expo xf;
			struct against g;
			double rs;

			against_of(d, &sh, aa, ab, i,
				   k &&
				       (a > aa->self_c[i] || b > ab->self_c[i]),
				   all, a, b, &x, &xf, &g);
			l = learned_of(d, noise, all ? SIZE_MAX : i, k);
			nlearned += l.df > 0;
			rs = all ? 0
				 : pd_diff_ready_share(d, aa, 1, ab, 1, i, k);
			if (rs > 0)
				g.sig2 = fmax(g.sig2, PD_READY_VAR * rs * rs);
			measure_pair(
			    d, m, g.x, k ? aa->total_w[i] : aa->self_w[i],
			    k ? ab->total_w[i] : ab->self_w[i], a, b, &l,
			    g.vshift, g.sig2, g.df, per_wait(aa, ab, i, k));
			pd_diff_beyond_shift(m, g.shift, x.ta);
			pd_diff_set_tau(m, &d->set, noise, f.func, k);
		}
		PD_VEC_PUSH(&d->funcs, f);
	}
	if (nlearned)
		d->phi_source = "history";
	pd_shift_release(&sh);

	/*
	 * The profile total: the whole program's variation, learned under
	 * the function id one past the last (the history's total row), else
	 * assumed; tested in the family below.
	 */
	l = learned_of(d, noise, SIZE_MAX, 1);
	measure_pair(d, &d->total, &x, x.ta, x.tb, x.ca, x.cb, &l, 0,
		     d->whole_cv * d->whole_cv, 0, 1);
	d->total.tau_pct = d->set.threshold_pct;
	pd_diff_test_all(d, &x);
}
