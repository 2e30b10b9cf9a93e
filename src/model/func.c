/*
 * Function identity and aggregation.
 *
 * Algorithm note: self(f) sums the node weights of the tree nodes whose frame
 * maps to f. For total(f) we need, per sample, "f is somewhere on the stack",
 * counted once. On the prefix tree that is: sum the subtree weight of every
 * node of f that has no ancestor of f. A depth-first walk keeps, per
 * function, how many times it is on the current path; a node contributes its
 * subtree weight only when that count is zero on entry. Subtree weights come
 * from one backward pass, since children have larger indices than parents.
 */
#include <ctype.h>
#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/utf8.h"
#include "core/buf.h"
#include "model/func.h"

static uint64_t fkey(uint32_t name, uint32_t module)
{
	return (uint64_t)name << 32 | module;
}

void pd_funcs_init(struct pd_funcs *f, unsigned flags)
{
	memset(f, 0, sizeof(*f));
	pd_intern_init(&f->strs);
	f->flags = flags;
}

void pd_funcs_release(struct pd_funcs *f)
{
	size_t i;

	for (i = 0; i < f->v.n; i++)
		PD_VEC_FREE(&f->v.v[i].raw);
	PD_VEC_FREE(&f->v);
	PD_VEC_FREE(&f->alias_from);
	PD_VEC_FREE(&f->alias_to);
	free(f->slots);
	pd_intern_release(&f->strs);
}

size_t pd_module_basename(const char *s, size_t n)
{
	size_t i = n;

	while (i > 0 && s[i - 1] != '/' && s[i - 1] != '\\')
		i--;
	if (i == n) /* a trailing separator: keep the path */
		return 0;
	return i;
}

/*
 * An unsymbolicated frame "module+0xRVA" (module as the frame's own, up to
 * an "@debugid"): the offset is its identity and must stay.
 */
int pd_frame_is_module_offset(const char *name, size_t nlen, const char *module,
			      size_t mlen)
{
	size_t b = pd_module_basename(module, mlen), k;
	const char *at = memchr(module + b, '@', mlen - b);

	k = at ? (size_t)(at - module - b) : mlen - b;
	return k && nlen > k + 3 && !memcmp(name, module + b, k) &&
	       !memcmp(name + k, "+0x", 3);
}

static void funcs_rehash(struct pd_funcs *f)
{
	size_t ns = f->nslots ? f->nslots * 2 : 1024;
	uint32_t *s = pd_xcalloc(ns, sizeof(*s));
	size_t i;

	for (i = 0; i < f->v.n; i++) {
		size_t j = pd_hash_u64(fkey(f->v.v[i].name, f->v.v[i].module)) &
			   (ns - 1);

		while (s[j])
			j = (j + 1) & (ns - 1);
		s[j] = (uint32_t)i + 1;
	}
	free(f->slots);
	f->slots = s;
	f->nslots = ns;
}

#define MAX_RAW 8

/*
 * A Linux kernel module as perf names it, "[nf_conntrack]": a name of
 * letters, digits and underscores in brackets, other than the brackets
 * perf gives user-space memory ([vdso], [heap], [unknown], ...).
 */
static int linux_module(const char *m, size_t n)
{
	static const char *const user[] = { "unknown", "vdso",	  "vsyscall",
					    "vvar",    "heap",	  "stack",
					    "anon",    "uprobes", "jit" };
	size_t i;

	if (n < 3 || m[0] != '[' || m[n - 1] != ']')
		return 0;
	for (i = 1; i + 1 < n; i++)
		if (!isalnum((unsigned char)m[i]) && m[i] != '_')
			return 0;
	for (i = 0; i < sizeof(user) / sizeof(*user); i++)
		if (n - 2 == strlen(user[i]) && !memcmp(m + 1, user[i], n - 2))
			return 0;
	return 1;
}

