/*
 * Which stored runs a bundle's files are (docs/history.md, "Ingest"):
 * files found by the SHA-256 of their bytes (or, in a history from
 * before schema 5, by their bundle), each taken as its own stored run
 * from this folder, as a copy of one stored from another, or as a new
 * run; and the own runs given the key and metadata their bundle gives
 * now.
 */
/* realpath(): XSI, a superset of the POSIX level the build asks for. */
#define _XOPEN_SOURCE 700

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/buf.h"
#include "store/ingest_int.h"

static char *col_dup(struct pd_st *st, int c)
{
	return pd_st_isnull(st, c) ? NULL : pd_xstrdup(pd_st_col_text(st, c));
}

static void stored_release(struct stored_run *r)
{
	free(r->sha);
	free(r->scenario);
	free(r->cache);
	free(r->source);
	free(r->build_meta);
	free(r->commit_date);
	free(r->run_date);
	free(r->host);
	free(r->bundle_hash);
	free(r->bundle_path);
}

void pd_match_release(struct match *m)
{
	size_t i;

	for (i = 0; i < m->runs.n; i++)
		stored_release(&m->runs.v[i]);
	PD_VEC_FREE(&m->runs);
	free(m->run);
	free(m->kind);
	memset(m, 0, sizeof(*m));
}

char *pd_match_place(const char *path)
{
	char real[PATH_MAX];

	return pd_xstrdup(realpath(path, real) ? real : path);
}

/*
 * Where the bundle stored from stored is: this one at path (the same
 * string or the same real path), gone (as a renamed folder is), or
 * another that is still there.
 */
static int place_of(const char *stored, const char *path)
{
	char a[PATH_MAX], c[PATH_MAX];
	struct stat st;

	if (!strcmp(stored, path) ||
	    (realpath(stored, a) && realpath(path, c) && !strcmp(a, c)))
		return PLACE_SAME;
	if (stat(stored, &st) != 0 && errno == ENOENT)
		return PLACE_GONE;
	return PLACE_OTHER;
}

typedef PD_VEC(struct stored_run) run_vec;

/* The rows of st (q_file_runs' columns) as candidates, seen from path. */
static int add_rows(struct pd_db *db, struct pd_st *st, const char *path,
		    run_vec *c, struct pd_err *err)
{
	int s;

	while ((s = pd_st_step(st)) == PD_ST_ROW) {
		struct stored_run r;

		memset(&r, 0, sizeof(r));
		r.id = pd_st_col_i64(st, 0);
		r.sha = col_dup(st, 1);
		r.scenario = col_dup(st, 2);
		r.cache = col_dup(st, 3);
		r.source = col_dup(st, 4);
		r.build_meta = col_dup(st, 5);
		r.commit_date = col_dup(st, 6);
		r.run_date = col_dup(st, 7);
		r.host = col_dup(st, 8);
		r.bundle_hash = col_dup(st, 9);
		r.bundle_path = col_dup(st, 10);
		if (r.sha && r.scenario && r.cache && r.source &&
		    r.bundle_hash && r.bundle_path) {
			r.place = place_of(r.bundle_path, path);
			PD_VEC_PUSH(c, r);
		} else { /* only damage makes NULLs of them */
			stored_release(&r);
		}
	}
	pd_st_reset(st);
	return s < 0 ? pd_db_fail(db, err, "looking up a profile") : 0;
}

/* The runs stored from file i's bytes, and run extra (a legacy one). */
static int candidates(struct pd_db *db, const struct pd_bundle *b,
		      const char *path, size_t i, int64_t extra, run_vec *c,
		      struct pd_err *err)
{
	struct pd_st *st = pd_db_stmt(db, "q_file_runs", err);
	int rc;

	if (!st)
		return PD_EIO;
	pd_st_text(st, 1, b->files.v[i].hash);
	rc = add_rows(db, st, path, c, err);
	if (rc < 0 || !extra)
		return rc;
	if (!(st = pd_db_stmt(db, "q_run_info", err)))
		return PD_EIO;
	pd_st_i64(st, 1, extra);
	return add_rows(db, st, path, c, err);
}

static int taken(const struct match *m, const struct pd_bundle *b, int64_t id)
{
	size_t i;

	for (i = 0; i < b->files.n; i++)
		if (m->run[i] == id)
			return 1;
	return 0;
}

/*
 * How well stored run c fits file i: its own run from this folder under
 * the same key (the best), or the same commit and scenario (its cache
 * state given now); a copy stored from another folder under the same
 * key; its own run under another sha or scenario (moved with --rekey,
 * else refused); or none (0), when the bytes are a run of another key
 * from another folder. The file's own name breaks ties.
 */
