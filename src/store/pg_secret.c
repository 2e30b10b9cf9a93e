/*
 * Passwords in PostgreSQL connection strings (pg_secret.h): found by the
 * rules of libpq's parsers (its URI reader and its key=value reader),
 * then masked, cut or scrubbed.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/xalloc.h"
#include "store/pg_secret.h"

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* s[0..n) with %XX decoded, as libpq decodes a URI's parts; malloc'd. */
static char *percent_decoded(const char *s, size_t n)
{
	char *out = pd_xmalloc(n + 1);
	size_t i, o = 0;

	for (i = 0; i < n; i++) {
		if (s[i] == '%' && i + 2 < n && hexval(s[i + 1]) >= 0 &&
		    hexval(s[i + 2]) >= 0) {
			out[o++] =
			    (char)(hexval(s[i + 1]) * 16 + hexval(s[i + 2]));
			i += 2;
		} else
			out[o++] = s[i];
	}
	out[o] = 0;
	return out;
}

/* A key=value value with its quotes and backslashes undone; malloc'd. */
static char *unescaped(const char *s, size_t n)
{
	char *out = pd_xmalloc(n + 1);
	size_t i, o = 0;

	for (i = 0; i < n; i++) {
		if (s[i] == '\\' && i + 1 < n)
			i++;
		out[o++] = s[i];
	}
	out[o] = 0;
	return out;
}

static int add(struct pd_pg_secret *out, int n, int max,
	       struct pd_pg_secret one)
{
	if (n >= max)
		return n;
	out[n] = one;
	return n + 1;
}

/* The password= parameters of a URL's query (from its '?'). */
static int query_secrets(const char *s, const char *q, struct pd_pg_secret *out,
			 int n, int max)
{
	const char *p = q + 1;

	while (*p) {
		size_t plen = strcspn(p, "&");
		const char *eq = memchr(p, '=', plen);

		if (eq) {
			char *key = percent_decoded(p, (size_t)(eq - p));
			size_t at = (size_t)(eq + 1 - s);
			size_t len = plen - (size_t)(eq + 1 - p);

			if (!strcmp(key, "password"))
				/* the parameter, and one separator of it */
				n = add(out, n, max,
					(struct pd_pg_secret){
					    .at = at,
					    .len = len,
					    .cut = (size_t)(p - s) -
						   (p[plen] != '&'),
					    .cut_len = plen + 1,
					    .url = 1 });
			free(key);
		}
		p += plen;
		if (*p == '&')
			p++;
	}
	return n;
}

/* Whether the '?' at q opens a query: a key (perhaps encoded), then '='. */
static int opens_query(const char *q)
{
	size_t k = strspn(q + 1, "abcdefghijklmnopqrstuvwxyz"
				 "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_%");

	return k > 0 && q[1 + k] == '=';
}

/*
 * libpq reads the user information up to the first '@' met before any
 * '/' (a '?' does not end it), the user up to its first ':', the password
 * after it. What a person meant can be longer: user:pa@ss@host (libpq
 * reads a host "ss@host") or user:pa/ss@host (libpq reads no password
 * at all, host "user", port "pa"); so the password hidden runs to the
 * last '@' before the query (a '?' then a key and '=', after libpq's
 * user information), whose values may hold an '@' of their own
 * (user=me@corp).
 */
static int url_secrets(const char *s, const char *u, struct pd_pg_secret *out,
		       int max)
{
	const char *first = memchr(u, '@', strcspn(u, "/"));
	const char *q = first ? first : u, *at = NULL, *p, *colon;
	int n = 0;

	while ((q = strchr(q, '?')) && !opens_query(q))
		q++;
	for (p = u; *p && p != q; p++)
		if (*p == '@')
			at = p;
	if (at) {
		colon = memchr(u, ':', (size_t)(at - u));
		if (colon)
			n = add(out, n, max,
				(struct pd_pg_secret){
				    .at = (size_t)(colon + 1 - s),
				    .len = (size_t)(at - colon - 1),
				    .cut = (size_t)(colon - s),
				    .cut_len = (size_t)(at - colon),
				    .url = 1,
				    .userinfo = 1 });
	}
	q = strchr(at ? at + 1 : u, '?');
	return q ? query_secrets(s, q, out, n, max) : n;
}

/* libpq's key=value list: key = value, the value bare or in '...'. */
static int kv_secrets(const char *s, struct pd_pg_secret *out, int max)
{
	const char *p = s;
	int n = 0;

	for (;;) {
		const char *key, *val, *end;
		size_t klen;
		int quoted;

		while (isspace((unsigned char)*p))
			p++;
		if (!*p)
			break;
		key = p;
		while (*p && *p != '=' && !isspace((unsigned char)*p))
			p++;
		klen = (size_t)(p - key);
		while (isspace((unsigned char)*p))
			p++;
		if (*p != '=')
			break;
		p++;
		while (isspace((unsigned char)*p))
			p++;
		quoted = *p == '\'';
		val = p + quoted;
		for (p = val;
		     *p && (quoted ? *p != '\'' : !isspace((unsigned char)*p));
		     p++)
			if (*p == '\\' && p[1])
				p++;
		end = p;
		if (quoted && *p == '\'')
			p++;
		if (klen == 8 && !strncmp(key, "password", 8)) {
			const char *c = p;

			while (isspace((unsigned char)*c))
				c++;
			n = add(out, n, max,
				(struct pd_pg_secret){
				    .at = (size_t)(val - s),
				    .len = (size_t)(end - val),
				    .cut = (size_t)(key - s),
				    .cut_len = (size_t)(c - key) });
		}
	}
	return n;
}

