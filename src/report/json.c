/*
 * JSON report: exactly the contract in docs/cli.md ("JSON"). Numbers that are
 * not defined (a ratio with no samples, p for an untested function) are null;
 * strings are made valid UTF-8 first, since profiles carry any bytes.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cJSON.h>

#include "core/buf.h"
#include "core/utf8.h"
#include "core/xalloc.h"
#include "report/jsonw.h"
#include "model/func.h"
#include "report/report.h"

/*
 * Members whose key outlives the tree (a literal, a table's measure
 * name) are added without a copy of the key: a large report adds
 * millions of them.
 */
static void put(cJSON *o, const char *k, cJSON *v)
{
	cJSON_AddItemToObjectCS(o, k, v);
}

static void add_str(cJSON *o, const char *k, const char *v)
{
	put(o, k, pd_json_text(v));
}

static cJSON *num(double v)
{
	return isnan(v) || isinf(v) ? cJSON_CreateNull()
				    : cJSON_CreateNumber(v);
}

static void add_num(cJSON *o, const char *k, double v)
{
	put(o, k, num(v));
}

/*
 * Members go into a tree's object (o) or to a streamed object (w): a
 * metric is written both ways and listed once.
 */
struct fields {
	cJSON *o;
	struct pd_jw *w;
};

static void f_num(const struct fields *e, const char *k, double v)
{
	if (e->w) {
		pd_jw_key(e->w, k);
		pd_jw_num(e->w, v);
	} else {
		add_num(e->o, k, v);
	}
}

static void f_str(const struct fields *e, const char *k, const char *v)
{
	if (e->w) {
		pd_jw_key(e->w, k);
		pd_jw_text(e->w, v);
	} else {
		add_str(e->o, k, v);
	}
}

static void f_bool(const struct fields *e, const char *k, int v)
{
	if (e->w) {
		pd_jw_key(e->w, k);
		pd_jw_bool(e->w, v);
	} else {
		put(e->o, k, cJSON_CreateBool(v));
	}
}

static void metric_fields(const struct fields *o, const struct pd_diff *d,
			  const struct pd_metric *m)
{
	f_num(o, "baseline", m->base);
	f_num(o, "candidate", m->cand);
	f_num(o, "delta", m->delta);
	f_num(o, "delta_pct", m->delta_pct);
	f_num(o, "p", m->p);
	f_num(o, "q", m->q);
	f_num(o, "p_threshold", m->p_tau);
	f_str(o, "status", pd_status_name(m->status));
	f_num(o, "ratio", m->ratio);
	f_num(o, "ci_low", m->ci_low);
	f_num(o, "ci_high", m->ci_high);
	f_num(o, "ci_adjusted_low", m->ci_adj_low);
	f_num(o, "ci_adjusted_high", m->ci_adj_high);
	f_num(o, "mde_pct", m->mde_pct);
	f_bool(o, "unstable", m->unstable);
	f_bool(o, "notable", m->notable);
	f_num(o, "threshold_pct", m->tau_pct);
	f_num(o, "threshold_points", m->tau_points);
	f_num(o, "mw_p", m->mw_p);
	f_num(o, "suggested_runs", m->suggested_runs);
	f_num(o, "baseline_samples", m->base_n);
	f_num(o, "candidate_samples", m->cand_n);
	f_num(o, "impact_pct", m->impact_pct);
	f_num(o, "shift_ratio",
	      fabs(m->ref_shift) > 0 ? exp(m->ref_shift) : PD_NAN);
	f_str(o, "cost_shift",
	      m->shift >= 0 ? pd_func_name(d->fn, (uint32_t)m->shift) : NULL);
}

static cJSON *metric(const struct pd_diff *d, const struct pd_metric *m)
{
	struct fields e;

	e.o = cJSON_CreateObject();
	e.w = NULL;
	metric_fields(&e, d, m);
	return e.o;
}

static void metric_stream(struct pd_jw *w, const struct pd_diff *d,
			  const struct pd_metric *m)
{
	struct fields e;

	e.o = NULL;
	e.w = w;
	pd_jw_open(w, '{');
	metric_fields(&e, d, m);
	pd_jw_close(w);
}

/* A row key's tab-separated parts, as a JSON array. */
static void key_parts(cJSON *arr, const char *p)
{
	for (;;) {
		const char *tab = strchr(p, '\t');
		char *part =
		    pd_xstrndup(p, tab ? (size_t)(tab - p) : strlen(p));

		cJSON_AddItemToArray(arr, pd_json_text(part));
		free(part);
		if (!tab)
			break;
		p = tab + 1;
	}
}

/*
 * One profile's metric tables (show): each row's key parts and values,
 * with the relative errors perf stat -r gives.
 */
