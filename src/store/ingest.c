/*
 * Ingest: a bundle's profiles become runs. All profiles are imported and
 * aggregated before the write lock is taken; then one BEGIN IMMEDIATE
 * transaction writes the bundle, its runs, their per-function rows and
 * stack trees. Any failure rolls back: the database holds all of a bundle
 * or none of it, even when the process is killed (SQLite's journal).
 */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "core/buf.h"
#include "core/hash.h"
#include "import/import.h"
#include "store/commit.h"
#include "store/store.h"

void pd_ingest_note(struct pd_ingest_result *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	PD_VEC_PUSH(&r->notes, pd_vstrf(fmt, ap));
	va_end(ap);
}

/*
 * The bundle's commit as the history keys it: resolved through git to
 * the full id and its own date where a repository knows it (--repo, else
 * the one holding the bundle, else the current folder's); else a hex id
 * or prefix, lower-cased; anything else is refused.
 */
static int resolve_commit(struct pd_bundle *b, const char *repo_opt,
			  const char *path, int is_dir, struct pd_err *err)
{
	char full[41], *date = NULL, *repo = NULL;
	size_t i;

	if (strlen(b->sha) == 40 && pd_sha_is_hex(b->sha) && b->commit_date &&
	    !repo_opt)
		goto hex; /* nothing git could add */
	if (repo_opt)
		repo = pd_xstrdup(repo_opt);
	else {
		char *dir = is_dir ? pd_xstrdup(path) : NULL;

		if (!dir) { /* a single profile: its folder */
			const char *sl = strrchr(path, '/');

			dir = sl ? pd_xstrndup(path, (size_t)(sl - path) + 1)
				 : pd_xstrdup(".");
		}
		repo = pd_git_toplevel(dir);
		free(dir);
		if (!repo)
			repo = pd_git_toplevel(".");
	}
	if (repo && pd_git_resolve(repo, b->sha, full, &date) == 0) {
		free(b->sha);
		b->sha = pd_xstrdup(full);
		if (date) {
			free(b->commit_date);
			b->commit_date = date;
		}
		free(repo);
		return 0;
	}
	if (repo_opt) {
		pd_err_set(err, PD_EINVAL,
			   "%s: %s (from %s) is not a commit of %s", b->dir,
			   b->sha, b->sha_from ? b->sha_from : "--sha", repo);
		free(repo);
		return PD_EINVAL;
	}
	free(repo);
hex:
	if (!pd_sha_is_hex(b->sha))
		return pd_err_set(err, PD_EINVAL,
				  "%s: git sha \"%s\" (from %s) is not a commit"
				  " id; a name such as HEAD~3 needs --repo DIR"
				  " to be resolved",
				  b->dir, b->sha,
				  b->sha_from ? b->sha_from : "--sha");
	for (i = 0; b->sha[i]; i++)
		b->sha[i] = (char)tolower((unsigned char)b->sha[i]);
	return 0;
}

void pd_ingest_result_release(struct pd_ingest_result *r)
{
	size_t i;

	for (i = 0; i < r->notes.n; i++)
		free(r->notes.v[i]);
	PD_VEC_FREE(&r->notes);
}

static int contains_ci(const char *s, const char *needle)
{
	size_t n = strlen(needle);

	for (; *s; s++)
		if (!strncasecmp(s, needle, n))
			return 1;
	return 0;
}

const char *pd_tool_name(const char *rel, const char *format,
			 const char *exporter)
{
	static const char *const hints[] = { "perfview", "samply",
					     "wpa",	 "dotnet-trace",
					     "py-spy",	 "pyinstrument" };
	size_t i;

	for (i = 0; i < PD_ARRAY_SIZE(hints); i++)
		if (rel && contains_ci(rel, hints[i]))
			return hints[i];
	if (!strcmp(format, "perf-script"))
		return "perf";
	if (!strcmp(format, "speedscope") && exporter) {
		if (strstr(exporter, "TraceEvent") ||
		    !strcmp(exporter, "speedscope@1.3.2"))
			return "perfview";
		if (!strncmp(exporter, "py-spy", 6))
			return "py-spy";
		if (!strncmp(exporter, "pyinstrument", 12))
			return "pyinstrument";
	}
	return format;
}

