/*
 * The history on a PostgreSQL server (db_pg.h; docs/history.md,
 * "Backends"). One connection per pd_db, statements prepared once per
 * connection. Parameters are sent in the type the server inferred for
 * them (a count bound as an integer goes out as float8 where the column
 * is double precision), so one binding serves both backends.
 */
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/blob.h"
#include "core/buf.h"
#include "core/compat.h"
#include "core/xalloc.h"
#include "store/db_pg.h"
#include "store/pg_secret.h"

/* Type OIDs (PostgreSQL's catalog pg_type; fixed since 7.x) */
#define OID_BOOL 16
#define OID_BYTEA 17
#define OID_INT8 20
#define OID_INT2 21
#define OID_INT4 23
#define OID_TEXT 25
#define OID_FLOAT4 700
#define OID_FLOAT8 701

/*
 * Writers take this advisory lock for their transaction: migrations and
 * ingests then run one at a time across every runner, as SQLite's BEGIN
 * IMMEDIATE makes them on one machine ("perfdif" in ASCII).
 */
#define PD_PG_LOCK "7070657266646966"

/* Rows waiting for their COPY are sent once this much is gathered. */
#define COPY_CHUNK (4u << 20)

struct pd_pg {
	PGconn *conn;
	char msg[600];
	struct pd_buf copy; /* rows of copy_st, in COPY's text format */
	struct pd_pg_st *copy_st;
	int copy_failed; /* the last failure was sending those rows */
	char **secrets;	 /* the target's password, scrubbed from messages */
};

struct param {
	enum pd_pg_kind kind;
	int64_t iv;
	double dv;
	char *p; /* text or bytes, owned */
	size_t n, cap;
	unsigned char bin[8];
	char num[32];
};

struct pd_pg_st {
	char name[64];
	char *sql;
	int copy; /* a COPY ... FROM STDIN: rows gathered, not executed */
	int nparams;
	Oid *types;
	struct param *par;
	int npar; /* bound so far (allocated) */
	PGresult *res;
	int row, nrows;
	char scratch[32];
};

/*
 * The server's message on one line, without libpq's trailing newline and
 * without the password, which libpq quotes back in some of its messages
 * (a percent escape it cannot decode, a port or a host it cannot read):
 * scrubbed as libpq wrote it, and again once its spaces are folded.
 */
static void keep_message(struct pd_pg *pg, const char *m)
{
	char *s = pd_pg_scrubbed(m, pg->secrets), *shown;
	size_t i, o = 0;

	for (i = 0; s[i]; i++) {
		char c =
		    s[i] == '\n' || s[i] == '\r' || s[i] == '\t' ? ' ' : s[i];

		if (c == ' ' && (o == 0 || s[o - 1] == ' '))
			continue;
		s[o++] = c;
	}
	while (o > 0 && s[o - 1] == ' ')
		o--;
	s[o] = 0;
	shown = pd_pg_scrubbed(s, pg->secrets);
	snprintf(pg->msg, sizeof(pg->msg), "%s",
		 *shown ? shown : "the server did not answer");
	free(shown);
	free(s);
}

const char *pd_pg_message(struct pd_pg *pg)
{
	return pg->msg;
}

const char *pd_pg_step_name(struct pd_pg *pg, const char *what)
{
	/* rows are sent when the next statement runs, which is not theirs */
	return pg->copy_failed ? "adding rows" : what;
}

static void quiet(void *arg, const char *message)
{
	(void)arg;
	(void)message;
}

static int fail(struct pd_db *db, struct pd_err *err, const char *what)
{
	return pd_err_set(err, PD_EIO, "%s: %s: %s", db->path, what,
			  db->pg->msg);
}

