/*
 * The program-wide shift of one pair (statistics.md, "Machine-wide
 * shifts"): the ratio by which most of the program's functions moved
 * together, which a loaded or throttled machine gives every function
 * alike, and against which each function is then judged.
 */
#include <math.h>
#include <stdlib.h>

#include "core/xalloc.h"
#include "stats/diff_int.h"

/* A function votes when its self counts reach this on the two sides. */
#define SHIFT_MIN_COUNT 50
/* Votes needed before a shift is taken at all. */
#define SHIFT_MIN_VOTERS 3
/* Two log ratios are alike within this many standard errors. */
#define SHIFT_K 3.0
/*
 * The largest shift a machine gives a whole run: 40 % was the most seen
 * between identical builds on a loaded machine (statistics.md,
 * "Machine-wide shifts"). Beyond it the program itself changed.
 */
#define SHIFT_MAX 1.5
/* A voter shows the machine steady with a standard error within this. */
#define SHIFT_STEADY_SE 0.08

struct voter {
	double L, v; /* log ratio, its variance */
};

/* How many voters are alike with c (of variance vc): within SHIFT_K. */
static size_t votes(const struct voter *w, size_t n, double c, double vc)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		k += fabs(w[i].L - c) <= SHIFT_K * sqrt(w[i].v + vc);
	return k;
}

/* The precision-weighted mean of the voters alike with c; *var its. */
static double group_mean(const struct voter *w, size_t n, double c, double vc,
			 double *var, size_t *alike)
{
	double sw = 0, swl = 0;
	size_t i;

	*alike = 0;
	for (i = 0; i < n; i++)
		if (fabs(w[i].L - c) <= SHIFT_K * sqrt(w[i].v + vc)) {
			sw += 1 / w[i].v;
			swl += w[i].L / w[i].v;
			++*alike;
		}
	*var = sw > 0 ? 1 / sw : 0;
	return sw > 0 ? swl / sw : 0;
}

double pd_diff_program_shift(const struct pd_diff *d, const struct pd_agg *aa,
			     const struct pd_agg *ab, const struct pd_expo *x,
			     double *var, size_t *alike, size_t *voters,
			     size_t *steady, double *beyond)
{
	size_t nf = d->fn->v.n, i, n = 0, best_votes = 0, k;
	int found = 0;
	double phi = d->set.dispersion > 0 ? d->set.dispersion : 1;
	double cv2 = d->set.run_cv * d->set.run_cv, best = 0, mu, v;
	struct voter *w;

	*var = *beyond = 0;
	*alike = *voters = *steady = 0;
	if (d->set.share)
		return 0; /* shares already leave the common part out */
	w = pd_xmalloc((nf ? nf : 1) * sizeof(*w));
	for (i = 0; i < nf; i++) {
		double a = aa->self_c[i], b = ab->self_c[i];

		if (a + b < SHIFT_MIN_COUNT || a <= 0 || b <= 0 ||
		    (d->fn->v.v[i].system && !(d->fn->flags & PD_FUNCS_SYSTEM)))
			continue;
		w[n].L = log((b + 0.5) / x->eb) - log((a + 0.5) / x->ea);
		w[n++].v = phi * (1 / (a + 0.5) + 1 / (b + 0.5)) + 2 * cv2;
	}
	*voters = n;
	/*
	 * Steady: alike with no shift, and sampled well enough to have seen
	 * a whole-program shift (its own standard error within
	 * SHIFT_STEADY_SE); a function of 80 samples is alike with no shift
	 * for changes up to 70 % and shows nothing of the machine.
	 */
	for (i = 0; i < n; i++)
		*steady += w[i].v <= SHIFT_STEADY_SE * SHIFT_STEADY_SE &&
			   fabs(w[i].L) <= SHIFT_K * sqrt(w[i].v);
	if (n < SHIFT_MIN_VOTERS)
		goto none;
	/*
	 * The shift most functions agree on: each function's own ratio is a
	 * candidate, and no shift at all is one too, which wins ties (one
	 * function that moved among steady ones is that function's change,
	 * not the machine's).
	 */
	best_votes = votes(w, n, 0, 0);
	for (i = 0; i < n; i++) {
		k = votes(w, n, w[i].L, w[i].v);
		if (k > best_votes ||
		    (k == best_votes && fabs(w[i].L) < fabs(best))) {
			best_votes = k;
			best = w[i].L;
			found = 1;
		}
	}
	if (!found)
		goto none;
	/* Refined once: the mean of those alike, and who is alike with it. */
	mu = group_mean(w, n, best, 0, &v, &k);
	mu = group_mean(w, n, mu, v, &v, &k);
	/*
	 * Most of the program moved with it, and most of it cannot be
	 * read as unmoved: a shift is what the data show, not a way to
	 * explain one function's change away.
	 */
	if (k < 2 || 2 * k <= n || 2 * votes(w, n, 0, 0) >= n)
		goto none;
	if (fabs(mu) > log(SHIFT_MAX)) {
		*beyond = mu; /* all of it moved, by more than a machine does */
		goto none;
	}
	free(w);
	*var = v;
	*alike = k;
	return mu;
none:
	free(w);
	return 0;
}