int pd_frame_is_system(const char *name, size_t nlen, const char *module,
		       size_t mlen)
{
	static const char *const kernel[] = {
		"[kernel.kallsyms]", "[kernel]",     "vmlinux", "ntoskrnl.exe",
		"ntkrnlmp.exe",	     "ntkrnlpa.exe", "hal.dll"
	};
	size_t b, k, n;

	if (mlen) {
		const char *at;

		b = pd_module_basename(module, mlen);
		/* samply names a library with its debug id: "lib@ID" */
		at = memchr(module + b, '@', mlen - b);
		if (at)
			mlen = (size_t)(at - module);
		n = mlen - b;
		for (k = 0; k < sizeof(kernel) / sizeof(*kernel); k++)
			if (n == strlen(kernel[k]) &&
			    !strncasecmp(module + b, kernel[k], n))
				return 1;
		/* Windows drivers */
		if (n > 4 && !strncasecmp(module + mlen - 4, ".sys", 4))
			return 1;
		return linux_module(module + b, n);
	}
	return nlen > 4 && !memcmp(name + nlen - 4, "_[k]", 4);
}

int pd_frame_is_runtime(const char *module, size_t mlen)
{
	static const char *const libs[] = {
		"libc.so",	    "libc-",
		"libpthread",	    "ld-linux",
		"ld-musl",	    "libc.musl",
		"ntdll.dll",	    "kernelbase.dll",
		"kernel32.dll",	    "win32u.dll",
		"libsystem_kernel", "libsystem_pthread",
		"libsystem_c.",	    "libdispatch",
	};
	size_t b = pd_module_basename(module, mlen), k;

	for (k = 0; k < sizeof(libs) / sizeof(*libs); k++)
		if (mlen - b >= strlen(libs[k]) &&
		    !strncasecmp(module + b, libs[k], strlen(libs[k])))
			return 1;
	return 0;
}

int pd_frame_is_below_program(const struct pd_profile *p, uint32_t f)
{
	const struct pd_frame *fr = &p->frames.v[f];
	const char *m = pd_intern_str(&p->strs, fr->module);
	size_t ml = pd_intern_len(&p->strs, fr->module);

	return pd_frame_is_system(pd_intern_str(&p->strs, fr->name),
				  pd_intern_len(&p->strs, fr->name), m, ml) ||
	       pd_frame_is_runtime(m, ml);
}

uint32_t pd_profile_waiter(const struct pd_profile *p, uint32_t leaf)
{
	uint32_t n = leaf;

	while (n != PD_ROOT &&
	       !pd_profile_is_thread_frame(p, p->nodes.v[n].frame) &&
	       pd_frame_is_below_program(p, p->nodes.v[n].frame))
		n = p->nodes.v[n].parent;
	if (n == PD_ROOT || pd_profile_is_thread_frame(p, p->nodes.v[n].frame))
		return leaf;
	return n;
}

uint32_t pd_profile_wait_node(struct pd_profile *p, uint32_t at,
			      const char *kind)
{
	const struct pd_frame *fr = &p->frames.v[p->nodes.v[at].frame];
	struct pd_buf b = PD_BUF_INIT;
	uint32_t f, mod = fr->module;

	pd_buf_add(&b, pd_intern_str(&p->strs, fr->name),
		   pd_intern_len(&p->strs, fr->name));
	pd_buf_addf(&b, " (%s)", kind);
	f = pd_profile_frame(p, pd_intern(&p->strs, b.buf, b.len), mod);
	pd_buf_release(&b);
	return pd_profile_child(p, at, f);
}

static int ends_ci(const char *s, size_t n, const char *end)
{
	size_t k = strlen(end);

	return n >= k && !strncasecmp(s + n - k, end, k);
}

