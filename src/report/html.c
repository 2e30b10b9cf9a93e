/*
 * The HTML report: one self-contained file (reports/report.html with the
 * CSS and JS inlined, no network request) around the diff's data as JSON.
 * The JSON is written with '<', '>' and '&' escaped so no name can end the
 * script element; every text slot is HTML-escaped. The flame graph data is
 * the two profiles' stack trees merged by frame name; callers and callees
 * of the top regressions come from the same trees.
 */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cJSON.h>

#include "core/limits.h"
#include "core/blob.h"
#include "core/sort.h"
#include "core/utf8.h"
#include "report/report.h"
#include "report/tpl_int.h"

/* Warnings shown before the rest fold into a <details> (see "warnings"). */
#define HTML_WARNINGS_SHOWN 5

#define MAX_FLAME_NODES PD_LIMIT_FLAME_NODES

void pd_html_text(struct pd_buf *b, const char *s)
{
	struct pd_buf u = PD_BUF_INIT;
	const char *p;

	pd_utf8_sanitize(s, strlen(s), &u);
	for (p = u.buf; *p; p++) {
		switch (*p) {
		case '&':
			pd_buf_adds(b, "&amp;");
			break;
		case '<':
			pd_buf_adds(b, "&lt;");
			break;
		case '>':
			pd_buf_adds(b, "&gt;");
			break;
		case '"':
			pd_buf_adds(b, "&quot;");
			break;
		case '\'':
			pd_buf_adds(b, "&#39;");
			break;
		default:
			pd_buf_addch(b, (unsigned char)*p < 0x20 ? ' ' : *p);
		}
	}
	pd_buf_release(&u);
}

static cJSON *jnum(double v)
{
	return isnan(v) || isinf(v) ? cJSON_CreateNull()
				    : cJSON_CreateNumber(v);
}

/* Merged stack tree: node key (parent, name) -> merged id. */
struct mtree {
	struct pd_intern names;
	struct pd_intern keys; /* "parent\0name" */
	PD_VEC(uint32_t) parent;
	PD_VEC(uint32_t) name;
	PD_VEC(double) w[2];
	PD_VEC(int32_t) fpos; /* position in d->funcs, -1 */
};

static uint32_t mnode(struct mtree *t, uint32_t parent, const char *name,
		      size_t nlen, int32_t fpos)
{
	char key[16];
	struct pd_buf k = PD_BUF_INIT;
	uint32_t id, nm = pd_intern(&t->names, name, nlen);

	memcpy(key, &parent, 4);
	memcpy(key + 4, &nm, 4);
	pd_buf_add(&k, key, 8);
	id = pd_intern(&t->keys, k.buf, k.len);
	pd_buf_release(&k);
	/* key id 0 is "", so merged node ids are key ids (root = 0) */
	while (t->parent.n <= id) {
		PD_VEC_PUSH(&t->parent, 0);
		PD_VEC_PUSH(&t->name, 0);
		PD_VEC_PUSH(&t->w[0], 0.0);
		PD_VEC_PUSH(&t->w[1], 0.0);
		PD_VEC_PUSH(&t->fpos, -1);
	}
	t->parent.v[id] = parent;
	t->name.v[id] = nm;
	t->fpos.v[id] = fpos;
	return id;
}

static void merge(struct mtree *t, const struct pd_profile *p, int side,
		  struct pd_funcs *fn, const int32_t *pos_of_func)
{
	uint32_t *map = pd_xmalloc(p->nodes.n * sizeof(*map));
	size_t i;

	map[0] = 0;
	for (i = 1; i < p->nodes.n; i++) {
		const struct pd_node *nd = &p->nodes.v[i];
		const struct pd_frame *fr = &p->frames.v[nd->frame];
		const char *nm;
		size_t nl;
		uint32_t f;

		/* a parent comes before its children: its map[] is set */
		assert(nd->parent < i && nd->frame < p->frames.n);
		nm = pd_intern_str(&p->strs, fr->name);
		nl = pd_intern_len(&p->strs, fr->name);
		f = pd_funcs_get(fn, nm, nl,
				 pd_intern_str(&p->strs, fr->module),
				 pd_intern_len(&p->strs, fr->module));

		map[i] = mnode(t, map[nd->parent], nm, nl,
			       f < fn->v.n ? pos_of_func[f] : -1);
		t->w[side].v[map[i]] += nd->weight;
	}
	free(map);
}

struct edge {
	int32_t a, b;
	double w[2];
};

static int cmp_edge_delta(const void *x, const void *y)
{
	const struct edge *e = x, *f = y;
	double d = fabs(e->w[1] - e->w[0]), g = fabs(f->w[1] - f->w[0]);

	return (d < g) - (d > g);
}

