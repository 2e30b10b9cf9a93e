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
};

#define PD_PG_SECRETS_MAX 8

/*
 * The passwords of s: a postgresql:// (or postgres://) URL anywhere in s
 * (its user information as libpq reads it, up to the first '@' before
 * any '/'; when a '/' comes first but an '@' follows, a password holding
 * a raw '/' is assumed, up to the last '@'; and every password=
 * parameter), else a key=value list (password=..., quoted or not).
 * Returns how many were found, at most max, in the order they come.
 */
int pd_pg_secrets(const char *s, struct pd_pg_secret *out, int max);

/* Overwrites the passwords in arg with x's; how many characters it hid. */
size_t pd_pg_mask(char *arg);

/* target without its passwords, for messages; the caller frees it. */
char *pd_pg_display(const char *target);

/*
 * Every password of target as written and as libpq decodes it (percent
 * escapes, quotes and backslashes), at least three characters long (a
 * shorter one would garble messages and hides nothing), as a
 * NULL-terminated array the caller frees with pd_pg_words_free.
 */
char **pd_pg_words(const char *target);
void pd_pg_words_free(char **words);

/* Overwrites with x's every copy of a word in the string msg. */
void pd_pg_scrub(char *msg, char *const *words);

#endif