/* The rows gathered for a COPY, sent. */
static int flush_copy(struct pd_pg *pg)
{
	PGresult *r;
	int ok;

	pg->copy_failed = 0;
	if (!pg->copy.len)
		return 0;
	pg->msg[0] = 0;
	r = PQexec(pg->conn, pg->copy_st->sql);
	ok = PQresultStatus(r) == PGRES_COPY_IN;
	if (!ok)
		keep_message(pg, PQresultErrorMessage(r));
	PQclear(r);
	if (ok) {
		/* a failed send still ends the COPY, so results can drain */
		ok = PQputCopyData(pg->conn, pg->copy.buf, (int)pg->copy.len) ==
		     1;
		if (PQputCopyEnd(pg->conn, ok ? NULL : "rows not sent") != 1)
			ok = 0;
	}
	while ((r = PQgetResult(pg->conn))) {
		ExecStatusType s = PQresultStatus(r);

		if (s != PGRES_COMMAND_OK && ok) {
			keep_message(pg, PQresultErrorMessage(r));
			ok = 0;
		}
		PQclear(r);
		if (s == PGRES_COPY_IN || s == PGRES_COPY_OUT)
			break; /* a broken connection: nothing more comes */
	}
	if (!ok && !pg->msg[0])
		keep_message(pg, PQerrorMessage(pg->conn));
	pg->copy_failed = !ok;
	pd_buf_reset(&pg->copy);
	return ok ? 0 : -1;
}

int pd_pg_exec(struct pd_db *db, const char *sql, struct pd_err *err)
{
	PGresult *r;
	ExecStatusType s;

	db->pg->msg[0] = 0;
	if (flush_copy(db->pg) < 0)
		return fail(db, err, "adding rows");
	r = PQexec(db->pg->conn, sql);
	s = PQresultStatus(r);
	if (s != PGRES_COMMAND_OK && s != PGRES_TUPLES_OK) {
		keep_message(db->pg, PQresultErrorMessage(r));
		PQclear(r);
		return pd_err_set(err, PD_EIO, "%s: %s", db->path, db->pg->msg);
	}
	PQclear(r);
	return 0;
}

/* ?N becomes $N outside strings and comments: one text for both. */
static char *dollar_params(const char *sql)
{
	struct pd_buf b = PD_BUF_INIT;
	const char *p = sql;

	while (*p) {
		if (*p == '\'') {
			const char *e = strchr(p + 1, '\'');

			e = e ? e + 1 : p + strlen(p);
			pd_buf_add(&b, p, (size_t)(e - p));
			p = e;
		} else if (p[0] == '-' && p[1] == '-') {
			p += strcspn(p, "\n");
		} else {
			pd_buf_addch(&b, *p == '?' ? '$' : *p);
			p++;
		}
	}
	return pd_buf_detach(&b);
}

struct pd_pg_st *pd_pg_prepare(struct pd_db *db, const char *name,
			       const char *sql, struct pd_err *err)
{
	struct pd_pg_st *st = pd_xcalloc(1, sizeof(*st));
	PGresult *r;
	int i;

	st->sql = dollar_params(sql);
	st->row = -1;
	snprintf(st->name, sizeof(st->name), "pd_%s", name);
	if (!strncmp(st->sql + strspn(st->sql, " \n\t"), "COPY ", 5)) {
		st->copy = 1;
		return st;
	}
	db->pg->msg[0] = 0;
	if (flush_copy(db->pg) < 0)
		goto failed;
	r = PQprepare(db->pg->conn, st->name, st->sql, 0, NULL);
	if (PQresultStatus(r) != PGRES_COMMAND_OK)
		keep_message(db->pg, PQresultErrorMessage(r));
	PQclear(r);
	if (db->pg->msg[0])
		goto failed;
	r = PQdescribePrepared(db->pg->conn, st->name);
	if (PQresultStatus(r) != PGRES_COMMAND_OK) {
		keep_message(db->pg, PQresultErrorMessage(r));
		PQclear(r);
		goto failed;
	}
	st->nparams = PQnparams(r);
	st->types = pd_xcalloc((size_t)st->nparams + 1, sizeof(*st->types));
	for (i = 0; i < st->nparams; i++)
		st->types[i] = PQparamtype(r, i);
	PQclear(r);
	return st;
failed:
	fail(db, err, pd_pg_step_name(db->pg, name));
	pd_pg_st_free(st);
	return NULL;
}

