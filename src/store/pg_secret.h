/*
 * Where a PostgreSQL connection string keeps its password, found by
 * libpq's own reading of it (docs/history.md, "Backends"), so that it can
 * be hidden from ps, cut out of what perfdiff prints and scrubbed from
 * libpq's messages, which may quote it back.
 */
#ifndef PD_PG_SECRET_H
#define PD_PG_SECRET_H

#include <stddef.h>

/* One password: its characters as written, and the part a display drops. */
struct pd_pg_secret {
	size_t at, len;	     /* the password as written in the string */
	size_t cut, cut_len; /* ":password" or "password=...&" */
	int url;	     /* 1: percent-encoded, 0: key=value quoting */
	int userinfo;	     /* 1: a URL's user:password@, 0: a parameter */
};

#define PD_PG_SECRETS_MAX 8

/*
 * The passwords of s: a postgresql:// (or postgres://) URL anywhere in s
 * (its user information as the user meant it: from the first ':' to the
 * last '@' before the query, which may be past libpq's first '@' and
 * past a raw '/'; and every password= parameter), else a key=value list
 * (password=..., quoted or not).
 * Returns how many were found, at most max, in the order they come.
 */
int pd_pg_secrets(const char *s, struct pd_pg_secret *out, int max);

/* Overwrites the passwords in arg with x's; how many characters it hid. */
size_t pd_pg_mask(char *arg);

/* target without its passwords, for messages; the caller frees it. */
char *pd_pg_display(const char *target);

/*
 * What to tell the user when the URL's password holds a raw '/' or '@',
 * which libpq cannot read as part of it (a static string), else NULL.
 */
const char *pd_pg_hint(const char *target);

/*
 * Every password of target as written and as libpq decodes it (percent
 * escapes, quotes and backslashes), and each span of either between the
 * characters libpq's URI reader cuts at ('/', '?', '#', '@', ':', ',',
 * '&', '=', '[', ']'), which it may read alone as a host, a port or a
 * name; longest first, as a NULL-terminated array the caller frees with
 * pd_pg_words_free.
 */
char **pd_pg_words(const char *target);
void pd_pg_words_free(char **words);

/* What a scrubbed message shows in place of a word. */
#define PD_PG_HIDDEN "***"

/*
 * msg (NULL reads as "") with every copy of a word replaced by
 * PD_PG_HIDDEN; a word shorter than three characters only where it stands
 * alone, not inside a longer run of letters and digits. The caller frees
 * the result.
 */
char *pd_pg_scrubbed(const char *msg, char *const *words);

#endif
