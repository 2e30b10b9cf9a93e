/*
 * The history database (SQLite). pd_db owns the connection and a cache of
 * prepared statements named after their files in sql/ (q_runs_list ->
 * sql/q_runs_list.sql). Statements stay valid until pd_db_close().
 */
#ifndef PD_DB_H
#define PD_DB_H

#include <sqlite3.h>

#include "core/err.h"

struct pd_db_stmt {
	const char *name;
	sqlite3_stmt *st;
};

struct pd_db {
	sqlite3 *h;
	char *path;
	struct pd_db_stmt cache[32];
	int ncache;
	int version; /* schema version after migration */
};

/* The database named by $PERFDIFF_DB, else ./perfdiff.db. */
const char *pd_db_default_path(void);
enum pd_db_mode {
	/*
	 * Read commands: the file is opened read-only (and immutable when
	 * its folder cannot take SQLite's -wal/-shm files, as on read-only
	 * media); its schema must be this binary's.
	 */
	PD_DB_READ,
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
/* The statement of sql/<name>.sql, reset and with bindings cleared. */
sqlite3_stmt *pd_db_stmt(struct pd_db *db, const char *name,
			 struct pd_err *err);
PD_NODISCARD int pd_db_exec(struct pd_db *db, const char *sql,
			    struct pd_err *err);
/*
 * Records SQLite's message for a failed call, with the way out when the
 * file is damaged; returns PD_EIO.
 */
int pd_db_fail(struct pd_db *db, struct pd_err *err, const char *what);
/* Latest schema version this binary knows. */
int pd_db_schema_latest(void);

#endif