static cJSON *profile_tables(const struct pd_profile *p)
{
	cJSON *arr = cJSON_CreateArray();
	size_t i, r, k;

	for (i = 0; i < p->tables.n; i++) {
		const struct pd_mtable *t = p->tables.v[i];
		cJSON *to = cJSON_CreateObject(), *rows = cJSON_CreateArray(),
		      *a2 = cJSON_CreateArray();

		add_str(to, "name", t->name);
		for (k = 0; k < t->keys.n; k++)
			cJSON_AddItemToArray(a2, pd_json_text(t->keys.v[k]));
		cJSON_AddItemToObject(to, "keys", a2);
		for (r = 1; r < t->rowkeys.n; r++) {
			const char *key =
			    pd_intern_str(&t->rowkeys, (uint32_t)r);
			cJSON *ro = cJSON_CreateObject(),
			      *ka = cJSON_CreateArray(),
			      *vs = cJSON_CreateObject();

			key_parts(ka, key);
			cJSON_AddItemToObject(ro, "key", ka);
			for (k = 0; k < t->measures.n; k++) {
				size_t at = r * t->measures.n + k;
				double rse = pd_mtable_rse(t, key, k);

				add_num(vs, t->measures.v[k],
					at < t->values.n ? t->values.v[at] : 0);
				if (rse >= 0) {
					struct pd_buf n = PD_BUF_INIT;

					pd_buf_addf(&n, "%s rse",
						    t->measures.v[k]);
					cJSON_AddItemToObject(vs, n.buf,
							      num(rse));
					pd_buf_release(&n);
				}
			}
			cJSON_AddItemToObject(ro, "values", vs);
			cJSON_AddItemToArray(rows, ro);
		}
		cJSON_AddItemToObject(to, "rows", rows);
		cJSON_AddItemToArray(arr, to);
	}
	return arr;
}

static cJSON *side(const struct pd_side *s)
{
	cJSON *o = cJSON_CreateObject();

	add_str(o, "source", s->source);
	add_str(o, "provenance", s->provenance);
	add_str(o, "format", s->format);
	add_str(o, "unit", pd_unit_name(s->unit));
	add_num(o, "total", s->total);
	add_num(o, "samples", s->samples);
	add_num(o, "runs", s->runs);
	add_num(o, "interval", s->interval > 0 ? s->interval : PD_NAN);
	add_str(o, "event", s->event);
	add_str(o, "exporter", s->exporter);
	add_str(o, "count_rule", s->count_rule);
	add_num(o, "system_set_apart", s->system);
	if (s->profile && s->profile->threads.n) {
		cJSON *t = cJSON_CreateArray();
		size_t i;

		for (i = 0; i < s->profile->threads.n; i++)
			cJSON_AddItemToArray(
			    t, pd_json_text(pd_intern_str(
				   &s->profile->strs,
				   s->profile->threads.v[i].name)));
		cJSON_AddItemToObject(o, "threads", t);
	}
	return o;
}

int pd_json_write(FILE *f, const cJSON *root)
{
	return pd_jw_tree(f, root, NULL, 0);
}

/* Writes root (its gens written in their places) and frees it. */
static int emit(FILE *f, cJSON *root, const struct pd_jw_gen *gens, size_t n)
{
	int rc = pd_jw_tree(f, root, gens, n);

	cJSON_Delete(root);
	return rc;
}

static cJSON *tables_json(const struct pd_diff *d)
{
	cJSON *arr = cJSON_CreateArray();
	size_t t, r, k;

	for (t = 0; t < d->tables.n; t++) {
		const struct pd_tdiff *td = &d->tables.v[t];
		cJSON *to = cJSON_CreateObject(), *a2 = cJSON_CreateArray();

		add_str(to, "name", td->base->name);
		for (k = 0; k < td->base->keys.n; k++)
			cJSON_AddItemToArray(a2,
					     pd_json_text(td->base->keys.v[k]));
		cJSON_AddItemToObject(to, "keys", a2);
		a2 = cJSON_CreateArray();
		for (k = 0; k < td->nmeasures; k++) {
			cJSON *mo = cJSON_CreateObject();

			add_str(mo, "name", td->base->measures.v[k]);
			cJSON_AddItemToObject(
			    mo, "tested",
			    cJSON_CreateBool(td->base->count_like.v[k]));
			cJSON_AddItemToArray(a2, mo);
		}
		cJSON_AddItemToObject(to, "measures", a2);
		a2 = cJSON_CreateArray();
		for (r = 0; r < td->rows.n; r++) {
			cJSON *ro = cJSON_CreateObject(),
			      *ka = cJSON_CreateArray();
			cJSON *ms = cJSON_CreateObject();

			key_parts(ka, td->rows.v[r].key);
			cJSON_AddItemToObject(ro, "key", ka);
			for (k = 0; k < td->nmeasures; k++)
				cJSON_AddItemToObject(
				    ms, td->base->measures.v[k],
				    metric(d, &td->rows.v[r].m[k]));
			cJSON_AddItemToObject(ro, "measures", ms);
			cJSON_AddItemToArray(a2, ro);
		}
		cJSON_AddItemToObject(to, "rows", a2);
		cJSON_AddItemToArray(arr, to);
	}
	return arr;
}

