/*
 * run_packed rows (packed.h; docs/history.md, "Tables"). The encoder
 * decides integer or binary64 exactly as ingest binds a number to
 * run_functions (an integral value below 9e15 is an integer), so both
 * tables give back the same doubles.
 */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/sort.h"
#include "core/xalloc.h"
#include "store/packed.h"

enum { T_NULL = 0, T_INT = 1, T_F64 = 2 };

static void put_varint(struct pd_buf *b, uint64_t v)
{
	unsigned char c[10];
	size_t n = 0;

	while (v >= 0x80) {
		c[n++] = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	c[n++] = (unsigned char)v;
	pd_buf_add(b, c, n);
}

static int tag_of(double v)
{
	if (isnan(v))
		return T_NULL; /* as SQLite stores a NaN bound to a row */
	if (v >= 0 && v < 9e15 && !(v - floor(v) > 0))
		return T_INT;
	return T_F64;
}

static void put_f64(struct pd_buf *b, double d)
{
	unsigned char c[8];
	uint64_t v;
	int i;

	memcpy(&v, &d, 8);
	for (i = 0; i < 8; i++)
		c[i] = (unsigned char)(v >> (8 * i));
	pd_buf_add(b, c, 8);
}

static int by_fid(const void *a, const void *b)
{
	const struct pd_packed_row *x = a, *y = b;

	return (x->fid > y->fid) - (x->fid < y->fid);
}

void pd_packed_encode(struct pd_buf *out, struct pd_packed_row *rows, size_t n)
{
	int64_t prev = 0;
	size_t i;
	int k;

	pd_buf_reset(out);
	for (i = 1; i < n && rows[i - 1].fid < rows[i].fid; i++)
		;
	if (i < n) /* often in order already: ids are given in first use */
		pd_sort(rows, n, sizeof(*rows), by_fid);
	for (i = 0; i < n; i++) {
		int tag = 0;

		assert(rows[i].fid > prev);
		put_varint(out, (uint64_t)(rows[i].fid - prev));
		prev = rows[i].fid;
		for (k = 0; k < 4; k++)
			tag |= tag_of(rows[i].v[k]) << (2 * k);
		pd_buf_addch(out, tag);
		for (k = 0; k < 4; k++) {
			double v = rows[i].v[k];

			if (tag_of(v) == T_INT)
				put_varint(out, (uint64_t)v);
			else if (tag_of(v) == T_F64)
				put_f64(out, v);
		}
	}
}

void pd_packed_start(struct pd_packed_it *it, const void *blob, size_t len,
		     size_t nrows)
{
	it->p = blob;
	it->end = it->p + len;
	it->fid = 0;
	it->left = nrows;
}

/* A varint of at most 9 bytes (63 bits); 0 when the blob ends in it. */
static int get_varint(struct pd_packed_it *it, uint64_t *v)
{
	uint64_t x = 0;
	int shift;

	for (shift = 0; shift < 63 && it->p < it->end; shift += 7) {
		unsigned c = *it->p++;

		x |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80)) {
			*v = x;
			return 1;
		}
	}
	return 0;
}

int pd_packed_next(struct pd_packed_it *it, struct pd_packed_row *row)
{
	uint64_t d;
	unsigned tag;
	int k;

	if (!it->left)
		return it->p == it->end ? 0 : -1;
	if (!get_varint(it, &d) || d == 0 || d > (uint64_t)1 << 52 ||
	    it->fid > ((int64_t)1 << 53) || it->p == it->end)
		return -1;
	it->fid += (int64_t)d;
	row->fid = it->fid;
	tag = *it->p++;
	for (k = 0; k < 4; k++, tag >>= 2) {
		switch (tag & 3) {
		case T_NULL:
			row->v[k] = PD_NAN;
			break;
		case T_INT:
			if (!get_varint(it, &d))
				return -1;
			row->v[k] = (double)d;
			break;
		case T_F64: {
			uint64_t bits = 0;
			int i;

			if (it->end - it->p < 8)
				return -1;
			for (i = 0; i < 8; i++)
				bits |= (uint64_t)it->p[i] << (8 * i);
			memcpy(&row->v[k], &bits, 8);
			it->p += 8;
			break;
		}
		default:
			return -1;
		}
	}
	it->left--;
	return 1;
}

/* Run run's blob of the table query q reads, as pd_packed_load. */
static int load_blob(struct pd_db *db, const char *q, int64_t run,
		     struct pd_buf *blob, size_t *nrows, struct pd_err *err)
{
	struct pd_st *st = pd_db_stmt(db, q, err);
	int rc;

