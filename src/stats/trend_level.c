/*
 * A trend's functions beyond the machine (statistics.md, "Trends"): each
 * run's level is how far the window's functions moved together in that
 * run (a loaded night slows all of them), the biweight location of their
 * log values' distances from their own means; a function's series is
 * judged on its values divided by its runs' levels without its own vote,
 * as a comparison judges a function beyond the program's shift. The rest
 * of the program (the total less the functions loaded) votes too. The
 * total keeps its level: it is the whole program.
 */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/xalloc.h"
#include "stats/trend.h"
#include "stats/stats.h"

/* Residuals past this many robust scales weigh nothing (biweight). */
#define LEVEL_C 4.685
/* A series votes when it is at least this share of the total. */
#define LEVEL_MIN_SHARE 0.02
/* The scale of residuals is never taken below this (log scale). */
#define LEVEL_MIN_SCALE 0.01

/* Runs of the window, in order: run k of commit c is at off[c] + k. */
struct layout {
	size_t nruns, *off;
};

static int same_layout(const struct pd_tseries *a, const struct pd_tseries *b)
{
	size_t c;

	if (a->pts.n != b->pts.n)
		return 0;
	for (c = 0; c < a->pts.n; c++)
		if (a->pts.v[c].n != b->pts.v[c].n)
			return 0;
	return 1;
}

/* Series i's value in run r (layout of the total), or NAN. */
static double value(const struct pd_tseries *s, const struct layout *ly,
		    size_t r)
{
	size_t c = 0;

	while (c + 1 < s->pts.n && ly->off[c + 1] <= r)
		c++;
	return s->pts.v[c].v[r - ly->off[c]];
}

/* The biweight location of e[0..n) but for skip, scale sc; 0 if none. */
static double biweight(const double *e, size_t n, size_t skip, double sc)
{
	double m = 0;
	int it;

	for (it = 0; it < 12; it++) {
		double num = 0, den = 0;
		size_t i;

		for (i = 0; i < n; i++) {
			double u;

			if (i == skip || isnan(e[i]))
				continue;
			u = (e[i] - m) / (LEVEL_C * sc);
			if (fabs(u) < 1) {
				num += (1 - u * u) * (1 - u * u) * e[i];
				den += (1 - u * u) * (1 - u * u);
			}
		}
		if (!(den > 0))
			return m;
		m = num / den;
	}
	return m;
}

/* The median of the absolute values of e[0..n) (NAN left out). */
static double mad(const double *e, size_t n)
{
	double *v = pd_xmalloc((n + 1) * sizeof(*v)), m;
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		if (!isnan(e[i]))
			v[k++] = fabs(e[i]);
	m = k ? pd_median(v, k) : 0;
	free(v);
	return m;
}

/*
 * The voters: function series (not counters) of the total's layout and a
 * visible share of it, and the rest of the program (the total less every
 * function loaded); their log values in y (voter-major), their means over
 * the window in ybar, their series in idx (0 for the rest).
 */
static size_t voters(const struct pd_trend *t, const struct layout *ly,
		     size_t *idx, double *y, double *ybar)
{
	const struct pd_tseries *s0 = &t->series.v[0];
	size_t nv = 0, i, r, n = ly->nruns;
	double tot = 0, *rest = pd_xmalloc((n + 1) * sizeof(*rest));

	for (r = 0; r < n; r++) {
		rest[r] = value(s0, ly, r);
		tot += rest[r] / (double)n;
	}
	for (i = 1; i < t->series.n; i++)
		if (!t->series.v[i].counter && same_layout(&t->series.v[i], s0))
			for (r = 0; r < n; r++)
				rest[r] -= value(&t->series.v[i], ly, r);
	for (i = 1; i <= t->series.n; i++) {
		const struct pd_tseries *s =
		    i < t->series.n ? &t->series.v[i] : NULL;
		double mean = 0;
		int bad = 0;

		if (s && (s->counter || !same_layout(s, s0)))
			continue;
		for (r = 0; r < n; r++) {
			double v = s ? value(s, ly, r) : rest[r];

			bad |= !(v > 0);
			y[nv * n + r] = v > 0 ? log(v) : 0;
			mean += v / (double)n;
		}
		if (bad || !(tot > 0) || mean < LEVEL_MIN_SHARE * tot)
			continue;
		ybar[nv] = 0;
		for (r = 0; r < n; r++)
			ybar[nv] += y[nv * n + r] / (double)n;
		idx[nv++] = s ? i : 0;
	}
	free(rest);
	return nv;
}

struct pd_tseries *pd_trend_beyond_level(const struct pd_trend *t)
{
	const struct pd_tseries *s0;
	struct pd_tseries *out;
	struct layout ly;
	size_t n, nv, v, r, c, *idx;
	double *y, *ybar, *e, *lvl;

