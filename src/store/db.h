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
/* Opens (creating when create is set) and migrates to the latest schema. */
PD_NODISCARD int pd_db_open(struct pd_db *db, const char *path, int create,
			    struct pd_err *err);
void pd_db_close(struct pd_db *db);
/* The statement of sql/<name>.sql, reset and with bindings cleared. */
sqlite3_stmt *pd_db_stmt(struct pd_db *db, const char *name,
			 struct pd_err *err);
PD_NODISCARD int pd_db_exec(struct pd_db *db, const char *sql,
			    struct pd_err *err);
/* Records SQLite's message for a failed call; returns PD_EIO. */
int pd_db_fail(struct pd_db *db, struct pd_err *err, const char *what);
/* Latest schema version this binary knows. */
int pd_db_schema_latest(void);

#endif
