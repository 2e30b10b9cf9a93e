/*
 * Folded output. For a diff: "stack base cand" per distinct stack, as
 * difffolded.pl and inferno-diff-folded write it (readable by flamegraph.pl),
 * but sorted by stack so the output is stable. Frames are raw names joined
 * with ';' (a ';' inside a name becomes ':', as the collapsers do).
 */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/intern.h"
#include "core/sort.h"
#include "model/func.h"
#include "core/utf8.h"
#include "report/report.h"

struct stacks {
	struct pd_intern keys;
	PD_VEC(double) w[2];
};

static void add_stack(struct stacks *s, int side, const char *k, size_t n,
		      double w)
{
	uint32_t id = pd_intern(&s->keys, k, n);
	int j;

	/* a stack of no weight would be written as a line of 0 */
	assert((side == 0 || side == 1) && w > 0);

	for (j = 0; j < 2; j++)
		while (s->w[j].n <= id)
			PD_VEC_PUSH(&s->w[j], 0.0);
	s->w[side].v[id] += w;
}

/*
 * One frame's name: a ';' (the frame separator) becomes ':', as the
 * collapsers do; what a terminal would obey is written as text, \x1b
 * for a control byte and \u202e for a C1 control, a bidi or zero-width
 * character or a line separator (pd_buf_add_term_line), so a line of
 * the output is one stack and names read back as that text
 * (docs/reports.md, "Folded").
 */
static void put_name(struct pd_buf *b, const char *nm, size_t len,
		     struct pd_buf *tmp)
{
	size_t j;

	for (j = 0; j < len; j++)
		if ((unsigned char)nm[j] < 0x20 || (unsigned char)nm[j] >= 0x7f)
			break;
	if (j == len) { /* printable ASCII, most names */
		for (j = 0; j < len; j++)
			pd_buf_addch(b, nm[j] == ';' ? ':' : nm[j]);
		return;
	}
	pd_buf_reset(tmp);
	pd_buf_add_term(tmp, nm, len); /* leaves newlines and tabs */
	for (j = 0; j < tmp->len; j++)
		if (tmp->buf[j] == '\n' || tmp->buf[j] == '\t')
			pd_buf_addf(b, "\\x%02x", tmp->buf[j]);
		else
			pd_buf_addch(b, tmp->buf[j] == ';' ? ':' : tmp->buf[j]);
}

/* by_count: each stack's sample count instead of its weight */
static void collect(struct stacks *s, int side, const struct pd_profile *p,
		    int by_count)
{
	size_t nn = p->nodes.n, i;
	struct pd_buf path = PD_BUF_INIT, tmp = PD_BUF_INIT;
	uint32_t *chain = NULL;
	size_t nchain = 0, cap = 0;

	for (i = 1; i < nn; i++) {
		const struct pd_node *nd = &p->nodes.v[i];
		uint32_t k;

		if (!(nd->weight > 0) || (by_count && !(nd->count > 0)))
			continue;
		nchain = 0;
		for (k = (uint32_t)i; k != PD_ROOT; k = p->nodes.v[k].parent) {
			/* parents come first: the walk reaches the root */
			assert(p->nodes.v[k].parent < k);
			if (nchain == cap) {
				cap = cap ? cap * 2 : 64;
				chain = pd_xreallocarray(chain, cap,
							 sizeof(*chain));
			}
			chain[nchain++] = k;
		}
		pd_buf_reset(&path);
		while (nchain--) {
			const struct pd_frame *fr =
			    &p->frames.v[p->nodes.v[chain[nchain]].frame];
			const char *nm = pd_intern_str(&p->strs, fr->name);
			size_t len = pd_intern_len(&p->strs, fr->name);
			/* folded has no modules: "[lib+0x1f0]" keeps the
			 * offset of an unsymbolicated frame when read back */
			const char *mod =
			    fr->module ? pd_intern_str(&p->strs, fr->module)
				       : "";
			size_t mlen = fr->module
					  ? pd_intern_len(&p->strs, fr->module)
					  : 0;
			int wrap = fr->module && pd_frame_is_module_offset(
						     nm, len, mod, mlen);
			/* nor kernels: the collapsers' mark keeps it one */
			int kmark =
			    mlen && pd_frame_is_system(nm, len, mod, mlen);

			if (path.len)
				pd_buf_addch(&path, ';');
			if (wrap)
				pd_buf_addch(&path, '[');
			put_name(&path, nm, len, &tmp);
			if (wrap)
				pd_buf_addch(&path, ']');
			if (kmark)
				pd_buf_adds(&path, "_[k]");
		}
		add_stack(s, side, path.buf, path.len,
			  by_count ? nd->count : nd->weight);
	}
	free(chain);
	pd_buf_release(&path);
	pd_buf_release(&tmp);
}

