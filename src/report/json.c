/*
 * JSON report: exactly the contract in docs/cli.md ("JSON"). Numbers that are
 * not defined (a ratio with no samples, p for an untested function) are null;
 * strings are made valid UTF-8 first, since profiles carry any bytes.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cJSON.h>

#include "core/utf8.h"
#include "model/func.h"
#include "report/report.h"

cJSON *pd_json_text(const char *s)
{
	struct pd_buf b = PD_BUF_INIT;
	cJSON *j;

	if (!s)
		return cJSON_CreateNull();
	pd_utf8_sanitize(s, strlen(s), &b);
	j = cJSON_CreateString(b.buf);
	pd_buf_release(&b);
	if (!j)
		pd_die_oom(0);
	return j;
}

static void add_str(cJSON *o, const char *k, const char *v)
{
	cJSON_AddItemToObject(o, k, pd_json_text(v));
}

static void add_num(cJSON *o, const char *k, double v)
{
	if (isnan(v) || isinf(v))
		cJSON_AddItemToObject(o, k, cJSON_CreateNull());
	else
		cJSON_AddItemToObject(o, k, cJSON_CreateNumber(v));
}

static cJSON *metric(const struct pd_diff *d, const struct pd_metric *m)
{
	cJSON *o = cJSON_CreateObject();

	add_num(o, "baseline", m->base);
	add_num(o, "candidate", m->cand);
	add_num(o, "delta", m->delta);
	add_num(o, "delta_pct", m->delta_pct);
	add_num(o, "p", m->p);
	add_num(o, "q", m->q);
	add_str(o, "status", pd_status_name(m->status));
	add_num(o, "ratio", m->ratio);
	add_num(o, "ci_low", m->ci_low);
	add_num(o, "ci_high", m->ci_high);
	add_num(o, "mde_pct", m->mde_pct);
	cJSON_AddItemToObject(o, "unstable", cJSON_CreateBool(m->unstable));
	cJSON_AddItemToObject(o, "notable", cJSON_CreateBool(m->notable));
	add_num(o, "threshold_pct", m->tau_pct);
	add_num(o, "threshold_points", m->tau_points);
	add_num(o, "mw_p", m->mw_p);
	add_num(o, "suggested_runs", m->suggested_runs);
	add_num(o, "baseline_samples", m->base_n);
	add_num(o, "candidate_samples", m->cand_n);
	add_num(o, "impact_pct", m->impact_pct);
	if (m->shift >= 0)
		add_str(o, "cost_shift",
			pd_func_name(d->fn, (uint32_t)m->shift));
	else
		cJSON_AddItemToObject(o, "cost_shift", cJSON_CreateNull());
	return o;
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
					add_num(vs, n.buf, rse);
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

/*
 * Writing a cJSON tree as cJSON_Print does, byte for byte (tabs, ": "
 * as ":\t", ", " between array elements, numbers as "%1.15g" or, when
 * that does not read back, "%1.17g"), but streamed to the file: the
 * report of a large history is tens of megabytes, which cJSON built as
 * one string after re-reading every number with sscanf.
 */
/*
 * An array too large to build as a tree (one element per function): its
 * elements are made one at a time while it is written, then freed. make
 * returns NULL for an index that has no element.
 */
struct jw_gen {
	const cJSON *at; /* the empty array that stands for it in the tree */
	size_t n;
	cJSON *(*make)(void *ctx, size_t i);
	void *ctx;
};

struct jw {
	FILE *f;
	struct pd_buf b;
	int depth;
	const struct jw_gen *gen;
};

static void jw_flush(struct jw *w, int all)
{
	if (w->b.len >= (all ? 1 : 1 << 16)) {
		fwrite(w->b.buf, 1, w->b.len, w->f);
		pd_buf_reset(&w->b);
	}
}

