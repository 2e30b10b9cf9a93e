/* Cold against warm in a bundle diff (cold.h). */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare/cold.h"
#include "core/compat.h"
#include "core/xalloc.h"
#include "model/profile.h"
#include "stats/stats.h"

/* Function name/module in x's diff, or NULL. */
static const struct pd_fdiff *find_func(const struct pd_section *x,
					const char *name, const char *module)
{
	size_t i;

	for (i = 0; i < x->d.funcs.n; i++) {
		const struct pd_fdiff *f = &x->d.funcs.v[i];

		if (!strcmp(pd_func_name(&x->fn, f->func), name) &&
		    !strcmp(pd_func_module(&x->fn, f->func), module))
			return f;
	}
	return NULL;
}

static const struct pd_section *warm_of(const struct pd_section *x, size_t n,
					const struct pd_section *cold)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (x[i].key.cache && !strcmp(x[i].key.cache, "warm") &&
		    !strcmp(x[i].key.tool, cold->key.tool))
			return &x[i];
	return NULL;
}

static int is_cold(const struct pd_section *x)
{
	return x->key.cache && !strcmp(x->key.cache, "cold");
}

void pd_sections_cold_only(const struct pd_section *x, size_t n,
			   pd_cold_only_vec *out)
{
	size_t i, k;

	for (i = 0; i < n; i++) {
		const struct pd_section *c = &x[i], *w;

		if (!is_cold(c) || !(w = warm_of(x, n, c)))
			continue;
		for (k = 0; k < c->d.funcs.n; k++) {
			const struct pd_fdiff *f = &c->d.funcs.v[k], *h;
			const char *name = pd_func_name(&c->fn, f->func);
			const char *mod = pd_func_module(&c->fn, f->func);
			struct pd_md_cold o;

			/* a function's own time: its callers' totals follow */
			if (f->system || f->self.status != PD_REGRESSED)
				continue;
			h = find_func(w, name, mod);
			if (h && h->self.status == PD_REGRESSED)
				continue; /* the warm run regressed too */
			o.tool = c->key.tool;
			o.func = name;
			o.module = mod;
			o.delta_pct = f->self.delta_pct;
			PD_VEC_PUSH(out, o);
		}
	}
}

/*
 * The variance of a self metric's change in weight, from the standard
 * error of its log ratio: each side given the same relative variance
 * (se^2 / 2 of its weight squared), which is never below what a
 * count-like variance (proportional to the weight) gives for the same
 * se. NAN when the metric has none.
 */
static double delta_var(const struct pd_metric *m)
{
	double b = m->base, c = m->base + m->delta;

	if (!isfinite(m->se) || m->se < 0 || !isfinite(m->delta))
		return PD_NAN;
	return m->se * m->se * (b * b + c * c) / 2;
}

/* The weight of a metric in the build, beyond its series' shift. */
static double cand_beyond(const struct pd_metric *m)
{
	return m->base + m->delta;
}

/* Whether a change in cold-cache cost is large enough to count. */
static int counts(const struct pd_cold_cost *o, double floor, double tau)
{
	if (fabs(o->delta) < floor)
		return 0;
	/* a cost that was not there before is a change of any size */
	return !(o->base > 0) || fabs(o->delta) >= tau * o->base;
}

/*
 * One function f of cold series c against its warm series w: its cost
 * in both builds and its change's standard error and degrees of
 * freedom (0: the normal tail). 0 when it cannot be judged.
 */
static int cost_of(const struct pd_section *c, const struct pd_fdiff *f,
		   const struct pd_section *w, struct pd_cold_cost *o,
		   double *se, double *df)
{
	const char *name = pd_func_name(&c->fn, f->func);
	const char *mod = pd_func_module(&c->fn, f->func);
	const struct pd_fdiff *h = find_func(w, name, mod);
	double vc = delta_var(&f->self), vw = h ? delta_var(&h->self) : 0;

	if (!isfinite(vc) || !isfinite(vw) || vc + vw <= 0)
		return 0;
	memset(o, 0, sizeof(*o));
	o->tool = c->key.tool;
	o->func = name;
	o->module = mod;
	o->unit = c->d.base.unit;
	o->base = f->self.base - (h ? h->self.base : 0);
	o->cand = cand_beyond(&f->self) - (h ? cand_beyond(&h->self) : 0);
	o->delta = o->cand - o->base;
	*se = sqrt(vc + vw);
	*df = f->self.df;
	if (h && h->self.df > 0 && (*df <= 0 || h->self.df < *df))
		*df = h->self.df;
	if (h && h->self.df <= 0)
		*df = 0;
	return 1;
}

static int by_change(const void *a, const void *b)
{
	const struct pd_cold_cost *x = a, *y = b;
	int cx = x->status != PD_SAME, cy = y->status != PD_SAME;

	if (cx != cy)
		return cy - cx;
	if (fabs(x->delta) < fabs(y->delta))
		return 1;
	if (fabs(x->delta) > fabs(y->delta))
		return -1;
	return strcmp(x->func, y->func);
}

void pd_sections_cold_cost(const struct pd_section *x, size_t n,
			   const struct pd_settings *set, pd_cold_cost_vec *out,
			   size_t *tested)
{
	PD_VEC(double) se = PD_VEC_INIT, df = PD_VEC_INIT, floor = PD_VEC_INIT;
	double *p, *q;
	size_t i, k, first = out->n;

	for (i = 0; i < n; i++) {
		const struct pd_section *c = &x[i], *w;

		if (!is_cold(c) || !(w = warm_of(x, n, c)))
			continue;
		for (k = 0; k < c->d.funcs.n; k++) {
			const struct pd_fdiff *f = &c->d.funcs.v[k];
			struct pd_cold_cost o;
			double s, d;

			if (f->system || !cost_of(c, f, w, &o, &s, &d))
				continue;
			PD_VEC_PUSH(out, o);
			PD_VEC_PUSH(&se, s);
			PD_VEC_PUSH(&df, d);
			PD_VEC_PUSH(&floor, set->min_impact_pct / 100 *
						c->d.total.base);
		}
	}
	*tested = out->n - first;
	p = pd_xmalloc((*tested + 1) * sizeof(*p));
	q = pd_xmalloc((*tested + 1) * sizeof(*q));
	for (k = 0; k < *tested; k++) {
		struct pd_cold_cost *o = &out->v[first + k];
		double z = fabs(o->delta) / se.v[k];

		p[k] = df.v[k] > 0 ? pd_t_sf2(z, df.v[k]) : 2 * pd_norm_sf(z);
	}
	pd_bh(p, *tested, q);
	for (k = 0; k < *tested; k++) {
		struct pd_cold_cost *o = &out->v[first + k];
		double zq = df.v[k] > 0 ? pd_t_quantile(0.975, df.v[k])
					: pd_norm_quantile(0.975);

		o->p = p[k];
		o->q = q[k];
		assert(o->q >= o->p || isnan(o->p));
		o->lo = o->delta - zq * se.v[k];
		o->hi = o->delta + zq * se.v[k];
		o->status = PD_SAME;
		if (o->q <= set->alpha &&
		    counts(o, floor.v[k], set->threshold_pct / 100))
			o->status = o->delta > 0 ? PD_REGRESSED : PD_IMPROVED;
	}
	if (*tested > 1)
		qsort(out->v + first, *tested, sizeof(*out->v), by_change);
	free(p);
	free(q);
	PD_VEC_FREE(&se);
	PD_VEC_FREE(&df);
	PD_VEC_FREE(&floor);
}