void pd_pg_st_free(struct pd_pg_st *st)
{
	int i;

	if (!st)
		return;
	PQclear(st->res);
	for (i = 0; i < st->npar; i++)
		free(st->par[i].p);
	free(st->par);
	free(st->types);
	free(st->sql);
	free(st);
}

void pd_pg_clear(struct pd_pg_st *st)
{
	int i;

	pd_pg_reset(st);
	for (i = 0; i < st->npar; i++)
		st->par[i].kind = PD_PG_NULL;
}

void pd_pg_bind(struct pd_pg_st *st, int i, enum pd_pg_kind kind, int64_t iv,
		double dv, const void *p, size_t n)
{
	struct param *a;

	if (i < 1)
		return;
	if (i > st->npar) {
		st->par = pd_xrealloc(st->par, (size_t)i * sizeof(*st->par));
		memset(st->par + st->npar, 0,
		       (size_t)(i - st->npar) * sizeof(*st->par));
		st->npar = i;
	}
	a = &st->par[i - 1];
	a->kind = kind;
	a->iv = iv;
	a->dv = dv;
	if (kind == PD_PG_TEXT || kind == PD_PG_BLOB) {
		if (n + 1 > a->cap) {
			a->cap = n + 1;
			a->p = pd_xrealloc(a->p, a->cap);
		}
		if (n)
			memcpy(a->p, p, n);
		a->p[n] = 0;
		a->n = n;
	}
}

static void put_be(unsigned char *b, uint64_t v, int n)
{
	int k;

	for (k = n - 1; k >= 0; k--, v >>= 8)
		b[k] = (unsigned char)v;
}

static uint64_t get_be(const unsigned char *b, int n)
{
	uint64_t v = 0;
	int k;

	for (k = 0; k < n; k++)
		v = v << 8 | b[k];
	return v;
}

/* A number as text, for a parameter of a text (or other) type. */
static const char *num_text(struct param *a)
{
	if (a->kind == PD_PG_INT)
		snprintf(a->num, sizeof(a->num), "%lld", (long long)a->iv);
	else
		snprintf(a->num, sizeof(a->num), "%.17g", a->dv);
	return a->num;
}

/* Parameter a in the type the server gave it: binary where we can. */
static void encode(struct param *a, Oid type, const char **val, int *len,
		   int *fmt)
{
	double d = a->kind == PD_PG_INT ? (double)a->iv : a->dv;
	int64_t i = a->kind == PD_PG_INT ? a->iv : (int64_t)a->dv;
	uint64_t u;

	*fmt = 1;
	*val = (const char *)a->bin;
	if (a->kind == PD_PG_NULL) {
		*val = NULL;
		*len = 0;
	} else if (a->kind == PD_PG_TEXT || a->kind == PD_PG_BLOB) {
		*val = a->p;
		*len = (int)a->n;
		*fmt = a->kind == PD_PG_BLOB;
	} else if (type == OID_FLOAT8) {
		memcpy(&u, &d, sizeof(u));
		put_be(a->bin, u, 8);
		*len = 8;
	} else if (type == OID_INT8 && (a->kind == PD_PG_INT ||
					!((double)i < d || (double)i > d))) {
		put_be(a->bin, (uint64_t)i, 8);
		*len = 8;
	} else if (type == OID_INT4 && a->kind == PD_PG_INT &&
		   i == (int32_t)i) {
		put_be(a->bin, (uint32_t)(int32_t)i, 4);
		*len = 4;
	} else {
		*val = num_text(a);
		*len = (int)strlen(*val);
		*fmt = 0;
	}
}

