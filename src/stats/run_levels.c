/*
 * Each run's level (statistics.md, "Several runs per side"): over the
 * program's well-sampled functions, the biweight location of how far
 * each one's log weight lies from its mean over all runs, the functions
 * that changed between the sides left out; and the sums that give it
 * without one function (leave one out).
 */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/sort.h"
#include "core/xalloc.h"
#include "stats/diff_int.h"
#include "stats/run_levels.h"
#include "stats/stats.h"

double pd_run_eps(const struct pd_agg *r)
{
	/* Half a sample's weight keeps ln() finite for an absent function. */
	return r->all_c > 0 ? 0.5 * r->all_w / r->all_c : 0.5;
}

const struct pd_agg *pd_run_of(const struct pd_agg *a, size_t na,
			       const struct pd_agg *b, size_t i)
{
	return i < na ? &a[i] : &b[i - na];
}

/* Residuals past this many standard errors weigh nothing (biweight). */
#define LEVEL_C 4.685
/* A voter: this many self samples a run on average, on both sides. */
#define LEVEL_MIN_COUNT 20.0

void pd_levels_release(struct pd_levels *lv)
{
	free(lv->ybar);
	free(lv->w);
	free(lv->m);
	free(lv->sw);
	free(lv->swe);
	free(lv->alike);
	free(lv->nalike);
	free(lv->wtop);
	free(lv->ftop);
	memset(lv, 0, sizeof(*lv));
}

/*
 * The median of the voters' residuals e in one run: where the biweight
 * starts, so that a run the machine moved by more than the biweight's
 * reach still finds its voters.
 */
static double median_residual(const struct pd_levels *lv, const double *e)
{
	double *v = pd_xmalloc((lv->nf + 1) * sizeof(*v)), m = 0;
	size_t i, n = 0;

	for (i = 0; i < lv->nf; i++)
		if (lv->w[i] > 0)
			v[n++] = e[i];
	if (n)
		m = pd_median(v, n);
	free(v);
	return m;
}

/* Notes voter i's weight among run r's two largest. */
static void note_top(struct pd_levels *lv, size_t r, size_t i)
{
	double w = lv->w[i], *t = &lv->wtop[2 * r];

	if (w > t[0]) {
		t[1] = t[0];
		t[0] = w;
		lv->ftop[r] = i;
	} else if (w > t[1]) {
		t[1] = w;
	}
}

/* One run's level: the biweight location of its voters' residuals. */
static void run_level(struct pd_levels *lv, const double *e, size_t r)
{
	double m = median_residual(lv, e), num, den;
	size_t i, it;

	for (it = 0; it < 12; it++) {
		num = den = 0;
		for (i = 0; i < lv->nf; i++) {
			double u;

			if (!(lv->w[i] > 0))
				continue;
			u = (e[i] - m) * sqrt(lv->w[i]) / LEVEL_C;
			if (fabs(u) < 1) {
				num +=
				    lv->w[i] * (1 - u * u) * (1 - u * u) * e[i];
				den += lv->w[i] * (1 - u * u) * (1 - u * u);
			}
		}
		if (!(den > 0))
			break;
		m = num / den;
	}
	lv->m[r] = m;
	lv->sw[r] = lv->swe[r] = 0;
	lv->nalike[r] = 0;
	for (i = 0; i < lv->nf; i++) {
		unsigned char *al = &lv->alike[r * lv->nf + i];

		*al = lv->w[i] > 0 && fabs(e[i] - m) * sqrt(lv->w[i]) <= 3;
		if (*al) {
			lv->sw[r] += lv->w[i];
			lv->swe[r] += lv->w[i] * e[i];
			lv->nalike[r]++;
			note_top(lv, r, i);
		}
	}
}

struct side_diff {
	double D, se;
};

static int cmp_side_diff(const void *x, const void *y)
{
	const struct side_diff *a = x, *b = y;

	return (a->D > b->D) - (a->D < b->D);
}

/* How many of the n voters lie within 3 standard errors of S. */
static size_t near_count(const struct side_diff *v, size_t n, double S)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		k += fabs(v[i].D - S) <= 3 * v[i].se;
	return k;
}

/*
 * Where the voters' side differences agree by number, not by weight: a
 * function that is most of the program would otherwise be the program's
 * move, and every unchanged function would read as changed beside it
 * (one pair's shift is found the same way, scale.c). Many voters: their
 * median. Few: the voter's difference most others lie near, of equals
 * the nearer to no move; then the precision-weighted mean of those near
 * it.
 */
