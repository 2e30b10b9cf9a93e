/*
 * Finding what the history holds for a side of a comparison: a stored
 * commit by its sha or prefix (load.h), whether a commit has runs, and
 * the cache states and tools stored for it.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "store/commit.h"
#include "store/keys.h"
#include "store/load.h"
#include "store/load_int.h"
#include "store/store.h"

/*
 * The commits statement q finds for prefix (q_revs, q_revs_short): the
 * first in *sha (owned), the first ten in list, their number in *n.
 */
static int revs(struct pd_db *db, const char *q, const char *prefix,
		const char *scenario, const char *cache, char **sha,
		struct pd_buf *list, int *n, struct pd_err *err)
{
	struct pd_st *st = pd_db_stmt(db, q, err);
	struct pd_buf end = PD_BUF_INIT;
	int rc;

	if (!st)
		return PD_EIO;
	pd_st_text(st, 1, prefix);
	pd_st_text(st, 2, scenario);
	if (cache)
		pd_st_text(st, 3, cache);
	if (!strcmp(q, "q_revs")) { /* the end of the prefix's range */
		pd_buf_addf(&end, "%s\xf4\x8f\xbf\xbf", prefix); /* U+10FFFF */
		pd_st_text(st, 4, end.buf);
		pd_buf_release(&end);
	}
	while ((rc = pd_st_step(st)) == PD_ST_ROW) {
		const char *s = pd_st_col_text(st, 0);

		if (!(*n)++)
			*sha = pd_xstrdup(s);
		if (*n <= 10)
			pd_buf_addf(list, "%s%.12s", list->len ? ", " : "", s);
	}
	pd_st_reset(st);
	return rc == PD_ST_DONE ? 0
				: pd_db_fail(db, err, "resolving a revision");
}

/*
 * No commit found: the scenario or cache state that is not stored, a
 * name git would have to resolve, or the commit that has no such runs.
 */
static int no_commit(struct pd_db *db, const char *prefix, const char *scenario,
		     const char *cache, struct pd_err *err)
{
	const struct pd_hkey k = { NULL, scenario, cache, NULL };
	int rc = pd_store_check_key(db, &k, err);

	if (rc < 0)
		return rc;
	if (strspn(prefix, "0123456789abcdefABCDEF") != strlen(prefix))
		return pd_err_set(err, PD_EINVAL,
				  "%s: '%s' is not a stored sha prefix; a name"
				  " such as HEAD~1 needs --repo DIR to be"
				  " resolved by git",
				  db->path, prefix);
	return pd_err_set(
	    err, PD_EINVAL,
	    "%s: no stored runs of commit '%s' in scenario %s%s%s", db->path,
	    prefix, scenario, cache ? "/" : "", cache ? cache : "");
}

int pd_store_resolve(struct pd_db *db, const char *prefix,
		     const struct pd_hkey *series, char **sha,
		     struct pd_err *err)
{
	const char *scenario = series->scenario, *cache = series->cache;
	struct pd_buf list = PD_BUF_INIT;
	int rc, n = 0;

	*sha = NULL;
	rc = revs(db, "q_revs", prefix, scenario, cache, sha, &list, &n, err);
	/* a full id git gave, stored by a prefix of it */
	if (rc == 0 && n == 0 && strlen(prefix) == 40 && pd_sha_is_hex(prefix))
		rc = revs(db, "q_revs_short", prefix, scenario, cache, sha,
			  &list, &n, err);
	if (rc == 0 && n == 0)
		rc = no_commit(db, prefix, scenario, cache, err);
	else if (rc == 0 && n > 1) {
		if (n > 10)
			pd_buf_addf(&list, " and %d more", n - 10);
		rc = pd_err_set(err, PD_EINVAL, "%s: '%s' is ambiguous: %s",
				db->path, prefix, list.buf);
	}
	if (rc < 0) {
		free(*sha);
		*sha = NULL;
	}
	pd_buf_release(&list);
	return rc;
}

int pd_store_has_runs(struct pd_db *db, const struct pd_hkey *k, char **sha,
		      struct pd_err *err)
{
	const char *full = k->sha, *scenario = k->scenario, *cache = k->cache,
		   *tool = k->tool;
	struct pd_buf list = PD_BUF_INIT;
	struct pd_st *st;
	int rc, n = 0, found = 0;