int pd_pg_secrets(const char *s, struct pd_pg_secret *out, int max)
{
	const char *a = strstr(s, "postgresql://"),
		   *b = strstr(s, "postgres://");

	if (a && b)
		a = a < b ? a : b;
	else if (!a)
		a = b;
	if (a)
		return url_secrets(s, strstr(a, "://") + 3, out, max);
	return kv_secrets(s, out, max);
}

size_t pd_pg_mask(char *arg)
{
	struct pd_pg_secret sp[PD_PG_SECRETS_MAX];
	int n = pd_pg_secrets(arg, sp, PD_PG_SECRETS_MAX), i;
	size_t hid = 0;

	for (i = 0; i < n; i++) {
		memset(arg + sp[i].at, 'x', sp[i].len);
		hid += sp[i].len;
	}
	return hid;
}

char *pd_pg_display(const char *target)
{
	struct pd_pg_secret sp[PD_PG_SECRETS_MAX];
	char *s = pd_xstrdup(target);
	int n = pd_pg_secrets(s, sp, PD_PG_SECRETS_MAX);

	/* from the last, so the places of the earlier ones hold */
	while (n-- > 0) {
		char *c = s + sp[n].cut;

		memmove(c, c + sp[n].cut_len, strlen(c + sp[n].cut_len) + 1);
	}
	return s;
}

const char *pd_pg_hint(const char *target)
{
	struct pd_pg_secret sp[PD_PG_SECRETS_MAX];
	int n = pd_pg_secrets(target, sp, PD_PG_SECRETS_MAX), i;

	for (i = 0; i < n; i++) {
		const char *p = target + sp[i].at;
		int slash = memchr(p, '/', sp[i].len) != NULL;
		int at = memchr(p, '@', sp[i].len) != NULL;

		if (!sp[i].userinfo || !(slash || at))
			continue;
		return slash && at ? "write '/' and '@' in the URL's password"
				     " as %2F and %40"
		       : slash	   ? "write '/' in the URL's password as %2F"
				   : "write '@' in the URL's password as %40";
	}
	return NULL;
}

/*
 * Where libpq's URI reader cuts a string into a user, hosts, ports, a
 * database and parameters: a password holding one of these comes out in
 * pieces, each of which a message may quote alone.
 */
#define CUTS "/?#@:,&=[]"

static void add_word(char ***w, size_t *n, const char *p, size_t len)
{
	size_t i;

	if (!len)
		return;
	for (i = 0; i < *n; i++)
		if (strlen((*w)[i]) == len && !memcmp((*w)[i], p, len))
			return;
	*w = pd_xrealloc(*w, (*n + 2) * sizeof(**w));
	(*w)[(*n)++] = pd_xstrndup(p, len);
	(*w)[*n] = NULL;
}

static int is_cut(char c)
{
	return c && strchr(CUTS, c) != NULL;
}

/*
 * Every span of p[0..len) that starts at its start or after a cut and
 * ends at a cut or its end: "ab:cd/ef" gives "ab", "ab:cd", "cd/ef"...,
 * each as libpq may read it into one value.
 */
static void add_spans(char ***w, size_t *n, const char *p, size_t len)
{
	size_t i, j;

	for (i = 0; i < len; i++) {
		if (i && !is_cut(p[i - 1]))
			continue;
		for (j = i; j <= len; j++)
			if (j == len || is_cut(p[j]))
				add_word(w, n, p + i, j - i);
	}
}

/* Longest first, so that a piece never splits a longer word's copy. */
static int longer_first(const void *a, const void *b)
{
	size_t la = strlen(*(char *const *)a), lb = strlen(*(char *const *)b);

	return la > lb ? -1 : la < lb;
}

char **pd_pg_words(const char *target)
{
	struct pd_pg_secret sp[PD_PG_SECRETS_MAX];
	int k = pd_pg_secrets(target, sp, PD_PG_SECRETS_MAX), i;
	char **w = pd_xcalloc(1, sizeof(*w));
	size_t n = 0;

	for (i = 0; i < k; i++) {
		const char *raw = target + sp[i].at;
		char *dec = sp[i].url ? percent_decoded(raw, sp[i].len)
				      : unescaped(raw, sp[i].len);

		add_spans(&w, &n, raw, sp[i].len);
		add_spans(&w, &n, dec, strlen(dec));
		free(dec);
	}
	qsort(w, n, sizeof(*w), longer_first);
	return w;
}

void pd_pg_words_free(char **words)
{
	size_t i;

	for (i = 0; words && words[i]; i++)
		free(words[i]);
	free(words);
}

/*
 * A word this short is hidden only where it stands alone: inside a longer
 * run of letters and digits ("on" in "option") it is the message's own.
 */
#define SHORT_WORD 3

static int alone(const char *s, const char *p, size_t len)
{
	return (p == s || !isalnum((unsigned char)p[-1])) &&
	       !isalnum((unsigned char)p[len]);
}

/* s with every copy of word replaced; s is freed, the result malloc'd. */
static char *replaced(char *s, const char *word)
{
	struct pd_buf b = PD_BUF_INIT;
	size_t len = strlen(word);
	const char *from = s, *p = s;

	while ((p = strstr(p, word))) {
		if (len < SHORT_WORD && !alone(s, p, len)) {
			p++;
			continue;
		}
		pd_buf_add(&b, from, (size_t)(p - from));
		pd_buf_adds(&b, PD_PG_HIDDEN);
		p += len;
		from = p;
	}
	pd_buf_adds(&b, from);
	free(s);
	return pd_buf_detach(&b);
}

char *pd_pg_scrubbed(const char *msg, char *const *words)
{
	char *s = pd_xstrdup(msg ? msg : "");
	size_t i;

	for (i = 0; words && words[i]; i++)
		s = replaced(s, words[i]);
	return s;
}
