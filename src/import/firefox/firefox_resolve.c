/*
 * Firefox Profiler tables to a profile (docs/formats.md, "samply and the
 * Firefox Profiler"): per-thread sample sums by stack, stacks to tree nodes,
 * frames to functions, and address-only frames symbolicated offline in one
 * batch per library.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/xalloc.h"
#include "import/firefox/firefox_int.h"
#include "import/symbols/symfind.h"
#include "import/symbols/symbols.h"

/* Tables and strings a thread uses: its own, or the shared ones. */
struct view {
	const struct ff_table *t[T_NTABLES];
	const uint32_t *str;
	size_t nstr;
	const struct ff_lib *libs;
	size_t nlibs;
	int gecko;
	const struct ff_ctx *ctx;
};

static void view_of(struct ff_state *s, struct ff_thread *th, struct view *v)
{
	int i;

	for (i = 0; i < T_NTABLES; i++)
		v->t[i] =
		    th->t[i].have || i == T_SAMPLES ? &th->t[i] : &s->shared[i];
	if (th->has_strings) {
		v->str = th->strings.v;
		v->nstr = th->strings.n;
	} else {
		v->str = s->shared_strings.v;
		v->nstr = s->shared_strings.n;
	}
	v->ctx = &s->ctxs.v[th->ctx];
	if (th->libs.n) {
		v->libs = th->libs.v;
		v->nlibs = th->libs.n;
	} else {
		v->libs = v->ctx->libs.v;
		v->nlibs = v->ctx->libs.n;
	}
	v->gecko = !(v->ctx->processed_version > 0) &&
		   ff_get_col(v->t[T_FRAME], "location");
}

static const char *vstr(const struct view *v, struct pd_profile *p, double i)
{
	if (isnan(i) || i < 0 || i >= (double)v->nstr)
		return NULL;
	return pd_intern_str(&p->strs, v->str[(size_t)i]);
}

static int is_hex_name(const char *n)
{
	size_t i;

	if (!n || n[0] != '0' || (n[1] != 'x' && n[1] != 'X') || !n[2])
		return 0;
	for (i = 2; n[i]; i++)
		if (!isxdigit((unsigned char)n[i]))
			return 0;
	return 1;
}

static const char *lib_label(const struct ff_lib *l)
{
	return l->name ? l->name : l->debug_name ? l->debug_name : "?";
}

/* Pending symbol look-ups: one per unsymbolicated frame (lib, address). */
struct pend {
	const struct ff_lib *lib;
	uint64_t addr;
	uint32_t frame;
	const struct ff_lib *orig; /* lib survives "handled" marking */
	int resolved;
};

struct pendings {
	PD_VEC(struct pend) v;
	PD_VEC(int32_t) of_frame; /* pd frame -> index in v, -1 */
};

/*
 * A Gecko (raw) profile's frame: its "location" string, an absolute
 * address (named lib+0xRVA after the library holding it) or a JS
 * "fn (url:line:col)" (the URL as the module). *bad set when it has none.
 */