static int fit(const struct stored_run *c, const struct pd_bundle *b, size_t i,
	       int rekey)
{
	const struct pd_bundle_file *f = &b->files.v[i];
	size_t n =
	    strlen(c->sha) < strlen(b->sha) ? strlen(c->sha) : strlen(b->sha);
	/* a prefix and its full id are one commit (merged on writing) */
	int build =
	    !strncmp(c->sha, b->sha, n) && !strcmp(c->scenario, b->scenario);
	int key = build && !strcmp(c->cache, f->cache);
	int own = c->place == PLACE_SAME || (rekey && c->place == PLACE_GONE);
	int s = own && key     ? 10
		: own && build ? 8
		: key	       ? 6
		: own && rekey ? 4
		: own	       ? 2
			       : 0;

	return s ? s + !strcmp(c->source, f->rel) : 0;
}

/* Stored from this folder under another sha or scenario: refused. */
static int refuse(const struct pd_bundle *b, const char *path,
		  const struct stored_run *r, struct pd_err *err)
{
	return pd_err_set(err, PD_EINVAL,
			  "%s: %s is stored already from this folder as"
			  " %.12s %s, and now it says %.12s %s: pass --rekey"
			  " to move its runs there, or put new profiles in a"
			  " bundle folder of their own",
			  path, b->files.v[r->file].rel, r->sha, r->scenario,
			  b->sha, b->scenario);
}

/* File i among the candidates c: what it is (m->run, m->kind). */
static int choose(const struct pd_bundle *b, const char *path, size_t i,
		  run_vec *c, struct match *m, struct pd_err *err)
{
	size_t k, best = c->n;
	int bs = 0;

	for (k = 0; k < c->n; k++) {
		int s =
		    taken(m, b, c->v[k].id) ? 0 : fit(&c->v[k], b, i, m->rekey);

		if (s > bs) {
			bs = s;
			best = k;
		}
	}
	if (!bs)
		return 0;
	c->v[best].file = i;
	if (bs <= 3)
		return refuse(b, path, &c->v[best], err);
	m->prefix |= strcmp(c->v[best].sha, b->sha) != 0 && bs != 4 && bs != 5;
	m->run[i] = c->v[best].id;
	m->files++;
	if (bs == 6 || bs == 7) {
		m->kind[i] = MATCH_COPY;
		m->copies++;
		return 0;
	}
	m->kind[i] = MATCH_OWN;
	PD_VEC_PUSH(&m->runs, c->v[best]);
	c->v[best] = c->v[--c->n]; /* m owns it now */
	return 0;
}

static int match_one(struct pd_db *db, const struct pd_bundle *b,
		     const char *path, size_t i, int64_t extra, struct match *m,
		     struct pd_err *err)
{
	run_vec c = PD_VEC_INIT;
	size_t k;
	int rc = candidates(db, b, path, i, extra, &c, err);

	if (rc == 0)
		rc = choose(b, path, i, &c, m, err);
	for (k = 0; k < c.n; k++)
		stored_release(&c.v[k]);
	PD_VEC_FREE(&c);
	return rc;
}

int pd_match_file(struct pd_db *db, const struct pd_bundle *b, const char *path,
		  size_t i, struct match *m, struct pd_err *err)
{
	return match_one(db, b, path, i, 0, m, err);
}

static int put_file(struct pd_db *db, const char *hash, int64_t run,
		    struct pd_err *err)
{
	struct pd_st *st = pd_db_stmt(db, "q_file_put", err);

	if (!st)
		return PD_EIO;
	pd_st_text(st, 1, hash);
	pd_st_i64(st, 2, run);
	if (pd_st_step(st) < 0) {
		pd_st_reset(st);
		return pd_db_fail(db, err, "recording a profile's hash");
	}
	pd_st_reset(st);
	return 0;
}

int pd_match_put(struct pd_db *db, const struct pending *p, int64_t run,
		 struct pd_err *err)
{
	size_t k;
	int rc = put_file(db, p->hash, run, err);

	for (k = 0; rc == 0 && k < p->joined.n; k++)
		rc = put_file(db, p->joined.v[k], run, err);
	return rc;
}

/*
 * A bundle a history before schema 5 stored under v1 (the same bytes and
 * build_meta.json): its runs without file hashes are the files of the
 * same path, legacy[i] for file i; with adopt they are given their
 * files' hashes.
 */
static int find_v1(struct pd_db *db, const struct pd_bundle *b, const char *v1,
		   int adopt, int64_t *legacy, struct pd_err *err)
{
	struct pd_st *st = pd_db_stmt(db, "q_legacy_bundle", err);
	size_t i;
	int rc = 0, s;

	if (!st)
		return PD_EIO;
	pd_st_text(st, 1, v1);
	while ((s = pd_st_step(st)) == PD_ST_ROW) {
		const char *src = pd_st_col_text(st, 1);

		for (i = 0; i < b->files.n; i++)
			if (!b->files.v[i].skip && !legacy[i] &&
			    !strcmp(b->files.v[i].rel, src)) {
				legacy[i] = pd_st_col_i64(st, 0);
				break;
			}
	}
	pd_st_reset(st);
	if (s != PD_ST_DONE)
		return pd_db_fail(db, err, "looking up the bundle");
	for (i = 0; adopt && rc == 0 && i < b->files.n; i++)
		if (legacy[i])
			rc = put_file(db, b->files.v[i].hash, legacy[i], err);
	return rc;
}