static int func_id(struct pd_db *db, const char *name, const char *module,
		   sqlite3_int64 *id, struct pd_err *err);

/*
 * A run's stack records, numbered by the ingest's function table, given
 * the history's ids (functions.id), which readers can resolve: the write
 * phase knows them, the import phase does not. Then compressed once.
 */
static int stacks_to_history_ids(struct pd_db *db, struct pd_buf *raw,
				 size_t nodes, const struct pd_funcs *fn,
				 sqlite3_int64 *dbid, struct pd_buf *blob,
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

/* A row of the metrics table: a counter or a table cell. */
struct mrow {
	char *source, *key, *measure;
	double value;
};

/* One profile, imported and aggregated, waiting to be written. */
struct pending {
	char *rel, *format, *event, *exporter;
	const char *tool, *cache;
	int repeat;
	enum pd_unit unit;
	double interval, total_w, total_n;
	struct pd_agg agg;
	struct pd_buf stacks; /* node records, the ingest's numbering */
	size_t nodes;
	PD_VEC(struct mrow) metrics;
	int table_only; /* no stacks (perf stat): joins another run */
};

/*
 * The profile's metric tables as metrics rows: source "format:table",
 * key the row key (tab-separated), one row per measure, and the relative
 * standard error, when known, as measure "NAME rse".
 */
static void take_metrics(struct pending *pe, const struct pd_profile *p)
{
	struct pd_buf src = PD_BUF_INIT, ms = PD_BUF_INIT;
	size_t t, r, k;

	for (t = 0; t < p->tables.n; t++) {
		const struct pd_mtable *mt = p->tables.v[t];

		pd_buf_reset(&src);
		pd_buf_addf(&src, "%s:%s", p->format, mt->name);
		for (r = 1; r < mt->rowkeys.n; r++) {
			const char *key =
			    pd_intern_str(&mt->rowkeys, (uint32_t)r);

			for (k = 0; k < mt->measures.n; k++) {
				size_t at = r * mt->measures.n + k;
				double rse =
				    at < mt->rse.n ? mt->rse.v[at] : -1;
				struct mrow m;

				m.source = pd_xstrdup(src.buf);
				m.key = pd_xstrdup(key);
				m.measure = pd_xstrdup(mt->measures.v[k]);
				m.value =
				    at < mt->values.n ? mt->values.v[at] : 0;
				PD_VEC_PUSH(&pe->metrics, m);
				if (rse < 0)
					continue;
				pd_buf_reset(&ms);
				pd_buf_addf(&ms, "%s rse", mt->measures.v[k]);
				m.source = pd_xstrdup(src.buf);
				m.key = pd_xstrdup(key);
				m.measure = pd_xstrdup(ms.buf);
				m.value = rse;
				PD_VEC_PUSH(&pe->metrics, m);
			}
		}
	}
	pd_buf_release(&src);
	pd_buf_release(&ms);
}

static void release_pending(struct pending *pe)
{
	size_t i;

	for (i = 0; i < pe->metrics.n; i++) {
		free(pe->metrics.v[i].source);
		free(pe->metrics.v[i].key);
		free(pe->metrics.v[i].measure);
	}
	PD_VEC_FREE(&pe->metrics);
	free(pe->rel);
	free(pe->format);
	free(pe->event);
	free(pe->exporter);
	pd_agg_release(&pe->agg);
	pd_buf_release(&pe->stacks);
}

static void now_iso(char out[32])
{
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static int bind_text(sqlite3_stmt *st, int i, const char *s)
{
	return s ? sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT)
		 : sqlite3_bind_null(st, i);
}

/* Binds an integer when the value is whole, else a real. */
static void bind_num(sqlite3_stmt *st, int i, double v)
{
	if (fabs(v) < 9e15 && !(v - floor(v) > 0))
		sqlite3_bind_int64(st, i, (sqlite3_int64)v);
	else
		sqlite3_bind_double(st, i, v);
}

static int step_done(struct pd_db *db, sqlite3_stmt *st, struct pd_err *err,
		     const char *what)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		return pd_db_fail(db, err, what);
	return 0;
}

