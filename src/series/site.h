/*
 * The history as a static site (site.c; its pages are rendered by
 * report/site.c, its comparisons made by compare/). Nothing here prints:
 * errors come back in struct pd_err.
 */
#ifndef PD_SERIES_SITE_H
#define PD_SERIES_SITE_H

#include <stdio.h>

#include "core/buf.h"
#include "core/compat.h"
#include "core/err.h"
#include "core/vec.h"
#include "report/site.h"
#include "stats/trend.h"
#include "store/db.h"

struct pd_site {
	const char *dir, *db, *commit_url;
	const char *repo; /* --repo: series in git's order, or NULL */
	char **order;	  /* that order's shas, oldest first */
	size_t norder;
	size_t last;  /* commits per series; 0 all */
	size_t pages; /* latest commits with a comparison page; 0 all */
	int rebuild;  /* make every comparison page again */
	PD_VEC(struct pd_site_key) keys;
	PD_VEC(struct pd_site_series) series;
	PD_VEC(char *) old, now; /* comparison pages: "path\tsource" */
	size_t made, kept;
};

/*
 * The longest name a page's file or folder gets from a name (before
 * ".html"): file systems take 255 bytes, and the page's temporary name
 * adds 11.
 */
#define PD_SITE_NAME_MAX 200

/* s appended to b as a safe file name, _XX per byte that is not. */
void pd_site_slug(struct pd_buf *b, const char *s);
/*
 * Shortens the slug that b holds from byte from on to at most
 * PD_SITE_NAME_MAX bytes when it is longer or force is set: its start,
 * then "_h" and 16 hex digits of the SHA-256 of the n bytes of whole
 * (what the slug stands for). A slug never holds "_h" otherwise, so the
 * shortened name is no other slug.
 */
void pd_site_slug_bound(struct pd_buf *b, size_t from, const void *whole,
			size_t n, int force);
/*
 * Writes the site into s->dir (made when missing): 0, or -1 with err set.
 * s->made and s->kept count the comparison pages made and kept.
 */
PD_NODISCARD int pd_site_build(struct pd_site *s, struct pd_err *err);
void pd_site_release(struct pd_site *s);
/* The series of the history into s->keys and s->series; 0 or -1. */
PD_NODISCARD int pd_site_keys(struct pd_db *db, struct pd_site *s,
			      struct pd_err *err);

#endif