/* Function i of a diff: one row of diff_functions. */
static void diff_function(struct pd_jw *w, size_t i, void *ctx)
{
	const struct pd_diff *d = ctx;
	const struct pd_fdiff *fd = &d->funcs.v[i];
	const struct pd_func *fn = &d->fn->v.v[fd->func];
	size_t k;

	pd_jw_open(w, '{');
	pd_jw_key(w, "function");
	pd_jw_text(w, pd_func_name(d->fn, fd->func));
	pd_jw_key(w, "module");
	pd_jw_text(w, pd_func_module(d->fn, fd->func));
	pd_jw_key(w, "system");
	pd_jw_bool(w, fd->system);
	pd_jw_key(w, "raw_names");
	pd_jw_open(w, '[');
	for (k = 0; k < fn->raw.n; k++) {
		pd_jw_item(w);
		pd_jw_text(w, pd_intern_str(&d->fn->strs, fn->raw.v[k]));
	}
	pd_jw_close(w);
	pd_jw_key(w, "self");
	metric_stream(w, d, &fd->self);
	pd_jw_key(w, "total");
	if (d->self_only)
		pd_jw_null(w);
	else
		metric_stream(w, d, &fd->total);
	pd_jw_close(w);
}

/* The functions of a diff, each a row (a pd_jw_gen). */
static void diff_functions(struct pd_jw *w, void *ctx)
{
	const struct pd_diff *d = ctx;

	pd_jw_rows(w, d->funcs.n, diff_function, ctx);
}

/* The profile total of a diff (a pd_jw_gen). */
static void diff_total(struct pd_jw *w, void *ctx)
{
	const struct pd_diff *d = ctx;

	metric_stream(w, d, &d->total);
}

int pd_report_json(FILE *f, const struct pd_diff *d,
		   const struct pd_report_opts *o)
{
	cJSON *root = cJSON_CreateObject(), *x, *arr;
	struct pd_jw_gen gens[2];
	size_t i;

	(void)o;
	if (!root)
		pd_die_oom(0);
	add_str(root, "perfdiff", PD_VERSION);
	cJSON_AddItemToObject(root, "baseline", side(&d->base));
	cJSON_AddItemToObject(root, "candidate", side(&d->cand));
	x = cJSON_CreateObject();
	add_num(x, "threshold_pct", d->set.threshold_pct);
	add_num(x, "min_impact_pct", d->set.min_impact_pct);
	add_num(x, "alpha", d->set.alpha);
	add_str(x, "mode", d->set.share ? "share" : "absolute");
	add_num(x, "dispersion_floor", d->set.dispersion);
	add_num(x, "run_cv_pct", d->set.run_cv * 100);
	add_str(x, "test", d->set.treat ? "threshold" : "change");
	cJSON_AddItemToObject(
	    x, "match_modules",
	    cJSON_CreateBool(!(d->fn->flags & PD_FUNCS_NO_MODULE)));
	cJSON_AddItemToObject(
	    x, "normalize_names",
	    cJSON_CreateBool(!(d->fn->flags & PD_FUNCS_NO_NORMALIZE)));
	cJSON_AddItemToObject(root, "settings", x);
	x = cJSON_CreateObject();
	add_num(x, "phi", d->phi);
	add_num(x, "lambda", d->lambda);
	add_str(x, "source", d->phi_source);
	add_str(x, "method", pd_method_name(d->method));
	add_str(x, "prior", d->prior_source);
	add_num(x, "functions", (double)d->lambda_n);
	add_num(x, "whole_run_cv_pct", d->whole_cv * 100);
	cJSON_AddItemToObject(root, "dispersion", x);
	{
		/* one profile a side: the shift functions were judged against
		 */
		cJSON *sh = cJSON_CreateObject();

		add_num(sh, "ratio", d->shift_alike ? exp(d->shift) : PD_NAN);
		add_num(sh, "se", d->shift_alike ? sqrt(d->shift_var) : PD_NAN);
		add_num(sh, "alike", (double)d->shift_alike);
		add_num(sh, "voters", (double)d->shift_voters);
		cJSON_AddItemToObject(x, "program_shift", sh);
	}
	arr = cJSON_CreateArray();
	for (i = 0; i < d->warnings.n; i++)
		cJSON_AddItemToArray(arr, pd_json_text(d->warnings.v[i]));
	cJSON_AddItemToObject(root, "warnings", arr);
	add_str(root, "verdict", pd_status_name(d->verdict));
	{
		/* the line a reader reads first, as the text report has it */
		struct pd_buf h = PD_BUF_INIT;

		pd_fmt_headline(&h, d, pd_fmt_func);
		cJSON_AddItemToObject(root, "headline", pd_json_text(h.buf));
		pd_buf_release(&h);
	}
	gens[0].at = x = cJSON_CreateObject();
	gens[0].write = diff_total;
	gens[0].ctx = (void *)(uintptr_t)d;
	cJSON_AddItemToObject(root, "total", x);
	gens[1].at = arr = cJSON_CreateArray();
	gens[1].write = diff_functions;
	gens[1].ctx = (void *)(uintptr_t)d;
	cJSON_AddItemToObject(root, "functions", arr);
	add_str(root, "no_verdict", d->no_verdict);
	if (d->tables.n)
		cJSON_AddItemToObject(root, "tables", tables_json(d));
	return emit(f, root, gens, 2);
}

