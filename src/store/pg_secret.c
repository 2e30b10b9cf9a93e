/*
 * Passwords in PostgreSQL connection strings (pg_secret.h): found by the
 * rules of libpq's parsers (its URI reader and its key=value reader),
 * then masked, cut or scrubbed.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

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

static int add(struct pd_pg_secret *out, int n, int max, size_t at, size_t len,
	       size_t cut, size_t cut_len, int url)
{
	if (n >= max)
		return n;
	out[n].at = at;
	out[n].len = len;
	out[n].cut = cut;
	out[n].cut_len = cut_len;
	out[n].url = url;
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
				n = p[plen] == '&'
					? add(out, n, max, at, len,
					      (size_t)(p - s), plen + 1, 1)
					: add(out, n, max, at, len,
					      (size_t)(p - 1 - s), plen + 1, 1);
			free(key);
		}
		p += plen;
		if (*p == '&')
			p++;
	}
	return n;
}

/*
 * libpq reads the user information up to the first '@' met before any
 * '/' (a '?' does not end it), the user up to its first ':', the password
 * after it. What a person meant can be longer: user:pa@ss@host (libpq
 * reads a host "ss@host") or user:pa/ss@host (libpq reads no password
 * at all, port "pa"); so the password hidden runs to the last '@' before
 * the first '/', or when there is none, to the last '@' of all.
 */
static int url_secrets(const char *s, const char *u, struct pd_pg_secret *out,
		       int max)
{
	const char *slash = u + strcspn(u, "/"), *at = NULL, *p, *colon;
	const char *rest = u;
	int n = 0;

	for (p = u; p < slash; p++)
		if (*p == '@')
			at = p;
	if (!at)
		at = strrchr(slash, '@');
	if (at) {
		colon = memchr(u, ':', (size_t)((at < slash ? at : slash) - u));
		if (colon)
			n = add(out, n, max, (size_t)(colon + 1 - s),
				(size_t)(at - colon - 1), (size_t)(colon - s),
				(size_t)(at - colon), 1);
		rest = at + 1;
	}
	rest = strchr(rest, '?');
	return rest ? query_secrets(s, rest, out, n, max) : n;
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
			n = add(out, n, max, (size_t)(val - s),
				(size_t)(end - val), (size_t)(key - s),
				(size_t)(c - key), 0);
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

static void add_word(char ***w, size_t *n, const char *p, size_t len)
{
	size_t i;

	if (len < 3)
		return;
	for (i = 0; i < *n; i++)
		if (strlen((*w)[i]) == len && !memcmp((*w)[i], p, len))
			return;
	*w = pd_xrealloc(*w, (*n + 2) * sizeof(**w));
	(*w)[(*n)++] = pd_xstrndup(p, len);
	(*w)[*n] = NULL;
}

char **pd_pg_words(const char *target)
{
	struct pd_pg_secret sp[PD_PG_SECRETS_MAX];
	int k = pd_pg_secrets(target, sp, PD_PG_SECRETS_MAX), i;
	char **w = pd_xcalloc(1, sizeof(*w));
	size_t n = 0;

	for (i = 0; i < k; i++) {
		const char *raw = target + sp[i].at, *p = raw;
		char *dec = sp[i].url ? percent_decoded(raw, sp[i].len)
				      : unescaped(raw, sp[i].len);

		add_word(&w, &n, raw, sp[i].len);
		add_word(&w, &n, dec, strlen(dec));
		free(dec);
		/* the pieces libpq reads as a port, a host or a name */
		while (sp[i].url && p < raw + sp[i].len) {
			size_t l = strcspn(p, "/?@");

			if (l > sp[i].len - (size_t)(p - raw))
				l = sp[i].len - (size_t)(p - raw);
			if (l < sp[i].len)
				add_word(&w, &n, p, l);
			p += l + 1;
		}
	}
	return w;
}

void pd_pg_words_free(char **words)
{
	size_t i;

	for (i = 0; words && words[i]; i++)
		free(words[i]);
	free(words);
}

void pd_pg_scrub(char *msg, char *const *words)
{
	size_t i;

	for (i = 0; msg && words && words[i]; i++) {
		size_t len = strlen(words[i]);
		char *p = msg;

		while ((p = strstr(p, words[i]))) {
			memset(p, 'x', len);
			p += len;
		}
	}
}