/* One row in COPY's text format. */
static void copy_row(struct pd_pg *pg, struct pd_pg_st *st)
{
	struct pd_buf *b = &pg->copy;
	int i;
	size_t k;

	for (i = 0; i < st->npar; i++) {
		struct param *a = &st->par[i];

		if (i)
			pd_buf_addch(b, '\t');
		if (a->kind == PD_PG_NULL)
			pd_buf_adds(b, "\\N");
		else if (a->kind == PD_PG_INT || a->kind == PD_PG_REAL)
			pd_buf_adds(b, num_text(a));
		else if (a->kind == PD_PG_BLOB) {
			pd_buf_adds(b, "\\\\x");
			for (k = 0; k < a->n; k++)
				pd_buf_addf(b, "%02x", (unsigned char)a->p[k]);
		} else
			for (k = 0; k < a->n; k++) {
				char c = a->p[k];

				if (c == '\\' || c == '\t' || c == '\n' ||
				    c == '\r')
					pd_buf_addf(b, "\\%c",
						    c == '\t'	? 't'
						    : c == '\n' ? 'n'
						    : c == '\r' ? 'r'
								: '\\');
				else
					pd_buf_addch(b, c);
			}
	}
	pd_buf_addch(b, '\n');
}

int pd_pg_step(struct pd_pg *pg, struct pd_pg_st *st)
{
	const char *vals[64];
	int lens[64], fmts[64], i;
	ExecStatusType s;

	if (st->copy) {
		if (pg->copy_st != st && flush_copy(pg) < 0)
			return -1;
		pg->copy_st = st;
		copy_row(pg, st);
		return pg->copy.len >= COPY_CHUNK && flush_copy(pg) < 0
			   ? -1
			   : PD_ST_DONE;
	}
	if (st->res)
		return ++st->row < st->nrows ? PD_ST_ROW : PD_ST_DONE;
	pg->msg[0] = 0;
	if (flush_copy(pg) < 0)
		return -1;
	if (st->nparams > 64) {
		keep_message(pg, "more than 64 parameters");
		return -1;
	}
	for (i = 0; i < st->nparams; i++) {
		static struct param none;

		encode(i < st->npar ? &st->par[i] : &none, st->types[i],
		       &vals[i], &lens[i], &fmts[i]);
	}
	st->res = PQexecPrepared(pg->conn, st->name, st->nparams, vals, lens,
				 fmts, 1);
	s = PQresultStatus(st->res);
	if (s != PGRES_TUPLES_OK && s != PGRES_COMMAND_OK) {
		keep_message(pg, PQresultErrorMessage(st->res));
		PQclear(st->res);
		st->res = NULL;
		return -1;
	}
	st->nrows = s == PGRES_TUPLES_OK ? PQntuples(st->res) : 0;
	st->row = 0;
	return st->nrows ? PD_ST_ROW : PD_ST_DONE;
}

void pd_pg_reset(struct pd_pg_st *st)
{
	PQclear(st->res);
	st->res = NULL;
	st->row = -1;
	st->nrows = 0;
}

static const char *value(struct pd_pg_st *st, int col, Oid *type, int *len)
{
	if (!st->res || st->row < 0 || st->row >= st->nrows ||
	    col >= PQnfields(st->res) || PQgetisnull(st->res, st->row, col))
		return NULL;
	*type = PQftype(st->res, col);
	*len = PQgetlength(st->res, st->row, col);
	return PQgetvalue(st->res, st->row, col);
}

int pd_pg_isnull(struct pd_pg_st *st, int col)
{
	Oid t;
	int n;

	return value(st, col, &t, &n) == NULL;
}

