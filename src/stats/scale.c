/*
 * The program-wide shift of one pair (statistics.md, "Machine-wide
 * shifts"): the ratio by which the program's functions moved together,
 * which a loaded or throttled machine gives every function alike, and
 * against which each function is then judged. A function is judged
 * against the shift the *other* functions show (leave one out), so that
 * a function that is most of the program cannot explain its own change
 * away; with too few others the shift is unknown to it.
 *
 * Also the pair's own dispersion: how far the functions scatter about the
 * shift against their counts' Poisson variance, moderated toward the
 * prior (--dispersion) as PD_SHIFT_PRIOR_DF functions' worth.
 * The cost is n log n in the voters (one sort).
 */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/sort.h"
#include "core/xalloc.h"
#include "stats/diff_int.h"
#include "stats/stats.h"

/* The median of a chi-square on one degree of freedom. */
#define CHI2_1_MEDIAN 0.454936423119572
/* Tukey's biweight: residuals past this many standard errors weigh 0. */
#define BIWEIGHT_C 4.685
#define BIWEIGHT_ROUNDS 12
/* Two log ratios are alike within this many standard errors. */
#define ALIKE_K 3.0
/* Voters behind the pair's own between-run variation, at most. */
#define TAU_VOTERS 2000

struct pd_shift_voter {
	double L, S; /* log ratio; sampling variance at phi 1 */
	uint32_t f;
};

static int cmp_voter(const void *x, const void *y)
{
	const struct pd_shift_voter *a = x, *b = y;

	if (a->L < b->L || a->L > b->L)
		return a->L < b->L ? -1 : 1;
	return (a->f > b->f) - (a->f < b->f);
}

/*
 * Tukey's biweight location from start: what most voters agree on. A
 * voter's residual is read in its own standard errors; its weight is its
 * precision with PD_SHIFT_TAU2 added to its variance, so that a function
 * that is most of the program is one strong voice, not the whole vote.
 */
static double biweight(const struct pd_shift_voter *w, size_t n, double phi,
		       double t2, double s)
{
	int r;

	for (r = 0; r < BIWEIGHT_ROUNDS; r++) {
		double num = 0, den = 0, next;
		size_t i;

		for (i = 0; i < n; i++) {
			double v = phi * w[i].S + 2 * t2;
			double u = (w[i].L - s) / (BIWEIGHT_C * sqrt(v));

			if (fabs(u) < 1) {
				double k = (1 - u * u) * (1 - u * u) /
					   (v + PD_SHIFT_TAU2);

				num += k * w[i].L;
				den += k;
			}
		}
		if (!(den > 0))
			break;
		next = num / den;
		if (fabs(next - s) < 1e-9)
			return next;
		s = next;
	}
	return s;
}

/*
 * The median over the n voters of their squared residuals about s in
 * units of lam S + 2 t2: about the chi-square's median when lam is the
 * pair's dispersion.
 */
static double med_z2(const struct pd_shift_voter *w, size_t n, double lam,
		     double t2, double s, double *tmp)
{
	size_t i;

	for (i = 0; i < n; i++)
		tmp[i] = (w[i].L - s) * (w[i].L - s) / (lam * w[i].S + 2 * t2);
	return pd_median(tmp, n);
}

/*
 * The pair's own dispersion: the lam >= 0 at which the voters' residuals
 * about s scatter as the model says (their median squared standardised
 * residual at the chi-square's median). Robust to a minority of changed
 * functions.
 */
static double own_lambda(const struct pd_shift_voter *w, size_t n, double t2,
			 double s)
{
	double *tmp, lo = 0, hi = 1, lam;
	struct pd_shift_voter *o = NULL;
	size_t i;
	int it;

	if (n > TAU_VOTERS) {
		/*
		 * An even sample of the voters in the order of their ratios:
		 * the quantiles hold, and the others add little but cost.
		 */
		o = pd_xmalloc(TAU_VOTERS * sizeof(*o));
		for (i = 0; i < TAU_VOTERS; i++)
			o[i] = w[i * n / TAU_VOTERS];
		w = o;
		n = TAU_VOTERS;
	}
	tmp = pd_xmalloc(n * sizeof(*tmp));
	if (med_z2(w, n, 1e-9, t2, s, tmp) <= CHI2_1_MEDIAN) {
		lam = 0;
	} else {
		while (med_z2(w, n, hi, t2, s, tmp) > CHI2_1_MEDIAN && hi < 1e6)
			hi *= 2;
		for (it = 0; it < 40; it++) {
			double mid = (lo + hi) / 2;

			if (med_z2(w, n, mid, t2, s, tmp) > CHI2_1_MEDIAN)
				lo = mid;
			else
				hi = mid;
		}
		lam = (lo + hi) / 2;
	}
	free(tmp);
	free(o);
	/* periodic sampling is sub-Poisson, never free of noise */
	return fmax(lam, PD_SHIFT_LAM_MIN);
}

