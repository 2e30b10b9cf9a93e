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

static int is_hex(int c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
	       (c >= 'A' && c <= 'F');
}

static int is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static int ends_with(const char *s, size_t n, const char *suf)
{
	size_t k = strlen(suf);

	return n >= k && !memcmp(s + n - k, suf, k);
}

/* Length of s without a trailing ".<word>.<digits>" or ".<word>" suffix. */
static size_t strip_dot_suffix(const char *s, size_t n, const char *word,
			       int digits)
{
	size_t k = strlen(word), m = n;

	if (digits) {
		while (m > 0 && is_digit(s[m - 1]))
			m--;
		if (m == n || m == 0 || s[m - 1] != '.')
			return n;
		m--;
	}
	if (m > k + 1 && s[m - k - 1] == '.' && !memcmp(s + m - k, word, k))
		return m - k - 1;
	return n;
}

static int looks_like_library(const char *s, size_t n)
{
	size_t i;

	if (ends_with(s, n, ".so") || ends_with(s, n, ".dll") ||
	    ends_with(s, n, ".exe") || ends_with(s, n, ".dylib") ||
	    ends_with(s, n, ".sys") || ends_with(s, n, "]"))
		return 1;
	for (i = 0; i + 3 < n; i++) /* libfoo.so.6 */
		if (!memcmp(s + i, ".so.", 4))
			return 1;
	return 0;
}

static void normalize(const char *s, size_t n, struct pd_buf *out)
{
	size_t m, i;
	int changed = 1;

	/* An absolute address means nothing across runs. */
	if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		for (i = 2; i < n && is_hex(s[i]); i++)
			;
		if (i == n) {
			pd_buf_adds(out, "[unknown]");
			return;
		}
	}
	/*
	 * "[module+0xRVA]": an unsymbolicated frame as perfdiff writes it in
	 * folded stacks, which carry no modules; its offset is its identity.
	 * A kernel's has the collapsers' mark after it ("[...]_[k]").
	 */
	i = n;
	if (i > 4 && !memcmp(s + i - 4, "_[k]", 4))
		i -= 4;
	if (i > 6 && s[0] == '[' && s[i - 1] == ']') {
		for (m = i - 1; m > 1 && is_hex(s[m - 1]); m--)
			;
		if (m < i - 1 && m >= 4 && !memcmp(s + m - 3, "+0x", 3) &&
		    m - 3 > 1) {
			pd_buf_add(out, s + 1, i - 2);
			return;
		}
	}
	while (changed && n > 0) {
		changed = 0;
		/* symbol+0x1f offsets, but keep module+0xRVA frames. */
		for (m = n; m > 0 && is_hex(s[m - 1]); m--)
			;
		if (m < n && m >= 3 && s[m - 1] == 'x' && s[m - 2] == '0' &&
		    s[m - 3] == '+' && !looks_like_library(s, m - 3)) {
			n = m - 3;
			changed = 1;
			continue;
		}
		/* Rust legacy mangling hash: ::h0123456789abcdef */
		if (n > 19 && !memcmp(s + n - 19, "::h", 3)) {
			for (i = n - 16; i < n && is_hex(s[i]); i++)
				;
			if (i == n) {
				n -= 19;
				changed = 1;
				continue;
			}
		}
		/* Collapser annotations: _[k] kernel, _[j] JIT, _[i] inlined.
		 */
		if (n > 4 && s[n - 4] == '_' && s[n - 3] == '[' &&
		    s[n - 1] == ']' && strchr("kjiw", s[n - 2])) {
			n -= 4;
			changed = 1;
			continue;
		}
		/* Compiler clone suffixes: .constprop.0, .isra.0, .cold ... */
		{
			static const char *const numbered[] = {
				"llvm", "constprop", "isra",  "part",
				"cold", "lto_priv",  "clone", "specialized",
			};
			static const char *const bare[] = { "cold",
							    "localalias" };
			size_t k;

			for (k = 0; !changed && k < PD_ARRAY_SIZE(numbered);
			     k++) {
				m = strip_dot_suffix(s, n, numbered[k], 1);
				if (m < n) {
					n = m;
					changed = 1;
				}
			}
			for (k = 0; !changed && k < PD_ARRAY_SIZE(bare); k++) {
				m = strip_dot_suffix(s, n, bare[k], 0);
				if (m < n) {
					n = m;
					changed = 1;
				}
			}
		}
	}
	pd_buf_add(out, s, n);
}