static uint32_t gecko_frame(const struct view *v, struct pd_profile *p,
			    const struct ff_table *ft, size_t f, int *bad)
{
	const char *loc = vstr(v, p, ff_cv(ff_get_col(ft, "location"), f));
	const char *paren;
	size_t i, len;

	if (!loc) {
		*bad = 1;
		return 0;
	}
	if (is_hex_name(loc)) {
		uint64_t a = strtoull(loc, NULL, 16);

		for (i = 0; i < v->nlibs; i++) {
			const struct ff_lib *l = &v->libs[i];
			struct pd_buf b = PD_BUF_INIT;
			uint32_t id;

			/* a range in memory, an offset in the file */
			if (!(l->end > l->start && (double)a >= l->start &&
			      (double)a < l->end && l->start >= 0 &&
			      l->offset >= 0 && l->offset < 0x1p64))
				continue;
			pd_buf_addf(&b, "%s+0x%llx", lib_label(l),
				    (unsigned long long)(a -
							 (uint64_t)l->start +
							 (uint64_t)l->offset));
			id = pd_profile_frame(
			    p, pd_intern(&p->strs, b.buf, b.len),
			    pd_intern_cstr(&p->strs, lib_label(l)));
			pd_buf_release(&b);
			return id;
		}
		return pd_profile_frame(p, pd_intern_cstr(&p->strs, loc), 0);
	}
	paren = strrchr(loc, '(');
	len = strlen(loc);
	if (paren && paren > loc && paren[-1] == ' ' && loc[len - 1] == ')') {
		const char *colon = paren + 1, *c;

		for (c = loc + len - 2;
		     c > paren && (isdigit((unsigned char)*c) || *c == ':');
		     c--)
			;
		return pd_profile_frame(
		    p, pd_intern(&p->strs, loc, (size_t)(paren - 1 - loc)),
		    pd_intern(&p->strs, colon, (size_t)(c - colon + 1)));
	}
	return pd_profile_frame(p, pd_intern_cstr(&p->strs, loc), 0);
}

/*
 * An unsymbolicated frame at addr of library l: named lib+0xRVA until a
 * symbol is found, and queued for symbolication (pend).
 */
static uint32_t address_frame(struct pd_profile *p, const struct ff_lib *l,
			      const char *module, double addr,
			      struct pendings *pend)
{
	struct pd_buf b = PD_BUF_INIT;
	uint32_t name_id, id;

	pd_buf_addf(&b, "%s+0x%llx", lib_label(l), (unsigned long long)addr);
	name_id = pd_intern(&p->strs, b.buf, b.len);
	/*
	 * Without a symbol the library's debug id is part of the identity:
	 * the same offset in another build is other code.
	 */
	pd_buf_reset(&b);
	if (l->breakpad_id && *l->breakpad_id)
		pd_buf_addf(&b, "%s@%s", module, l->breakpad_id);
	else
		pd_buf_adds(&b, module);
	id = pd_profile_frame(p, name_id, pd_intern(&p->strs, b.buf, b.len));
	pd_buf_release(&b);
	while (pend->of_frame.n <= id)
		PD_VEC_PUSH(&pend->of_frame, -1);
	if (pend->of_frame.v[id] < 0) {
		struct pend x = { l, (uint64_t)addr, id, l, 0 };

		pend->of_frame.v[id] = (int32_t)pend->v.n;
		PD_VEC_PUSH(&pend->v, x);
	}
	return id;
}

static uint32_t frame_of(struct ff_state *s, const struct view *v, size_t f,
			 struct pendings *pend, int *bad)
{
	struct pd_profile *p = s->p;
	const struct ff_table *ft = v->t[T_FRAME], *fn = v->t[T_FUNC];
	const struct ff_table *rt = v->t[T_RESOURCE], *ns = v->t[T_NATSYM];
	double func, res, lib = PD_NAN, nsym, addr;
	const char *name = NULL, *module = "";

