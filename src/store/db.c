/*
 * Opening and migrating the history. Migrations are the embedded files
 * sql/NNNN_*.sql, applied in order, each in its own transaction together
 * with the PRAGMA user_version that records it, so a database is always at
 * one version or the next, never in between. WAL and a busy timeout let
 * several ingests and readers share the file.
 */
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/blob.h"
#include "core/buf.h"
#include "core/compat.h"
#include "core/file.h"
#include "core/xalloc.h"
#include "store/db.h"
#include "store/db_pg.h"
#include "store/pg_secret.h"

#include <sqlite3.h>

const char *pd_db_default_path(void)
{
	const char *e = getenv("PERFDIFF_DB");

	return e && *e ? e : "perfdiff.db";
}

/*
 * The way out of a damaged file, said wherever SQLite finds one: a
 * command to paste into a shell, so the path goes in single quotes (a
 * quote inside it as '\'').
 */
#define RECOVER_HINT                                                           \
	"the file is damaged; recover what it holds with: sqlite3 %s"          \
	" .recover | sqlite3 RECOVERED.db"

/* path quoted for a POSIX shell, in b. */
static const char *shell_quoted(struct pd_buf *b, const char *path)
{
	const char *p;

	pd_buf_reset(b);
	pd_buf_addch(b, '\'');
	for (p = path; *p; p++)
		if (*p == '\'')
			pd_buf_adds(b, "'\\''");
		else
			pd_buf_addch(b, *p);
	pd_buf_addch(b, '\'');
	return b->buf;
}

static int damaged(int code)
{
	return (code & 0xff) == SQLITE_CORRUPT ||
	       (code & 0xff) == SQLITE_NOTADB;
}

/* The one line for a damaged file: where it showed, and the way out. */
static int damaged_file(struct pd_db *db, struct pd_err *err, const char *what,
			const char *finding, const char *tail)
{
	struct pd_buf q = PD_BUF_INIT;
	int rc = pd_err_set(err, PD_EIO, "%s: %s%s%s; " RECOVER_HINT "%s",
			    db->path, what ? what : "", what ? ": " : "",
			    finding, shell_quoted(&q, db->path), tail);

	pd_buf_release(&q);
	return rc;
}

size_t pd_db_hide_password(char *arg)
{
	return pd_pg_mask(arg);
}

int pd_db_is_server(const char *target)
{
	return !strncmp(target, "postgresql://", 13) ||
	       !strncmp(target, "postgres://", 11);
}

int pd_db_fail(struct pd_db *db, struct pd_err *err, const char *what)
{
	int code;

	if (db->pg)
		return pd_err_set(err, PD_EIO, "%s: %s: %s", db->path,
				  pd_pg_step_name(db->pg, what),
				  pd_pg_message(db->pg));
	code = db->h ? sqlite3_extended_errcode(db->h) : 0;
	if (damaged(code))
		return damaged_file(db, err, what, sqlite3_errmsg(db->h), "");
	return pd_err_set(err, PD_EIO, "%s: %s: %s", db->path, what,
			  db->h ? sqlite3_errmsg(db->h) : "cannot open");
}