static double program_move(struct side_diff *v, size_t n)
{
	double best = 0, sw = 0, swd = 0;
	size_t i, most = 0;

	if (!n)
		return 0;
	pd_sort(v, n, sizeof(*v), cmp_side_diff);
	if (n > PD_SHIFT_EXACT)
		return n % 2 ? v[n / 2].D : (v[n / 2 - 1].D + v[n / 2].D) / 2;
	for (i = 0; i < n; i++) {
		size_t k = near_count(v, n, v[i].D);

		if (k > most || (k == most && fabs(v[i].D) < fabs(best))) {
			most = k;
			best = v[i].D;
		}
	}
	for (i = 0; i < n; i++)
		if (fabs(v[i].D - best) <= 3 * v[i].se) {
			sw += 1 / (v[i].se * v[i].se);
			swd += v[i].D / (v[i].se * v[i].se);
		}
	return sw > 0 ? swd / sw : best;
}

/* The standard error of voter i's difference of the sides' means. */
static double side_se(const struct pd_levels *lv, size_t i, size_t na,
		      size_t nb)
{
	return sqrt((1 / (double)na + 1 / (double)nb) / lv->w[i]);
}

/*
 * A voter whose runs moved between the sides beyond the program's own
 * move (program_move) by more than 3 standard errors changed: it does
 * not vote for the levels, which would otherwise carry its change into
 * every other function's (statistics.md, "Several runs per side").
 */
static void drop_changed(struct pd_levels *lv, const struct pd_agg *a,
			 size_t na, const struct pd_agg *b, size_t nb)
{
	struct side_diff *v = pd_xmalloc((lv->nf + 1) * sizeof(*v));
	double *D = pd_xcalloc(lv->nf + 1, sizeof(*D)), S;
	size_t i, r, n = 0;

	for (i = 0; i < lv->nf; i++) {
		if (!(lv->w[i] > 0))
			continue;
		for (r = 0; r < na + nb; r++) {
			const struct pd_agg *x = pd_run_of(a, na, b, r);
			double y = log(x->self_w[i] + pd_run_eps(x));

			D[i] += r < na ? -y / (double)na : y / (double)nb;
		}
		v[n].D = D[i];
		v[n++].se = side_se(lv, i, na, nb);
	}
	S = program_move(v, n);
	for (i = 0; i < lv->nf; i++)
		if (lv->w[i] > 0 && fabs(D[i] - S) > 3 * side_se(lv, i, na, nb))
			lv->w[i] = 0;
	free(v);
	free(D);
}

static int level_without(const struct pd_levels *lv, const struct pd_agg *x,
			 size_t r, size_t f, double *m, int *single);

/*
 * Whether the levels explain the runs' variation: over the voters, each
 * in units of its own variance, the scatter of their runs about each
 * side's mean once taken beyond the levels of the others, against the
 * scatter as they are. A machine that moved whole runs moves every
 * function with it, and the levels take most of the scatter away; where
 * the functions of a run moved each its own way (two functions that
 * trade a busy core's cycles, a program of two or three well-sampled
 * functions), a function beyond the others' levels carries their scatter
 * on top of its own, and a change as clear as +40 % over runs that agree
 * within 1 % read as undecided (statistics.md, "Several runs per side").
 */
static int levels_help(const struct pd_levels *lv, const struct pd_agg *a,
		       size_t na, const struct pd_agg *b, size_t nb)
{
	size_t n = na + nb, i, r;
	double *raw = pd_xmalloc((n + 1) * sizeof(*raw));
	double *adj = pd_xmalloc((n + 1) * sizeof(*adj));
	double ss_raw = 0, ss_adj = 0;
	int any = 0;

	for (i = 0; i < lv->nf; i++) {
		int single = 0, ok = lv->w[i] > 0;

		for (r = 0; r < n && ok; r++) {
			const struct pd_agg *x = pd_run_of(a, na, b, r);
			double m = 0;

			raw[r] = log(x->self_w[i] + pd_run_eps(x));
			ok = level_without(lv, x, r, i, &m, &single);
			adj[r] = raw[r] - m;
		}
		if (!ok)
			continue;
		any = 1;
		ss_raw +=
		    lv->w[i] * (pd_sum_sq(raw, na) + pd_sum_sq(raw + na, nb));
		ss_adj +=
		    lv->w[i] * (pd_sum_sq(adj, na) + pd_sum_sq(adj + na, nb));
	}
	free(raw);
	free(adj);
	return any && ss_adj < ss_raw;
}

/*
 * The levels of all runs. A voter's weight is 1 / (phi / c + cv^2), c
 * its mean count a run; share mode and exact counts have no machine
 * behind them and no levels.
 */