	if (!st)
		return PD_EIO;
	pd_st_i64(st, 1, run);
	rc = pd_st_step(st);
	if (rc == PD_ST_ROW) {
		int64_t n = pd_st_col_i64(st, 0);

		pd_buf_reset(blob);
		pd_buf_add(blob, pd_st_col_blob(st, 1), pd_st_col_bytes(st, 1));
		*nrows = n > 0 ? (size_t)n : 0;
	}
	pd_st_reset(st);
	if (rc == PD_ST_DONE)
		return 0;
	return rc == PD_ST_ROW ? 1 : pd_db_fail(db, err, "loading a run");
}

int pd_packed_load(struct pd_db *db, int64_t run, struct pd_buf *blob,
		   size_t *nrows, struct pd_err *err)
{
	return load_blob(db, "q_run_packed", run, blob, nrows, err);
}

int pd_bursts_load(struct pd_db *db, int64_t run, struct pd_buf *blob,
		   size_t *nrows, struct pd_err *err)
{
	return load_blob(db, "q_run_bursts", run, blob, nrows, err);
}

/* Binds an integer when the value is whole, else a real. */
static void bind_num(struct pd_st *st, int i, double v)
{
	if (fabs(v) < 9e15 && !(v - floor(v) > 0))
		pd_st_i64(st, i, (int64_t)v);
	else
		pd_st_f64(st, i, v);
}

/* Row r's six columns from parameter at on. */
static void bind_row(struct pd_st *st, int at, int64_t run,
		     const struct pd_packed_row *r)
{
	int k;

	pd_st_i64(st, at, run);
	pd_st_i64(st, at + 1, r->fid);
	for (k = 0; k < 4; k++)
		if (k >= 2 && isnan(r->v[k])) /* derived */
			pd_st_null(st, at + 2 + k);
		else
			bind_num(st, at + 2 + k, r->v[k]);
}

#define BATCH 16 /* rows of q_rf_insert16 */

/*
 * The rows into run_functions, in id order (appends to the table's key):
 * on SQLite BATCH at a time where it can, as each statement's start is
 * paid per statement; on PostgreSQL q_rf_insert is a COPY, one row a call.
 */
static int write_rows(struct pd_db *db, int64_t run,
		      const struct pd_packed_row *rows, size_t n,
		      struct pd_err *err)
{
	struct pd_st *one = NULL, *many = NULL;
	size_t i = 0;
	int j, rc;

	if (!db->pg && n >= BATCH &&
	    !(many = pd_db_stmt(db, "q_rf_insert16", err)))
		return PD_EIO;
	for (; many && i + BATCH <= n; i += BATCH) {
		for (j = 0; j < BATCH; j++)
			bind_row(many, 6 * j + 1, run, &rows[i + (size_t)j]);
		rc = pd_st_step(many);
		pd_st_reset(many);
		if (rc < 0)
			return pd_db_fail(db, err, "adding function rows");
	}
	if (i < n && !(one = pd_db_stmt(db, "q_rf_insert", err)))
		return PD_EIO;
	for (; i < n; i++) {
		bind_row(one, 1, run, &rows[i]);
		rc = pd_st_step(one);
		pd_st_reset(one);
		if (rc < 0)
			return pd_db_fail(db, err, "adding a function row");
	}
	return 0;
}

int pd_store_run_rows(struct pd_db *db, int64_t run, struct pd_packed_row *rows,
		      size_t n, struct pd_buf *scratch, struct pd_err *err)
{
	struct pd_st *st;
	int rc;

	pd_packed_encode(scratch, rows, n); /* sorts rows by id */
	rc = write_rows(db, run, rows, n, err);
	if (rc < 0)
		return rc;
	st = pd_db_stmt(db, "q_packed_insert", err);
	if (!st)
		return PD_EIO;
	pd_st_i64(st, 1, run);
	pd_st_i64(st, 2, (int64_t)n);
	pd_st_blob(st, 3, scratch->buf, scratch->len); /* empty: no rows */
	rc = pd_st_step(st);
	pd_st_reset(st);
	return rc < 0 ? pd_db_fail(db, err, "adding a run's packed rows") : 0;
}

int pd_store_run_bursts(struct pd_db *db, int64_t run,
			struct pd_packed_row *rows, size_t n,
			struct pd_buf *scratch, struct pd_err *err)
{
	struct pd_st *st;
	int rc;

	if (!n)
		return 0;
	pd_packed_encode(scratch, rows, n);
	st = pd_db_stmt(db, "q_bursts_insert", err);
	if (!st)
		return PD_EIO;
	pd_st_i64(st, 1, run);
	pd_st_i64(st, 2, (int64_t)n);
	pd_st_blob(st, 3, scratch->buf, scratch->len);
	rc = pd_st_step(st);
	pd_st_reset(st);
	return rc < 0 ? pd_db_fail(db, err, "adding a run's dispersions") : 0;
}