struct profile_funcs {
	const struct pd_funcs *fn;
	const struct pd_agg *a;
	size_t *rows; /* the functions some sample reached */
};

/* Row r of a profile's functions. */
static void profile_function(struct pd_jw *w, size_t r, void *ctx)
{
	const struct profile_funcs *pf = ctx;
	size_t i = pf->rows[r];

	pd_jw_open(w, '{');
	pd_jw_key(w, "function");
	pd_jw_text(w, pd_func_name(pf->fn, (uint32_t)i));
	pd_jw_key(w, "module");
	pd_jw_text(w, pd_func_module(pf->fn, (uint32_t)i));
	pd_jw_key(w, "self");
	pd_jw_num(w, pf->a->self_w[i]);
	pd_jw_key(w, "total");
	pd_jw_num(w, pf->a->total_w[i]);
	pd_jw_key(w, "self_samples");
	pd_jw_num(w, pf->a->self_c[i]);
	pd_jw_key(w, "total_samples");
	pd_jw_num(w, pf->a->total_c[i]);
	pd_jw_close(w);
}

/* A profile's functions, each a row (a pd_jw_gen). */
static void profile_functions(struct pd_jw *w, void *ctx)
{
	struct profile_funcs *pf = ctx;
	size_t i, n = 0;

	pf->rows = pd_xmalloc((pf->fn->v.n + 1) * sizeof(*pf->rows));
	for (i = 0; i < pf->fn->v.n; i++)
		/* a frame no sample reached (a Gecko table row) is no row */
		if (pf->a->total_w[i] > 0)
			pf->rows[n++] = i;
	pd_jw_rows(w, n, profile_function, pf);
	free(pf->rows);
	pf->rows = NULL;
}

int pd_report_profile_json(FILE *f, const struct pd_profile *p)
{
	struct pd_funcs fn;
	struct pd_agg a;
	struct pd_side s;
	struct profile_funcs pf;
	struct pd_jw_gen gen;
	cJSON *root = cJSON_CreateObject(), *arr;
	size_t i;
	int rc;

	pd_funcs_init(&fn, PD_FUNCS_SYSTEM); /* one profile: whole totals */
	pd_agg_init(&a);
	pd_agg_compute(&a, p, &fn);
	memset(&s, 0, sizeof(s));
	s.source = p->source;
	s.format = p->format;
	s.exporter = p->exporter;
	s.event = p->event;
	s.count_rule = p->count_rule;
	s.unit = p->unit;
	s.total = p->total_weight;
	s.samples = p->total_count;
	s.interval = p->interval;
	s.runs = 1;
	s.profile = p;
	cJSON_AddItemToObject(root, "profile", side(&s));
	arr = cJSON_CreateArray();
	for (i = 0; i < p->notes.n; i++)
		cJSON_AddItemToArray(arr, pd_json_text(p->notes.v[i]));
	cJSON_AddItemToObject(root, "warnings", arr);
	gen.at = arr = cJSON_CreateArray();
	gen.write = profile_functions;
	gen.ctx = &pf;
	pf.fn = &fn;
	pf.a = &a;
	pf.rows = NULL;
	cJSON_AddItemToObject(root, "functions", arr);
	if (p->tables.n)
		cJSON_AddItemToObject(root, "tables", profile_tables(p));
	rc = emit(f, root, &gen, 1);
	pd_agg_release(&a);
	pd_funcs_release(&fn);
	return rc;
}
