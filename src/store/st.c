/*
 * Statements of either backend (db.h): each call goes to SQLite's own
 * function or to the PostgreSQL statement (db_pg.c). The store's code
 * above this line never names a backend.
 */
#include <sqlite3.h>
#include <string.h>

#include "core/compat.h"
#include "store/db.h"
#include "store/db_pg.h"

void pd_st_null(struct pd_st *st, int i)
{
	if (st->pg)
		pd_pg_bind(st->pg, i, PD_PG_NULL, 0, 0, NULL, 0);
	else
		sqlite3_bind_null(st->lite, i);
}

void pd_st_i64(struct pd_st *st, int i, int64_t v)
{
	if (st->pg)
		pd_pg_bind(st->pg, i, PD_PG_INT, v, 0, NULL, 0);
	else
		sqlite3_bind_int64(st->lite, i, v);
}

void pd_st_f64(struct pd_st *st, int i, double v)
{
	if (st->pg)
		pd_pg_bind(st->pg, i, PD_PG_REAL, 0, v, NULL, 0);
	else
		sqlite3_bind_double(st->lite, i, v);
}

void pd_st_text(struct pd_st *st, int i, const char *s)
{
	if (!s)
		pd_st_null(st, i);
	else if (st->pg)
		pd_pg_bind(st->pg, i, PD_PG_TEXT, 0, 0, s, strlen(s));
	else
		sqlite3_bind_text(st->lite, i, s, -1, SQLITE_TRANSIENT);
}

void pd_st_blob(struct pd_st *st, int i, const void *p, size_t n)
{
	if (st->pg)
		pd_pg_bind(st->pg, i, PD_PG_BLOB, 0, 0, p, n);
	else
		/* SQLite binds NULL for a NULL pointer: empty stays a blob */
		sqlite3_bind_blob64(st->lite, i, p ? p : "", n,
				    SQLITE_TRANSIENT);
}

int pd_st_step(struct pd_st *st)
{
	int rc;

	if (st->pg)
		return pd_pg_step(st->db->pg, st->pg);
	rc = sqlite3_step(st->lite);
	return rc == SQLITE_ROW	   ? PD_ST_ROW
	       : rc == SQLITE_DONE ? PD_ST_DONE
				   : -1;
}

void pd_st_reset(struct pd_st *st)
{
	if (st->pg)
		pd_pg_reset(st->pg);
	else
		sqlite3_reset(st->lite);
}

int pd_st_isnull(struct pd_st *st, int col)
{
	if (st->pg)
		return pd_pg_isnull(st->pg, col);
	return sqlite3_column_type(st->lite, col) == SQLITE_NULL;
}

int64_t pd_st_col_i64(struct pd_st *st, int col)
{
	if (st->pg)
		return pd_pg_col_i64(st->pg, col);
	return sqlite3_column_int64(st->lite, col);
}

double pd_st_col_f64(struct pd_st *st, int col)
{
	if (st->pg)
		return pd_pg_col_f64(st->pg, col);
	return sqlite3_column_double(st->lite, col);
}

double pd_st_col_f64n(struct pd_st *st, int col)
{
	sqlite3_value *v;

	if (st->pg)
		return pd_pg_col_f64n(st->pg, col);
	/* one column look-up, not two: a run's rows are millions of these */
	v = sqlite3_column_value(st->lite, col);
	return sqlite3_value_type(v) == SQLITE_NULL ? PD_NAN
						    : sqlite3_value_double(v);
}

const char *pd_st_col_text(struct pd_st *st, int col)
{
	const char *s = st->pg
			    ? pd_pg_col_text(st->pg, col)
			    : (const char *)sqlite3_column_text(st->lite, col);

	/* NULL in a damaged history (the schema says NOT NULL) reads empty */
	return s ? s : "";
}

const void *pd_st_col_blob(struct pd_st *st, int col)
{
	if (st->pg)
		return pd_pg_col_blob(st->pg, col);
	const void *b = sqlite3_column_blob(st->lite, col);

	return b ? b : ""; /* SQLite gives NULL for an empty blob */
}

size_t pd_st_col_bytes(struct pd_st *st, int col)
{
	if (st->pg)
		return pd_pg_col_bytes(st->pg, col);
	return (size_t)sqlite3_column_bytes(st->lite, col);
}

int pd_st_insert_id(struct pd_st *st, int64_t *id, struct pd_err *err,
		    const char *what)
{
	int rc = pd_st_step(st);

	if (rc == PD_ST_ROW)
		*id = pd_st_col_i64(st, 0);
	else if (rc == PD_ST_DONE && !st->pg)
		*id = sqlite3_last_insert_rowid(st->db->h);
	pd_st_reset(st);
	if (rc == PD_ST_DONE && st->pg)
		return pd_err_set(err, PD_EIO, "%s: %s: no id returned",
				  st->db->path, what);
	return rc < 0 ? pd_db_fail(st->db, err, what) : 0;
}