/* The plain median of the voters' log ratios (w sorted by L). */
static double median_L(const struct pd_shift_voter *w, size_t n)
{
	return n % 2 ? w[n / 2].L : (w[n / 2 - 1].L + w[n / 2].L) / 2;
}

/* How many of the n voters are alike with s. */
static size_t alike_count(const struct pd_shift_voter *w, size_t n, double lam,
			  double t2, double s)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		k += fabs(w[i].L - s) <= ALIKE_K * sqrt(lam * w[i].S + 2 * t2);
	return k;
}

/*
 * Where the voters (sorted by L) agree. Many: the biweight from their
 * median. Few (PD_SHIFT_EXACT): the median may fall between two groups
 * and start on neither, so the biweight starts from every voter and the
 * location most voters are alike with wins; of equals, the nearer to no
 * shift (a machine that did not move is the likelier).
 */
static double locate(const struct pd_shift_voter *w, size_t n, double lam,
		     double t2)
{
	double best = 0;
	size_t i, most = 0;

	if (n > PD_SHIFT_EXACT)
		return biweight(w, n, lam, t2, median_L(w, n));
	for (i = 0; i < n; i++) {
		double s = biweight(w, n, lam, t2, w[i].L);
		size_t k = alike_count(w, n, lam, t2, s);

		if (k > most || (k == most && fabs(s) < fabs(best))) {
			most = k;
			best = s;
		}
	}
	return best;
}

void pd_shift_release(struct pd_shift *sh)
{
	free(sh->w);
	free(sh->L);
	free(sh->v);
	sh->w = sh->L = NULL;
	sh->v = NULL;
}

/* What a reference is made of: the alike voters' sums. */
struct ref {
	double sw, swl, wtop[2];
	size_t alike, ftop;
};

/*
 * The voters alike with s (within ALIKE_K standard errors), skip left
 * out: their precision-weighted sums, and the two largest weights. wf,
 * when given, gets each alike function's weight.
 */
static void alike_about(const struct pd_shift_voter *w, size_t n, size_t skip,
			double lam, double t2, double s, struct ref *r,
			double *wf)
{
	size_t i;

	memset(r, 0, sizeof(*r));
	r->ftop = SIZE_MAX;
	for (i = 0; i < n; i++) {
		double v = lam * w[i].S + 2 * t2;

		if (w[i].f == skip || fabs(w[i].L - s) > ALIKE_K * sqrt(v))
			continue;
		if (wf)
			wf[w[i].f] = 1 / v;
		r->sw += 1 / v;
		r->swl += w[i].L / v;
		r->alike++;
		if (1 / v > r->wtop[0]) {
			r->wtop[1] = r->wtop[0];
			r->wtop[0] = 1 / v;
			r->ftop = w[i].f;
		} else if (1 / v > r->wtop[1]) {
			r->wtop[1] = 1 / v;
		}
	}
}

