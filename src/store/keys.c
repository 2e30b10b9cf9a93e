/*
 * A command's scenario, cache state and tool checked against the keys the
 * history holds (store/keys.h): a typo is named with what exists and the
 * nearest name, instead of "no stored runs".
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/vec.h"
#include "core/xalloc.h"
#include "store/commit.h"
#include "store/keys.h"

/* At most this many names in a message; the rest are counted. */
#define NAMES_SAID 20

struct key {
	char *f[3]; /* scenario, cache, tool */
};

typedef PD_VEC(struct key) key_vec;

static const char *const field_name[3] = { "scenario", "cache state", "tool" };

static void keys_release(key_vec *k)
{
	size_t i;
	int j;

	for (i = 0; i < k->n; i++)
		for (j = 0; j < 3; j++)
			free(k->v[i].f[j]);
	PD_VEC_FREE(k);
}

/* The distinct keys of the history, or of commit sha. */
static int load_keys(struct pd_db *db, const char *sha, key_vec *k,
		     struct pd_err *err)
{
	struct pd_st *st = pd_db_stmt(db, "q_keys", err);
	int s, j;

	if (!st)
		return PD_EIO;
	if (sha)
		pd_st_text(st, 1, sha);
	while ((s = pd_st_step(st)) == PD_ST_ROW) {
		struct key r;

		for (j = 0; j < 3; j++)
			r.f[j] = pd_xstrdup(pd_st_col_text(st, j));
		PD_VEC_PUSH(k, r);
	}
	pd_st_reset(st);
	return s == PD_ST_DONE ? 0 : pd_db_fail(db, err, "reading the keys");
}

/* Whether row r has the given fields (NULL: any) before field upto. */
static int fits(const struct key *r, const char *const *want, int upto)
{
	int j;

	for (j = 0; j < upto; j++)
		if (want[j] && strcmp(r->f[j], want[j]))
			return 0;
	return 1;
}

/*
 * The values of field f among the keys with the fields before it, as a
 * list into out; the one nearest to want, within two edits (a swap of
 * two letters is two) and one for a name of three letters or less, in
 * *best (or NULL).
 */
static void values(const key_vec *k, const char *const *want, int f,
		   struct pd_buf *out, const char **best)
{
	size_t i, j, n = 0, bd = strlen(want[f]) >= 4 ? 3 : 2;

	*best = NULL;
	for (i = 0; i < k->n; i++) {
		const char *v = k->v[i].f[f];
		size_t d;

		if (!fits(&k->v[i], want, f))
			continue;
		for (j = 0; j < i; j++)
			if (fits(&k->v[j], want, f) && !strcmp(k->v[j].f[f], v))
				break;
		if (j < i)
			continue; /* said already */
		if (n++ < NAMES_SAID)
			pd_buf_addf(out, "%s%s", n > 1 ? ", " : "", v);
		d = pd_edit_distance(want[f], v);
		if (d < bd) {
			bd = d;
			*best = v;
		}
	}
	if (n > NAMES_SAID)
		pd_buf_addf(out, " and %zu more", n - NAMES_SAID);
}

/*
 * Field f of want is not among the keys k (of commit sha when not NULL):
 * the message.
 */
static int missing(struct pd_db *db, const char *sha, const key_vec *k,
		   const char *const *want, int f, struct pd_err *err)
{
	struct pd_buf where = PD_BUF_INIT, have = PD_BUF_INIT;
	const char *best;
	int rc;

	if (f == 1 && want[0])
		pd_buf_addf(&where, " in scenario %s", want[0]);
	else if (f == 2 && want[0])
		pd_buf_addf(&where, " in %s%s%s", want[0], want[1] ? "/" : "",
			    want[1] ? want[1] : "");
	else if (f == 2 && want[1])
		pd_buf_addf(&where, " in cache state %s", want[1]);
	values(k, want, f, &have, &best);
	if (sha)
		pd_buf_addf(&where, " of commit %.12s", sha);
	if (!have.len)
		pd_buf_adds(&have, "none");
	rc =
	    pd_err_set(err, PD_EINVAL, "%s: no %s '%s'%s%s%s%s (the %s has %s)",
		       db->path, field_name[f], want[f], where.buf,
		       best ? "; did you mean '" : "", best ? best : "",
		       best ? "'?" : "", sha ? "commit" : "history", have.buf);
	pd_buf_release(&where);
	pd_buf_release(&have);
	return rc;
}

int pd_store_check_key(struct pd_db *db, const struct pd_hkey *key,
		       struct pd_err *err)
{
	const char *sha = key->sha;
	const char *const want[3] = { key->scenario, key->cache, key->tool };
	key_vec k = PD_VEC_INIT;
	int rc = 0, level, f;

	/* a commit as stored: other text would find no keys, silently */
	assert(!sha || pd_sha_is_hex(sha));
	/* the history first: a typo is one there too */
	for (level = 0; rc == 0 && level < (sha ? 2 : 1); level++) {
		size_t i;

		keys_release(&k);
		rc = load_keys(db, level ? sha : NULL, &k, err);
		for (f = 0; rc == 0 && f < 3; f++) {
			if (!want[f])
				continue;
			for (i = 0; i < k.n && !fits(&k.v[i], want, f + 1); i++)
				;
			if (i == k.n)
				rc = missing(db, level ? sha : NULL, &k, want,
					     f, err);
		}
	}
	keys_release(&k);
	return rc;
}