	if (t->series.n < 2 || t->exact)
		return NULL;
	s0 = &t->series.v[0];
	ly.off = pd_xmalloc((s0->pts.n + 1) * sizeof(*ly.off));
	for (c = n = 0; c < s0->pts.n; c++) {
		ly.off[c] = n;
		n += s0->pts.v[c].n;
	}
	ly.nruns = n;
	idx = pd_xmalloc((t->series.n + 1) * sizeof(*idx));
	y = pd_xmalloc((t->series.n + 1) * (n + 1) * sizeof(*y));
	ybar = pd_xmalloc((t->series.n + 1) * sizeof(*ybar));
	e = pd_xmalloc((t->series.n + 1) * sizeof(*e));
	lvl = pd_xmalloc((n + 1) * sizeof(*lvl));
	nv = n ? voters(t, &ly, idx, y, ybar) : 0;
	out = NULL;
	if (nv >= 3) {
		out = pd_xcalloc(t->series.n, sizeof(*out));
		for (v = 0; v < nv; v++) {
			size_t i = idx[v];
			const struct pd_tseries *s = &t->series.v[i];
			struct pd_tseries *o;

			if (!i)
				continue; /* the rest: a voter only */
			for (r = 0; r < n; r++) {
				size_t j;

				for (j = 0; j < nv; j++)
					e[j] = y[j * n + r] - ybar[j];
				lvl[r] = biweight(
				    e, nv, v,
				    fmax(1.4826 * mad(e, nv), LEVEL_MIN_SCALE));
			}
			o = &out[i];
			o->name = s->name;
			o->tau = s->tau;
			for (c = 0; c < s->pts.n; c++) {
				struct pd_tpoint p = s->pts.v[c];
				size_t k;

				p.v = pd_xmalloc((p.n + 1) * sizeof(*p.v));
				p.mean = 0;
				for (k = 0; k < p.n; k++) {
					p.v[k] = s->pts.v[c].v[k] /
						 exp(lvl[ly.off[c] + k]);
					p.mean += p.v[k] / (double)p.n;
				}
				PD_VEC_PUSH(&o->pts, p);
			}
		}
	}
	free(ly.off);
	free(idx);
	free(y);
	free(ybar);
	free(e);
	free(lvl);
	return out;
}

void pd_trend_level_release(struct pd_tseries *out, size_t n)
{
	size_t i, c;

	if (!out)
		return;
	for (i = 0; i < n; i++) {
		for (c = 0; c < out[i].pts.n; c++)
			free(out[i].pts.v[c].v);
		PD_VEC_FREE(&out[i].pts);
		PD_VEC_FREE(&out[i].changes);
	}
	free(out);
}

/*
 * A run where the function was not sampled has weight 0: the log needs a
 * floor, a thousandth of the series' largest mean, so that such runs
 * count as small rather than as far-off outliers.
 */
double pd_trend_log_floor(const struct pd_tseries *s)
{
	double floor = 0;
	size_t i;

	for (i = 0; i < s->pts.n; i++)
		floor = fmax(floor, s->pts.v[i].mean);
	return floor > 0 ? floor * 1e-3 : 1e-9;
}

/*
 * The spread of a series' runs about their own commit's mean (log
 * scale): the pooled within-commit variance, *df its degrees of freedom
 * (0 when no commit has two runs). No step between commits enters it.
 */
static double within_var(const struct pd_tseries *s, size_t *df)
{
	double floor = pd_trend_log_floor(s), ss = 0;
	size_t c, k;

	*df = 0;
	for (c = 0; c < s->pts.n; c++) {
		const struct pd_tpoint *pt = &s->pts.v[c];
		double m = 0;

		if (pt->n < 2)
			continue;
		for (k = 0; k < pt->n; k++)
			m += log(pt->v[k] + floor) / (double)pt->n;
		for (k = 0; k < pt->n; k++) {
			double d = log(pt->v[k] + floor) - m;

			ss += d * d;
		}
		*df += pt->n - 1;
	}
	return *df ? ss / (double)*df : PD_NAN;
}

/*
 * Whether a function is judged beyond the machine's level (b) rather than
 * on its own values (s): when the level takes out more of the runs'
 * spread about their commits' means than the voters' own noise puts in.
 * The choice sees only the spread within commits, which a step between
 * commits does not move (statistics.md, "Trends", levels). With no
 * repeat runs nothing shows it: the level, as before.
 */
int pd_trend_level_helps(const struct pd_tseries *s, const struct pd_tseries *b)
{
	size_t df_s, df_b;
	double vs = within_var(s, &df_s), vb = within_var(b, &df_b);

	assert(df_s == df_b); /* the same runs */
	return !df_s || vb < vs;
}