int pd_match_files(struct pd_db *db, const struct pd_bundle *b,
		   const char *path, const char *v1, int adopt, int rekey,
		   struct match *m, struct pd_err *err)
{
	int64_t *legacy = pd_xcalloc(b->files.n + 1, sizeof(*legacy));
	size_t i;
	int rc = 0;

	memset(m, 0, sizeof(*m));
	m->run = pd_xcalloc(b->files.n + 1, sizeof(*m->run));
	m->kind = pd_xcalloc(b->files.n + 1, 1);
	m->rekey = rekey;
	if (v1)
		rc = find_v1(db, b, v1, adopt, legacy, err);
	for (i = 0; rc == 0 && i < b->files.n; i++) {
		m->v1 |= legacy[i] != 0;
		if (!b->files.v[i].skip)
			rc = match_one(db, b, path, i, adopt ? 0 : legacy[i], m,
				       err);
	}
	free(legacy);
	return rc;
}

int pd_match_legacy_any(struct pd_db *db, int *any, struct pd_err *err)
{
	struct pd_st *st = pd_db_stmt(db, "q_legacy_any", err);
	int rc;

	if (!st)
		return PD_EIO;
	rc = pd_st_step(st);
	pd_st_reset(st);
	if (rc < 0)
		return pd_db_fail(db, err, "looking into the history");
	*any = rc == PD_ST_ROW;
	return 0;
}

int pd_match_legacy_run(struct pd_db *db, const char *path,
			const struct pending *p, int64_t *run,
			struct pd_err *err)
{
	struct pd_st *st = pd_db_stmt(db, "q_legacy_run", err);
	int s;

	*run = 0;
	if (!st)
		return PD_EIO;
	pd_st_text(st, 1, p->rel);
	pd_st_text(st, 2, p->tool);
	pd_st_f64(st, 3, p->total_w);
	pd_st_f64(st, 4, p->total_n);
	/* only a run stored from this very folder */
	while ((s = pd_st_step(st)) == PD_ST_ROW)
		if (place_of(pd_st_col_text(st, 1), path) == PLACE_SAME) {
			*run = pd_st_col_i64(st, 0);
			break;
		}
	pd_st_reset(st);
	if (s < 0)
		return pd_db_fail(db, err, "looking up a run");
	return *run ? pd_match_put(db, p, *run, err) : 0;
}