static int write_metrics(struct pd_db *db, sqlite3_int64 run,
			 const struct pending *pe, struct pd_err *err)
{
	size_t i;
	int rc = 0;

	for (i = 0; i < pe->metrics.n && rc == 0; i++) {
		sqlite3_stmt *st = pd_db_stmt(db, "q_metric_insert", err);

		if (!st)
			return PD_EIO;
		sqlite3_bind_int64(st, 1, run);
		sqlite3_bind_text(st, 2, pe->metrics.v[i].source, -1,
				  SQLITE_STATIC);
		sqlite3_bind_text(st, 3, pe->metrics.v[i].key, -1,
				  SQLITE_STATIC);
		sqlite3_bind_text(st, 4, pe->metrics.v[i].measure, -1,
				  SQLITE_STATIC);
		sqlite3_bind_double(st, 5, pe->metrics.v[i].value);
		rc = step_done(db, st, err, "adding a metric");
	}
	return rc;
}

static int bundle_stored(struct pd_db *db, const char *hash, int *found,
			 struct pd_err *err)
{
	sqlite3_stmt *st = pd_db_stmt(db, "q_bundle_exists", err);
	int rc;

	if (!st)
		return PD_EIO;
	sqlite3_bind_text(st, 1, hash, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return pd_db_fail(db, err, "looking up the bundle");
	*found = rc == SQLITE_ROW;
	return 0;
}

static int func_id(struct pd_db *db, const char *name, const char *module,
		   sqlite3_int64 *id, struct pd_err *err)
{
	sqlite3_stmt *st = pd_db_stmt(db, "q_func_get", err);
	int rc;

	if (!st)
		return PD_EIO;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, module, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*id = sqlite3_column_int64(st, 0);
		sqlite3_reset(st);
		return 0;
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return pd_db_fail(db, err, "looking up a function");
	st = pd_db_stmt(db, "q_func_insert", err);
	if (!st)
		return PD_EIO;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, module, -1, SQLITE_STATIC);
	if (step_done(db, st, err, "adding a function"))
		return PD_EIO;
	*id = sqlite3_last_insert_rowid(db->h);
	return 0;
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
	sqlite3_stmt *st = pd_db_stmt(db, "q_sha_related", err);
	PD_VEC(char *) rel = PD_VEC_INIT;
	const char *longest = b->sha;
	size_t i;
	int rc = 0, r;