	if (v->gecko)
		return gecko_frame(v, p, ft, f, bad);
	func = ff_cv(ff_get_col(ft, "func"), f);
	if (isnan(func) || func < 0 ||
	    func >= (double)ff_col_len(ff_get_col(fn, "name"))) {
		*bad = 1;
		return 0;
	}
	name = vstr(v, p, ff_cv(ff_get_col(fn, "name"), (size_t)func));
	if (!name) {
		*bad = 2;
		return 0;
	}
	res = ff_cv(ff_get_col(fn, "resource"), (size_t)func);
	if (ff_get_col(ft, "lib"))
		lib = ff_cv(ff_get_col(ft, "lib"), f);
	else if (ff_is_index(res))
		lib = ff_cv(ff_get_col(rt, "lib"), (size_t)res);
	if (!isnan(lib) && (lib < 0 || lib >= (double)v->nlibs)) {
		*bad = 3;
		return 0;
	}
	if (!isnan(lib))
		module = lib_label(&v->libs[(size_t)lib]);
	else if (ff_is_index(res)) {
		const char *rn =
		    vstr(v, p, ff_cv(ff_get_col(rt, "name"), (size_t)res));

		module = rn ? rn : "";
	}
	nsym = ff_cv(ff_get_col(ft, "nativeSymbol"), f);
	if (ff_is_index(nsym)) {
		const char *sn =
		    vstr(v, p, ff_cv(ff_get_col(ns, "name"), (size_t)nsym));

		if (sn && !is_hex_name(sn))
			name = sn;
	}
	addr = ff_cv(ff_get_col(ft, "address"), f);
	/* an address is below 2^64; a larger one is no address */
	if (!isnan(addr) && addr >= 0x1p64) {
		*bad = 4;
		return 0;
	}
	if (is_hex_name(name) && !isnan(lib) && !isnan(addr) && addr >= 0)
		return address_frame(p, &v->libs[(size_t)lib], module, addr,
				     pend);
	return pd_profile_frame(p, pd_intern_cstr(&p->strs, name),
				pd_intern_cstr(&p->strs, module));
}

/* Sums of one thread's samples per stack index. */
struct sums {
	double *wall, *cpu, *n;
	double *gap; /* time since the sample before, in ns; NULL: no times */
	size_t len;
};

static double unit_ns(const char *u)
{
	if (!strcmp(u, "ns"))
		return 1;
	if (!strcmp(u, "ms"))
		return 1e6;
	return 1e3; /* "µs", samply's unit */
}

/* A thread's per-stack sums (pd_ff_thread_fold first). */
static void thread_sums(struct ff_thread *th, const struct view *v,
			struct sums *out, int *has_cpu)
{
	struct ff_table *t = &th->t[T_SAMPLES];
	const struct ff_col *stack = ff_get_col(t, "stack");
	const struct ff_col *cpu = ff_get_col(t, "threadCPUDelta");
	size_t n = ff_col_len(stack), i;
	size_t nst = ff_col_len(ff_get_col(v->t[T_STACK], "frame"));
	double interval_ns = v->ctx->interval * 1e6;
	double cpu_scale = unit_ns(v->ctx->cpu_unit);
	double wall_unit =
	    !strcmp(t->weight_type, "tracing-ms") ? 1e6 : interval_ns;

	out->len = nst;
	out->wall = pd_xcalloc(nst + 1, sizeof(double));
	out->cpu = pd_xcalloc(nst + 1, sizeof(double));
	out->n = pd_xcalloc(nst + 1, sizeof(double));
	*has_cpu = cpu && ff_col_len(cpu) == n && n > 1 &&
		   strcmp(v->ctx->cpu_unit, "variable CPU cycles");
	for (i = 0; i < t->wsum.n && i < nst; i++) {
		out->wall[i] = t->wsum.v[i] * wall_unit;
		out->n[i] = t->wsum.v[i];
	}
	for (i = 0; i < t->csum.n && i < nst; i++)
		out->cpu[i] = t->csum.v[i] * cpu_scale;
	out->gap = NULL;
	if (t->dsum.n) {
		out->gap = pd_xcalloc(nst + 1, sizeof(double));
		for (i = 0; i < t->dsum.n && i < nst; i++)
			out->gap[i] = t->dsum.v[i] * 1e6;
	}
}

/* Frames that stand for a chain of inlined functions (pd_profile_expand). */
struct inlines {
	uint32_t *start, *len;
	size_t nframes;
	PD_VEC(uint32_t) chain;
};

