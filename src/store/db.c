/*
 * Opening and migrating the history. Migrations are the embedded files
 * sql/NNNN_*.sql, applied in order, each in its own transaction together
 * with the PRAGMA user_version that records it, so a database is always at
 * one version or the next, never in between. WAL and a busy timeout let
 * several ingests and readers share the file.
 */
#include <stdlib.h>
#include <string.h>

#include "core/blob.h"
#include "core/buf.h"
#include "core/xalloc.h"
#include "store/db.h"

const char *pd_db_default_path(void)
{
	const char *e = getenv("PERFDIFF_DB");

	return e && *e ? e : "perfdiff.db";
}

int pd_db_fail(struct pd_db *db, struct pd_err *err, const char *what)
{
	return pd_err_set(err, PD_EIO, "%s: %s: %s", db->path, what,
			  db->h ? sqlite3_errmsg(db->h) : "cannot open");
}

int pd_db_exec(struct pd_db *db, const char *sql, struct pd_err *err)
{
	char *msg = NULL;

	if (sqlite3_exec(db->h, sql, NULL, NULL, &msg) != SQLITE_OK) {
		pd_err_set(err, PD_EIO, "%s: %s", db->path,
			   msg ? msg : sqlite3_errmsg(db->h));
		sqlite3_free(msg);
		return PD_EIO;
	}
	return 0;
}

/*
 * Switching a new file to WAL reads its header, then needs it alone: when
 * several processes open it at once, SQLite answers SQLITE_BUSY at once
 * rather than wait (waiting could deadlock), so the busy timeout never
 * applies. Try again for as long as that timeout would have waited.
 */
static int exec_when_free(struct pd_db *db, const char *sql, struct pd_err *err)
{
	int tries;

	for (tries = 0; tries < 3000; tries++) {
		if (sqlite3_exec(db->h, sql, NULL, NULL, NULL) == SQLITE_OK)
			return 0;
		if ((sqlite3_errcode(db->h) & 0xff) != SQLITE_BUSY)
			break;
		sqlite3_sleep(10);
	}
	return pd_db_exec(db, sql, err);
}

/* Migration number of a blob named sql/NNNN_*.sql, or 0. */
static int migration_number(const char *name)
{
	const char *b = name + 4;
	int n = 0, i;

	if (strncmp(name, "sql/", 4))
		return 0;
	for (i = 0; i < 4; i++) {
		if (b[i] < '0' || b[i] > '9')
			return 0;
		n = n * 10 + (b[i] - '0');
	}
	return b[4] == '_' ? n : 0;
}

int pd_db_schema_latest(void)
{
	const struct pd_blob *b;
	int latest = 0;

	for (b = pd_blob_all(); b->name; b++)
		if (migration_number(b->name) > latest)
			latest = migration_number(b->name);
	return latest;
}

static int user_version(struct pd_db *db, int *v, struct pd_err *err)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db->h, "PRAGMA user_version", -1, &st, NULL) !=
	    SQLITE_OK)
		return pd_db_fail(db, err, "reading the schema version");
	rc = sqlite3_step(st);
	*v = rc == SQLITE_ROW ? sqlite3_column_int(st, 0) : 0;
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : pd_db_fail(db, err, "schema version");
}