/*
 * Rust's legacy mangling escapes what a symbol cannot hold: "$LT$" for
 * '<', "$u7b$" for '{', ".." for "::". perf prints such names half
 * demangled, collapsers and samply fully: both meet as the latter.
 */
static const struct {
	const char *esc, *to;
} rust_escapes[] = {
	{ "$SP$", "@" },  { "$BP$", "*" },   { "$RF$", "&" },  { "$LT$", "<" },
	{ "$GT$", ">" },  { "$LP$", "(" },   { "$RP$", ")" },  { "$C$", "," },
	{ "$u7e$", "~" }, { "$u20$", " " },  { "$u27$", "'" }, { "$u5b$", "[" },
	{ "$u5d$", "]" }, { "$u7b$", "{" },  { "$u7d$", "}" }, { "$u3b$", ";" },
	{ "$u2b$", "+" }, { "$u22$", "\"" },
};

/* The escape at s (of n bytes left), or -1. */
static int rust_escape_at(const char *s, size_t n)
{
	size_t k;

	for (k = 0; k < PD_ARRAY_SIZE(rust_escapes); k++) {
		size_t l = strlen(rust_escapes[k].esc);

		if (n >= l && !memcmp(s, rust_escapes[k].esc, l))
			return (int)k;
	}
	return -1;
}

/* Appends s with Rust's escapes undone; 0 when it has none. */
static int rust_unescape(const char *s, size_t n, struct pd_buf *out)
{
	size_t i, from = out->len;
	int any = 0;

	for (i = 0; i < n && !any; i++)
		any = s[i] == '$' && rust_escape_at(s + i, n - i) >= 0;
	if (!any)
		return 0;
	for (i = 0; i < n;) {
		int k = s[i] == '$' ? rust_escape_at(s + i, n - i) : -1;

		if (k >= 0) {
			pd_buf_adds(out, rust_escapes[k].to);
			i += strlen(rust_escapes[k].esc);
		} else if (s[i] == '.' && i + 1 < n && s[i + 1] == '.') {
			pd_buf_adds(out, "::");
			i += 2;
		} else {
			pd_buf_addch(out, s[i++]);
		}
	}
	return out->len > from || n == 0;
}

/*
 * A whole legacy Rust symbol, _ZN<len><name>...17h<16 hex>E (macOS adds
 * a '_'): its path joined with "::", the hash left out, escapes undone
 * ("_$" leading a part loses its '_', as rustc's demangler does). 0 for
 * anything else, C++ names included (they have no hash part).
 */
static int rust_legacy(const char *s, size_t n, struct pd_buf *out)
{
	size_t i, parts = 0, from = out->len;
	const char *last = NULL;
	size_t last_len = 0;

	if (n > 4 && s[0] == '_' && s[1] == '_' && s[2] == 'Z')
		s++, n--;
	if (n < 25 || memcmp(s, "_ZN", 3) || s[n - 1] != 'E')
		return 0;
	/* the last part must be the hash: "17h" and 16 hex digits */
	if (memcmp(s + n - 20, "17h", 3))
		return 0;
	for (i = n - 17; i < n - 1; i++)
		if (!is_hex(s[i]))
			return 0;
	for (i = 3; i < n - 20;) {
		size_t len = 0;

		if (!is_digit(s[i]))
			goto bad;
		while (i < n && is_digit(s[i]) && len < 100000)
			len = len * 10 + (size_t)(s[i++] - '0');
		if (!len || len > n - 20 - i)
			goto bad;
		last = s + i;
		last_len = len;
		if (parts++)
			pd_buf_adds(out, "::");
		if (len > 1 && last[0] == '_' && last[1] == '$')
			last++, last_len--;
		if (!rust_unescape(last, last_len, out))
			pd_buf_add(out, last, last_len);
		i += len;
	}
	if (parts && i == n - 20)
		return 1;
bad:
	pd_buf_setlen(out, from);
	return 0;
}

/* s without a trailing " const" (what follows a C++ argument list) */
static size_t strip_const(const char *s, size_t n)
{
	return ends_with(s, n, " const") ? n - 6 : n;
}

/* Where the argument list of s opens (its last balanced "(...)"). */
static size_t args_start(const char *s, size_t n)
{
	size_t m = strip_const(s, n), depth = 0;

	while (m > 0) {
		char c = s[--m];

		if (c == ')')
			depth++;
		else if (c == '(' && --depth == 0)
			return m;
	}
	return n;
}