static void add_inlined(struct pd_profile *p, struct inlines *inl,
			uint32_t frame, const char *names, uint32_t module)
{
	const char *n, *e;

	if (!inl->len) {
		inl->nframes = p->frames.n;
		inl->start = pd_xcalloc(inl->nframes, sizeof(*inl->start));
		inl->len = pd_xcalloc(inl->nframes, sizeof(*inl->len));
	}
	if (frame >= inl->nframes)
		return;
	inl->start[frame] = (uint32_t)inl->chain.n;
	PD_VEC_PUSH(&inl->chain, frame); /* the function they sit in */
	for (n = names; *n; n = *e ? e + 1 : e) {
		e = n + strcspn(n, "\n");
		PD_VEC_PUSH(
		    &inl->chain,
		    pd_profile_frame(p, pd_intern(&p->strs, n, (size_t)(e - n)),
				     module));
	}
	inl->len[frame] = (uint32_t)(inl->chain.n - inl->start[frame]);
}

static void symbolicate(struct ff_state *s, struct pendings *pend)
{
	struct pd_profile *p = s->p;
	struct pd_sidecar *side;
	struct pd_symctx *ctx;
	struct pd_err serr = PD_ERR_INIT;
	char *side_path = NULL;
	size_t i, done = 0;
	struct inlines inl = { NULL, NULL, 0, PD_VEC_INIT };

	if (!pend->v.n)
		return;
	side = pd_sidecar_load(s->in->path, &side_path, &serr);
	if (serr.code)
		pd_profile_note(p, "%s", serr.msg);
	ctx = pd_symctx_new(s->o->symbol_dirs, s->o->symbolizer, s->in->path);
	if (ctx && *pd_symctx_notes(ctx)) {
		const char *n = pd_symctx_notes(ctx), *e;

		for (; *n; n = *e ? e + 1 : e) {
			e = n + strcspn(n, "\n");
			pd_profile_note(p, "%.*s", (int)(e - n), n);
		}
	}
	/* One batch per library, and one line per library saying how. */
	for (i = 0; i < pend->v.n;) {
		const struct ff_lib *l = pend->v.v[i].lib;
		struct pd_libinfo li = { l->name,	 l->path,
					 l->debug_name,	 l->debug_path,
					 l->breakpad_id, l->code_id };
		struct pd_symreq *reqs;
		struct pd_buf why = PD_BUF_INIT;
		size_t j, k, n = 0, got = 0, from_side = 0;

		for (j = i; j < pend->v.n; j++)
			n += pend->v.v[j].lib == l;
		reqs = pd_xcalloc(n, sizeof(*reqs));
		for (j = i, k = 0; j < pend->v.n; j++)
			if (pend->v.v[j].lib == l)
				reqs[k++].addr = pend->v.v[j].addr;
		if (side)
			got = from_side =
			    pd_sidecar_resolve(side, &li, reqs, n);
		if (got < n && ctx)
			got += pd_symctx_resolve(ctx, &li, reqs, n, &why);
		if (ctx || (from_side && got < n))
			pd_profile_note(p,
					"symbols for %s: %zu of %zu addresses"
					" named%s%s%s%s",
					lib_label(l), got, n,
					from_side ? " (sidecar " : "",
					from_side ? "first)" : "",
					why.len ? "; " : "", why.buf);
		pd_buf_release(&why);
		for (j = i, k = 0; j < pend->v.n; j++) {
			struct pend *e = &pend->v.v[j];

			if (e->lib != l)
				continue;
			if (reqs[k].name) {
				p->frames.v[e->frame].name =
				    pd_intern_cstr(&p->strs, reqs[k].name);
				/* Named: it matches across builds by name
				 * again. */
				p->frames.v[e->frame].module =
				    pd_intern_cstr(&p->strs, lib_label(l));
				e->resolved = 1;
				done++;
				if (reqs[k].inlined)
					add_inlined(
					    p, &inl, e->frame, reqs[k].inlined,
					    p->frames.v[e->frame].module);
			}
			free(reqs[k].name);
			free(reqs[k].inlined);
			k++;
			e->lib = NULL; /* handled */
		}
		free(reqs);
		while (i < pend->v.n && !pend->v.v[i].lib)
			i++;
	}
	if (inl.len) {
		/* Inlined functions become frames of their own. */
		pd_profile_expand(p, inl.nframes, inl.start, inl.len,
				  inl.chain.v);
		free(inl.start);
		free(inl.len);
		PD_VEC_FREE(&inl.chain);
	}
	if (done && side_path)
		pd_profile_note(p, "symbols from %s", side_path);
	free(side_path);
	pd_sidecar_free(side);
	pd_symctx_free(ctx);
}