int64_t pd_pg_col_i64(struct pd_pg_st *st, int col)
{
	Oid t = 0;
	int n = 0;
	const unsigned char *v = (const unsigned char *)value(st, col, &t, &n);

	if (!v)
		return 0;
	if ((t == OID_INT8 && n == 8) || (t == OID_INT4 && n == 4) ||
	    (t == OID_INT2 && n == 2) || (t == OID_BOOL && n == 1)) {
		uint64_t u = get_be(v, n);
		int shift = 64 - 8 * n;

		/* sign-extend a narrower integer */
		return (int64_t)(u << shift) >> shift;
	}
	if (t == OID_FLOAT8 || t == OID_FLOAT4)
		return (int64_t)pd_pg_col_f64(st, col);
	return strtoll((const char *)v, NULL, 10);
}

/* A value of type t and n bytes, as a double. */
static double decode_f64(struct pd_pg_st *st, int col, const unsigned char *v,
			 Oid t, int n)
{
	if (t == OID_FLOAT8 && n == 8) {
		uint64_t u = get_be(v, 8);
		double d;

		memcpy(&d, &u, sizeof(d));
		return d;
	}
	if (t == OID_FLOAT4 && n == 4) {
		uint32_t u = (uint32_t)get_be(v, 4);
		float f;

		memcpy(&f, &u, sizeof(f));
		return (double)f;
	}
	if (t == OID_INT8 || t == OID_INT4 || t == OID_INT2)
		return (double)pd_pg_col_i64(st, col);
	return strtod((const char *)v, NULL);
}

double pd_pg_col_f64(struct pd_pg_st *st, int col)
{
	Oid t = 0;
	int n = 0;
	const unsigned char *v = (const unsigned char *)value(st, col, &t, &n);

	return v ? decode_f64(st, col, v, t, n) : 0;
}

double pd_pg_col_f64n(struct pd_pg_st *st, int col)
{
	Oid t = 0;
	int n = 0;
	const unsigned char *v = (const unsigned char *)value(st, col, &t, &n);

	return v ? decode_f64(st, col, v, t, n) : PD_NAN;
}

const char *pd_pg_col_text(struct pd_pg_st *st, int col)
{
	Oid t = 0;
	int n = 0;
	const char *v = value(st, col, &t, &n);

	if (!v)
		return NULL;
	if (t == OID_INT8 || t == OID_INT4 || t == OID_INT2) {
		snprintf(st->scratch, sizeof(st->scratch), "%lld",
			 (long long)pd_pg_col_i64(st, col));
		return st->scratch;
	}
	if (t == OID_FLOAT8 || t == OID_FLOAT4) {
		snprintf(st->scratch, sizeof(st->scratch), "%.17g",
			 pd_pg_col_f64(st, col));
		return st->scratch;
	}
	return v; /* text in binary is its bytes, and libpq ends them */
}

const void *pd_pg_col_blob(struct pd_pg_st *st, int col)
{
	Oid t = 0;
	int n = 0;

	return value(st, col, &t, &n);
}

size_t pd_pg_col_bytes(struct pd_pg_st *st, int col)
{
	Oid t = 0;
	int n = 0;

	return value(st, col, &t, &n) ? (size_t)n : 0;
}

/* Migration number of a blob named sql/pg/NNNN_*.sql, or 0. */
static int pg_migration(const char *name)
{
	int n = 0, i;

	if (strncmp(name, "sql/pg/", 7))
		return 0;
	for (i = 7; i < 11; i++) {
		if (name[i] < '0' || name[i] > '9')
			return 0;
		n = n * 10 + (name[i] - '0');
	}
	return name[11] == '_' ? n : 0;
}

/* The schema version, 0 when the database has no perfdiff tables. */
static int schema_version(struct pd_db *db, int *v, struct pd_err *err)
{
	PGresult *r = PQexec(db->pg->conn, "SELECT coalesce(max(version), 0)"
					   " FROM perfdiff_schema");
	const char *state = PQresultErrorField(r, PG_DIAG_SQLSTATE);
	int rc = 0;

	*v = 0;
	if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1)
		*v = atoi(PQgetvalue(r, 0, 0));
	else if (!state || strcmp(state, "42P01")) { /* not "no table" */
		keep_message(db->pg, PQresultErrorMessage(r));
		rc = fail(db, err, "reading the schema version");
	}
	PQclear(r);
	return rc;
}