static int migrate(struct pd_db *db, struct pd_err *err)
{
	int latest = pd_db_schema_latest(), v, next, rc;

	rc = user_version(db, &v, err);
	if (rc < 0)
		return rc;
	if (v > latest)
		return pd_err_set(err, PD_EFORMAT,
				  "%s: schema version %d is newer than this"
				  " perfdiff knows (%d); upgrade perfdiff",
				  db->path, v, latest);
	for (next = v + 1; next <= latest; next++) {
		const struct pd_blob *b;
		struct pd_buf sql = PD_BUF_INIT;

		for (b = pd_blob_all(); b->name; b++)
			if (migration_number(b->name) == next)
				break;
		if (!b->name)
			return pd_err_set(err, PD_EFORMAT,
					  "migration %04d is missing", next);
		/*
		 * BEGIN IMMEDIATE, then read the version again: another
		 * process may have migrated while we waited for the lock.
		 */
		rc = pd_db_exec(db, "BEGIN IMMEDIATE", err);
		if (rc < 0)
			return rc;
		rc = user_version(db, &v, err);
		if (rc == 0 && v >= next) {
			rc = pd_db_exec(db, "COMMIT", err);
			if (rc < 0)
				return rc;
			next = v;
			continue;
		}
		pd_buf_addf(&sql, "%s\nPRAGMA user_version = %d;\n", b->data,
			    next);
		if (rc == 0)
			rc = pd_db_exec(db, sql.buf, err);
		pd_buf_release(&sql);
		if (rc == 0)
			rc = pd_db_exec(db, "COMMIT", err);
		if (rc < 0) {
			sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
			return rc;
		}
	}
	db->version = latest;
	return 0;
}

int pd_db_open(struct pd_db *db, const char *path, int create,
	       struct pd_err *err)
{
	int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0);
	int rc;

	memset(db, 0, sizeof(*db));
	db->path = pd_xstrdup(path);
	if (sqlite3_open_v2(path, &db->h, flags, NULL) != SQLITE_OK) {
		rc = pd_err_set(err, PD_EIO, "%s: cannot open the database: %s",
				path, db->h ? sqlite3_errmsg(db->h) : "?");
		goto fail;
	}
	sqlite3_busy_timeout(db->h, 30000);
	sqlite3_extended_result_codes(db->h, 1);
	/*
	 * A new file gets 16 KiB pages (fewer B-tree levels and page splits
	 * for the many small run_functions rows); it only takes effect
	 * before the first table and before WAL.
	 */
	rc = pd_db_exec(db, "PRAGMA page_size = 16384;", err);
	if (rc == 0)
		rc = exec_when_free(db,
				    "PRAGMA journal_mode = WAL;"
				    "PRAGMA synchronous = NORMAL;"
				    "PRAGMA cache_size = -65536;"
				    "PRAGMA mmap_size = 2147418112;"
				    "PRAGMA foreign_keys = OFF;",
				    err);
	if (rc == 0)
		rc = migrate(db, err);
	if (rc == 0)
		return 0;
fail:
	pd_db_close(db);
	return rc;
}

void pd_db_close(struct pd_db *db)
{
	int i;

	for (i = 0; i < db->ncache; i++)
		sqlite3_finalize(db->cache[i].st);
	if (db->h)
		sqlite3_close(db->h);
	free(db->path);
	memset(db, 0, sizeof(*db));
}

sqlite3_stmt *pd_db_stmt(struct pd_db *db, const char *name, struct pd_err *err)
{
	const struct pd_blob *b;
	struct pd_buf file = PD_BUF_INIT;
	sqlite3_stmt *st = NULL;
	int i;

	for (i = 0; i < db->ncache; i++) {
		if (!strcmp(db->cache[i].name, name)) {
			sqlite3_reset(db->cache[i].st);
			sqlite3_clear_bindings(db->cache[i].st);
			return db->cache[i].st;
		}
	}
	pd_buf_addf(&file, "sql/%s.sql", name);
	b = pd_blob_get(file.buf);
	pd_buf_release(&file);
	if (!b) {
		pd_err_set(err, PD_EINVAL, "no query %s", name);
		return NULL;
	}
	if (sqlite3_prepare_v3(db->h, b->data, -1, SQLITE_PREPARE_PERSISTENT,
			       &st, NULL) != SQLITE_OK) {
		pd_db_fail(db, err, name);
		return NULL;
	}
	if (db->ncache < (int)PD_ARRAY_SIZE(db->cache)) {
		db->cache[db->ncache].name = name;
		db->cache[db->ncache++].st = st;
	}
	return st;
}