int pd_frame_is_unnamed_lib(const char *name, size_t nlen, const char *module,
			    size_t mlen)
{
	size_t b, n, i;
	const char *m, *at;

	if (!mlen || !pd_frame_is_module_offset(name, nlen, module, mlen))
		return 0;
	b = pd_module_basename(module, mlen);
	m = module + b;
	at = memchr(m, '@', mlen - b);
	n = at ? (size_t)(at - m) : mlen - b;
	if (ends_ci(m, n, ".dll") || ends_ci(m, n, ".dylib"))
		return 1;
	for (i = 0; i + 11 <= b; i++)
		if (!memcmp(module + i, ".framework/", 11))
			return 1;
	/* lib.so, lib.so.6, lib.so.1.2.3 */
	for (i = 0; i + 3 <= n; i++)
		if (!memcmp(m + i, ".so", 3) && (i + 3 == n || m[i + 3] == '.'))
			return 1;
	return 0;
}

/*
 * A name's bytes that are no UTF-8 become U+FFFD in its key: JSON cannot
 * carry them, so a profile converted to speedscope (or any JSON format)
 * names the function with U+FFFD where the original had the raw byte,
 * and the two must be one function (docs/cli.md, "convert").
 */
static void utf8_key(struct pd_buf *key)
{
	struct pd_buf t = PD_BUF_INIT;
	size_t i = 0;
	int valid = 1;

	while (i < key->len && valid)
		i += pd_utf8_seq((const unsigned char *)key->buf + i,
				 key->len - i, &valid);
	if (valid)
		return;
	pd_utf8_sanitize(key->buf, key->len, &t);
	pd_buf_reset(key);
	pd_buf_add(key, t.buf, t.len);
	pd_buf_release(&t);
}

uint32_t pd_funcs_get(struct pd_funcs *f, const char *name, size_t nlen,
		      const char *module, size_t mlen)
{
	struct pd_buf key = PD_BUF_INIT;
	uint32_t nid, mid = 0, rid, id = UINT32_MAX;
	struct pd_func fn;
	size_t j, k;

	if ((f->flags & PD_FUNCS_NO_NORMALIZE) ||
	    pd_frame_is_module_offset(name, nlen, module, mlen))
		pd_buf_add(&key, name, nlen);
	else
		pd_normalize_name(name, nlen, &key);
	if (f->flags & PD_FUNCS_FOLDED_NAMES)
		for (j = 0; j < key.len; j++)
			if (key.buf[j] == ';')
				key.buf[j] = ':';
	if ((f->flags & PD_FUNCS_NO_ARGS) && pd_name_has_args(key.buf, key.len))
		pd_buf_setlen(&key, pd_name_args_start(key.buf, key.len));
	if ((f->flags & PD_FUNCS_NO_JAVA_L) &&
	    pd_name_is_java_l(key.buf, key.len)) {
		memmove(key.buf, key.buf + 1, key.len - 1);
		pd_buf_setlen(&key, key.len - 1);
	}
	utf8_key(&key);
	nid = pd_intern(&f->strs, key.buf, key.len);
	pd_buf_release(&key);
	if (!(f->flags & PD_FUNCS_NO_MODULE) && mlen) {
		size_t b = pd_module_basename(module, mlen);

		mid = pd_intern(&f->strs, module + b, mlen - b);
		for (k = 0; k < f->alias_from.n; k++)
			if (f->alias_from.v[k] == mid)
				mid = f->alias_to.v[k];
	}
	if ((f->v.n + 1) * 2 > f->nslots)
		funcs_rehash(f);
	for (j = pd_hash_u64(fkey(nid, mid)) & (f->nslots - 1); f->slots[j];
	     j = (j + 1) & (f->nslots - 1)) {
		uint32_t i = f->slots[j] - 1;

		if (f->v.v[i].name == nid && f->v.v[i].module == mid) {
			id = i;
			break;
		}
	}
	if (id == UINT32_MAX) {
		memset(&fn, 0, sizeof(fn));
		fn.name = nid;
		fn.module = mid;
		fn.system = pd_frame_is_system(name, nlen, module, mlen)
				? PD_SYSTEM_KERNEL
			    : pd_frame_is_unnamed_lib(name, nlen, module, mlen)
				? PD_SYSTEM_UNNAMED_LIB
				: 0;
		PD_VEC_PUSH(&f->v, fn);
		id = (uint32_t)f->v.n - 1;
		f->slots[j] = id + 1;
	}
	rid = pd_intern(&f->strs, name, nlen);
	for (k = 0; k < f->v.v[id].raw.n; k++)
		if (f->v.v[id].raw.v[k] == rid)
			return id;
	f->v.v[id].nraw_total++;
	if (f->v.v[id].raw.n < MAX_RAW)
		PD_VEC_PUSH(&f->v.v[id].raw, rid);
	return id;
}

