/*
 * The history database: a SQLite file on one machine, or a PostgreSQL
 * server shared by a team (docs/history.md, "Backends"). pd_db owns the
 * connection and a cache of prepared statements named after their files
 * in sql/ (q_runs_list -> sql/q_runs_list.sql; sql/pg/<name>.sql takes
 * its place on PostgreSQL where the dialects differ). Statements stay
 * valid until pd_db_close(). The store code speaks only the pd_st calls
 * below, which both backends implement.
 */
#ifndef PD_DB_H
#define PD_DB_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

struct sqlite3;
struct sqlite3_stmt;
struct pd_pg;
struct pd_pg_st;

/* A prepared statement of either backend. */
struct pd_st {
	struct pd_db *db;
	const char *name;
	struct sqlite3_stmt *lite;
	struct pd_pg_st *pg;
};

struct pd_db {
	struct sqlite3 *h; /* SQLite, or NULL */
	struct pd_pg *pg;  /* PostgreSQL, or NULL */
	/*
	 * What messages name: the file, or the server's URL without its
	 * password. target is what opens it again (threads' connections)
	 * and is never printed.
	 */
	char *path;
	char *target;
	struct pd_st cache[64];
	int ncache;
	int version; /* schema version after migration */
};

/* pd_st_step's answers; an error is negative (pd_db_fail says it). */
#define PD_ST_DONE 0
#define PD_ST_ROW 1

/*
 * Binding: parameter i counts from 1, text is copied, a NULL string
 * binds NULL. Columns count from 0; text stays valid until the next
 * step or reset.
 */
void pd_st_null(struct pd_st *st, int i);
void pd_st_i64(struct pd_st *st, int i, int64_t v);
void pd_st_f64(struct pd_st *st, int i, double v);
void pd_st_text(struct pd_st *st, int i, const char *s);
/* A blob of n bytes, an empty one when n is 0 (p may then be NULL). */
void pd_st_blob(struct pd_st *st, int i, const void *p, size_t n);
PD_NODISCARD int pd_st_step(struct pd_st *st);
void pd_st_reset(struct pd_st *st);
int pd_st_isnull(struct pd_st *st, int col);
int64_t pd_st_col_i64(struct pd_st *st, int col);
double pd_st_col_f64(struct pd_st *st, int col);
/* The same, NaN for NULL. */
double pd_st_col_f64n(struct pd_st *st, int col);
/* A text column; never NULL ("" for NULL, which only damage makes). */
const char *pd_st_col_text(struct pd_st *st, int col);
/* Never NULL: an empty (or NULL) column is an empty blob. */
const void *pd_st_col_blob(struct pd_st *st, int col);
size_t pd_st_col_bytes(struct pd_st *st, int col);

/*
 * Steps an INSERT and gives the new row's id: SQLite's rowid, or the
 * row PostgreSQL's statement returns (its sql/pg file says RETURNING id).
 */
PD_NODISCARD int pd_st_insert_id(struct pd_st *st, int64_t *id,
				 struct pd_err *err, const char *what);

/* The database named by $PERFDIFF_DB, else ./perfdiff.db. */
const char *pd_db_default_path(void);
enum pd_db_mode {
	/*
	 * Read commands: the file is opened read-only (and immutable when
	 * its folder cannot take SQLite's -wal/-shm files, as on read-only
	 * media); its schema must be this binary's, and it is checked for
	 * damage (docs/history.md, "Ingest").
	 */
	PD_DB_READ,
	/*
	 * The same without the check of a read open (PRAGMA integrity_check
	 * of the small tables, quick_check bounded in time): a thread's own
	 * connection to a history this process opened with PD_DB_READ.
	 */
	PD_DB_READ_AGAIN,
	/*
	 * ingest: created when missing, checked (PRAGMA quick_check, bounded
	 * in time) and migrated to the latest schema.
	 */
	PD_DB_WRITE,
};

/* Whether the SQLite library may be used from several threads. */
int pd_db_threads(void);
PD_NODISCARD int pd_db_open(struct pd_db *db, const char *path,
			    enum pd_db_mode mode, struct pd_err *err);
void pd_db_close(struct pd_db *db);
/*
 * A history that must exist already (every command but ingest): a file
 * not there is "no such database (perfdiff ingest creates it)", not a
 * new empty one; opened as PD_DB_READ.
 */
PD_NODISCARD int pd_db_open_history(struct pd_db *db, const char *path,
				    struct pd_err *err);
/* The statement of sql/<name>.sql, reset and with bindings cleared. */
PD_NODISCARD struct pd_st *pd_db_stmt(struct pd_db *db, const char *name,
				      struct pd_err *err);
PD_NODISCARD int pd_db_exec(struct pd_db *db, const char *sql,
			    struct pd_err *err);
/*
 * Starts a writing transaction: SQLite's BEGIN IMMEDIATE, or on
 * PostgreSQL a BEGIN holding perfdiff's advisory lock, so writers take
 * turns on both (docs/history.md, "Backends").
 */
PD_NODISCARD int pd_db_begin_write(struct pd_db *db, struct pd_err *err);
/* Ends a failed transaction; harmless when none is open. */
void pd_db_rollback(struct pd_db *db);
/*
 * Overwrites with x's, in place, the password of a postgresql:// URL
 * inside arg (an argument as ps shows it); how many characters it hid.
 */
size_t pd_db_hide_password(char *arg);
/* Whether a --db value names a PostgreSQL server (postgresql://...). */
int pd_db_is_server(const char *target);
/*
 * Records the database's message for a failed call, with the way out when the
 * file is damaged; returns PD_EIO.
 */
int pd_db_fail(struct pd_db *db, struct pd_err *err, const char *what);
/* Latest schema version this binary knows. */
int pd_db_schema_latest(void);

#endif