/* The edges touching the top regressions, summed over both profiles. */
static cJSON *where(const struct pd_diff *d, const struct pd_profile *pa,
		    const struct pd_profile *pb, struct pd_funcs *fn,
		    const int32_t *pos)
{
	cJSON *arr = cJSON_CreateArray();
	int32_t top[5];
	size_t ntop = 0, i, s;
	PD_VEC(struct edge) e = PD_VEC_INIT;

	for (i = 0; i < d->funcs.n && ntop < 5; i++)
		if (d->funcs.v[i].self.status == PD_REGRESSED &&
		    !d->funcs.v[i].system)
			top[ntop++] = (int32_t)i;
	if (!ntop || !pa || !pb)
		return arr;
	for (s = 0; s < 2; s++) {
		const struct pd_profile *p = s ? pb : pa;
		size_t nn = p->nodes.n, k;
		double *sub = pd_xmalloc(nn * sizeof(*sub));
		int32_t *fp = pd_xmalloc(nn * sizeof(*fp));

		for (k = 0; k < nn; k++)
			sub[k] = p->nodes.v[k].weight;
		for (k = nn; k-- > 1;)
			sub[p->nodes.v[k].parent] += sub[k];
		fp[0] = -1;
		for (k = 1; k < nn; k++) {
			const struct pd_frame *fr =
			    &p->frames.v[p->nodes.v[k].frame];
			uint32_t f =
			    pd_funcs_get(fn, pd_intern_str(&p->strs, fr->name),
					 pd_intern_len(&p->strs, fr->name),
					 pd_intern_str(&p->strs, fr->module),
					 pd_intern_len(&p->strs, fr->module));

			fp[k] = f < fn->v.n ? pos[f] : -1;
		}
		for (k = 1; k < nn; k++) {
			int32_t a = fp[p->nodes.v[k].parent], b = fp[k];
			size_t t, j;
			int touch = 0;

			if (a < 0 || b < 0 || a == b)
				continue;
			for (t = 0; t < ntop; t++)
				touch |= a == top[t] || b == top[t];
			if (!touch)
				continue;
			for (j = 0; j < e.n; j++)
				if (e.v[j].a == a && e.v[j].b == b)
					break;
			if (j == e.n) {
				struct edge x = { a, b, { 0, 0 } };

				PD_VEC_PUSH(&e, x);
			}
			e.v[j].w[s] += sub[k];
		}
		free(sub);
		free(fp);
	}
	if (e.n > 1)
		pd_sort(e.v, e.n, sizeof(*e.v), cmp_edge_delta);
	for (i = 0; i < ntop; i++) {
		cJSON *o = cJSON_CreateObject(), *cr = cJSON_CreateArray();
		cJSON *ce = cJSON_CreateArray();
		size_t j, nc = 0, nce = 0;

		cJSON_AddNumberToObject(o, "f", top[i]);
		for (j = 0; j < e.n; j++) {
			cJSON *row;

			if (e.v[j].b == top[i] && nc < 8) {
				row = cJSON_CreateArray();
				cJSON_AddItemToArray(
				    row, cJSON_CreateNumber(e.v[j].a));
				cJSON_AddItemToArray(row, jnum(e.v[j].w[0]));
				cJSON_AddItemToArray(row, jnum(e.v[j].w[1]));
				cJSON_AddItemToArray(cr, row);
				nc++;
			} else if (e.v[j].a == top[i] && nce < 8) {
				row = cJSON_CreateArray();
				cJSON_AddItemToArray(
				    row, cJSON_CreateNumber(e.v[j].b));
				cJSON_AddItemToArray(row, jnum(e.v[j].w[0]));
				cJSON_AddItemToArray(row, jnum(e.v[j].w[1]));
				cJSON_AddItemToArray(ce, row);
				nce++;
			}
		}
		cJSON_AddItemToObject(o, "callers", cr);
		cJSON_AddItemToObject(o, "callees", ce);
		cJSON_AddItemToArray(arr, o);
	}
	PD_VEC_FREE(&e);
	return arr;
}