static const struct stacks *sort_ctx;

static int cmp_key(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return strcmp(pd_intern_str(&sort_ctx->keys, x),
		      pd_intern_str(&sort_ctx->keys, y));
}

/*
 * Weights in plain decimal: folded readers (flamegraph.pl, inferno,
 * perfdiff) take no exponents, and 15 significant digits keep a round
 * trip exact to the double's precision.
 */
static void put_num(struct pd_buf *b, double v)
{
	int digits, dec;
	size_t end;

	if (fabs(v - floor(v)) < 1e-9 && fabs(v) < 9e15) {
		pd_buf_addf(b, "%.0f", v);
		return;
	}
	digits = fabs(v) >= 1 ? (int)floor(log10(fabs(v))) + 1 : 0;
	dec = 15 - digits;
	if (fabs(v) < 1 && fabs(v) > 0) /* leading zeros after the point */
		dec += (int)-floor(log10(fabs(v)));
	if (dec < 0)
		dec = 0;
	if (dec > 30)
		dec = 30;
	pd_buf_addf(b, "%.*f", dec, v);
	end = b->len;
	while (end > 0 && b->buf[end - 1] == '0')
		end--;
	if (end > 0 && b->buf[end - 1] == '.')
		end--;
	pd_buf_setlen(b, end);
}

static int write_stacks(FILE *f, struct stacks *s, int sides)
{
	uint32_t *ids;
	size_t n = s->keys.n, i, k = 0;
	struct pd_buf b = PD_BUF_INIT;
	int rc = 0;

	/* every stack has its weight on each side written */
	assert(s->w[0].n >= n && (sides == 1 || s->w[1].n >= n));
	ids = pd_xmalloc((n ? n : 1) * sizeof(*ids));
	for (i = 1; i < n; i++)
		ids[k++] = (uint32_t)i;
	sort_ctx = s;
	pd_sort(ids, k, sizeof(*ids), cmp_key);
	sort_ctx = NULL;
	for (i = 0; i < k && !rc; i++) {
		pd_buf_reset(&b);
		pd_buf_adds(&b, pd_intern_str(&s->keys, ids[i]));
		pd_buf_addch(&b, ' ');
		put_num(&b, s->w[0].v[ids[i]]);
		if (sides == 2) {
			pd_buf_addch(&b, ' ');
			put_num(&b, s->w[1].v[ids[i]]);
		}
		pd_buf_addch(&b, '\n');
		rc = pd_report_put(f, &b);
	}
	free(ids);
	pd_buf_release(&b);
	return rc;
}

/* Side a (and b, for a diff) by weight, or one profile by sample count. */
static int report(FILE *f, const struct pd_profile *a,
		  const struct pd_profile *b, int by_count)
{
	struct stacks s;
	int rc, j;

	memset(&s, 0, sizeof(s));
	pd_intern_init(&s.keys);
	collect(&s, 0, a, by_count);
	if (b)
		collect(&s, 1, b, by_count);
	for (j = 0; j < 2; j++)
		while (s.w[j].n < s.keys.n)
			PD_VEC_PUSH(&s.w[j], 0.0);
	rc = write_stacks(f, &s, b ? 2 : 1);
	pd_intern_release(&s.keys);
	PD_VEC_FREE(&s.w[0]);
	PD_VEC_FREE(&s.w[1]);
	return rc;
}

int pd_report_folded(FILE *f, const struct pd_profile *a,
		     const struct pd_profile *b)
{
	return report(f, a, b, 0);
}

int pd_folded_plan(const struct pd_profile *p, double *per, struct pd_err *err)
{
	double ratio = 0;
	int same = 1, fixed = 1;
	size_t i;

	*per = 1;
	for (i = 1; i < p->nodes.n && !p->exact; i++) {
		const struct pd_node *nd = &p->nodes.v[i];

		if (!(nd->weight > 0))
			continue;
		if (fabs(nd->weight - nd->count) > 1e-9 * nd->weight)
			same = 0;
		if (!(nd->count > 0)) {
			fixed = 0;
			continue;
		}
		if (!(ratio > 0))
			ratio = nd->weight / nd->count;
		else if (fabs(nd->weight / nd->count - ratio) > 1e-9 * ratio)
			fixed = 0;
	}
	if (same && !p->exact)
		return 0;
	if (fixed && ratio > 0 && !p->exact) {
		*per = ratio;
		return 1;
	}
	/* exact counts would read back as samples; else weights or counts */
	pd_err_set(err, PD_EUSAGE,
		   "%s: %s%s%s; write speedscope (convert -f speedscope), which"
		   " keeps %s",
		   p->source ? p->source : "-",
		   p->exact ? "exact " : "its weights (", pd_unit_name(p->unit),
		   p->exact ? " counts cannot be written as folded stacks:"
			      " read back, they would be judged as samples"
			      " with sampling noise"
			    : ") are not a fixed multiple of its sample counts,"
			      " and folded stacks hold one number a stack:"
			      " either one alone, read back, would be judged"
			      " differently",
		   p->exact ? "what they are"
			    : "both, or pass --counts for sample counts");
	return -1;
}