/* Per library: unsymbolicated weight, heaviest first, for the report. */
static void unsym_report(struct ff_state *s, const struct pendings *pend,
			 const double *frame_weight)
{
	struct pd_profile *p = s->p;
	PD_VEC(const char *) libs = PD_VEC_INIT;
	PD_VEC(double) w = PD_VEC_INIT;
	struct pd_buf b = PD_BUF_INIT;
	double total = 0;
	size_t i, k, shown = 0;

	for (i = 0; i < pend->v.n; i++) {
		const struct pend *e = &pend->v.v[i];
		const char *lib = lib_label(e->orig);

		if (e->resolved)
			continue;
		for (k = 0; k < libs.n; k++)
			if (!strcmp(libs.v[k], lib))
				break;
		if (k == libs.n) {
			PD_VEC_PUSH(&libs, lib);
			PD_VEC_PUSH(&w, 0.0);
		}
		w.v[k] += frame_weight[e->frame];
		total += frame_weight[e->frame];
	}
	/* heaviest first */
	for (i = 0; i < libs.n; i++)
		for (k = i + 1; k < libs.n; k++)
			if (w.v[k] > w.v[i]) {
				const char *t = libs.v[i];
				double x = w.v[i];

				libs.v[i] = libs.v[k];
				libs.v[k] = t;
				w.v[i] = w.v[k];
				w.v[k] = x;
			}
	if (total > 0 && p->total_weight > 0) {
		pd_buf_addf(&b,
			    "%.1f %% of the weight is in unsymbolicated"
			    " frames (",
			    total / p->total_weight * 100);
		for (k = 0; k < libs.n && shown < 5; k++) {
			if (w.v[k] <= 0)
				continue;
			pd_buf_addf(&b, "%s%s %.1f %%", shown++ ? ", " : "",
				    libs.v[k], w.v[k] / p->total_weight * 100);
		}
		pd_buf_addf(&b,
			    "); they match across builds only when the"
			    " library is the same build. Pass --symbols DIR"
			    " with the binaries, or keep samply's .syms.json"
			    " next to the profile (docs/symbols.md)");
		pd_profile_note(p, "%s", b.buf);
	}
	PD_VEC_FREE(&libs);
	PD_VEC_FREE(&w);
	pd_buf_release(&b);
}

/*
 * Whether the threads used carry CPU deltas: any_cpu when one does,
 * all_cpu when every one with more than one sample does. Returns 0, or
 * the error of --weight cpu asked where a thread has none.
 */
static int cpu_deltas(struct ff_state *s, int *any_cpu, int *all_cpu)
{
	const struct pd_import_opts *o = s->o;
	const struct ff_thread *nocpu = NULL;
	size_t ti;

	*any_cpu = 0;
	*all_cpu = 1;
	for (ti = 0; ti < s->threads.n; ti++) {
		struct ff_thread *th = &s->threads.v[ti];
		struct view v;
		const struct ff_col *cpu;

		if (!pd_ff_thread_wanted(o, th))
			continue;
		view_of(s, th, &v);
		cpu = ff_get_col(v.t[T_SAMPLES], "threadCPUDelta");
		/*
		 * A thread of one sample has no CPU delta to give (the first
		 * means nothing): it has no say in the profile's rule.
		 */
		if (ff_col_len(ff_get_col(v.t[T_SAMPLES], "stack")) <= 1)
			continue;
		if (cpu && ff_col_len(cpu) > 1 &&
		    strcmp(v.ctx->cpu_unit, "variable CPU cycles"))
			*any_cpu = 1;
		else if (*all_cpu) {
			*all_cpu = 0;
			nocpu = th;
		}
	}
	if (o->weight_mode >= 2 && !*all_cpu)
		return pd_err_set(
		    s->err, PD_EFORMAT,
		    "%s: --weight %s: thread \"%s\" has no CPU time"
		    " (threadCPUDelta); use --weight wall, or --thread to"
		    " choose threads that have it",
		    s->in->path, o->weight_mode == 3 ? "both" : "cpu",
		    nocpu->name ? nocpu->name : "?");
	return 0;
}