static char *data_json(const struct pd_diff *d, const struct pd_profile *pa,
		       const struct pd_profile *pb, struct pd_funcs *fn)
{
	cJSON *root = cJSON_CreateObject(), *arr = cJSON_CreateArray();
	int32_t *pos = pd_xmalloc((fn->v.n + 1) * sizeof(*pos));
	struct pd_buf out = PD_BUF_INIT;
	char *text, *p;
	size_t i;

	cJSON_AddItemToObject(root, "unit",
			      pd_json_text(pd_unit_name(d->base.unit)));
	for (i = 0; i < fn->v.n; i++)
		pos[i] = -1;
	for (i = 0; i < d->funcs.n; i++) {
		const struct pd_fdiff *f = &d->funcs.v[i];
		const struct pd_metric *s = &f->self, *t = &f->total;
		cJSON *r = cJSON_CreateArray();

		pos[f->func] = (int32_t)i;
		cJSON_AddItemToArray(
		    r, pd_json_text(pd_func_name(d->fn, f->func)));
		cJSON_AddItemToArray(
		    r, pd_json_text(pd_func_module(d->fn, f->func)));
		cJSON_AddItemToArray(r,
				     pd_json_text(pd_status_name(s->status)));
		cJSON_AddItemToArray(r, jnum(s->base));
		cJSON_AddItemToArray(r, jnum(s->cand));
		cJSON_AddItemToArray(r, jnum(s->delta));
		cJSON_AddItemToArray(r, jnum(s->delta_pct));
		cJSON_AddItemToArray(r, jnum(s->ratio));
		cJSON_AddItemToArray(r, jnum(s->ci_low));
		cJSON_AddItemToArray(r, jnum(s->ci_high));
		cJSON_AddItemToArray(r, jnum(s->q));
		cJSON_AddItemToArray(r, jnum(s->mde_pct));
		cJSON_AddItemToArray(
		    r, pd_json_text(d->self_only ? "same"
						 : pd_status_name(t->status)));
		cJSON_AddItemToArray(r, jnum(t->base));
		cJSON_AddItemToArray(r, jnum(t->cand));
		cJSON_AddItemToArray(r, jnum(t->delta_pct));
		cJSON_AddItemToArray(
		    r, cJSON_CreateBool(s->unstable || t->unstable));
		cJSON_AddItemToArray(arr, r);
	}
	cJSON_AddItemToObject(root, "functions", arr);
	if (pa && pb) {
		struct mtree t;
		cJSON *fl = cJSON_CreateObject(), *names = cJSON_CreateArray();
		cJSON *nodes = cJSON_CreateArray();

		memset(&t, 0, sizeof(t));
		pd_intern_init(&t.names);
		pd_intern_init(&t.keys);
		mnode(&t, 0, "", 0, -1); /* makes sure id 0 exists */
		merge(&t, pa, 0, fn, pos);
		merge(&t, pb, 1, fn, pos);
		for (i = 0; i < t.names.n; i++)
			cJSON_AddItemToArray(
			    names,
			    pd_json_text(pd_intern_str(&t.names, (uint32_t)i)));
		for (i = 1; i < t.parent.n && i <= MAX_FLAME_NODES; i++) {
			cJSON *n = cJSON_CreateArray();

			cJSON_AddItemToArray(n,
					     cJSON_CreateNumber(t.parent.v[i]));
			cJSON_AddItemToArray(n,
					     cJSON_CreateNumber(t.name.v[i]));
			cJSON_AddItemToArray(n, jnum(t.w[0].v[i]));
			cJSON_AddItemToArray(n, jnum(t.w[1].v[i]));
			cJSON_AddItemToArray(n,
					     cJSON_CreateNumber(t.fpos.v[i]));
			cJSON_AddItemToArray(nodes, n);
		}
		cJSON_AddItemToObject(fl, "names", names);
		cJSON_AddItemToObject(fl, "nodes", nodes);
		cJSON_AddItemToObject(root, "flame", fl);
		pd_intern_release(&t.names);
		pd_intern_release(&t.keys);
		PD_VEC_FREE(&t.parent);
		PD_VEC_FREE(&t.name);
		PD_VEC_FREE(&t.w[0]);
		PD_VEC_FREE(&t.w[1]);
		PD_VEC_FREE(&t.fpos);
	}
	cJSON_AddItemToObject(root, "where", where(d, pa, pb, fn, pos));
	text = cJSON_PrintUnformatted(root);
	cJSON_Delete(root);
	free(pos);
	if (!text)
		pd_die_oom(0);
	/* Safe inside <script>: no "</script>", no "<!--". */
	for (p = text; *p; p++) {
		if (*p == '<')
			pd_buf_adds(&out, "\\u003c");
		else if (*p == '>')
			pd_buf_adds(&out, "\\u003e");
		else if (*p == '&')
			pd_buf_adds(&out, "\\u0026");
		else
			pd_buf_addch(&out, *p);
	}
	free(text);
	return pd_buf_detach(&out);
}