	if (!st)
		return PD_EIO;
	sqlite3_bind_text(st, 1, b->sha, -1, SQLITE_STATIC);
	while ((r = sqlite3_step(st)) == SQLITE_ROW)
		PD_VEC_PUSH(
		    &rel, pd_xstrdup((const char *)sqlite3_column_text(st, 0)));
	sqlite3_reset(st);
	if (r != SQLITE_DONE) {
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
		sqlite3_bind_text(st, 1, longest, -1, SQLITE_STATIC);
		bind_text(st, 2, b->commit_date);
		sqlite3_bind_text(st, 3, rel.v[i], -1, SQLITE_STATIC);
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

/* The run's row; its id in *run. */
static int insert_run(struct pd_db *db, const struct pd_bundle *b,
		      const struct pending *p, sqlite3_int64 *run,
		      struct pd_err *err)
{
	sqlite3_stmt *st = pd_db_stmt(db, "q_run_insert", err);
	int rc;

	if (!st)
		return PD_EIO;
	bind_text(st, 1, b->hash);
	bind_text(st, 2, b->sha);
	bind_text(st, 3, b->scenario);
	bind_text(st, 4, p->cache);
	sqlite3_bind_int(st, 5, p->repeat);
	bind_text(st, 6, p->tool);
	bind_text(st, 7, p->format);
	bind_text(st, 8, p->rel);
	bind_text(st, 9, pd_unit_name(p->unit));
	if (p->interval > 0)
		sqlite3_bind_double(st, 10, p->interval);
	bind_text(st, 11, p->event);
	sqlite3_bind_double(st, 12, p->total_w);
	sqlite3_bind_double(st, 13, p->total_n);
	bind_text(st, 14, b->commit_date);
	bind_text(st, 15, b->run_date);
	bind_text(st, 16, b->host);
	bind_text(st, 17, b->build_meta);
	rc = step_done(db, st, err, "adding a run");
	if (rc == 0)
		*run = sqlite3_last_insert_rowid(db->h);
	return rc;
}

/*
 * The run's function rows, each function's history id written on first
 * use (dbid, by function of fn). The row statement is held across the
 * loop and every column is bound each time (NULL included): the hot path
 * of an ingest.
 */
static int insert_rows(struct pd_db *db, const struct pending *p,
		       sqlite3_int64 run, const struct pd_funcs *fn,
		       sqlite3_int64 *dbid, struct pd_ingest_result *res,
		       struct pd_err *err)
{
	sqlite3_stmt *rfst = NULL;
	size_t i;
	int rc;

	for (i = 0; i < p->agg.n; i++) {
		double sw = p->agg.self_w[i], tw = p->agg.total_w[i];
		double sn = p->agg.self_c[i], tn = p->agg.total_c[i];

		if (tw <= 0)
			continue;
		if (!dbid[i]) {
			rc = func_id(db, pd_func_name(fn, (uint32_t)i),
				     pd_func_module(fn, (uint32_t)i), &dbid[i],
				     err);
			if (rc < 0)
				return rc;
		}
		if (!rfst && !(rfst = pd_db_stmt(db, "q_rf_insert", err)))
			return PD_EIO;
		sqlite3_bind_int64(rfst, 1, run);
		sqlite3_bind_int64(rfst, 2, dbid[i]);
		bind_num(rfst, 3, sn);
		bind_num(rfst, 4, tn);
		if (!derivable(sw, sn, p->interval))
			bind_num(rfst, 5, sw);
		else
			sqlite3_bind_null(rfst, 5);
		if (!derivable(tw, tn, p->interval))
			bind_num(rfst, 6, tw);
		else
			sqlite3_bind_null(rfst, 6);
		rc = step_done(db, rfst, err, "adding a function row");
		if (rc < 0)
			return rc;
		res->rows++;
	}
	return 0;
}

/* The run's stack tree, renumbered to history ids in place, compressed. */
static int insert_stacks(struct pd_db *db, struct pending *p, sqlite3_int64 run,
			 const struct pd_funcs *fn, sqlite3_int64 *dbid,
			 struct pd_buf *blob, struct pd_err *err)
{
	sqlite3_stmt *st;
	int rc;

	pd_buf_reset(blob);
	rc = stacks_to_history_ids(db, &p->stacks, p->nodes, fn, dbid, blob,
				   err);
	if (rc < 0)
		return rc;
	st = pd_db_stmt(db, "q_stacks_insert", err);
	if (!st)
		return PD_EIO;
	sqlite3_bind_int64(st, 1, run);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)p->nodes);
	sqlite3_bind_blob(st, 3, blob->buf, (int)blob->len, SQLITE_STATIC);
	return step_done(db, st, err, "adding a stack tree");
}

static int write_bundle(struct pd_db *db, struct pd_bundle *b, const char *path,
			struct pending *pv, size_t np, struct pd_funcs *fn,
			struct pd_ingest_result *res, struct pd_err *err)
{
	sqlite3_int64 *dbid = pd_xcalloc(fn->v.n + 1, sizeof(*dbid));
	struct pd_buf blob = PD_BUF_INIT; /* one run's compressed tree */
	sqlite3_stmt *st;
	char now[32];
	size_t k;
	int rc, found = 0;

	now_iso(now);
	rc = pd_db_exec(db, "BEGIN IMMEDIATE", err);
	if (rc < 0)
		goto out_free;
	rc = bundle_stored(db, b->hash, &found, err);
	if (rc < 0 || found)
		goto out;
	rc = merge_commit(db, b, res, err);
	if (rc < 0)
		goto out;
	st = pd_db_stmt(db, "q_bundle_insert", err);
	if (!st) {
		rc = PD_EIO;
		goto out;
	}
	bind_text(st, 1, b->hash);
	bind_text(st, 2, path);
	bind_text(st, 3, now);
	rc = step_done(db, st, err, "adding the bundle");
	for (k = 0; k < np && rc == 0; k++) {
		sqlite3_int64 run = 0;

		rc = insert_run(db, b, &pv[k], &run, err);
		if (rc == 0)
			rc = insert_rows(db, &pv[k], run, fn, dbid, res, err);
		if (rc == 0)
			rc = insert_stacks(db, &pv[k], run, fn, dbid, &blob,
					   err);
		if (rc == 0)
			rc = write_metrics(db, run, &pv[k], err);
		if (rc == 0)
			res->runs++;
	}
out:
	if (rc == 0) {
		rc = pd_db_exec(db, "COMMIT", err);
		res->skipped = found;
	}
	if (rc < 0)
		sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
out_free:
	free(dbid);
	pd_buf_release(&blob);
	return rc;
}