void pd_funcs_alias(struct pd_funcs *f, const char *from, const char *to)
{
	uint32_t a = pd_intern_cstr(&f->strs, from);
	uint32_t b = pd_intern_cstr(&f->strs, to);

	PD_VEC_PUSH(&f->alias_from, a);
	PD_VEC_PUSH(&f->alias_to, b);
}

void pd_agg_init(struct pd_agg *a)
{
	memset(a, 0, sizeof(*a));
}

void pd_agg_release(struct pd_agg *a)
{
	free(a->self_w);
	free(a->total_w);
	free(a->self_c);
	free(a->total_c);
	free(a->frame_func);
	free(a->bdisp[0]);
	free(a->bdisp[1]);
	free(a->bdf[0]);
	free(a->bdf[1]);
	free(a->self_waits);
	free(a->total_waits);
	free(a->total_wait_c);
	free(a->total_ready_c);
	memset(a, 0, sizeof(*a));
}

static double *grow0(double *p, size_t old, size_t n)
{
	p = pd_xreallocarray(p, n ? n : 1, sizeof(*p));
	if (n > old)
		memset(p + old, 0, (n - old) * sizeof(*p));
	return p;
}

void pd_agg_resize(struct pd_agg *a, size_t n)
{
	if (n <= a->n)
		return;
	a->self_w = grow0(a->self_w, a->n, n);
	a->total_w = grow0(a->total_w, a->n, n);
	a->self_c = grow0(a->self_c, a->n, n);
	a->total_c = grow0(a->total_c, a->n, n);
	if (a->self_waits) {
		a->self_waits = grow0(a->self_waits, a->n, n);
		a->total_waits = grow0(a->total_waits, a->n, n);
		a->total_wait_c = grow0(a->total_wait_c, a->n, n);
		a->total_ready_c = grow0(a->total_ready_c, a->n, n);
	}
	if (a->bdf[0]) {
		int k;

		for (k = 0; k < 2; k++) {
			a->bdisp[k] = grow0(a->bdisp[k], a->n, n);
			a->bdf[k] = grow0(a->bdf[k], a->n, n);
		}
	}
	a->n = n;
}

int pd_agg_sets_apart(const struct pd_agg *a, const struct pd_profile *p,
		      const struct pd_funcs *f, size_t node)
{
	const struct pd_node *nd = &p->nodes.v[node];

	/* not the root, which has no frame; frame_func is p's */
	assert(node > 0 && node < p->nodes.n && nd->frame < a->nframes);
	return !(f->flags & PD_FUNCS_SYSTEM) &&
	       f->v.v[a->frame_func[nd->frame]].system == PD_SYSTEM_KERNEL &&
	       (nd->parent == PD_ROOT ||
		f->v.v[a->frame_func[p->nodes.v[nd->parent].frame]].system !=
		    PD_SYSTEM_KERNEL);
}

void pd_tree_lists(const struct pd_profile *p, uint32_t *first, uint32_t *next)
{
	size_t i;

	for (i = 0; i < p->nodes.n; i++)
		first[i] = UINT32_MAX;
	for (i = p->nodes.n; i-- > 1;) {
		/* parents first: a tree the walk's stack holds */
		assert(p->nodes.v[i].parent < i);
		next[i] = first[p->nodes.v[i].parent];
		first[p->nodes.v[i].parent] = (uint32_t)i;
	}
}