static void side_rows(struct pd_buf *b, const char *label,
		      const struct pd_side *s)
{
	struct pd_buf w = PD_BUF_INIT;

	pd_buf_addf(b, "<tr><td>%s</td><td>", label);
	pd_html_text(b, s->source);
	if (s->provenance) {
		pd_buf_adds(b, "<br>");
		pd_html_text(b, s->provenance);
		pd_buf_adds(b, "<br>");
	}
	pd_buf_addf(b, " (%s", s->format ? s->format : "?");
	if (s->event) {
		pd_buf_adds(b, ", ");
		pd_html_text(b, s->event);
	}
	pd_fmt_weight(&w, s->total, s->unit);
	pd_buf_addf(b, ", %d run%s, %.0f samples, total %s %s)", s->runs,
		    s->runs == 1 ? "" : "s", s->samples, w.buf,
		    pd_unit_display(s->unit));
	pd_buf_reset(&w);
	pd_fmt_threads(&w, s);
	if (w.len) {
		pd_buf_adds(b, "<br>");
		pd_html_text(b, w.buf);
	}
	pd_buf_adds(b, "</td></tr>\n");
	pd_buf_release(&w);
}

/* What the slots of reports/report.html are filled from. */
struct html_slots {
	const struct pd_diff *d;
	const char *css, *js, *data;
};

static int html_slot(struct pd_buf *b, const char *name, size_t k, void *arg)
{
	const struct html_slots *h = arg;
	const struct pd_diff *d = h->d;
	struct pd_buf x = PD_BUF_INIT;
	size_t i;

	if (pd_tpl_is(name, k, "title")) {
		pd_buf_adds(b, "perfdiff: ");
		pd_html_text(b, pd_status_name(d->verdict));
	} else if (pd_tpl_is(name, k, "verdict")) {
		pd_buf_adds(b, pd_status_name(d->verdict));
	} else if (pd_tpl_is(name, k, "headline")) {
		pd_fmt_headline(&x, d, pd_fmt_func);
		pd_html_text(b, x.buf);
	} else if (pd_tpl_is(name, k, "summary")) {
		side_rows(b, "Baseline", &d->base);
		side_rows(b, "Candidate", &d->cand);
		pd_buf_addf(b,
			    "<tr><td>Settings</td><td>threshold %g %%, min"
			    " impact %g %%, alpha %g, %s; ",
			    d->set.threshold_pct, d->set.min_impact_pct,
			    d->set.alpha,
			    d->set.share ? "shares of total" : "absolute");
		pd_fmt_method(&x, d);
		pd_html_text(b, x.buf);
		pd_buf_adds(b, "</td></tr>\n");
	} else if (pd_tpl_is(name, k, "warnings")) {
		/*
		 * A bundle of several series can bring tens of warnings (one
		 * per library without symbols, per run): the first few show,
		 * the rest fold away so that the flame graph stays in view.
		 */
		for (i = 0; i < d->warnings.n; i++) {
			if (i == HTML_WARNINGS_SHOWN &&
			    d->warnings.n > HTML_WARNINGS_SHOWN + 1)
				pd_buf_addf(b,
					    "<li class=\"more\"><details>"
					    "<summary>%zu more warnings"
					    "</summary><ul>\n",
					    d->warnings.n - i);
			pd_buf_adds(b, "<li>");
			pd_html_text(b, d->warnings.v[i]);
			pd_buf_adds(b, "</li>\n");
		}
		if (d->warnings.n > HTML_WARNINGS_SHOWN + 1)
			pd_buf_adds(b, "</ul></details></li>\n");
	} else if (pd_tpl_is(name, k, "footer")) {
		pd_buf_addf(b, "perfdiff %s", PD_VERSION);
	} else if (pd_tpl_is(name, k, "style")) {
		pd_buf_adds(b, h->css);
	} else if (pd_tpl_is(name, k, "script")) {
		pd_buf_adds(b, h->js);
	} else if (pd_tpl_is(name, k, "data")) {
		pd_buf_adds(b, h->data);
	} else {
		return 0;
	}
	pd_buf_release(&x);
	return 1;
}

int pd_report_html(FILE *f, const struct pd_diff *d,
		   const struct pd_report_opts *o, const struct pd_profile *pa,
		   const struct pd_profile *pb, struct pd_funcs *fn)
{
	const struct pd_blob *tpl = pd_blob_get("reports/report.html");
	const struct pd_blob *css = pd_blob_get("reports/report.css");
	const struct pd_blob *js = pd_blob_get("reports/report.js");
	struct pd_buf b = PD_BUF_INIT;
	struct html_slots h;
	char *data;
	int rc;

	(void)o;
	if (!tpl || !css || !js)
		return PD_EIO;
	data = data_json(d, pa, pb, fn);
	h.d = d;
	h.css = css->data;
	h.js = js->data;
	h.data = data;
	pd_tpl_fill(&b, tpl->data, html_slot, &h);
	rc = pd_report_put(f, &b);
	pd_buf_release(&b);
	free(data);
	return rc;
}