int pd_report_folded_counts(FILE *f, const struct pd_profile *p)
{
	return report(f, p, NULL, 1);
}

int pd_report_profile_text(FILE *f, const struct pd_profile *p, int top,
			   int notes)
{
	struct pd_funcs fn;
	struct pd_agg a;
	struct pd_buf b = PD_BUF_INIT;
	uint32_t *order;
	size_t i, j, n;
	int rc;

	pd_funcs_init(&fn, PD_FUNCS_SYSTEM); /* whole totals */
	pd_agg_init(&a);
	pd_agg_compute(&a, p, &fn);
	order = pd_xmalloc((fn.v.n ? fn.v.n : 1) * sizeof(*order));
	/* only functions some sample reached */
	for (i = 0, n = 0; i < fn.v.n; i++)
		if (a.total_w[i] > 0)
			order[n++] = (uint32_t)i;
	/* Selection of the top rows by self weight. */
	for (i = 0; i < n && (int)i < top; i++) {
		size_t best = i;

		for (j = i + 1; j < n; j++)
			if (a.self_w[order[j]] > a.self_w[order[best]])
				best = j;
		if (best != i) {
			uint32_t t = order[i];

			order[i] = order[best];
			order[best] = t;
		}
	}
	pd_buf_add_term_line(&b, p->source);
	pd_buf_addf(&b, ": %s, %.0f samples, total ", p->format,
		    p->total_count);
	pd_fmt_weight(&b, p->total_weight, p->unit);
	pd_buf_addf(&b, " %s\n%12s %7s %12s %7s  FUNCTION\n",
		    pd_unit_display(p->unit), "SELF", "%", "TOTAL", "%");
	for (i = 0; i < n && (int)i < top; i++) {
		uint32_t k = order[i];
		struct pd_buf w = PD_BUF_INIT, t = PD_BUF_INIT;
		const char *mod = pd_func_module(&fn, k);

		pd_fmt_weight(&w, a.self_w[k], p->unit);
		pd_fmt_weight(&t, a.total_w[k], p->unit);
		pd_buf_addf(&b, "%12s %6.2f%% %12s %6.2f%%  ", w.buf,
			    a.self_w[k] / p->total_weight * 100, t.buf,
			    a.total_w[k] / p->total_weight * 100);
		/* names from the profile: safe for a terminal */
		pd_buf_add_term_line(&b, pd_func_name(&fn, k));
		if (*mod) {
			pd_buf_adds(&b, " [");
			pd_buf_add_term_line(&b, mod);
			pd_buf_addch(&b, ']');
		}
		pd_buf_addch(&b, '\n');
		pd_buf_release(&w);
		pd_buf_release(&t);
	}
	for (i = 0; i < p->tables.n; i++) {
		const struct pd_mtable *t = p->tables.v[i];
		size_t r, k;

		/* row ids start at 1 (0 is the empty key, never a row) */
		pd_buf_adds(&b, "table \"");
		pd_buf_add_term_line(&b, t->name);
		pd_buf_addf(&b, "\": %zu rows in, %u keys\n", t->rows_in,
			    (unsigned)(t->rowkeys.n ? t->rowkeys.n - 1 : 0));
		for (r = 1; r < t->rowkeys.n && (int)r <= top; r++) {
			pd_buf_adds(&b, "  ");
			pd_mtable_key_text(
			    &b, pd_intern_str(&t->rowkeys, (uint32_t)r));
			pd_buf_adds(&b, ":");
			for (k = 0; k < t->measures.n; k++) {
				pd_buf_addch(&b, ' ');
				pd_buf_add_term_line(&b, t->measures.v[k]);
				pd_buf_addf(&b, "=%.6g",
					    t->values.v[r * t->measures.n + k]);
			}
			pd_buf_addch(&b, '\n');
		}
	}
	for (i = 0; notes && i < p->notes.n; i++) {
		pd_buf_adds(&b, "warning: ");
		pd_buf_add_term_line(&b, p->notes.v[i]);
		pd_buf_addch(&b, '\n');
	}
	rc = pd_report_put(f, &b);
	pd_buf_release(&b);
	free(order);
	pd_agg_release(&a);
	pd_funcs_release(&fn);
	return rc;
}