/* Frame ids of a thread's frame table (shared tables share them). */
struct frame_ids {
	uint32_t *shared; /* for the tables in profile.shared */
};

/*
 * A thread's stack table as nodes of the profile's tree (node_of, one a
 * stack row), its frames named through frames. 0 or the error.
 */
static int thread_nodes(struct ff_state *s, struct ff_thread *th,
			struct view *v, uint32_t *frames, uint32_t *node_of,
			size_t nst, size_t nfr, struct pendings *pend)
{
	struct pd_profile *p = s->p;
	const struct ff_col *fr = ff_get_col(v->t[T_STACK], "frame"),
			    *pre = ff_get_col(v->t[T_STACK], "prefix"),
			    *off = ff_get_col(v->t[T_STACK], "prefixOffset");
	uint32_t troot = PD_ROOT;
	size_t i;

	if (s->o->thread_roots) {
		struct pd_buf name = PD_BUF_INIT;

		pd_ff_thread_label(th, &name);
		troot = pd_profile_thread_root(p, name.buf, name.len);
		pd_buf_release(&name);
	}
	for (i = 0; i < nst; i++) {
		double f = ff_cv(fr, i), link = ff_cv(off ? off : pre, i),
		       parent;
		int bad = 0;

		/* a link is null or an integer from 0: -5 is no root */
		if (!isnan(link) && (link < 0 || link - floor(link) > 0))
			return pd_err_set(
			    s->err, PD_EPARSE,
			    "%s: thread \"%s\": stackTable.%s[%zu] = %g is"
			    " not an index (an integer from 0, or null)",
			    s->in->path, th->name ? th->name : "?",
			    off ? "prefixOffset" : "prefix", i, link);
		if (off)
			parent = link > 0 ? (double)i - link : -1;
		else
			parent = isnan(link) ? -1 : link;
		if (isnan(f) || f < 0 || f >= (double)nfr ||
		    parent >= (double)i)
			return pd_err_set(
			    s->err, PD_EPARSE,
			    "%s: thread \"%s\": stackTable row %zu points to"
			    " frame %g or parent %g out of range",
			    s->in->path, th->name ? th->name : "?", i, f,
			    parent);
		if (frames[(size_t)f] == UINT32_MAX) {
			frames[(size_t)f] =
			    frame_of(s, v, (size_t)f, pend, &bad);
			if (bad) {
				frames[(size_t)f] = UINT32_MAX;
				return pd_err_set(
				    s->err, PD_EPARSE,
				    "%s: thread \"%s\": frameTable row %g %s",
				    s->in->path, th->name ? th->name : "?", f,
				    bad == 1   ? "names a func out of range"
				    : bad == 2 ? "names a string out of range"
				    : bad == 3
					? "names a lib out of range"
					: "has an address of 2^64 or more");
			}
		}
		node_of[i] = pd_profile_child(
		    p, parent < 0 ? troot : node_of[(size_t)parent],
		    frames[(size_t)f]);
	}
	return 0;
}