void pd_tree_walk(const struct pd_profile *p, const uint32_t *frame_func,
		  size_t nfuncs, uint32_t *first, const uint32_t *next,
		  void (*visit)(void *ctx, uint32_t node, uint32_t fn),
		  void *ctx)
{
	/* The stack holds nodes whose children remain. */
	uint32_t *onpath = pd_xcalloc(nfuncs ? nfuncs : 1, sizeof(*onpath));
	uint32_t *stack = pd_xmalloc(p->nodes.n * sizeof(*stack));
	size_t sp = 0;
	uint32_t i, fn;

	for (i = first[PD_ROOT]; i != UINT32_MAX; i = next[i]) {
		stack[sp++] = i;
		fn = frame_func[p->nodes.v[i].frame];
		assert(fn < nfuncs);
		if (onpath[fn]++ == 0)
			visit(ctx, i, fn);
		while (sp) {
			uint32_t top = stack[sp - 1];
			uint32_t c = first[top];

			if (c != UINT32_MAX) {
				/* Descend into the next child, detaching it. */
				first[top] = next[c];
				stack[sp++] = c;
				fn = frame_func[p->nodes.v[c].frame];
				assert(fn < nfuncs);
				if (onpath[fn]++ == 0)
					visit(ctx, c, fn);
			} else {
				sp--;
				onpath[frame_func[p->nodes.v[top].frame]]--;
			}
		}
	}
	free(onpath);
	free(stack);
}

struct totals_ctx {
	struct pd_agg *a;
	const double *sub_w, *sub_c;
};

static void add_total(void *ctx, uint32_t node, uint32_t fn)
{
	struct totals_ctx *t = ctx;

	t->a->total_w[fn] += t->sub_w[node];
	t->a->total_c[fn] += t->sub_c[node];
}

static void add_total_waits(void *ctx, uint32_t node, uint32_t fn)
{
	struct totals_ctx *t = ctx;

	t->a->total_waits[fn] += t->sub_w[node];
	t->a->total_wait_c[fn] += t->sub_c[node];
}

static void add_total_ready(void *ctx, uint32_t node, uint32_t fn)
{
	struct totals_ctx *t = ctx;

	t->a->total_ready_c[fn] += t->sub_c[node];
}

int pd_func_is_ready_wait(const struct pd_funcs *f, uint32_t id)
{
	const char *n = pd_func_name(f, id);
	size_t len = strlen(n);

	return len >= 7 && !strcmp(n + len - 7, "(ready)");
}

/*
 * The waits behind each function's self and total time: a frame's waits
 * shared among its nodes by their samples, summed up the tree as the
 * totals are (first and next are rebuilt: the walk used them up).
 */
static void agg_waits(struct pd_agg *a, const struct pd_profile *p,
		      struct pd_funcs *f, uint32_t *first, uint32_t *next)
{
	size_t nn = p->nodes.n, nw = p->frame_waits_n, i;
	double *fc = pd_xcalloc(nw ? nw : 1, sizeof(*fc));
	double *sub_n = pd_xcalloc(nn, sizeof(*sub_n));
	double *sub_k = pd_xcalloc(nn, sizeof(*sub_k));
	double *sub_r = pd_xcalloc(nn, sizeof(*sub_r));
	struct totals_ctx tc;
	int any_ready = 0;

