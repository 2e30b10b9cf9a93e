/*
 * Function names made comparable across builds and tools: addresses and
 * offsets, clone suffixes, Rust's hashes and escapes, collapser marks and
 * C++ integer spellings removed or made one (docs/cli.md, "Matching
 * functions across builds"). The function table (func.c) keys on them.
 */
#include <stdlib.h>
#include <string.h>

#include "model/func.h"

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

size_t pd_name_args_start(const char *s, size_t n)
{
	return args_start(s, n);
}