/*
 * A single profile as a bundle of one run: its key from the options, its
 * hash over the key and the file (the same file under another key is
 * another run).
 */
static int single_profile(struct pd_bundle *b, const char *path,
			  const struct pd_bundle_key *fallback,
			  struct pd_err *err)
{
	struct pd_sha256 h;
	struct pd_bundle_file f;
	char hex[65];
	int rc;

	if (!fallback || !fallback->sha || !fallback->scenario ||
	    !fallback->cache)
		return pd_err_set(err, PD_EUSAGE,
				  "%s: a single profile needs --sha,"
				  " --scenario and --cache",
				  path);
	f.cache = pd_cache_state(fallback->cache, strlen(fallback->cache));
	if (!f.cache)
		return pd_err_set(err, PD_EINVAL,
				  "--cache %s: a cache state is warm or cold",
				  fallback->cache);
	b->dir = pd_xstrdup(path);
	b->sha = pd_xstrdup(fallback->sha);
	b->scenario = pd_xstrdup(fallback->scenario);
	b->cache = pd_xstrdup(fallback->cache);
	pd_sha256_init(&h);
	pd_sha256_add(&h, b->sha, strlen(b->sha) + 1);
	pd_sha256_add(&h, b->scenario, strlen(b->scenario) + 1);
	pd_sha256_add(&h, b->cache, strlen(b->cache) + 1);
	rc = pd_sha256_file(&h, path, err);
	if (rc < 0)
		return rc;
	pd_sha256_hex(&h, hex);
	b->hash = pd_xstrdup(hex);
	f.path = pd_xstrdup(path);
	f.rel = pd_xstrdup(strrchr(path, '/') ? strrchr(path, '/') + 1 : path);
	f.skip = NULL;
	PD_VEC_PUSH(&b->files, f);
	return 0;
}

/*
 * One file of the bundle read into p (the run number among those of its
 * tool counted over pv[0 .. np)): 1, or 0 when it is skipped with a note,
 * or the error code.
 */
static int read_run(const struct pd_bundle_file *f, struct pd_funcs *fn,
		    struct pending *pv, size_t np, struct pd_ingest_result *res,
		    struct pd_err *err)
{
	struct pd_import_opts io;
	struct pd_err serr = PD_ERR_INIT;
	struct pd_profile prof;
	struct pending *p = &pv[np];
	uint32_t *node_func;
	size_t k;
	int rc;

	memset(&io, 0, sizeof(io));
	if (f->skip) {
		pd_ingest_note(res, "skipped %s: %s", f->path, f->skip);
		return 0;
	}
	if (!pd_import_sniff(f->path, &io, &serr)) {
		pd_ingest_note(res, "skipped %s", serr.msg);
		return 0;
	}
	if (!f->cache)
		return pd_err_set(err, PD_EINVAL,
				  "%s: no cache state: not in build_meta.json,"
				  " the profile's name or the folder name (a"
				  " warm or cold token); pass --cache",
				  f->path);
	pd_profile_init(&prof);
	rc = pd_import(&prof, f->path, &io, err);
	if (rc < 0) {
		pd_profile_release(&prof);
		return rc;
	}
	p->cache = f->cache;
	p->rel = pd_xstrdup(f->rel);
	p->format = pd_xstrdup(prof.format);
	p->event = prof.event ? pd_xstrdup(prof.event) : NULL;
	p->exporter = prof.exporter ? pd_xstrdup(prof.exporter) : NULL;
	p->tool = pd_tool_name(p->rel, prof.format, prof.exporter);
	for (k = 0; k < np; k++)
		if (!strcmp(pv[k].tool, p->tool))
			p->repeat++;
	p->repeat++;
	p->unit = prof.unit;
	p->interval = prof.interval;
	p->total_w = prof.total_weight;
	p->total_n = prof.total_count;
	pd_agg_init(&p->agg);
	pd_agg_compute(&p->agg, &prof, fn);
	node_func = pd_xmalloc(prof.nodes.n * sizeof(*node_func));
	node_func[0] = UINT32_MAX;
	for (k = 1; k < prof.nodes.n; k++)
		node_func[k] = p->agg.frame_func[prof.nodes.v[k].frame];
	pd_buf_init(&p->stacks);
	pd_stacks_records(&prof, node_func, &p->stacks);
	p->nodes = prof.nodes.n - 1;
	take_metrics(p, &prof);
	p->table_only = prof.nodes.n <= 1 && prof.tables.n;
	free(node_func);
	pd_profile_release(&prof);
	return 1;
}