	if (!a->self_waits) {
		a->self_waits = grow0(NULL, 0, a->n);
		a->total_waits = grow0(NULL, 0, a->n);
		a->total_wait_c = grow0(NULL, 0, a->n);
		a->total_ready_c = grow0(NULL, 0, a->n);
	}
	for (i = 0; i < nw && i < a->nframes; i++)
		a->self_waits[a->frame_func[i]] += p->frame_waits[i];
	for (i = 1; i < nn; i++) {
		uint32_t fr = p->nodes.v[i].frame;

		if (fr < nw && p->frame_waits[fr] > 0)
			fc[fr] += p->nodes.v[i].count;
	}
	for (i = nn; i-- > 1;) {
		const struct pd_node *nd = &p->nodes.v[i];

		if (nd->frame < nw && fc[nd->frame] > 0) {
			sub_n[i] += p->frame_waits[nd->frame] * nd->count /
				    fc[nd->frame];
			sub_k[i] += nd->count;
			if (nd->frame < a->nframes &&
			    pd_func_is_ready_wait(f,
						  a->frame_func[nd->frame])) {
				sub_r[i] += nd->count;
				any_ready = 1;
			}
		}
		if (pd_agg_sets_apart(a, p, f, i))
			continue;
		sub_n[nd->parent] += sub_n[i];
		sub_k[nd->parent] += sub_k[i];
		sub_r[nd->parent] += sub_r[i];
	}
	pd_tree_lists(p, first, next);
	tc.a = a;
	tc.sub_w = sub_n;
	tc.sub_c = sub_k;
	pd_tree_walk(p, a->frame_func, f->v.n, first, next, add_total_waits,
		     &tc);
	if (any_ready) { /* the ready waits' share of each total */
		pd_tree_lists(p, first, next);
		tc.sub_c = sub_r;
		pd_tree_walk(p, a->frame_func, f->v.n, first, next,
			     add_total_ready, &tc);
	}
	free(fc);
	free(sub_n);
	free(sub_k);
	free(sub_r);
}

void pd_agg_stacks(struct pd_agg *a, const struct pd_profile *p,
		   struct pd_funcs *f)
{
	size_t nn = p->nodes.n, i;
	double *sub_w, *sub_c;
	uint32_t *first, *next;
	struct totals_ctx tc;

	a->nframes = p->frames.n;
	a->frame_func = pd_xreallocarray(
	    a->frame_func, a->nframes ? a->nframes : 1, sizeof(uint32_t));
	for (i = 0; i < p->frames.n; i++) {
		const struct pd_frame *fr = &p->frames.v[i];

		a->frame_func[i] =
		    pd_funcs_get(f, pd_intern_str(&p->strs, fr->name),
				 pd_intern_len(&p->strs, fr->name),
				 pd_intern_str(&p->strs, fr->module),
				 pd_intern_len(&p->strs, fr->module));
	}
	pd_agg_resize(a, f->v.n);

	sub_w = pd_xmalloc(nn * sizeof(*sub_w));
	sub_c = pd_xmalloc(nn * sizeof(*sub_c));
	first = pd_xmalloc(nn * sizeof(*first));
	next = pd_xmalloc(nn * sizeof(*next));
	for (i = 0; i < nn; i++) {
		sub_w[i] = p->nodes.v[i].weight;
		sub_c[i] = p->nodes.v[i].count;
	}
	a->sys_w = 0;
	a->sys_c = 0;
	for (i = nn; i-- > 1;) {
		const struct pd_node *nd = &p->nodes.v[i];
		uint32_t fn = a->frame_func[nd->frame];

		/* parents come before children: one pass sums the subtrees */
		assert(nd->parent < i);

		a->self_w[fn] += nd->weight;
		a->self_c[fn] += nd->count;
		/*
		 * A system subtree under the program's frames (or the root)
		 * is the system's time, set apart.
		 */
		if (pd_agg_sets_apart(a, p, f, i)) {
			a->sys_w += sub_w[i];
			a->sys_c += sub_c[i];
			continue;
		}
		sub_w[nd->parent] += sub_w[i];
		sub_c[nd->parent] += sub_c[i];
	}
	a->all_w = sub_w[PD_ROOT];
	a->all_c = sub_c[PD_ROOT];

	pd_tree_lists(p, first, next);
	tc.a = a;
	tc.sub_w = sub_w;
	tc.sub_c = sub_c;
	pd_tree_walk(p, a->frame_func, f->v.n, first, next, add_total, &tc);
	if (p->frame_waits)
		agg_waits(a, p, f, first, next);
	free(sub_w);
	free(sub_c);
	free(first);
	free(next);
}
