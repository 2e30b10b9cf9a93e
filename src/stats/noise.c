/*
 * Noise learned from history (statistics.md, "The noise model";
 * history.md, "Noise learned from history"): from a window of stored
 * runs, each function's and the total's single-run variance of
 * ln(weight) -- within commits (repeats) and from one commit to the next
 * (night to night) --, how far each function follows its run's level
 * (a slope, and the variance beyond it) and per-function thresholds.
 * The store loads the runs (store/noise.c); the arithmetic is here.
 */
#include <assert.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/xalloc.h"
#include "stats/noise.h"
#include "stats/run_levels.h"
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
		n->beta[k] = pd_xcalloc(nfuncs + 1, sizeof(double));
		n->bvar[k] = pd_xcalloc(nfuncs + 1, sizeof(double));
		n->s0b[k] = pd_xcalloc(nfuncs + 1, sizeof(double));
		n->d0b[k] = pd_xcalloc(nfuncs + 1, sizeof(double));
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
		free(n->beta[k]);
		free(n->bvar[k]);
		free(n->s0b[k]);
		free(n->d0b[k]);
	}
	memset(n, 0, sizeof(*n));
}

/* The q quantile of sorted v (linear interpolation). */
static double quantile(const double *v, size_t n, double q)
{
	double pos = q * (double)(n - 1);
	size_t lo = (size_t)floor(pos);

	assert(n > 0 && q >= 0 && q <= 1);
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
 * What every function's learning shares: the window's shape, the trim's
 * correction (it depends on the number of commits only) and scratch
 * space for one function at a time.
 */
struct learn_ctx {
	const struct pd_agg *const *runs;
	const size_t *commit;
	size_t n, nfun, groups;
	size_t keep;	/* successive differences kept by the trim */
	double trim;	/* their mean is divided by this */
	double *y;	/* per run: ln(weight + eps) */
	double *means;	/* per commit: the mean weight */
	double *lmeans; /* per commit: the mean of y */
	double *d;	/* per commit pair: differences */
	double *l;	/* per run: its level without the function's vote */
	double *raw;	/* per run: ln(weight + eps), not relative */
	/* shared by both halves: the levels' sums per run, voters' weights */
	const double *lvs, *lvw, *vw, *vy;
};

/*
 * Night to night: commit means' successive differences, the largest
 * tenth (at least one) left out: a real step in the window is one large
 * difference. Keeping the lower fraction p of a chi-square(1) sample
 * keeps, on average, P(chi2(3) < q) / p of its mean, q its p quantile
 * (z^2 with z the (1 + p)/2 normal quantile; 0.623 for p = 0.9), and the
 * estimate is divided by that.
 */
static void trim_setup(struct learn_ctx *c)
{
	size_t nd;
	double p, z, kept;

	c->keep = 0;
	c->trim = 1;
	if (c->groups < 5)
		return;
	nd = c->groups - 1;
	c->keep = nd - (nd + 9) / 10;
	p = (double)c->keep / (double)nd;
	z = pd_t_quantile((1 + p) / 2, 1e9);
	/* sqrt(2 / pi) = 0.79788... */
	kept = erf(z / sqrt(2)) - z * 0.7978845608028654 * exp(-z * z / 2);
	c->trim = 2 * kept / p;
}

/*
 * The single-run variance of c->y over the window, into *v on *d0 df:
 * the pooled variance within commits (repeats) and, from 5 commits on,
 * the variance of commit means from one commit to the next (night to
 * night, trim_setup), which repeats of one commit miss. Leaves each
 * commit's mean weight in c->means, for the thresholds.
 */
static size_t spread(struct learn_ctx *c, size_t f, int k, double *v,
		     double *d0, double *cbar)
{
	const struct pd_agg *const *runs = c->runs;
	size_t n = c->n, nfun = c->nfun, ng = 0, i, j;
	double pooled = 0, df = 0, s2w;

	*cbar = 0;
	for (i = 0; i < n;) {
		double m = 0, vv = 0, mw = 0;
		size_t e = i, g;

		while (e < n && c->commit[e] == c->commit[i])
			e++;
		g = e - i;
		for (j = i; j < e; j++) {
			m += c->y[j] / (double)g;
			mw += run_w(runs[j], f, nfun, k) / (double)g;
			*cbar += run_c(runs[j], f, nfun, k) / (double)n;
		}
		for (j = i; j < e && g > 1; j++)
			vv += (c->y[j] - m) * (c->y[j] - m);
		if (g > 1) {
			pooled += vv;
			df += (double)(g - 1);
		}
		c->means[ng] = mw;
		c->lmeans[ng++] = m;
		i = e;
	}
	s2w = df > 0 ? pooled / df : 0;
	*v = s2w;
	*d0 = df;
	if (ng >= 5) { /* night to night (trim_setup) */
		double vcm = 0, nbar = (double)n / (double)ng;

		/* the trim was set up for these commits: it keeps some */
		assert(ng == c->groups && c->keep > 0);
		for (j = 1; j < ng; j++)
			c->d[j - 1] = (c->lmeans[j] - c->lmeans[j - 1]) *
				      (c->lmeans[j] - c->lmeans[j - 1]);
		pd_median(c->d, ng - 1); /* sorts */
		for (j = 0; j < c->keep; j++)
			vcm += c->d[j] / (double)c->keep;
		vcm /= c->trim;
		/* a single run's variance: night part plus within part */
		*v = fmax(*v, vcm + s2w * (1 - 1 / nbar));
		/* a trimmed mean keeps about 70 % of the information */
		*d0 += 0.7 * (double)(ng - 1);
	}
	return ng;
}

/* Run i's level without function f's own vote (pd_noise_learn). */
static double level_of(const struct learn_ctx *c, size_t f, size_t i)
{
	double S = c->lvs[i], W = c->lvw[i];

	if (f < c->nfun && c->vw[f] > 0) {
		const struct pd_agg *a = c->runs[i];

		S -= c->vw[f] * (log(a->self_w[f] + pd_run_eps(a)) - c->vy[f]);
		W -= c->vw[f];
	}
	return W > 0 ? S / W : (double)NAN;
}

/*
 * How function f follows its run's level: the slope of its log weight
 * on the level within commits (a real change between commits moves
 * neither), the slope's variance, and a run's variance beyond the slope
 * (history.md, "Noise learned from history"). Nothing is learned
 * without levels or with fewer than 6 df.
 */
static void slope(struct learn_ctx *c, size_t f, int k, struct pd_noise *noise)
{
	size_t n = c->n, i, j, e;
	double sxy = 0, sxx = 0, df = 0, rss = 0, seen = 0, beta, v, d0, cbar;

	for (i = 0; i < n; i++) {
		const struct pd_agg *a = c->runs[i];

		c->l[i] = level_of(c, f, i);
		if (isnan(c->l[i]))
			return;
		c->y[i] = c->raw[i]; /* ln(weight + eps), from learn_one */
		seen += run_c(a, f, c->nfun, k);
	}
	if (!(seen > 0)) /* a metric the window never saw (main's self) */
		return;
	for (i = 0; i < n; i = e) {
		double my = 0, ml = 0;

		for (e = i; e < n && c->commit[e] == c->commit[i]; e++) {
			my += c->y[e];
			ml += c->l[e];
		}
		my /= (double)(e - i);
		ml /= (double)(e - i);
		for (j = i; j < e; j++) {
			sxy += (c->y[j] - my) * (c->l[j] - ml);
			sxx += (c->l[j] - ml) * (c->l[j] - ml);
		}
		df += (double)(e - i - 1);
	}
	if (!(sxx > 0) || df - 1 < PD_SLOPE_MIN_DF)
		return;
	beta = fmin(fmax(sxy / sxx, 0), 2);
	for (i = 0; i < n; i = e) {
		double m = 0;

		for (e = i; e < n && c->commit[e] == c->commit[i]; e++)
			m += c->y[e] - beta * c->l[e];
		m /= (double)(e - i);
		for (j = i; j < e; j++) {
			double r = c->y[j] - beta * c->l[j] - m;

			rss += r * r;
		}
	}
	for (i = 0; i < n; i++)
		c->y[i] -= beta * c->l[i];
	spread(c, f, k, &v, &d0, &cbar);
	if (d0 - 1 < PD_SLOPE_MIN_DF)
		return;
	noise->beta[k][f] = beta;
	noise->bvar[k][f] = rss / (df - 1) / sxx;
	noise->s0b[k][f] = v;
	noise->d0b[k][f] = fmin(d0 - 1, 30);
}

/*
 * One function's (or, for f == nfun, the profile total's) run-to-run
 * noise over the window (statistics.md, "the noise model"): the
 * single-run variance of ln(weight) (a function's relative to its run's
 * total) from spread(), the threshold from neighbouring commits' ratios,
 * and how the function follows its run's level.
 */
static void learn_one(struct learn_ctx *c, size_t f, int k,
		      struct pd_noise *noise)
{
	const struct pd_agg *const *runs = c->runs;
	size_t n = c->n, nfun = c->nfun, ng, i, j;
	double v, d0, cbar;

	/*
	 * A function's log weight is taken relative to its run's total, as
	 * a comparison takes it beyond the program's shift (its share); the
	 * total varies with the machine and is learned as it is.
	 */
	for (i = 0; i < n; i++) {
		const struct pd_agg *a = runs[i];

		c->y[i] = log(run_w(a, f, nfun, k) + pd_run_eps(a));
		c->raw[i] = c->y[i];
		if (f < nfun && a->all_w > 0)
			c->y[i] -= log(a->all_w);
	}
	ng = spread(c, f, k, &v, &d0, &cbar);
	if (d0 >= 2) {
		noise->s0[k][f] = v;
		noise->d0[k][f] = fmin(d0, 30);
		noise->cbar[k][f] = cbar;
	}
	/* Thresholds from neighbouring commits: Q3 + 3 IQR. */
	if (f < nfun && ng >= PD_NOISE_WINDOW) {
		size_t nd = 0;

		for (j = 1; j < ng; j++)
			if (c->means[j - 1] > 0 && c->means[j] > 0)
				c->d[nd++] =
				    fabs(c->means[j] / c->means[j - 1] - 1);
		if (nd + 1 >= PD_NOISE_WINDOW) {
			double q1, q3;

			pd_median(c->d, nd); /* sorts */
			q1 = quantile(c->d, nd, 0.25);
			q3 = quantile(c->d, nd, 0.75);
			noise->tau[k][f] = q3 + 3 * (q3 - q1);
			noise->tau_points[k][f] = (int)ng;
		}
	}
	if (f < nfun && c->lvs)
		slope(c, f, k, noise);
}

struct learn_half {
	struct learn_ctx c;
	struct pd_noise *noise;
	int k;
};

static void *learn_k(void *arg)
{
	struct learn_half *h = arg;
	size_t f;

	for (f = 0; f <= h->c.nfun; f++)
		learn_one(&h->c, f, h->k, h->noise);
	return NULL;
}

static void ctx_init(struct learn_ctx *c, const struct pd_agg *const *runs,
		     const size_t *commit, size_t n, size_t nfun)
{
	size_t i;

	memset(c, 0, sizeof(*c));
	c->runs = runs;
	c->commit = commit;
	c->n = n;
	c->nfun = nfun;
	for (i = 0; i < n; i++)
		c->groups += !i || commit[i] != commit[i - 1];
	trim_setup(c);
	c->y = pd_xmalloc((n + 1) * sizeof(double));
	c->means = pd_xmalloc((n + 1) * sizeof(double));
	c->lmeans = pd_xmalloc((n + 1) * sizeof(double));
	c->d = pd_xmalloc((n + 1) * sizeof(double));
	c->l = pd_xmalloc((n + 1) * sizeof(double));
	c->raw = pd_xmalloc((n + 1) * sizeof(double));
}

static void ctx_free(struct learn_ctx *c)
{
	free(c->y);
	free(c->means);
	free(c->lmeans);
	free(c->d);
	free(c->l);
	free(c->raw);
}

/*
 * The window's run levels, as a comparison of several runs takes them
 * (stats/run_levels.c): over the functions with 20 samples a run or
 * more, the weighted mean of how far each one's log weight lies from its
 * mean over the window, weighed 1 / (1.5 / c + 0.02^2), c its mean
 * count. Kept as sums, so that a function's own vote can be left out.
 * None with fewer than 3 such functions or, on average, 2 runs a commit.
 */
static void levels(struct learn_ctx *c, double *lvs, double *lvw, double *vw,
		   double *vy)
{
	size_t n = c->n, nfun = c->nfun, nv = 0, i, f;

	if (n < 2 * c->groups)
		return;
	for (f = 0; f < nfun; f++) {
		double cb = 0, y = 0;

		for (i = 0; i < n; i++)
			cb += c->runs[i]->self_c[f] / (double)n;
		if (cb < 20) /* the logs only for the voters */
			continue;
		for (i = 0; i < n; i++)
			y += log(c->runs[i]->self_w[f] +
				 pd_run_eps(c->runs[i])) /
			     (double)n;
		vw[f] = 1 / (1.5 / cb + 0.0004);
		vy[f] = y;
		nv++;
	}
	if (nv < 3)
		return;
	for (i = 0; i < n; i++) {
		const struct pd_agg *a = c->runs[i];

		for (f = 0; f < nfun; f++)
			if (vw[f] > 0) {
				lvs[i] +=
				    vw[f] *
				    (log(a->self_w[f] + pd_run_eps(a)) - vy[f]);
				lvw[i] += vw[f];
			}
	}
	c->lvs = lvs;
	c->lvw = lvw;
	c->vw = vw;
	c->vy = vy;
}

void pd_noise_learn(struct pd_noise *noise, const struct pd_agg *const *runs,
		    const size_t *commit, size_t n, size_t nfun)
{
	struct learn_half h[2];
	double *lvs = pd_xcalloc(n + 1, sizeof(double));
	double *lvw = pd_xcalloc(n + 1, sizeof(double));
	double *vw = pd_xcalloc(nfun + 1, sizeof(double));
	double *vy = pd_xcalloc(nfun + 1, sizeof(double));
	pthread_t th;
	int k, threaded;
	size_t i;

	/* tables for nfun functions and the total, read from every run */
	assert(noise->n == nfun);
	noise->repeats = 0;
	for (i = 0; i < n; i++) {
		assert(runs[i]->n >= nfun);
		noise->repeats += i > 0 && commit[i] == commit[i - 1];
	}
	/* self (k 0) and total (k 1) are learned apart: on two threads */
	for (k = 0; k < 2; k++) {
		ctx_init(&h[k].c, runs, commit, n, nfun);
		if (!k)
			levels(&h[k].c, lvs, lvw, vw, vy);
		else {
			h[k].c.lvs = h[0].c.lvs;
			h[k].c.lvw = h[0].c.lvw;
			h[k].c.vw = h[0].c.vw;
			h[k].c.vy = h[0].c.vy;
		}
		h[k].noise = noise;
		h[k].k = k;
	}
	threaded = !pthread_create(&th, NULL, learn_k, &h[1]);
	learn_k(&h[0]);
	if (threaded)
		pthread_join(th, NULL);
	else
		learn_k(&h[1]);
	for (k = 0; k < 2; k++)
		ctx_free(&h[k].c);
	free(lvs);
	free(lvw);
	free(vw);
	free(vy);
}