static int same(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* What the bundle now gives a stored run, and how it differs. */
struct rekey {
	const char *cache, *commit_date;
	int key, meta, cols; /* the key, build_meta.json, dates or host */
};

static void compare_run(const struct pd_bundle *b, const struct stored_run *r,
			struct rekey *k)
{
	k->cache = b->files.v[r->file].cache;
	/* a date git gave once is kept when no repository is at hand now */
	k->commit_date = b->commit_date ? b->commit_date : r->commit_date;
	k->key = strcmp(r->sha, b->sha) || strcmp(r->scenario, b->scenario) ||
		 strcmp(r->cache, k->cache);
	k->meta = !same(r->build_meta, b->build_meta);
	k->cols = !same(r->commit_date, k->commit_date) ||
		  !same(r->run_date, b->run_date) || !same(r->host, b->host);
}

int pd_match_changed(const struct pd_bundle *b, const struct match *m)
{
	struct rekey k;
	size_t i;

	for (i = 0; i < m->runs.n; i++) {
		compare_run(b, &m->runs.v[i], &k);
		if (k.key || k.meta || k.cols ||
		    m->runs.v[i].place == PLACE_GONE)
			return 1;
	}
	return 0;
}

/* Moves of one key to another, counted, for the lines that say them. */
struct moves {
	PD_VEC(char *) from;
	PD_VEC(char *) to;
	PD_VEC(size_t) n;
};

static void count_move(struct moves *mv, const struct stored_run *r,
		       const struct pd_bundle *b, const char *cache)
{
	struct pd_buf from = PD_BUF_INIT, to = PD_BUF_INIT;
	size_t i;

	pd_buf_addf(&from, "%.12s %s/%s", r->sha, r->scenario, r->cache);
	pd_buf_addf(&to, "%.12s %s/%s", b->sha, b->scenario, cache);
	for (i = 0; i < mv->n.n; i++)
		if (!strcmp(mv->from.v[i], from.buf) &&
		    !strcmp(mv->to.v[i], to.buf)) {
			mv->n.v[i]++;
			pd_buf_release(&from);
			pd_buf_release(&to);
			return;
		}
	PD_VEC_PUSH(&mv->from, pd_buf_detach(&from));
	PD_VEC_PUSH(&mv->to, pd_buf_detach(&to));
	PD_VEC_PUSH(&mv->n, 1);
}

/* Says the moves in res (when say), and frees them. */
static void say_moves(struct moves *mv, const char *path, int say,
		      struct pd_ingest_result *res)
{
	size_t i;

	for (i = 0; i < mv->n.n; i++) {
		if (say)
			pd_ingest_change(
			    res, "moved %zu run%s of bundle %s from %s to %s",
			    mv->n.v[i], mv->n.v[i] == 1 ? "" : "s", path,
			    mv->from.v[i], mv->to.v[i]);
		free(mv->from.v[i]);
		free(mv->to.v[i]);
	}
	PD_VEC_FREE(&mv->from);
	PD_VEC_FREE(&mv->to);
	PD_VEC_FREE(&mv->n);
}

/* One stored run under the key and metadata of the bundle now. */
static int rekey_run(struct pd_db *db, const struct pd_bundle *b,
		     const struct stored_run *r, const struct rekey *k,
		     struct pd_err *err)
{
	struct pd_st *st = pd_db_stmt(db, "q_run_rekey", err);

	if (!st)
		return PD_EIO;
	pd_st_i64(st, 1, r->id);
	pd_st_text(st, 2, b->sha);
	pd_st_text(st, 3, b->scenario);
	pd_st_text(st, 4, k->cache);
	pd_st_text(st, 5, k->commit_date);
	pd_st_text(st, 6, b->run_date);
	pd_st_text(st, 7, b->host);
	pd_st_text(st, 8, b->build_meta);
	if (pd_st_step(st) < 0) {
		pd_st_reset(st);
		return pd_db_fail(db, err, "updating a run");
	}
	pd_st_reset(st);
	return 0;
}

/* A bundle stored from a folder that is gone: this is its place now. */
static int moved_bundle(struct pd_db *db, const char *path,
			const struct stored_run *r,
			struct pd_ingest_result *res, struct pd_err *err)
{
	struct pd_st *st = pd_db_stmt(db, "q_bundle_moved", err);
	char *place = pd_match_place(path);
	int rc;

	if (!st) {
		free(place);
		return PD_EIO;
	}
	pd_st_text(st, 1, r->bundle_hash);
	pd_st_text(st, 2, place);
	rc = pd_st_step(st);
	pd_st_reset(st);
	free(place);
	if (rc < 0)
		return pd_db_fail(db, err, "updating a bundle");
	pd_ingest_note(res,
		       "%s: stored before from %s, which is no longer there:"
		       " taken as the same bundle, moved",
		       path, r->bundle_path);
	return 0;
}

static void say_count(struct pd_ingest_result *res, const char *what,
		      const char *path, size_t n)
{
	if (n)
		pd_ingest_change(res, "updated %s of bundle %s (%zu run%s)",
				 what, path, n, n == 1 ? "" : "s");
}

int pd_match_rekey(struct pd_db *db, const struct pd_bundle *b,
		   const char *path, const struct match *m,
		   struct pd_ingest_result *res, struct pd_err *err)
{
	struct moves mv;
	PD_VEC(const char *) renamed = PD_VEC_INIT;
	size_t i, k, meta = 0, cols = 0;
	int rc = 0;

	memset(&mv, 0, sizeof(mv));
	for (i = 0; rc == 0 && i < m->runs.n; i++) {
		const struct stored_run *r = &m->runs.v[i];
		int gone = r->place == PLACE_GONE;
		struct rekey rk;

		compare_run(b, r, &rk);
		if (!rk.key && !rk.meta && !rk.cols && !gone)
			continue;
		for (k = 0; gone && k < renamed.n; k++)
			gone = strcmp(renamed.v[k], r->bundle_hash) != 0;
		if (gone) {
			PD_VEC_PUSH(&renamed, r->bundle_hash);
			rc = moved_bundle(db, path, r, res, err);
		}
		if (rc == 0)
			rc = rekey_run(db, b, r, &rk, err);
		if (rk.key)
			count_move(&mv, r, b, rk.cache);
		meta += rk.meta;
		cols += !rk.meta && rk.cols;
	}
	if (rc == 0) {
		res->moved = 0;
		for (i = 0; i < mv.n.n; i++)
			res->moved += mv.n.v[i];
		res->updated = meta + cols;
		say_count(res, "build_meta.json", path, meta);
		say_count(res, "the commit date, run date and host", path,
			  cols);
	}
	say_moves(&mv, path, rc == 0, res);
	PD_VEC_FREE(&renamed);
	return rc;
}