/*
 * Counters without stacks (perf.stat.txt) belong to the first run with
 * stacks, when there is one: they are not a run of their own. Returns
 * the number of runs left.
 */
static size_t join_counters(struct pending *pv, size_t np)
{
	size_t i, k, out = 0;

	for (i = 0; i < np && pv[i].table_only; i++)
		;
	if (i == np)
		return np;
	for (i = 0; i < np; i++)
		if (!pv[i].table_only) {
			struct pending t = pv[out];

			pv[out++] = pv[i];
			pv[i] = t;
		}
	/* pv[0] is now the first run with stacks */
	for (i = out; i < np; i++) {
		for (k = 0; k < pv[i].metrics.n; k++)
			PD_VEC_PUSH(&pv[0].metrics, pv[i].metrics.v[k]);
		pv[i].metrics.n = 0;
		release_pending(&pv[i]);
	}
	return out;
}

int pd_store_ingest(struct pd_db *db, const char *path,
		    const struct pd_bundle_key *fallback,
		    struct pd_ingest_result *res, struct pd_err *err)
{
	struct pd_bundle b;
	struct pd_funcs fn;
	struct pending *pv = NULL;
	size_t np = 0, i;
	int rc, found = 0;

	memset(res, 0, sizeof(*res));
	memset(&b, 0, sizeof(b));
	/*
	 * The history keeps whole totals, system time included, as it
	 * always has: a trend never mixes two meanings of "total". compare
	 * sets the system functions apart from the verdict only.
	 */
	pd_funcs_init(&fn, PD_FUNCS_SYSTEM);
	if (pd_is_dir(path))
		rc = pd_bundle_read(&b, path, fallback, err);
	else
		rc = single_profile(&b, path, fallback, err);
	if (rc < 0)
		goto out;
	rc = resolve_commit(&b, fallback ? fallback->repo : NULL, path,
			    pd_is_dir(path), err);
	if (rc < 0)
		goto out;
	for (i = 0; i < b.outside.n; i++)
		pd_ingest_note(res,
			       "skipped %s/profiles/%s: a link leading"
			       " out of the bundle",
			       path, b.outside.v[i]);
	rc = bundle_stored(db, b.hash, &found, err);
	if (rc < 0)
		goto out;
	if (found) {
		res->skipped = 1;
		goto out;
	}
	pv = pd_xcalloc(b.files.n + 1, sizeof(*pv));
	for (i = 0; i < b.files.n; i++) {
		rc = read_run(&b.files.v[i], &fn, pv, np, res, err);
		if (rc < 0)
			goto out;
		np += (size_t)rc;
	}
	np = join_counters(pv, np);
	if (!np) {
		rc = pd_err_set(err, PD_EEMPTY,
				"%s: no supported profile under profiles/",
				path);
		goto out;
	}
	for (i = 0; i < np; i++)
		pd_agg_resize(&pv[i].agg, fn.v.n);
	/* The function ids the rows refer to are written on first use. */
	rc = write_bundle(db, &b, path, pv, np, &fn, res, err);
out:
	for (i = 0; i < np; i++)
		release_pending(&pv[i]);
	free(pv);
	pd_funcs_release(&fn);
	pd_bundle_release(&b);
	return rc;
}