	/* git's full id: a prefix would match other commits' runs */
	assert(strlen(full) == 40 && pd_sha_is_hex(full) && scenario);
	*sha = NULL;
	rc = revs(db, "q_revs", full, scenario, cache, sha, &list, &n, err);
	if (rc == 0 && n == 0)
		rc = revs(db, "q_revs_short", full, scenario, cache, sha, &list,
			  &n, err);
	pd_buf_release(&list);
	if (rc < 0 || n == 0 || !tool)
		return rc < 0 ? rc : n > 0;
	/* the tool too: some run of the cache state given has it */
	st = pd_db_stmt(db, "q_caches", err);
	if (!st)
		rc = PD_EIO;
	if (st) {
		pd_st_text(st, 1, *sha);
		pd_st_text(st, 2, scenario);
		while ((rc = pd_st_step(st)) == PD_ST_ROW)
			found |=
			    (!cache || !strcmp(cache, pd_st_col_text(st, 0))) &&
			    !strcmp(tool, pd_st_col_text(st, 1));
		pd_st_reset(st);
		rc = rc == PD_ST_DONE ? 0 : pd_db_fail(db, err, "listing runs");
	}
	if (rc < 0 || !found) {
		free(*sha);
		*sha = NULL;
	}
	return rc < 0 ? rc : found;
}

/* Whether name is one of list's ", "-separated names. */
static int listed(const struct pd_buf *list, const char *name)
{
	size_t n = strlen(name);
	const char *p = list->len ? list->buf : NULL;

	while (p) {
		const char *end = strstr(p, ", ");
		size_t len = end ? (size_t)(end - p) : strlen(p);

		if (len == n && !memcmp(p, name, n))
			return 1;
		p = end ? end + 2 : NULL;
	}
	return 0;
}

int pd_store_settle(struct pd_db *db, struct pd_hkey *key, char **cache_out,
		    char **tool_out, struct pd_err *err)
{
	const char *sha = key->sha, *scenario = key->scenario;
	const char **cache = &key->cache, **tool = &key->tool;
	struct pd_st *st = pd_db_stmt(db, "q_caches", err);
	struct pd_buf caches = PD_BUF_INIT, tools = PD_BUF_INIT;
	char *c1 = NULL, *t1 = NULL;
	int rc, nc = 0, nt = 0;

	if (!st)
		return PD_EIO;
	pd_st_text(st, 1, sha);
	pd_st_text(st, 2, scenario);
	while ((rc = pd_st_step(st)) == PD_ST_ROW) {
		const char *c = pd_st_col_text(st, 0);
		const char *t = pd_st_col_text(st, 1);

		if ((!*cache || !strcmp(*cache, c)) && !listed(&caches, c)) {
			if (!c1)
				c1 = pd_xstrdup(c);
			pd_buf_addf(&caches, "%s%s", caches.len ? ", " : "", c);
			nc++;
		}
		if ((!*cache || !strcmp(*cache, c)) &&
		    (!*tool || !strcmp(*tool, t)) && !listed(&tools, t)) {
			if (!t1)
				t1 = pd_xstrdup(t);
			pd_buf_addf(&tools, "%s%s", tools.len ? ", " : "", t);
			nt++;
		}
	}
	pd_st_reset(st);
	rc = rc == PD_ST_DONE ? 0 : pd_db_fail(db, err, "listing runs");
	if (!rc && nc > 1)
		rc = pd_err_set(err, PD_EINVAL,
				"commit %.12s has %s runs; pass --cache", sha,
				caches.buf);
	if (!rc && nt > 1)
		rc = pd_err_set(err, PD_EINVAL,
				"commit %.12s has runs of several tools (%s);"
				" pass --tool",
				sha, tools.buf);
	/* a tool (or cache state) that is not stored, or not for sha */
	if (!rc && (!nc || !nt)) {
		const struct pd_hkey k = { sha, scenario, *cache, *tool };

		rc = pd_store_check_key(db, &k, err);
	}
	if (!rc && (!nc || !nt))
		rc = pd_err_set(
		    err, PD_EINVAL, "commit %.12s has no runs of %s%s%s%s", sha,
		    scenario, *cache ? "/" : "", *cache ? *cache : "",
		    *tool ? " with that tool" : "");
	if (!rc) {
		*cache_out = c1;
		*tool_out = t1;
		*cache = c1;
		*tool = t1;
		c1 = t1 = NULL;
	}
	free(c1);
	free(t1);
	pd_buf_release(&caches);
	pd_buf_release(&tools);
	return rc;
}