static void jw_number(struct jw *w, const cJSON *n)
{
	double d = n->valuedouble, back;
	char t[32];

	if (isnan(d) || isinf(d)) {
		pd_buf_adds(&w->b, "null");
		return;
	}
	if (fabs(d) < 1e15 && !(d - floor(d) > 0) && !(d - floor(d) < 0)) {
		/* an integer below 10^15: "%1.15g" prints its digits */
		uint64_t u = (uint64_t)fabs(d);
		char *e = t + sizeof(t), *q = e;

		do
			*--q = (char)('0' + u % 10);
		while (u /= 10);
		if (signbit(d))
			*--q = '-';
		pd_buf_add(&w->b, q, (size_t)(e - q));
		return;
	}
	snprintf(t, sizeof(t), "%1.15g", d);
	back = strtod(t, NULL);
	if (!(fabs(back - d) <= fmax(fabs(back), fabs(d)) * DBL_EPSILON))
		snprintf(t, sizeof(t), "%1.17g", d);
	pd_buf_adds(&w->b, t);
}

static void jw_string(struct jw *w, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");

	pd_buf_addch(&w->b, '"');
	for (; *p; p++) {
		const unsigned char *run = p;

		while (*p > 31 && *p != '"' && *p != '\\')
			p++;
		pd_buf_add(&w->b, (const char *)run, (size_t)(p - run));
		if (!*p)
			break;
		pd_buf_addch(&w->b, '\\');
		switch (*p) {
		case '\\':
		case '"':
			pd_buf_addch(&w->b, (char)*p);
			break;
		case '\b':
			pd_buf_addch(&w->b, 'b');
			break;
		case '\f':
			pd_buf_addch(&w->b, 'f');
			break;
		case '\n':
			pd_buf_addch(&w->b, 'n');
			break;
		case '\r':
			pd_buf_addch(&w->b, 'r');
			break;
		case '\t':
			pd_buf_addch(&w->b, 't');
			break;
		default:
			pd_buf_addf(&w->b, "u%04x", *p);
		}
	}
	pd_buf_addch(&w->b, '"');
}

static void jw_tabs(struct jw *w, int n)
{
	while (n-- > 0)
		pd_buf_addch(&w->b, '\t');
}

static void jw_value(struct jw *w, const cJSON *v);

/* The generated array, laid out as cJSON lays out an array. */
static void jw_generated(struct jw *w)
{
	const struct jw_gen *g = w->gen;
	size_t i;
	int first = 1;

	pd_buf_addch(&w->b, '[');
	w->depth++;
	for (i = 0; i < g->n; i++) {
		cJSON *e = g->make(g->ctx, i);

		if (!e)
			continue;
		if (!first)
			pd_buf_adds(&w->b, ", ");
		first = 0;
		jw_value(w, e);
		cJSON_Delete(e);
	}
	pd_buf_addch(&w->b, ']');
	w->depth--;
}

static void jw_value(struct jw *w, const cJSON *v)
{
	const cJSON *c;

	jw_flush(w, 0);
	if (cJSON_IsNull(v)) {
		pd_buf_adds(&w->b, "null");
	} else if (cJSON_IsFalse(v)) {
		pd_buf_adds(&w->b, "false");
	} else if (cJSON_IsTrue(v)) {
		pd_buf_adds(&w->b, "true");
	} else if (cJSON_IsNumber(v)) {
		jw_number(w, v);
	} else if (cJSON_IsString(v)) {
		jw_string(w, v->valuestring);
	} else if (w->gen && v == w->gen->at) {
		jw_generated(w);
	} else if (cJSON_IsArray(v)) {
		pd_buf_addch(&w->b, '[');
		w->depth++;
		for (c = v->child; c; c = c->next) {
			jw_value(w, c);
			if (c->next)
				pd_buf_adds(&w->b, ", ");
		}
		pd_buf_addch(&w->b, ']');
		w->depth--;
	} else if (cJSON_IsObject(v)) {
		pd_buf_adds(&w->b, "{\n");
		w->depth++;
		for (c = v->child; c; c = c->next) {
			jw_tabs(w, w->depth);
			jw_string(w, c->string);
			pd_buf_adds(&w->b, ":\t");
			jw_value(w, c);
			pd_buf_adds(&w->b, c->next ? ",\n" : "\n");
		}
		jw_tabs(w, w->depth - 1);
		pd_buf_addch(&w->b, '}');
		w->depth--;
	}
}

static int json_write(FILE *f, const cJSON *root, const struct jw_gen *gen)
{
	struct jw w;

	w.f = f;
	w.depth = 0;
	w.gen = gen;
	pd_buf_init(&w.b);
	jw_value(&w, root);
	pd_buf_addch(&w.b, '\n');
	jw_flush(&w, 1);
	pd_buf_release(&w.b);
	return ferror(f) ? PD_EIO : 0;
}