void pd_shift_estimate(struct pd_shift *sh, const struct pd_diff *d,
		       const struct pd_agg *aa, const struct pd_agg *ab,
		       const struct pd_expo *x, double prior_lam, double t2)
{
	size_t nf = d->fn->v.n, i, n = 0;
	double lam = prior_lam, s = 0;
	struct pd_shift_voter *w;
	struct ref r;

	assert(prior_lam > 0 && t2 >= 0);
	memset(sh, 0, sizeof(*sh));
	sh->ftop = SIZE_MAX;
	sh->lam = prior_lam;
	sh->t2 = t2;
	sh->own_lam = PD_NAN;
	sh->w = pd_xcalloc(nf ? nf : 1, sizeof(*sh->w));
	sh->L = pd_xcalloc(nf ? nf : 1, sizeof(*sh->L));
	w = pd_xmalloc((nf ? nf : 1) * sizeof(*w));
	for (i = 0; i < nf; i++) {
		double a = aa->self_c[i], b = ab->self_c[i];

		if (a + b < PD_SHIFT_MIN_COUNT || a <= 0 || b <= 0 ||
		    (d->fn->v.v[i].system && !(d->fn->flags & PD_FUNCS_SYSTEM)))
			continue;
		/* waiting does not move with the machine's speed */
		if ((aa->self_waits && aa->self_waits[i] > 0) ||
		    (ab->self_waits && ab->self_waits[i] > 0))
			continue;
		w[n].L = log((b + 0.5) / x->eb) - log((a + 0.5) / x->ea);
		w[n].S = 1 / (a + 0.5) + 1 / (b + 0.5);
		w[n].f = (uint32_t)i;
		sh->L[i] = w[n].L;
		n++;
	}
	sh->voters = n;
	if (!n) {
		free(w);
		return;
	}
	pd_sort(w, n, sizeof(*w), cmp_voter);
	/*
	 * Started where the functions agree by number: a weighted start
	 * would be dragged toward the change of a function that is most of
	 * the program.
	 */
	s = locate(w, n, lam, t2);
	/*
	 * The pair's own dispersion, moderated toward the prior as
	 * PD_SHIFT_PRIOR_DF functions' worth: a handful of functions tells
	 * little of it, many tell it well.
	 */
	if (n >= PD_SHIFT_OWN_MIN) {
		double own = own_lambda(w, n, t2, s);
		double k = (double)(n < TAU_VOTERS ? n : TAU_VOTERS);

		sh->own_lam = own;
		sh->own_n = (size_t)k;
		lam = (PD_SHIFT_PRIOR_DF * prior_lam + k * own) /
		      (PD_SHIFT_PRIOR_DF + k);
		s = locate(w, n, lam, t2);
	}
	sh->lam = lam;
	alike_about(w, n, SIZE_MAX, lam, t2, s, &r, sh->w);
	sh->sw = r.sw;
	sh->swl = r.swl;
	sh->alike = r.alike;
	sh->wtop[0] = r.wtop[0];
	sh->wtop[1] = r.wtop[1];
	sh->ftop = r.ftop;
	if (sh->sw > 0) {
		sh->s = sh->swl / sh->sw;
		sh->var = 1 / sh->sw;
	}
	if (fabs(sh->s) > log(PD_SHIFT_MAX)) {
		sh->beyond = sh->s;
		sh->s = sh->var = sh->sw = sh->swl = 0;
		sh->alike = 0;
	}
	if (n <= PD_SHIFT_EXACT) {
		sh->v = w; /* for each function's own reference */
		sh->nv = n;
	} else {
		free(w);
	}
}

/*
 * Function f's reference in a small program: the shift of the others
 * found anew without it, so that its own vote moves neither the location
 * nor which functions count as alike.
 */
static void reference_without(const struct pd_shift *sh, size_t f,
			      struct ref *r)
{
	struct pd_shift_voter *o =
	    pd_xmalloc((sh->nv ? sh->nv : 1) * sizeof(*o));
	size_t i, n = 0;

	for (i = 0; i < sh->nv; i++)
		if (sh->v[i].f != f)
			o[n++] = sh->v[i];
	memset(r, 0, sizeof(*r));
	if (n)
		alike_about(o, n, SIZE_MAX, sh->lam, sh->t2,
			    locate(o, n, sh->lam, sh->t2), r, NULL);
	free(o);
}

int pd_shift_without(const struct pd_shift *sh, size_t f, double *s,
		     double *var, int *single, size_t *top)
{
	struct ref r;

	*s = *var = 0;
	*single = 0;
	*top = SIZE_MAX;
	if (!(sh->sw > 0))
		return 0; /* no shift, or none to take out */
	if (sh->v) {
		reference_without(sh, f, &r);
	} else {
		r.sw = sh->sw;
		r.swl = sh->swl;
		r.alike = sh->alike;
		r.wtop[0] = sh->wtop[0];
		r.ftop = sh->ftop;
		if (sh->w && sh->w[f] > 0) {
			r.sw -= sh->w[f];
			r.swl -= sh->w[f] * sh->L[f];
			r.alike--;
			if (f == sh->ftop) {
				r.wtop[0] = sh->wtop[1];
				r.ftop = SIZE_MAX; /* the second: not kept */
			}
		}
	}
	if (r.alike < PD_SHIFT_MIN_OTHERS || !(r.sw > 0))
		return 0;
	*s = r.swl / r.sw;
	*var = 1 / r.sw;
	if (fabs(*s) > log(PD_SHIFT_MAX)) {
		*s = *var = 0;
		return 0;
	}
	*single = r.wtop[0] > PD_SHIFT_SINGLE * r.sw;
	*top = r.ftop;
	return 1;
}