/* One thread's samples into the profile; *used counts threads with some. */
static int add_thread(struct ff_state *s, struct ff_thread *th, int want_cpu,
		      struct frame_ids *ids, struct pendings *pend,
		      size_t *used)
{
	struct pd_profile *p = s->p;
	struct view v;
	struct sums sm = { NULL, NULL, NULL, NULL, 0 };
	uint32_t *node_of, *frames;
	size_t nst, nfr, i;
	int has_cpu = 0, own, rc;
	double tw = 0;

	view_of(s, th, &v);
	if (!ff_col_len(ff_get_col(v.t[T_SAMPLES], "stack")))
		return 0;
	thread_sums(th, &v, &sm, &has_cpu);
	nst = ff_col_len(ff_get_col(v.t[T_STACK], "frame"));
	nfr =
	    ff_col_len(ff_get_col(v.t[T_FRAME], v.gecko ? "location" : "func"));
	own = v.t[T_FRAME] != &s->shared[T_FRAME];
	if (!own && !ids->shared) {
		ids->shared = pd_xmalloc((nfr + 1) * sizeof(*ids->shared));
		for (i = 0; i < nfr; i++)
			ids->shared[i] = UINT32_MAX;
	}
	frames = own ? pd_xmalloc((nfr + 1) * sizeof(*frames)) : ids->shared;
	if (own)
		for (i = 0; i < nfr; i++)
			frames[i] = UINT32_MAX;
	node_of = pd_xmalloc((nst + 1) * sizeof(*node_of));
	rc = thread_nodes(s, th, &v, frames, node_of, nst, nfr, pend);
	for (i = 0; i < nst && rc == 0; i++) {
		double w = want_cpu ? sm.cpu[i] : sm.wall[i];
		double c =
		    want_cpu ? sm.cpu[i] / (v.ctx->interval * 1e6) : sm.n[i];

		if (w > 0) {
			pd_profile_add(p, node_of[i], w, c);
			tw += w;
			pd_ff_carry_blocks(s, v.t[T_SAMPLES], i, node_of[i], c);
		}
		if (want_cpu == 1) /* the waiting the default leaves out */
			s->unshown_wait += fmax(
			    0, (sm.gap ? sm.gap[i] : sm.wall[i]) - sm.cpu[i]);
		s->cpu_w += want_cpu == 1 && w > 0 ? w : 0;
		/* the gaps the CPU deltas are of; else samples x interval */
		if (want_cpu == 2 &&
		    (sm.gap ? sm.gap[i] : sm.wall[i]) > sm.cpu[i]) {
			struct ff_wait wt;

			wt.node = node_of[i];
			wt.weight =
			    (sm.gap ? sm.gap[i] : sm.wall[i]) - sm.cpu[i];
			wt.count = wt.weight / (v.ctx->interval * 1e6);
			wt.waits = sm.n[i] > 0 ? sm.n[i] : 1;
			PD_VEC_PUSH(&s->waits, wt);
			tw += wt.weight;
		}
	}
	if (rc == 0 && tw > 0) {
		struct pd_buf name = PD_BUF_INIT;

		pd_ff_thread_label(th, &name);
		pd_profile_thread(p, name.buf, name.len, tw);
		pd_buf_release(&name);
		(*used)++;
	}
	p->nsamples += ff_col_len(ff_get_col(v.t[T_SAMPLES], "stack"));
	if (own)
		free(frames);
	free(node_of);
	free(sm.wall);
	free(sm.gap);
	free(sm.cpu);
	free(sm.n);
	return rc;
}

/* Units, the count rule, notes, symbols and the exporter, at the end. */
static void resolve_finish(struct ff_state *s, int want_cpu, int any_cpu,
			   int all_cpu, int cpu_fallback, size_t used,
			   struct pendings *pend)
{
	struct pd_profile *p = s->p;
	const struct pd_import_opts *o = s->o;
	double *frame_w;
	size_t i;