/*
 * Every missing migration in one transaction, under the writers' lock:
 * a runner that waited for another's migration finds it done.
 */
static int migrate(struct pd_db *db, int latest, struct pd_err *err)
{
	int v = 0, next, rc;

	rc = pd_pg_exec(db,
			"BEGIN; SET LOCAL client_min_messages = warning;"
			" SELECT pg_advisory_xact_lock(" PD_PG_LOCK ");"
			" CREATE TABLE IF NOT EXISTS perfdiff_schema"
			" (version integer NOT NULL)",
			err);
	if (rc == 0)
		rc = schema_version(db, &v, err);
	for (next = v + 1; rc == 0 && next <= latest; next++) {
		const struct pd_blob *b;
		char mark[80];

		for (b = pd_blob_all(); b->name; b++)
			if (pg_migration(b->name) == next)
				break;
		if (!b->name) {
			rc = pd_err_set(err, PD_EFORMAT,
					"PostgreSQL migration %04d is missing",
					next);
			break;
		}
		rc = pd_pg_exec(db, b->data, err);
		snprintf(mark, sizeof(mark),
			 "INSERT INTO perfdiff_schema VALUES (%d)", next);
		if (rc == 0)
			rc = pd_pg_exec(db, mark, err);
	}
	if (rc == 0)
		rc = pd_pg_exec(db, "COMMIT", err);
	if (rc < 0)
		(void)!pd_pg_exec(db, "ROLLBACK", &(struct pd_err){ 0 });
	db->version = rc == 0 ? latest : 0;
	return rc;
}

int pd_pg_open(struct pd_db *db, const char *target, int write,
	       struct pd_err *err)
{
	int latest = pd_db_schema_latest(), v = 0, rc;

	db->pg = pd_xcalloc(1, sizeof(*db->pg));
	db->pg->secrets = pd_pg_words(target);
	db->pg->conn = PQconnectdb(target);
	if (PQstatus(db->pg->conn) != CONNECTION_OK) {
		const char *hint = pd_pg_hint(target);

		keep_message(db->pg, PQerrorMessage(db->pg->conn));
		return pd_err_set(err, PD_EIO, "%s: cannot connect: %s%s%s",
				  db->path, db->pg->msg, hint ? "; " : "",
				  hint ? hint : "");
	}
	PQsetNoticeProcessor(db->pg->conn, quiet, NULL);
	rc = schema_version(db, &v, err);
	if (rc < 0)
		return rc;
	if (v > latest)
		return pd_err_set(err, PD_EFORMAT,
				  "%s: created by a newer perfdiff (schema %d >"
				  " %d); upgrade perfdiff to read it",
				  db->path, v, latest);
	if (write)
		return v < latest ? migrate(db, latest, err)
				  : (db->version = v, 0);
	if (v < latest)
		return pd_err_set(err, PD_EFORMAT,
				  "%s: %s (schema %d < %d); perfdiff ingest"
				  " migrates it in place",
				  db->path,
				  v ? "written by an older perfdiff"
				    : "not a perfdiff history",
				  v, latest);
	db->version = v;
	/* a command that reads cannot write, whatever its role may */
	return pd_pg_exec(db, "SET default_transaction_read_only = on", err);
}

int pd_pg_begin_write(struct pd_db *db, struct pd_err *err)
{
	return pd_pg_exec(
	    db, "BEGIN; SELECT pg_advisory_xact_lock(" PD_PG_LOCK ")", err);
}

void pd_pg_close(struct pd_db *db)
{
	if (!db->pg)
		return;
	PQfinish(db->pg->conn);
	pd_buf_release(&db->pg->copy);
	pd_pg_words_free(db->pg->secrets);
	free(db->pg);
	db->pg = NULL;
}
