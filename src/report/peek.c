/*
 * `perfdiff peek REGEX BASELINE CANDIDATE` (docs/cli.md, "peek"): for each
 * function the pattern matches, where its time comes from (callers: its
 * total under each caller) and where it goes (its own time and each
 * callee's total under it), on both sides, with the change. The rows are
 * descriptive; the verdicts printed are the function's own, from the
 * diff (a caller's or callee's edge is not tested, so it sets nothing).
 */
#include <math.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "core/buf.h"
#include "core/match.h"
#include "core/sort.h"
#include "core/utf8.h"
#include "core/xalloc.h"
#include "report/report.h"

#define ROOT_ROW UINT32_MAX	  /* a caller: the stack starts here */
#define SELF_ROW (UINT32_MAX - 1) /* a callee: the function's own time */

struct prow {
	uint32_t func;
	double w[2], c[2]; /* weight and samples, baseline and candidate */
};

struct prows {
	struct prow *v;
	size_t n, cap;
	int32_t *at; /* func -> row, -1 */
};

static struct prow *row_for(struct prows *r, uint32_t func, size_t nfun)
{
	size_t k = func == ROOT_ROW ? nfun : func == SELF_ROW ? nfun + 1 : func;

	if (r->at[k] < 0) {
		struct prow x;

		memset(&x, 0, sizeof(x));
		x.func = func;
		r->at[k] = (int32_t)r->n;
		PD_VEC_PUSH(r, x);
	}
	return &r->v[r->at[k]];
}

/* Adds one profile's edges around func to callers and callees. */
static void add_profile(const struct pd_profile *p, struct pd_funcs *fn,
			uint32_t func, int side, double scale, struct prows *in,
			struct prows *out)
{
	size_t nn = p->nodes.n, i, nfun;
	double *sw = pd_xmalloc((nn + 1) * sizeof(*sw));
	double *sc = pd_xmalloc((nn + 1) * sizeof(*sc));
	struct pd_agg a;

	pd_agg_init(&a);
	pd_agg_compute(&a, p, fn); /* frame -> function */
	nfun = fn->v.n;
	for (i = 0; i < nn; i++) {
		sw[i] = p->nodes.v[i].weight;
		sc[i] = p->nodes.v[i].count;
	}
	for (i = nn; i-- > 1;) {
		sw[p->nodes.v[i].parent] += sw[i];
		sc[p->nodes.v[i].parent] += sc[i];
	}
	for (i = 1; i < nn; i++) {
		const struct pd_node *nd = &p->nodes.v[i];
		uint32_t f = a.frame_func[nd->frame], pf;
		struct prow *r;

		pf = nd->parent == PD_ROOT
			 ? ROOT_ROW
			 : a.frame_func[p->nodes.v[nd->parent].frame];
		if (f == func && pf != func) { /* the outermost call */
			r = row_for(in, pf, nfun);
			r->w[side] += sw[i] * scale;
			r->c[side] += sc[i];
		} else if (pf == func && f != func) {
			r = row_for(out, f, nfun);
			r->w[side] += sw[i] * scale;
			r->c[side] += sc[i];
		}
		if (f == func) {
			r = row_for(out, SELF_ROW, nfun);
			r->w[side] += nd->weight * scale;
			r->c[side] += nd->count;
		}
	}
	pd_agg_release(&a);
	free(sw);
	free(sc);
}

static int by_change(const void *x, const void *y)
{
	const struct prow *a = x, *b = y;
	double da = fabs(a->w[1] - a->w[0]), db = fabs(b->w[1] - b->w[0]);

	if (da < db)
		return 1;
	if (da > db)
		return -1;
	return (a->func > b->func) - (a->func < b->func);
}

static void row_name(struct pd_buf *b, const struct pd_diff *d, uint32_t f)
{
	if (f == ROOT_ROW)
		pd_buf_adds(b, "(the stack's start)");
	else if (f == SELF_ROW)
		pd_buf_adds(b, "(its own time)");
	else
		pd_fmt_func(b, d, f);
}

static double pct(const struct prow *r)
{
	return r->w[0] > 0 ? (r->w[1] / r->w[0] - 1) * 100 : PD_NAN;
}

static void text_rows(struct pd_buf *b, const struct pd_diff *d,
		      const char *title, const struct prows *r)
{
	size_t i;

	pd_buf_addf(b, "  %s\n", title);
	for (i = 0; i < r->n; i++) {
		const struct prow *x = &r->v[i];
		struct pd_buf cellb = PD_BUF_INIT, name = PD_BUF_INIT;

		pd_fmt_weight(&cellb, x->w[0], d->base.unit);
		pd_buf_addf(b, "    %14s", cellb.buf);
		pd_buf_reset(&cellb);
		pd_fmt_weight(&cellb, x->w[1], d->base.unit);
		pd_buf_addf(b, " %14s", cellb.buf);
		pd_buf_reset(&cellb);
		pd_fmt_pct(&cellb, pct(x));
		pd_buf_addf(b, " %10s  ", cellb.buf);
		row_name(&name, d, x->func);
		pd_buf_add_term_line(b, name.buf);
		pd_buf_addch(b, '\n');
		pd_buf_release(&cellb);
		pd_buf_release(&name);
	}
}