	if (cpu_fallback)
		pd_profile_note(p,
				"the CPU deltas are all zero: using wall-clock"
				" sample weights");
	p->unit = PD_UNIT_NS;
	p->interval = s->ctxs.n ? s->ctxs.v[0].interval * 1e6 : 1e6;
	free(p->count_rule);
	p->count_rule = pd_xstrdup(
	    want_cpu == 2
		? "weights = CPU time (threadCPUDelta) and, beside it, the"
		  " waiting (samples x interval beyond it); sample counts ="
		  " time / sampling interval"
	    : want_cpu ? "weights = CPU time (threadCPUDelta); sample counts ="
			 " CPU time / sampling interval"
		       : "weights = samples x sampling interval (wall clock,"
			 " off-CPU included); sample counts = samples");
	if (o->weight_mode != 1 && any_cpu && !all_cpu)
		pd_profile_note(
		    p, "some threads have no CPU deltas: using wall-clock"
		       " sample weights for all");
	if (want_cpu == 1 && o->weight_mode == 0)
		pd_ff_note_unshown(s);
	pd_profile_finish(p);
	symbolicate(s, pend);
	if (s->waits.n) {
		pd_ff_add_waits(s);
		pd_profile_finish(p);
	}
	frame_w = pd_xcalloc(p->frames.n + 1, sizeof(double));
	for (i = 1; i < p->nodes.n; i++)
		frame_w[p->nodes.v[i].frame] += p->nodes.v[i].weight;
	unsym_report(s, pend, frame_w);
	free(frame_w);
	free(p->exporter);
	p->exporter = pd_xstrdup(s->ctxs.n && s->ctxs.v[0].processed_version > 0
				     ? "Firefox Profiler processed format"
				     : "Firefox Gecko format");
	if (!used)
		pd_profile_note(p, "no thread had samples%s",
				o->thread || o->process ? " after filtering"
							: "");
}

int pd_firefox_resolve(struct ff_state *s)
{
	struct pd_profile *p = s->p;
	const struct pd_import_opts *o = s->o;
	struct pendings pend;
	struct frame_ids ids = { NULL };
	size_t ti, used = 0, k;
	int any_cpu, all_cpu, want_cpu, cpu_fallback = 0, rc;

	memset(&pend, 0, sizeof(pend));
	rc = cpu_deltas(s, &any_cpu, &all_cpu);
	if (rc < 0)
		return rc;
	want_cpu = o->weight_mode != 1 && any_cpu && all_cpu;
	if (want_cpu && o->weight_mode == 3)
		want_cpu = 2; /* CPU time, and the waiting beside it */
	/* every thread's times in the blocks before any stack is carried */
	for (ti = 0; ti < s->threads.n && rc == 0; ti++) {
		struct view v;

		view_of(s, &s->threads.v[ti], &v);
		if (pd_ff_thread_wanted(o, &s->threads.v[ti]) &&
		    ff_col_len(ff_get_col(v.t[T_SAMPLES], "stack")))
			rc = pd_ff_thread_fold(
			    s, &s->threads.v[ti],
			    ff_col_len(ff_get_col(v.t[T_STACK], "frame")));
	}
	if (rc < 0)
		return rc;
	for (;;) {
		s->unshown_wait = s->cpu_w = 0;
		pd_blocks_release(&p->blk);
		pd_blocks_restart(&p->blk, &s->blk);
		for (ti = 0; ti < s->threads.n && rc == 0; ti++)
			if (pd_ff_thread_wanted(o, &s->threads.v[ti]))
				rc = add_thread(s, &s->threads.v[ti], want_cpu,
						&ids, &pend, &used);
		free(ids.shared);
		ids.shared = NULL;
		if (rc < 0 || !(want_cpu && used == 0))
			break;
		/* CPU deltas all zero (synthetic or idle): use the samples. */
		for (k = 0; k < p->nodes.n; k++)
			p->nodes.v[k].weight = p->nodes.v[k].count = 0;
		p->threads.n = 0;
		p->nsamples = 0;
		want_cpu = 0;
		cpu_fallback = 1;
	}
	if (rc == 0)
		resolve_finish(s, want_cpu, any_cpu, all_cpu, cpu_fallback,
			       used, &pend);
	PD_VEC_FREE(&pend.v);
	PD_VEC_FREE(&pend.of_frame);
	return rc;
}
