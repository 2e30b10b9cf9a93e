/*
 * The write phase of an ingest (ingest.c reads, this file writes): one
 * BEGIN IMMEDIATE transaction holding the bundle, its runs, their
 * per-function rows, stack trees and metrics, function ids written on
 * first use. Any failure rolls back.
 */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/buf.h"
#include "core/hash.h"
#include "store/commit.h"
#include "store/ingest_int.h"
#include "store/packed.h"
#include "store/store.h"

void pd_store_now(char out[32])
{
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static int step_done(struct pd_db *db, struct pd_st *st, struct pd_err *err,
		     const char *what)
{
	int rc = pd_st_step(st);

	pd_st_reset(st);
	if (rc != PD_ST_DONE && rc != PD_ST_ROW)
		return pd_db_fail(db, err, what);
	return 0;
}

static int write_metrics(struct pd_db *db, int64_t run,
			 const struct pending *pe, struct pd_err *err)
{
	size_t i;
	int rc = 0;

	for (i = 0; i < pe->metrics.n && rc == 0; i++) {
		struct pd_st *st = pd_db_stmt(db, "q_metric_insert", err);

		if (!st)
			return PD_EIO;
		pd_st_i64(st, 1, run);
		pd_st_text(st, 2, pe->metrics.v[i].source);
		pd_st_text(st, 3, pe->metrics.v[i].key);
		pd_st_text(st, 4, pe->metrics.v[i].measure);
		pd_st_f64(st, 5, pe->metrics.v[i].value);
		rc = step_done(db, st, err, "adding a metric");
	}
	return rc;
}

static int func_id(struct pd_db *db, const char *name, const char *module,
		   int64_t *id, struct pd_err *err)
{
	struct pd_st *st = pd_db_stmt(db, "q_func_get", err);
	int rc;

	if (!st)
		return PD_EIO;
	pd_st_text(st, 1, name);
	pd_st_text(st, 2, module);
	rc = pd_st_step(st);
	if (rc == PD_ST_ROW) {
		*id = pd_st_col_i64(st, 0);
		pd_st_reset(st);
		return 0;
	}
	pd_st_reset(st);
	if (rc != PD_ST_DONE)
		return pd_db_fail(db, err, "looking up a function");
	st = pd_db_stmt(db, "q_func_insert", err);
	if (!st)
		return PD_EIO;
	pd_st_text(st, 1, name);
	pd_st_text(st, 2, module);
	return pd_st_insert_id(st, id, err, "adding a function");
}

/*
 * A run's stack records, numbered by the ingest's function table, given
 * the history's ids (functions.id), which readers can resolve: the write
 * phase knows them, the import phase does not. Then compressed once.
 */
static int stacks_to_history_ids(struct pd_db *db, struct pd_buf *raw,
				 size_t nodes, const struct pd_funcs *fn,
				 int64_t *dbid, struct pd_buf *blob,
				 struct pd_err *err)
{
	size_t k;
	int rc = 0;

	for (k = 0; rc == 0 && k < nodes; k++) {
		struct pd_stack_node nd;

		pd_stacks_node(raw, k, &nd);
		if (nd.func >= fn->v.n)
			return pd_err_set(err, PD_EPARSE,
					  "stack tree names function %u of %zu",
					  (unsigned)nd.func, fn->v.n);
		if (!dbid[nd.func])
			rc = func_id(db, pd_func_name(fn, nd.func),
				     pd_func_module(fn, nd.func),
				     &dbid[nd.func], err);
		if (rc == 0 &&
		    (dbid[nd.func] < 0 || dbid[nd.func] > UINT32_MAX))
			rc = pd_err_set(err, PD_EPARSE,
					"function id %lld beyond a stack tree's"
					" 32 bits",
					(long long)dbid[nd.func]);
		if (rc == 0)
			pd_stacks_set_func(raw, k, (uint32_t)dbid[nd.func]);
	}
	if (rc == 0)
		pd_stacks_compress(raw, blob);
	return rc;
}

/*
 * One commit, one key: the stored ids that are a prefix of this bundle's,
 * or that it is a prefix of, all name one commit when they lie on one
 * line (each a prefix of the longest); they then become the longest, and
 * so does the bundle's. Two that differ are two commits: the short one is
 * ambiguous, and the bundle is refused. Runs inside the write transaction.
 */
static int merge_commit(struct pd_db *db, struct pd_bundle *b,
			struct pd_ingest_result *res, struct pd_err *err)
{
	struct pd_st *st = pd_db_stmt(db, "q_sha_related", err);
	PD_VEC(char *) rel = PD_VEC_INIT;
	const char *longest = b->sha;
	size_t i;
	int rc = 0, r;

	if (!st)
		return PD_EIO;
	pd_st_text(st, 1, b->sha);
	while ((r = pd_st_step(st)) == PD_ST_ROW)
		PD_VEC_PUSH(&rel, pd_xstrdup(pd_st_col_text(st, 0)));
	pd_st_reset(st);
	if (r != PD_ST_DONE) {
		rc = pd_db_fail(db, err, "looking up the commit");
		goto out;
	}
	for (i = 0; i < rel.n; i++)
		if (strlen(rel.v[i]) > strlen(longest))
			longest = rel.v[i];
	for (i = 0; i < rel.n; i++)
		if (strncmp(rel.v[i], longest, strlen(rel.v[i]))) {
			rc = pd_err_set(err, PD_EINVAL,
					"%s: git sha %s is ambiguous: the"
					" history has %s and %s; give the"
					" full sha (or --repo to resolve it)",
					b->dir, b->sha, rel.v[i], longest);
			goto out;
		}
	for (i = 0; i < rel.n; i++) {
		if (!strcmp(rel.v[i], longest))
			continue;
		st = pd_db_stmt(db, "q_sha_merge", err);
		if (!st) {
			rc = PD_EIO;
			goto out;
		}
		pd_st_text(st, 1, longest);
		pd_st_text(st, 2, b->commit_date);
		pd_st_text(st, 3, rel.v[i]);
		rc = step_done(db, st, err, "merging a commit's runs");
		if (rc < 0)
			goto out;
		pd_ingest_note(res,
			       "stored runs of %s are now under %s, the"
			       " same commit",
			       rel.v[i], longest);
	}
	if (longest != b->sha) {
		char *full = pd_xstrdup(longest);

		free(b->sha);
		b->sha = full;
	}
out:
	for (i = 0; i < rel.n; i++)
		free(rel.v[i]);
	PD_VEC_FREE(&rel);
	return rc;
}

/* Derivable: w == n * interval, so one of them need not be stored. */
static int derivable(double w, double n, double interval)
{
	return interval > 0 && fabs(n * interval - w) <= 1e-9 * fabs(w);
}

/* The run's row, in the bundle row hash; its id in *run. */
static int insert_run(struct pd_db *db, const struct pd_bundle *b,
		      const char *hash, const struct pending *p, int64_t *run,
		      struct pd_err *err)
{
	struct pd_st *st = pd_db_stmt(db, "q_run_insert", err);

	if (!st)
		return PD_EIO;
	pd_st_text(st, 1, hash);
	pd_st_text(st, 2, b->sha);
	pd_st_text(st, 3, b->scenario);
	pd_st_text(st, 4, p->cache);
	pd_st_i64(st, 5, p->repeat);
	pd_st_text(st, 6, p->tool);
	pd_st_text(st, 7, p->format);
	pd_st_text(st, 8, p->rel);
	pd_st_text(st, 9, pd_unit_name(p->unit));
	if (p->interval > 0)
		pd_st_f64(st, 10, p->interval);
	pd_st_text(st, 11, p->event);
	pd_st_f64(st, 12, p->total_w);
	pd_st_f64(st, 13, p->total_n);
	pd_st_text(st, 14, b->commit_date);
	pd_st_text(st, 15, b->run_date);
	pd_st_text(st, 16, b->host);
	pd_st_text(st, 17, b->build_meta);
	return pd_st_insert_id(st, run, err, "adding a run");
}

/* One run's rows, gathered for pd_store_run_rows (a run's worth of scratch). */
struct packing {
	PD_VEC(struct pd_packed_row) rows;
	struct pd_buf blob;
};

/* A dispersion and its degrees of freedom as stored: NaN for none. */
static void burst_pair(double *v, const struct pd_agg *a, int k, size_t i)
{
	if (a->bdf[k][i] > 0) {
		v[0] = round(a->bdisp[k][i] * PD_BURST_SCALE);
		v[1] = a->bdf[k][i];
	} else {
		v[0] = v[1] = PD_NAN;
	}
}

/*
 * The run's time-block dispersions (statistics.md, "Time inside a run")
 * into run_bursts, for the functions that have one; the run's rows have
 * given each of them its history id already.
 */
static int insert_bursts(struct pd_db *db, const struct pending *p, int64_t run,
			 const int64_t *dbid, struct packing *pk,
			 struct pd_err *err)
{
	const struct pd_agg *a = &p->agg;
	size_t i;

	pk->rows.n = 0;
	for (i = 0; a->bdf[0] && i < a->n; i++) {
		struct pd_packed_row *row;

		if (!dbid[i] || !(a->bdf[0][i] > 0 || a->bdf[1][i] > 0))
			continue;
		PD_VEC_RESERVE(&pk->rows, pk->rows.n + 1);
		row = &pk->rows.v[pk->rows.n++];
		row->fid = dbid[i];
		burst_pair(row->v, a, 0, i);
		burst_pair(row->v + 2, a, 1, i);
	}
	return pd_store_run_bursts(db, run, pk->rows.v, pk->rows.n, &pk->blob,
				   err);
}

/*
 * The run's function rows, each function's history id written on first
 * use (dbid, by function of fn), into run_functions and run_packed, and
 * its dispersions into run_bursts.
 */
static int insert_rows(struct pd_db *db, const struct pending *p, int64_t run,
		       const struct pd_funcs *fn, int64_t *dbid,
		       struct packing *pk, struct pd_ingest_result *res,
		       struct pd_err *err)
{
	size_t i;
	int rc;

	/* dbid has an entry a function of fn, the aggregate no more */
	assert(p->agg.n <= fn->v.n);
	pk->rows.n = 0;
	for (i = 0; i < p->agg.n; i++) {
		double sw = p->agg.self_w[i], tw = p->agg.total_w[i];
		double sn = p->agg.self_c[i], tn = p->agg.total_c[i];
		struct pd_packed_row *row;

		if (tw <= 0)
			continue;
		if (!dbid[i]) {
			rc = func_id(db, pd_func_name(fn, (uint32_t)i),
				     pd_func_module(fn, (uint32_t)i), &dbid[i],
				     err);
			if (rc < 0)
				return rc;
		}
		PD_VEC_RESERVE(&pk->rows, pk->rows.n + 1);
		row = &pk->rows.v[pk->rows.n++];
		row->fid = dbid[i];
		row->v[0] = sn;
		row->v[1] = tn;
		/* a weight that is the count x the interval is left NULL */
		row->v[2] = derivable(sw, sn, p->interval) ? PD_NAN : sw;
		row->v[3] = derivable(tw, tn, p->interval) ? PD_NAN : tw;
	}
	res->rows += pk->rows.n;
	rc = pd_store_run_rows(db, run, pk->rows.v, pk->rows.n, &pk->blob, err);
	return rc < 0 ? rc : insert_bursts(db, p, run, dbid, pk, err);
}

/* The run's stack tree, renumbered to history ids in place, compressed. */
static int insert_stacks(struct pd_db *db, struct pending *p, int64_t run,
			 const struct pd_funcs *fn, int64_t *dbid,
			 struct pd_buf *blob, struct pd_err *err)
{
	struct pd_st *st;
	int rc;

	pd_buf_reset(blob);
	rc = stacks_to_history_ids(db, &p->stacks, p->nodes, fn, dbid, blob,
				   err);
	if (rc < 0)
		return rc;
	st = pd_db_stmt(db, "q_stacks_insert", err);
	if (!st)
		return PD_EIO;
	pd_st_i64(st, 1, run);
	pd_st_i64(st, 2, (int64_t)p->nodes);
	pd_st_blob(st, 3, blob->buf, blob->len);
	return step_done(db, st, err, "adding a stack tree");
}

/*
 * The new runs still to write, moved to the front of pv (*live of them):
 * a file another process stored meanwhile, or a run that a history from
 * before schema 5 holds already (legacy: looked for), is a stored run of
 * m instead.
 */
static int settle_pending(struct pd_db *db, const struct pd_bundle *b,
			  const char *path, struct pending *pv, size_t np,
			  int legacy, struct match *m, size_t *live,
			  struct pd_err *err)
{
	size_t k, n = 0;
	int rc = 0;

	for (k = 0; rc == 0 && k < np; k++) {
		int64_t run = 0;

		assert(pv[k].file < b->files.n); /* m->run has one a file */
		if (!m->run[pv[k].file] && legacy)
			rc = pd_match_legacy_run(db, path, &pv[k], &run, err);
		if (rc == 0 && run)
			rc = pd_match_file(db, b, path, pv[k].file, m, err);
		if (rc == 0 && !m->run[pv[k].file]) {
			struct pending t = pv[n];

			pv[n++] = pv[k];
			pv[k] = t;
		}
	}
	*live = n;
	return rc;
}

/*
 * Counters (perf stat) added to a bundle whose profiles are stored: they
 * join its first stored run, as they would have at its first ingest,
 * unless that run holds counters of their source already.
 */
static int join_stored(struct pd_db *db, const struct pd_bundle *b,
		       const char *path, struct pending *pv, size_t n,
		       const struct match *m, struct pd_ingest_result *res,
		       struct pd_err *err)
{
	int64_t run = 0;
	size_t i, k;
	int rc = 0;

	/* its own run, else the one a copy of it is */
	for (i = 0; i < b->files.n && !run; i++)
		run = m->kind[i] == MATCH_OWN ? m->run[i] : 0;
	for (i = 0; i < b->files.n && !run; i++)
		run = m->run[i];
	/* m->files > 0: a file is a stored run, or the counters go nowhere */
	assert(run != 0);
	for (k = 0; rc == 0 && k < n; k++) {
		struct pd_st *st = pd_db_stmt(db, "q_metric_sources", err);
		int has = 0;

		for (i = 0; st && !has && i < pv[k].metrics.n; i++) {
			pd_st_i64(st, 1, run);
			pd_st_text(st, 2, pv[k].metrics.v[i].source);
			has = pd_st_step(st);
			pd_st_reset(st);
		}
		if (!st || has < 0)
			return st ? pd_db_fail(db, err, "reading metrics")
				  : PD_EIO;
		if (!has && pv[k].metrics.n) {
			rc = write_metrics(db, run, &pv[k], err);
			if (rc == 0)
				pd_ingest_change(
				    res,
				    "added the counters of %s/profiles/%s"
				    " to its stored run %lld",
				    path, pv[k].rel, (long long)run);
		}
		if (rc == 0)
			rc = pd_match_put(db, &pv[k], run, err);
	}
	return rc;
}

/*
 * The key of a bundle row: the bundle's files (b->hash), its commit,
 * scenario and build_meta.json, so that the same profiles stored under
 * two keys (a deterministic profiler's) are two rows.
 */
static void row_hash(const struct pd_bundle *b, char hex[65])
{
	struct pd_sha256 h;
	const char *meta = b->build_meta ? b->build_meta : "";

	pd_sha256_init(&h);
	pd_sha256_add(&h, b->hash, strlen(b->hash) + 1);
	pd_sha256_add(&h, b->sha, strlen(b->sha) + 1);
	pd_sha256_add(&h, b->scenario, strlen(b->scenario) + 1);
	pd_sha256_add(&h, meta, strlen(meta));
	pd_sha256_hex(&h, hex);
}

/*
 * The bundle's row and its n new runs (pv[0 .. n)): rows, stack trees,
 * metrics and the hashes of the files each was read from.
 */
static int write_runs(struct pd_db *db, const struct pd_bundle *b,
		      const char *path, struct pending *pv, size_t n,
		      const struct pd_funcs *fn, int64_t *dbid,
		      struct pd_ingest_result *res, struct pd_err *err)
{
	struct pd_buf blob = PD_BUF_INIT; /* one run's compressed tree */
	struct packing pk;
	struct pd_st *st = pd_db_stmt(db, "q_bundle_insert", err);
	char now[32], hash[65], *place;
	size_t k;
	int rc;

	if (!st)
		return PD_EIO;
	memset(&pk, 0, sizeof(pk));
	pd_store_now(now);
	row_hash(b, hash);
	/* where it was read from, whatever folder ingest ran in */
	place = pd_match_place(path);
	pd_st_text(st, 1, hash);
	pd_st_text(st, 2, place);
	pd_st_text(st, 3, now);
	free(place);
	rc = step_done(db, st, err, "adding the bundle");
	for (k = 0; k < n && rc == 0; k++) {
		int64_t run = 0;

		rc = insert_run(db, b, hash, &pv[k], &run, err);
		if (rc == 0)
			rc = insert_rows(db, &pv[k], run, fn, dbid, &pk, res,
					 err);
		if (rc == 0)
			rc = insert_stacks(db, &pv[k], run, fn, dbid, &blob,
					   err);
		if (rc == 0)
			rc = write_metrics(db, run, &pv[k], err);
		if (rc == 0)
			rc = pd_match_put(db, &pv[k], run, err);
		if (rc == 0)
			res->runs++;
	}
	pd_buf_release(&blob);
	pd_buf_release(&pk.blob);
	PD_VEC_FREE(&pk.rows);
	return rc;
}

/* The new runs: their own, or counters joining a stored run. */
static int write_new(struct pd_db *db, const struct pd_bundle *b,
		     const char *path, struct pending *pv, size_t n,
		     struct pd_funcs *fn, const struct match *m,
		     struct pd_ingest_result *res, struct pd_err *err)
{
	int64_t *dbid;
	size_t k, only_counters = m->files > 0;
	int rc = 0;

	for (k = 0; k < n; k++)
		only_counters &= (size_t)pv[k].table_only;
	if (only_counters)
		return join_stored(db, b, path, pv, n, m, res, err);
	dbid = pd_xcalloc(fn->v.n + 1, sizeof(*dbid));
	if (db->pg)
		rc = pd_ingest_ids(db, pv, n, fn, dbid, err);
	if (rc == 0)
		rc = write_runs(db, b, path, pv, n, fn, dbid, res, err);
	if (rc == 0 && m->files)
		pd_ingest_note(res,
			       "%s: %zu profile%s stored already, not stored"
			       " again",
			       path, m->files, m->files == 1 ? "" : "s");
	free(dbid);
	return rc;
}

#ifndef NDEBUG
/*
 * Whether the bundle and its runs carry whole keys: the commit as
 * resolve_commit leaves it (hex, lower case), a scenario, each run's
 * cache state and tool. A run stored under a key no query asks for is
 * lost without a word.
 */
static int keys_whole(const struct pd_bundle *b, const struct pending *pv,
		      size_t np)
{
	size_t i;

	if (!b->sha || !pd_sha_is_hex(b->sha) || !b->scenario || !*b->scenario)
		return 0;
	for (i = 0; b->sha[i]; i++)
		if (b->sha[i] >= 'A' && b->sha[i] <= 'F')
			return 0;
	for (i = 0; i < np; i++)
		if (!pv[i].cache || !pv[i].tool)
			return 0;
	return 1;
}
#endif

int pd_ingest_write(struct pd_db *db, struct pd_bundle *b, const char *path,
		    struct pending *pv, size_t np, struct pd_funcs *fn,
		    const char *v1, int rekey, struct pd_ingest_result *res,
		    struct pd_err *err)
{
	struct match m;
	size_t live = 0, said;
	int rc;

	assert(keys_whole(b, pv, np));
	memset(&m, 0, sizeof(m));
	rc = pd_db_begin_write(db, err);
	if (rc < 0)
		return rc;
	said = res->notes.n;
	rc = merge_commit(db, b, res, err);
	/* looked up again: another process may have stored some meanwhile */
	if (rc == 0)
		rc = pd_match_files(db, b, path, v1, 1, rekey, &m, err);
	if (rc == 0)
		rc = settle_pending(db, b, path, pv, np, v1 != NULL, &m, &live,
				    err);
	if (rc == 0)
		rc = pd_match_rekey(db, b, path, &m, res, err);
	if (rc == 0 && live)
		rc = write_new(db, b, path, pv, live, fn, &m, res, err);
	if (rc == 0)
		rc = pd_db_exec(db, "COMMIT", err);
	if (rc < 0)
		pd_db_rollback(db);
	/* a commit's runs merged under its full sha are news too */
	res->skipped = !res->runs && !res->changes.n && res->notes.n == said;
	pd_match_release(&m);
	return rc;
}