int pd_db_exec(struct pd_db *db, const char *sql, struct pd_err *err)
{
	char *msg = NULL;

	if (db->pg)
		return pd_pg_exec(db, sql, err);

	if (sqlite3_exec(db->h, sql, NULL, NULL, &msg) != SQLITE_OK) {
		if (damaged(sqlite3_extended_errcode(db->h)))
			damaged_file(db, err, NULL,
				     msg ? msg : sqlite3_errmsg(db->h), "");
		else
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

static int newer(struct pd_db *db, int v, int latest, struct pd_err *err)
{
	return pd_err_set(err, PD_EFORMAT,
			  "%s: created by a newer perfdiff (schema %d > %d);"
			  " upgrade perfdiff to read it",
			  db->path, v, latest);
}

/* Tables of the file that are not SQLite's own (0 when none can be read). */
static int foreign_tables(struct pd_db *db)
{
	sqlite3_stmt *st = NULL;
	int n = 0;

	if (sqlite3_prepare_v2(db->h,
			       "SELECT count(*) FROM sqlite_master WHERE"
			       " type = 'table' AND name NOT LIKE 'sqlite_%'",
			       -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return n;
}

/* Another program's database: perfdiff's tables go elsewhere. */
static int refuse_foreign(struct pd_db *db, struct pd_err *err)
{
	/*
	 * The tables first, then the version: an ingest that migrates the
	 * file meanwhile commits both at once, so tables seen mean their
	 * version is seen too.
	 */
	int n = foreign_tables(db), v = 0, rc;

	if (n == 0)
		return 0;
	rc = user_version(db, &v, err);
	if (rc < 0 || v != 0)
		return rc;
	return pd_err_set(err, PD_EFORMAT,
			  "%s: not a perfdiff history: an SQLite file of"
			  " another program (%d table%s); name a file of"
			  " perfdiff's own, or a new one, with --db",
			  db->path, n, n == 1 ? "" : "s");
}

static int migrate(struct pd_db *db, struct pd_err *err)
{
	int latest = pd_db_schema_latest(), v, next, rc;

	rc = user_version(db, &v, err);
	if (rc < 0)
		return rc;
	if (v > latest)
		return newer(db, v, latest, err);
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

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Gives up a statement once the time budget is spent. */
static int past_deadline(void *arg)
{
	return now_ms() > *(const long long *)arg;
}

/*
 * PRAGMA quick_check before ingest writes, for at most QUICK_CHECK_MS:
 * enough to read a history of a few hundred megabytes whole; a larger
 * one is checked as far as the budget goes, and writing is refused only
 * on a finding.
 */
#define QUICK_CHECK_MS 1500

/*
 * The progress handler is not called inside the integrity check's one
 * step before SQLite 3.43 or so: there, a 1.3 GB history took 20 s
 * whatever the budget. sqlite3_interrupt() is heeded inside it, so a
 * watchdog thread calls it when the budget is spent, unless the step
 * ended first (a byte down the pipe wakes it at once).
 */
struct watchdog {
	sqlite3 *h;
	int ms, fd;
};

static void *watch_step(void *arg)
{
	const struct watchdog *w = arg;
	struct pollfd p = { w->fd, POLLIN, 0 };

	if (poll(&p, 1, w->ms) == 0)
		sqlite3_interrupt(w->h);
	return NULL;
}

static int step_until(struct pd_db *db, sqlite3_stmt *st, long long deadline)
{
	struct watchdog w;
	pthread_t th;
	int fds[2], rc, watched = 0;

	w.h = db->h;
	w.ms = (int)(deadline - now_ms());
	if (w.ms < 1)
		w.ms = 1;
	if (pd_db_threads() && pipe(fds) == 0) {
		w.fd = fds[0];
		watched = !pthread_create(&th, NULL, watch_step, &w);
		if (!watched) {
			close(fds[0]);
			close(fds[1]);
		}
	}
	rc = sqlite3_step(st);
	if (watched) {
		/* the thread is gone before the statement is */
		(void)!write(fds[1], "", 1);
		pthread_join(th, NULL);
		close(fds[0]);
		close(fds[1]);
	}
	return rc;
}

/*
 * Runs one checking PRAGMA (its answer "ok", or findings) until the
 * deadline (0: none; past it, the part checked is taken as the answer).
 */
static int check_file(struct pd_db *db, const char *pragma, const char *label,
		      long long deadline, const char *tail, struct pd_err *err)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db->h, pragma, -1, &st, NULL) != SQLITE_OK)
		return pd_db_fail(db, err, "checking the file");
	if (deadline)
		sqlite3_progress_handler(db->h, 10000, past_deadline,
					 &deadline);
	rc = deadline ? step_until(db, st, deadline) : sqlite3_step(st);
	sqlite3_progress_handler(db->h, 0, NULL, NULL);
	if (rc == SQLITE_ROW &&
	    strcmp((const char *)sqlite3_column_text(st, 0), "ok")) {
		char what[201];
		size_t i;

		/* SQLite's finding, on one line */
		snprintf(what, sizeof(what), "%s",
			 (const char *)sqlite3_column_text(st, 0));
		for (i = 0; what[i]; i++)
			if ((unsigned char)what[i] < 0x20)
				what[i] = ' ';
		rc = damaged_file(db, err, label, what, tail);
		sqlite3_finalize(st);
		return rc;
	}
	sqlite3_finalize(st);
	if (rc == SQLITE_ROW || rc == SQLITE_DONE ||
	    (deadline && (rc & 0xff) == SQLITE_INTERRUPT))
		return 0;
	return pd_db_fail(db, err, "checking the file");
}

/*
 * A read command checks what it opens: SQLite reads a damaged page's
 * garbage without a word when the page's structure still holds, and a
 * row changed in place then shows up wrong or not at all
 * (docs/history.md, "Ingest"). The tables every command reads whole
 * (runs, bundles, functions: small beside the function rows) get
 * integrity_check, which also finds a row its indexes disagree with; a
 * file of at most READ_CHECK_BYTES gets quick_check too, read whole
 * (about 0.2 s at that size; 7 s for a history of 1.3 GB, too long to
 * pay on every command). A damaged page of a larger file is met by the
 * read itself, which refuses it with the same line.
 */
#define READ_CHECK_BYTES (32LL << 20)

static int read_check(struct pd_db *db, const char *path, struct pd_err *err)
{
	static const char *const tables[] = {
		"PRAGMA integrity_check(runs)",
		"PRAGMA integrity_check(bundles)",
		"PRAGMA integrity_check(functions)",
	};
	struct stat sb;
	size_t i;
	int rc = 0;

	for (i = 0; i < PD_ARRAY_SIZE(tables) && rc == 0; i++)
		rc = check_file(db, tables[i], "PRAGMA integrity_check", 0, "",
				err);
	if (rc == 0 && stat(path, &sb) == 0 && sb.st_size <= READ_CHECK_BYTES)
		rc = check_file(db, "PRAGMA quick_check(1)",
				"PRAGMA quick_check", 0, "", err);
	return rc;
}

static int quick_check(struct pd_db *db, struct pd_err *err)
{
	return check_file(db, "PRAGMA quick_check(1)", "PRAGMA quick_check",
			  now_ms() + QUICK_CHECK_MS, " (nothing was written)",
			  err);
}

/* A file URI for path, for read-only media (immutable=1). */
static void immutable_uri(struct pd_buf *b, const char *path)
{
	const char *p;

	pd_buf_adds(b, "file:");
	for (p = path; *p; p++) {
		if (*p == '%' || *p == '?' || *p == '#')
			pd_buf_addf(b, "%%%02X", (unsigned char)*p);
		else
			pd_buf_addch(b, *p);
	}
	pd_buf_adds(b, "?immutable=1");
}

/* Whether a read-only open failed for want of writing (-shm, -wal). */
/*
 * Every connection is used by one thread only: each thread that reads the
 * history (the noise learners, the halves of a window) opens its own,
 * and none is handed to another. So SQLite's serialising mutexes, which
 * guard one connection shared by several threads, are not needed; "multi-
 * thread" mode (SQLITE_OPEN_NOMUTEX) keeps SQLite's own shared state
 * guarded and drops the per-call locking (docs/architecture.md, "The
 * history store"). A library built without threads (SQLITE_THREADSAFE=0)
 * cannot be used from two threads at all: pd_db_threads() says so and
 * the readers then stay on one thread.
 */
#define PD_DB_NOMUTEX SQLITE_OPEN_NOMUTEX

int pd_db_threads(void)
{
	return sqlite3_threadsafe() != 0;
}

static int cannot_write(sqlite3 *h)
{
	int code = h ? sqlite3_extended_errcode(h) & 0xff : SQLITE_CANTOPEN;

	return code == SQLITE_CANTOPEN || code == SQLITE_READONLY;
}

static int open_read(struct pd_db *db, const char *path, int check,
		     struct pd_err *err)
{
	int v = 0, rc, latest = pd_db_schema_latest();

	if (sqlite3_open_v2(path, &db->h, SQLITE_OPEN_READONLY | PD_DB_NOMUTEX,
			    NULL) == SQLITE_OK) {
		sqlite3_busy_timeout(db->h, 30000);
		rc = user_version(db, &v, err);
	} else
		rc = -1;
	if (rc < 0 && cannot_write(db->h)) {
		/*
		 * A WAL file on a medium we cannot write (SQLite wants its
		 * -shm next to it): read it as an immutable file, which
		 * never reads the -wal; committed runs still there (after a
		 * crash) would be missed, so that is refused.
		 */
		struct pd_buf uri = PD_BUF_INIT;
		struct stat st;

		memset(err, 0, sizeof(*err)); /* the first attempt's is moot */
		pd_buf_addf(&uri, "%s-wal", path);
		if (stat(uri.buf, &st) == 0 && st.st_size > 0) {
			rc = pd_err_set(err, PD_EIO,
					"%s: %s holds changes not yet in the"
					" file, and its folder cannot be"
					" written, so they cannot be read;"
					" copy both to a writable folder",
					path, uri.buf);
			pd_buf_release(&uri);
			return rc;
		}
		pd_buf_reset(&uri);
		sqlite3_close(db->h);
		db->h = NULL;
		immutable_uri(&uri, path);
		if (sqlite3_open_v2(uri.buf, &db->h,
				    SQLITE_OPEN_READONLY | SQLITE_OPEN_URI |
					PD_DB_NOMUTEX,
				    NULL) == SQLITE_OK)
			rc = user_version(db, &v, err);
		else
			rc = pd_err_set(
			    err, PD_EIO, "%s: cannot open the database: %s",
			    path, db->h ? sqlite3_errmsg(db->h) : "?");
		pd_buf_release(&uri);
	}
	if (rc < 0)
		return rc;
	if (v > latest)
		return newer(db, v, latest, err);
	if (v == 0 && refuse_foreign(db, err) < 0)
		return PD_EFORMAT;
	if (v == 0)
		return pd_err_set(
		    err, PD_EFORMAT,
		    "%s: an empty SQLite file, no perfdiff history"
		    " yet; perfdiff ingest makes one",
		    path);
	if (v < latest)
		return pd_err_set(
		    err, PD_EFORMAT,
		    "%s: written by an older perfdiff (schema %d <"
		    " %d); perfdiff ingest migrates it in place",
		    path, v, latest);
	db->version = v;
	rc = pd_db_exec(db,
			"PRAGMA query_only = ON;"
			"PRAGMA cache_size = -65536;"
			"PRAGMA mmap_size = 2147418112;",
			err);
	return rc == 0 && check ? read_check(db, path, err) : rc;
}

/*
 * SQLite opens whatever it is given: a FIFO blocks it for ever and a
 * folder fails without a message. A history is a regular file, or none
 * yet (the caller says whether a missing one is an error).
 */
static int refuse_special(const char *path, struct pd_err *err)
{
	struct stat st;

	if (stat(path, &st) != 0 || S_ISREG(st.st_mode))
		return 0;
	return pd_err_set(err, PD_EFORMAT,
			  "%s: %s, not a history database; refused", path,
			  pd_file_kind(st.st_mode));
}

int pd_db_open(struct pd_db *db, const char *path, enum pd_db_mode mode,
	       struct pd_err *err)
{
	int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | PD_DB_NOMUTEX;
	int rc;

	memset(db, 0, sizeof(*db));
	db->target = pd_xstrdup(path);
	if (pd_db_is_server(path)) {
		db->path = pd_pg_display(path);
		rc = pd_pg_open(db, path, mode == PD_DB_WRITE, err);
		if (rc < 0)
			pd_db_close(db);
		return rc;
	}
	db->path = pd_xstrdup(path);
	rc = refuse_special(path, err);
	if (rc < 0)
		goto fail;
	if (mode != PD_DB_WRITE) {
		rc = open_read(db, path, mode == PD_DB_READ, err);
		if (rc < 0)
			pd_db_close(db);
		return rc;
	}
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
	/* before any PRAGMA writes to it: another program's file is left
	 * exactly as it was */
	rc = refuse_foreign(db, err);
	if (rc == 0)
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
		rc = quick_check(db, err);
	if (rc == 0)
		rc = migrate(db, err);
	if (rc == 0)
		return 0;
fail:
	pd_db_close(db);
	return rc;
}

int pd_db_open_history(struct pd_db *db, const char *path, struct pd_err *err)
{
	if (!pd_db_is_server(path) && access(path, F_OK) != 0) {
		memset(db, 0, sizeof(*db));
		return pd_err_set(err, PD_EIO,
				  "error: %s: no such database (perfdiff ingest"
				  " creates it)",
				  path);
	}
	return pd_db_open(db, path, PD_DB_READ, err);
}

void pd_db_close(struct pd_db *db)
{
	int i;

	for (i = 0; i < db->ncache; i++) {
		sqlite3_finalize(db->cache[i].lite);
		pd_pg_st_free(db->cache[i].pg);
	}
	pd_pg_close(db);
	if (db->h)
		sqlite3_close(db->h);
	free(db->path);
	free(db->target);
	memset(db, 0, sizeof(*db));
}

void pd_db_rollback(struct pd_db *db)
{
	struct pd_err ignored = { 0 };

	if (db->pg)
		(void)!pd_pg_exec(db, "ROLLBACK", &ignored);
	else
		sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
}

int pd_db_begin_write(struct pd_db *db, struct pd_err *err)
{
	return db->pg ? pd_pg_begin_write(db, err)
		      : pd_db_exec(db, "BEGIN IMMEDIATE", err);
}

/* The text of a query: sql/pg/<name>.sql on PostgreSQL when there is one. */
static const struct pd_blob *query_text(struct pd_db *db, const char *name)
{
	const struct pd_blob *b = NULL;
	struct pd_buf file = PD_BUF_INIT;

	if (db->pg) {
		pd_buf_addf(&file, "sql/pg/%s.sql", name);
		b = pd_blob_get(file.buf);
		pd_buf_reset(&file);
	}
	if (!b) {
		pd_buf_addf(&file, "sql/%s.sql", name);
		b = pd_blob_get(file.buf);
	}
	pd_buf_release(&file);
	return b;
}

struct pd_st *pd_db_stmt(struct pd_db *db, const char *name, struct pd_err *err)
{
	const struct pd_blob *b;
	struct pd_st *c;
	sqlite3_stmt *st = NULL;
	int i;

	for (i = 0; i < db->ncache; i++) {
		c = &db->cache[i];
		if (strcmp(c->name, name))
			continue;
		if (c->pg) {
			pd_pg_clear(c->pg);
		} else {
			sqlite3_reset(c->lite);
			sqlite3_clear_bindings(c->lite);
		}
		return c;
	}
	if (db->ncache == (int)PD_ARRAY_SIZE(db->cache)) {
		pd_err_set(err, PD_EINVAL, "too many queries for %s", name);
		return NULL;
	}
	b = query_text(db, name);
	if (!b) {
		pd_err_set(err, PD_EINVAL, "no query %s", name);
		return NULL;
	}
	c = &db->cache[db->ncache];
	c->db = db;
	c->name = name;
	if (db->pg) {
		c->pg = pd_pg_prepare(db, name, b->data, err);
		return c->pg ? &db->cache[db->ncache++] : NULL;
	}
	if (sqlite3_prepare_v3(db->h, b->data, -1, SQLITE_PREPARE_PERSISTENT,
			       &st, NULL) != SQLITE_OK) {
		pd_db_fail(db, err, name);
		return NULL;
	}
	c->lite = st;
	return &db->cache[db->ncache++];
}
