/*
 * The PostgreSQL backend of the history (db.h; docs/history.md,
 * "Backends"). Statements are prepared on the server with the types it
 * infers for their parameters; values travel in binary, results come back
 * in binary and whole (a query of the store reads one run at most). A
 * statement whose sql/pg file is a COPY ... FROM STDIN is a bulk writer:
 * each step adds a row, and the rows are sent before anything else runs.
 */
#ifndef PD_DB_PG_H
#define PD_DB_PG_H

#include "core/compat.h"
#include "store/db.h"

enum pd_pg_kind { PD_PG_NULL, PD_PG_INT, PD_PG_REAL, PD_PG_TEXT, PD_PG_BLOB };

PD_NODISCARD int pd_pg_open(struct pd_db *db, const char *target, int write,
			    struct pd_err *err);
void pd_pg_close(struct pd_db *db);
/* BEGIN, holding the writers' lock until COMMIT or ROLLBACK. */
PD_NODISCARD int pd_pg_begin_write(struct pd_db *db, struct pd_err *err);
PD_NODISCARD struct pd_pg_st *pd_pg_prepare(struct pd_db *db, const char *name,
					    const char *sql,
					    struct pd_err *err);
void pd_pg_st_free(struct pd_pg_st *st);
/* Bindings dropped (pd_db_stmt hands a statement out clean). */
void pd_pg_clear(struct pd_pg_st *st);
void pd_pg_bind(struct pd_pg_st *st, int i, enum pd_pg_kind kind, int64_t iv,
		double dv, const void *p, size_t n);
PD_NODISCARD int pd_pg_step(struct pd_pg *pg, struct pd_pg_st *st);
void pd_pg_reset(struct pd_pg_st *st);
int pd_pg_isnull(struct pd_pg_st *st, int col);
int64_t pd_pg_col_i64(struct pd_pg_st *st, int col);
double pd_pg_col_f64(struct pd_pg_st *st, int col);
/* The same, NaN for NULL: one look-up. */
double pd_pg_col_f64n(struct pd_pg_st *st, int col);
const char *pd_pg_col_text(struct pd_pg_st *st, int col);
const void *pd_pg_col_blob(struct pd_pg_st *st, int col);
size_t pd_pg_col_bytes(struct pd_pg_st *st, int col);
PD_NODISCARD int pd_pg_exec(struct pd_db *db, const char *sql,
			    struct pd_err *err);
/* The server's last message, on one line. */
const char *pd_pg_message(struct pd_pg *pg);
/*
 * The step a failure belongs to: what the caller was doing, or "adding
 * rows" when it was the COPY rows sent before the caller's statement.
 */
const char *pd_pg_step_name(struct pd_pg *pg, const char *what);
#endif