int pd_json_write(FILE *f, const cJSON *root)
{
	return json_write(f, root, NULL);
}

/* Writes root (its array gen->at made while written) and frees it. */
static int emit(FILE *f, cJSON *root, const struct jw_gen *gen)
{
	int rc = json_write(f, root, gen);

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

/* One function's row of a diff (a jw_gen element). */
static cJSON *diff_function(void *ctx, size_t i)
{
	const struct pd_diff *d = ctx;
	const struct pd_fdiff *fd = &d->funcs.v[i];
	const struct pd_func *fn = &d->fn->v.v[fd->func];
	cJSON *fo = cJSON_CreateObject(), *raw = cJSON_CreateArray();
	size_t k;

	add_str(fo, "function", pd_func_name(d->fn, fd->func));
	add_str(fo, "module", pd_func_module(d->fn, fd->func));
	cJSON_AddBoolToObject(fo, "system", fd->system);
	for (k = 0; k < fn->raw.n; k++)
		cJSON_AddItemToArray(raw, pd_json_text(pd_intern_str(
					      &d->fn->strs, fn->raw.v[k])));
	cJSON_AddItemToObject(fo, "raw_names", raw);
	cJSON_AddItemToObject(fo, "self", metric(d, &fd->self));
	cJSON_AddItemToObject(fo, "total",
			      d->self_only ? cJSON_CreateNull()
					   : metric(d, &fd->total));
	return fo;
}

int pd_report_json(FILE *f, const struct pd_diff *d,
		   const struct pd_report_opts *o)
{
	cJSON *root = cJSON_CreateObject(), *x, *arr;
	struct jw_gen gen;
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
	cJSON_AddItemToObject(root, "dispersion", x);
	arr = cJSON_CreateArray();
	for (i = 0; i < d->warnings.n; i++)
		cJSON_AddItemToArray(arr, pd_json_text(d->warnings.v[i]));
	cJSON_AddItemToObject(root, "warnings", arr);
	add_str(root, "verdict", pd_status_name(d->verdict));
	cJSON_AddItemToObject(root, "total", metric(d, &d->total));
	gen.at = arr = cJSON_CreateArray();
	gen.n = d->funcs.n;
	gen.make = diff_function;
	gen.ctx = (void *)(uintptr_t)d;
	cJSON_AddItemToObject(root, "functions", arr);
	add_str(root, "no_verdict", d->no_verdict);
	if (d->tables.n)
		cJSON_AddItemToObject(root, "tables", tables_json(d));
	return emit(f, root, &gen);
}

struct profile_funcs {
	const struct pd_funcs *fn;
	const struct pd_agg *a;
};

/* One function's row of a profile (a jw_gen element), or NULL. */
static cJSON *profile_function(void *ctx, size_t i)
{
	const struct profile_funcs *pf = ctx;
	cJSON *fo;

	/* a frame no sample reached (a Gecko table row) is no row */
	if (!(pf->a->total_w[i] > 0))
		return NULL;
	fo = cJSON_CreateObject();
	add_str(fo, "function", pd_func_name(pf->fn, (uint32_t)i));
	add_str(fo, "module", pd_func_module(pf->fn, (uint32_t)i));
	add_num(fo, "self", pf->a->self_w[i]);
	add_num(fo, "total", pf->a->total_w[i]);
	add_num(fo, "self_samples", pf->a->self_c[i]);
	add_num(fo, "total_samples", pf->a->total_c[i]);
	return fo;
}

int pd_report_profile_json(FILE *f, const struct pd_profile *p)
{
	struct pd_funcs fn;
	struct pd_agg a;
	struct pd_side s;
	struct profile_funcs pf;
	struct jw_gen gen;
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
	gen.n = fn.v.n;
	gen.make = profile_function;
	gen.ctx = &pf;
	pf.fn = &fn;
	pf.a = &a;
	cJSON_AddItemToObject(root, "functions", arr);
	if (p->tables.n)
		cJSON_AddItemToObject(root, "tables", profile_tables(p));
	rc = emit(f, root, &gen);
	pd_agg_release(&a);
	pd_funcs_release(&fn);
	return rc;
}