void pd_levels_compute(struct pd_levels *lv, const struct pd_diff *d,
		       const struct pd_agg *a, size_t na,
		       const struct pd_agg *b, size_t nb)
{
	size_t n = na + nb, nf = d->fn->v.n, i, r;
	double cv2 = d->set.run_cv * d->set.run_cv, *e;

	/* means over each side's runs; every run spans the functions */
	assert(na > 0 && nb > 0);
	for (r = 0; r < n; r++)
		assert(pd_run_of(a, na, b, r)->n >= nf);
	memset(lv, 0, sizeof(*lv));
	lv->nruns = n;
	lv->nf = nf;
	lv->ybar = pd_xcalloc(nf + 1, sizeof(double));
	lv->w = pd_xcalloc(nf + 1, sizeof(double));
	lv->m = pd_xcalloc(n + 1, sizeof(double));
	lv->sw = pd_xcalloc(n + 1, sizeof(double));
	lv->swe = pd_xcalloc(n + 1, sizeof(double));
	lv->alike = pd_xcalloc(n * nf + 1, 1);
	lv->nalike = pd_xcalloc(n + 1, sizeof(size_t));
	lv->wtop = pd_xcalloc(2 * n + 2, sizeof(double));
	lv->ftop = pd_xcalloc(n + 1, sizeof(size_t));
	if (d->set.share || d->base.exact || d->cand.exact)
		return;
	for (i = 0; i < nf; i++) {
		double ca = 0, cb = 0, y = 0;

		int waits = 0;

		if (d->fn->v.v[i].system && !(d->fn->flags & PD_FUNCS_SYSTEM))
			continue;
		for (r = 0; r < n; r++) /* waits: the machine moves no wait */
			waits |= pd_run_of(a, na, b, r)->self_waits &&
				 pd_run_of(a, na, b, r)->self_waits[i] > 0;
		if (waits)
			continue;
		for (r = 0; r < n; r++) {
			const struct pd_agg *x = pd_run_of(a, na, b, r);

			if (r < na)
				ca += x->self_c[i] / (double)na;
			else
				cb += x->self_c[i] / (double)nb;
			y += log(x->self_w[i] + pd_run_eps(x)) / (double)n;
		}
		if (ca < LEVEL_MIN_COUNT || cb < LEVEL_MIN_COUNT)
			continue;
		lv->ybar[i] = y;
		lv->w[i] = 1 / (d->set.dispersion / ((ca + cb) / 2) + cv2);
	}
	drop_changed(lv, a, na, b, nb);
	e = pd_xmalloc((nf + 1) * sizeof(*e));
	for (r = 0; r < n; r++) {
		const struct pd_agg *x = pd_run_of(a, na, b, r);

		for (i = 0; i < nf; i++)
			e[i] = lv->w[i] > 0
				   ? log(x->self_w[i] + pd_run_eps(x)) -
					 lv->ybar[i]
				   : 0;
		run_level(lv, e, r);
	}
	free(e);
	lv->off = !levels_help(lv, a, na, b, nb);
}

/*
 * Run r's level without function f's own vote, into *m; 0 when fewer
 * than PD_SHIFT_MIN_OTHERS others moved alike in that run.
 */
static int level_without(const struct pd_levels *lv, const struct pd_agg *x,
			 size_t r, size_t f, double *m, int *single)
{
	double sw = lv->sw[r], swe = lv->swe[r], top = lv->wtop[2 * r];
	size_t k = lv->nalike[r];

	if (lv->alike[r * lv->nf + f]) {
		double e = log(x->self_w[f] + pd_run_eps(x)) - lv->ybar[f];

		sw -= lv->w[f];
		swe -= lv->w[f] * e;
		k--;
		if (lv->ftop[r] == f)
			top = lv->wtop[2 * r + 1];
	}
	if (k < PD_SHIFT_MIN_OTHERS || !(sw > 0))
		return 0;
	*m = swe / sw;
	*single |= top > PD_SHIFT_SINGLE * sw;
	return 1;
}

/*
 * Every run's level for function f (each without f's own vote), in
 * lvl; 0 when some run has too few other functions to show one: then
 * f keeps its runs' own levels, as the whole program does. *single: in
 * some run one other function holds most of the level's weight.
 */
int pd_levels_for(const struct pd_levels *lv, const struct pd_agg *a, size_t na,
		  const struct pd_agg *b, size_t f, double *lvl, int *single)
{
	size_t r;

	*single = 0;
	if (!lv->nf || lv->off || f >= lv->nf)
		return 0;
	for (r = 0; r < lv->nruns; r++)
		if (!level_without(lv, pd_run_of(a, na, b, r), r, f, &lvl[r],
				   single))
			return 0;
	return 1;
}
