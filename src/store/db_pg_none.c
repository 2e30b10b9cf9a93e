/*
 * The PostgreSQL backend's place in a build without libpq (the Windows
 * build, docs/architecture.md "Platforms"): opening a server says so in
 * one line, and nothing else can be reached, since db->pg stays NULL.
 */
#include <stddef.h>

#include "store/db_pg.h"

int pd_pg_open(struct pd_db *db, const char *target, int write,
	       struct pd_err *err)
{
	(void)target;
	(void)write;
	return pd_err_set(err, PD_EUSAGE,
			  "%s: this perfdiff was built without PostgreSQL"
			  " (libpq); use a SQLite history file",
			  db->path);
}

void pd_pg_close(struct pd_db *db)
{
	(void)db;
}

int pd_pg_begin_write(struct pd_db *db, struct pd_err *err)
{
	(void)db;
	return pd_err_set(err, PD_EUSAGE, "no PostgreSQL in this build");
}

struct pd_pg_st *pd_pg_prepare(struct pd_db *db, const char *name,
			       const char *sql, struct pd_err *err)
{
	(void)db;
	(void)sql;
	(void)pd_err_set(err, PD_EUSAGE, "%s: no PostgreSQL in this build",
			 name);
	return NULL;
}

void pd_pg_st_free(struct pd_pg_st *st)
{
	(void)st;
}

void pd_pg_clear(struct pd_pg_st *st)
{
	(void)st;
}

void pd_pg_bind(struct pd_pg_st *st, int i, enum pd_pg_kind kind, int64_t iv,
		double dv, const void *p, size_t n)
{
	(void)st;
	(void)i;
	(void)kind;
	(void)iv;
	(void)dv;
	(void)p;
	(void)n;
}

int pd_pg_step(struct pd_pg *pg, struct pd_pg_st *st)
{
	(void)pg;
	(void)st;
	return PD_EUSAGE;
}

void pd_pg_reset(struct pd_pg_st *st)
{
	(void)st;
}

int pd_pg_isnull(struct pd_pg_st *st, int col)
{
	(void)st;
	(void)col;
	return 1;
}

int64_t pd_pg_col_i64(struct pd_pg_st *st, int col)
{
	(void)st;
	(void)col;
	return 0;
}

double pd_pg_col_f64(struct pd_pg_st *st, int col)
{
	(void)st;
	(void)col;
	return 0;
}

double pd_pg_col_f64n(struct pd_pg_st *st, int col)
{
	(void)st;
	(void)col;
	return PD_NAN;
}

const char *pd_pg_col_text(struct pd_pg_st *st, int col)
{
	(void)st;
	(void)col;
	return NULL;
}

const void *pd_pg_col_blob(struct pd_pg_st *st, int col)
{
	(void)st;
	(void)col;
	return NULL;
}

size_t pd_pg_col_bytes(struct pd_pg_st *st, int col)
{
	(void)st;
	(void)col;
	return 0;
}

int pd_pg_exec(struct pd_db *db, const char *sql, struct pd_err *err)
{
	(void)db;
	(void)sql;
	return pd_err_set(err, PD_EUSAGE, "no PostgreSQL in this build");
}

const char *pd_pg_message(struct pd_pg *pg)
{
	(void)pg;
	return "";
}

const char *pd_pg_step_name(struct pd_pg *pg, const char *what)
{
	(void)pg;
	return what;
}