static void text_func(struct pd_buf *b, const struct pd_diff *d,
		      const struct pd_fdiff *fd, const struct prows *in,
		      const struct prows *out)
{
	struct pd_buf name = PD_BUF_INIT, s = PD_BUF_INIT, t = PD_BUF_INIT;

	pd_fmt_func(&name, d, fd->func);
	pd_fmt_pct(&s, fd->self.delta_pct);
	pd_fmt_pct(&t, fd->total.delta_pct);
	pd_buf_adds(b, "peek ");
	pd_buf_add_term_line(b, name.buf);
	pd_buf_addf(b, ": self %s %s, total %s %s\n", s.buf,
		    pd_status_name(fd->self.status), t.buf,
		    pd_status_name(fd->total.status));
	pd_buf_addf(b, "    %14s %14s %10s  %s\n", "baseline", "candidate",
		    "change", "(weights in the profiles' unit)");
	text_rows(b, d, "callers: its total under each", in);
	text_rows(b, d, "callees: its own time, and each callee's total", out);
	pd_buf_release(&name);
	pd_buf_release(&s);
	pd_buf_release(&t);
}

static cJSON *json_rows(const struct pd_diff *d, const struct prows *r)
{
	cJSON *arr = cJSON_CreateArray();
	size_t i;

	for (i = 0; i < r->n; i++) {
		const struct prow *x = &r->v[i];
		cJSON *o = cJSON_CreateObject();

		if (x->func == ROOT_ROW || x->func == SELF_ROW) {
			cJSON_AddItemToObject(o, "function",
					      cJSON_CreateNull());
			cJSON_AddItemToObject(o, "kind",
					      pd_json_text(x->func == ROOT_ROW
							       ? "start"
							       : "self"));
		} else {
			cJSON_AddItemToObject(
			    o, "function",
			    pd_json_text(pd_func_name(d->fn, x->func)));
			cJSON_AddItemToObject(
			    o, "module",
			    pd_json_text(pd_func_module(d->fn, x->func)));
		}
		cJSON_AddNumberToObject(o, "baseline", x->w[0]);
		cJSON_AddNumberToObject(o, "candidate", x->w[1]);
		cJSON_AddNumberToObject(o, "baseline_samples", x->c[0]);
		cJSON_AddNumberToObject(o, "candidate_samples", x->c[1]);
		if (isnan(pct(x)))
			cJSON_AddItemToObject(o, "change_pct",
					      cJSON_CreateNull());
		else
			cJSON_AddNumberToObject(o, "change_pct", pct(x));
		cJSON_AddItemToArray(arr, o);
	}
	return arr;
}

static cJSON *json_func(const struct pd_diff *d, const struct pd_fdiff *fd,
			const struct prows *in, const struct prows *out)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddItemToObject(o, "function",
			      pd_json_text(pd_func_name(d->fn, fd->func)));
	cJSON_AddItemToObject(o, "module",
			      pd_json_text(pd_func_module(d->fn, fd->func)));
	cJSON_AddItemToObject(o, "self",
			      pd_json_text(pd_status_name(fd->self.status)));
	cJSON_AddItemToObject(o, "total",
			      pd_json_text(pd_status_name(fd->total.status)));
	cJSON_AddNumberToObject(o, "self_change_pct", fd->self.delta_pct);
	cJSON_AddNumberToObject(o, "total_change_pct", fd->total.delta_pct);
	cJSON_AddItemToObject(o, "callers", json_rows(d, in));
	cJSON_AddItemToObject(o, "callees", json_rows(d, out));
	return o;
}

/* The callers and callees of one function, both sides (runs averaged). */
static void peek_one(const struct pd_peek_in *pk, uint32_t func,
		     struct prows *in, struct prows *out)
{
	size_t nfun = pk->fn->v.n, k, i;

	in->at = pd_xmalloc((nfun + 2) * sizeof(*in->at));
	out->at = pd_xmalloc((nfun + 2) * sizeof(*out->at));
	for (i = 0; i < nfun + 2; i++)
		in->at[i] = out->at[i] = -1;
	for (k = 0; k < 2; k++) {
		size_t n = k ? pk->nb : pk->na;

		for (i = 0; i < n; i++)
			add_profile(k ? pk->pb[i] : pk->pa[i], pk->fn, func,
				    (int)k, 1.0 / (double)n, in, out);
	}
	pd_sort(in->v, in->n, sizeof(*in->v), by_change);
	pd_sort(out->v, out->n, sizeof(*out->v), by_change);
}

int pd_report_peek(FILE *f, const struct pd_diff *d,
		   const struct pd_peek_in *pk, int json)
{
	struct pd_buf b = PD_BUF_INIT, name = PD_BUF_INIT;
	cJSON *root = json ? cJSON_CreateArray() : NULL;
	size_t i;
	int matched = 0, rc = 0;

	for (i = 0; i < d->funcs.n; i++) {
		const struct pd_fdiff *fd = &d->funcs.v[i];
		struct prows in = { NULL, 0, 0, NULL }, out = in;

		if (!pd_match_func(pk->re, pd_func_name(d->fn, fd->func),
				   pd_func_module(d->fn, fd->func), &name))
			continue;
		matched++;
		peek_one(pk, fd->func, &in, &out);
		if (json)
			cJSON_AddItemToArray(root, json_func(d, fd, &in, &out));
		else
			text_func(&b, d, fd, &in, &out);
		free(in.at);
		free(out.at);
		PD_VEC_FREE(&in);
		PD_VEC_FREE(&out);
	}
	if (json) {
		cJSON *doc = cJSON_CreateObject();

		cJSON_AddItemToObject(doc, "perfdiff",
				      pd_json_text(PD_VERSION));
		cJSON_AddItemToObject(doc, "peek", root);
		rc = pd_json_write(f, doc);
		cJSON_Delete(doc);
	} else {
		fwrite(b.buf ? b.buf : "", 1, b.len, f);
		rc = ferror(f) ? PD_EIO : 0;
	}
	pd_buf_release(&b);
	pd_buf_release(&name);
	return rc < 0 ? rc : matched;
}