int pd_name_has_args(const char *s, size_t n)
{
	size_t m = strip_const(s, n);

	/* "(anonymous)", "(root)" are whole names, not argument lists */
	return m > 2 && s[0] != '(' && s[m - 1] == ')' &&
	       args_start(s, n) > 0 && args_start(s, n) < m;
}

int pd_name_is_java_l(const char *s, size_t n)
{
	size_t i;

	if (n < 3 || s[0] != 'L')
		return 0;
	for (i = 1; i < n; i++) {
		char c = s[i];

		if (c == '/')
			return i > 1;
		if (!(is_digit(c) || (c >= 'a' && c <= 'z') ||
		      (c >= 'A' && c <= 'Z') || c == '_' || c == '$'))
			return 0;
	}
	return 0;
}

/*
 * C++'s integer types spelled as GCC's debug information and older
 * demanglers spell them ("long int", "long unsigned int") and as the
 * Itanium demangler does ("long", "unsigned long"): one function's two
 * names otherwise. Longest first; whole words only.
 */
static const struct {
	const char *from, *to;
} int_spellings[] = {
	{ "long long unsigned int", "unsigned long long" },
	{ "long unsigned int", "unsigned long" },
	{ "short unsigned int", "unsigned short" },
	{ "long long int", "long long" },
	{ "long int", "long" },
	{ "short int", "short" },
};

static int is_word(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       is_digit(c) || c == '_';
}

/* 1 and the canonical spelling of s in out when s held another. */
static int cxx_int_spellings(const char *s, size_t n, struct pd_buf *out)
{
	size_t i = 0, k, from = 0;
	int any = 0;

	/* only where a C++ name can hold types: arguments or templates */
	if (!memchr(s, '(', n) && !memchr(s, '<', n))
		return 0;
	while (i < n) {
		size_t len = 0;

		if (s[i] == 'l' || s[i] == 's')
			for (k = 0; k < PD_ARRAY_SIZE(int_spellings); k++) {
				len = strlen(int_spellings[k].from);
				if (len <= n - i &&
				    !memcmp(s + i, int_spellings[k].from,
					    len) &&
				    (i == 0 || !is_word(s[i - 1])) &&
				    (i + len == n || !is_word(s[i + len])))
					break;
			}
		if (!(s[i] == 'l' || s[i] == 's') ||
		    k == PD_ARRAY_SIZE(int_spellings)) {
			i++;
			continue;
		}
		if (!any)
			pd_buf_reset(out);
		pd_buf_add(out, s + from, i - from);
		pd_buf_adds(out, int_spellings[k].to);
		i += len;
		from = i;
		any = 1;
	}
	if (any)
		pd_buf_add(out, s + from, n - from);
	return any;
}

void pd_normalize_name(const char *s, size_t n, struct pd_buf *out)
{
	struct pd_buf tmp = PD_BUF_INIT, ints = PD_BUF_INIT;

	if (rust_legacy(s, n, &tmp) || rust_unescape(s, n, &tmp)) {
		s = tmp.buf;
		n = tmp.len;
	}
	if (cxx_int_spellings(s, n, &ints)) {
		s = ints.buf;
		n = ints.len;
	}
	normalize(s, n, out);
	pd_buf_release(&tmp);
	pd_buf_release(&ints);
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
		pd_buf_setlen(&key, args_start(key.buf, key.len));
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
	struct totals_ctx tc;

	if (!a->self_waits) {
		a->self_waits = grow0(NULL, 0, a->n);
		a->total_waits = grow0(NULL, 0, a->n);
		a->total_wait_c = grow0(NULL, 0, a->n);
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
		}
		if (pd_agg_sets_apart(a, p, f, i))
			continue;
		sub_n[nd->parent] += sub_n[i];
		sub_k[nd->parent] += sub_k[i];
	}
	pd_tree_lists(p, first, next);
	tc.a = a;
	tc.sub_w = sub_n;
	tc.sub_c = sub_k;
	pd_tree_walk(p, a->frame_func, f->v.n, first, next, add_total_waits,
		     &tc);
	free(fc);
	free(sub_n);
	free(sub_k);
}

void pd_agg_compute(struct pd_agg *a, const struct pd_profile *p,
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
	if (p->blk.nrows)
		pd_agg_blocks(a, p, f);
}
