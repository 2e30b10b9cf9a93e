/*
 * perfdiff db copy: a whole history from one database into an empty one,
 * either backend to either (docs/history.md, "Moving a history"). Ids are
 * kept: stack trees name functions by their history id, and keeping them
 * makes the copy exact. The destination is written in one transaction;
 * the source is read a run (or a page of functions) at a time, so memory
 * stays bounded by one run.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/xalloc.h"
#include "store/copy.h"

/* Column c of a row into parameter p, NULL for NULL, types kept. */
enum kind { K_INT, K_NUM, K_TEXT, K_BLOB };

static void carry(struct pd_st *from, int c, struct pd_st *to, int p,
		  enum kind k)
{
	double v;

	if (pd_st_isnull(from, c)) {
		pd_st_null(to, p);
		return;
	}
	switch (k) {
	case K_INT:
		pd_st_i64(to, p, pd_st_col_i64(from, c));
		break;
	case K_NUM: /* a whole number stays an integer, as ingest binds it */
		v = pd_st_col_f64(from, c);
		if (fabs(v) < 9e15 && !(v - floor(v) > 0))
			pd_st_i64(to, p, (int64_t)v);
		else
			pd_st_f64(to, p, v);
		break;
	case K_TEXT:
		pd_st_text(to, p, pd_st_col_text(from, c));
		break;
	case K_BLOB:
		pd_st_blob(to, p, pd_st_col_blob(from, c),
			   pd_st_col_bytes(from, c));
		break;
	}
}

/* Steps a write; its failure is the destination's. */
static int put(struct pd_db *dst, struct pd_st *st, const char *what,
	       struct pd_err *err)
{
	int rc = pd_st_step(st);

	pd_st_reset(st);
	return rc < 0 ? pd_db_fail(dst, err, what) : 0;
}

/* Every row of query q (one parameter or none) into statement w. */
static int copy_rows(struct pd_db *src, struct pd_db *dst, const char *q,
		     const int64_t *arg, const char *w, const enum kind *kinds,
		     int ncol, size_t *n, struct pd_err *err)
{
	struct pd_st *r = pd_db_stmt(src, q, err);
	struct pd_st *st = r ? pd_db_stmt(dst, w, err) : NULL;
	int rc = 0, s = PD_ST_DONE, c;

	if (!st)
		return PD_EIO;
	if (arg)
		pd_st_i64(r, 1, *arg);
	/* the writer is held across the rows; every column is bound */
	while (rc == 0 && (s = pd_st_step(r)) == PD_ST_ROW) {
		for (c = 0; c < ncol; c++)
			carry(r, c, st, c + 1, kinds[c]);
		rc = put(dst, st, w, err);
		if (rc == 0 && n)
			(*n)++;
	}
	if (rc == 0 && s != PD_ST_DONE)
		rc = pd_db_fail(src, err, q);
	pd_st_reset(r);
	return rc;
}

static const enum kind bundle_kinds[] = { K_TEXT, K_TEXT, K_TEXT };
static const enum kind run_kinds[] = {
	K_INT,	K_TEXT, K_TEXT, K_TEXT, K_TEXT, K_INT,	K_TEXT, K_TEXT, K_TEXT,
	K_TEXT, K_NUM,	K_TEXT, K_NUM,	K_NUM,	K_TEXT, K_TEXT, K_TEXT, K_TEXT,
};
static const enum kind rf_kinds[] = { K_INT, K_NUM, K_NUM, K_NUM, K_NUM };
static const enum kind stack_kinds[] = { K_INT, K_INT, K_BLOB, K_INT };
static const enum kind packed_kinds[] = { K_INT, K_INT, K_BLOB };
static const enum kind metric_kinds[] = { K_INT, K_TEXT, K_TEXT, K_TEXT,
					  K_NUM };
static const enum kind file_kinds[] = { K_TEXT, K_INT };
/* an alert: ids, key, text, change, improves, state and its who/when */
static const enum kind alert_kinds[] = { K_INT,	 K_INT,	 K_TEXT, K_TEXT, K_TEXT,
					 K_TEXT, K_TEXT, K_TEXT, K_TEXT, K_NUM,
					 K_INT,	 K_TEXT, K_TEXT, K_TEXT, K_TEXT,
					 K_TEXT, K_INT };

/* Functions by pages of ids, so a history of millions is not read whole. */
static int copy_functions(struct pd_db *src, struct pd_db *dst,
			  struct pd_copy_result *res, struct pd_err *err)
{
	static const enum kind kinds[] = { K_INT, K_TEXT, K_TEXT };
	int64_t last = 0;
	size_t before;
	int rc;

	do {
		struct pd_st *r = pd_db_stmt(src, "q_copy_functions", err);
		struct pd_st *w =
		    r ? pd_db_stmt(dst, "q_copy_func_put", err) : NULL;
		int64_t next = last;

		if (!w)
			return PD_EIO;
		before = res->functions;
		pd_st_i64(r, 1, last);
		rc = 0;
		while (rc == 0 && pd_st_step(r) == PD_ST_ROW) {
			int c;

			next = pd_st_col_i64(r, 0);
			for (c = 0; c < 3; c++)
				carry(r, c, w, c + 1, kinds[c]);
			rc = put(dst, w, "adding a function", err);
			res->functions++;
		}
		pd_st_reset(r);
		last = next;
	} while (rc == 0 && res->functions > before);
	return rc;
}

/*
 * A run, its function rows (also packed), its stack tree, its metrics and
 * the hashes of the files it was read from.
 */
static int copy_run(struct pd_db *src, struct pd_db *dst, struct pd_st *r,
		    struct pd_copy_result *res, struct pd_err *err)
{
	struct pd_st *w = pd_db_stmt(dst, "q_copy_run_put", err);
	int64_t id = pd_st_col_i64(r, 0);
	int c, rc;

	if (!w)
		return PD_EIO;
	for (c = 0; c < 18; c++)
		carry(r, c, w, c + 1, run_kinds[c]);
	rc = put(dst, w, "adding a run", err);
	if (rc == 0) {
		/* q_run_rows has no run column: the writer's first is it */
		struct pd_st *rows = pd_db_stmt(src, "q_run_rows", err);
		int s = PD_ST_DONE;

		/* the hot path: one writer for every row of the run */
		w = rows ? pd_db_stmt(dst, "q_rf_insert", err) : NULL;
		if (!w)
			return PD_EIO;
		pd_st_i64(rows, 1, id);
		while (rc == 0 && (s = pd_st_step(rows)) == PD_ST_ROW) {
			pd_st_i64(w, 1, id);
			for (c = 0; c < 5; c++)
				carry(rows, c, w, c + 2, rf_kinds[c]);
			rc = put(dst, w, "adding a function row", err);
			res->rows++;
		}
		if (rc == 0 && s != PD_ST_DONE)
			rc = pd_db_fail(src, err, "reading a run");
		pd_st_reset(rows);
	}
	if (rc == 0)
		rc = copy_rows(src, dst, "q_copy_stacks", &id,
			       "q_copy_stacks_put", stack_kinds, 4, NULL, err);
	if (rc == 0)
		rc = copy_rows(src, dst, "q_copy_packed", &id,
			       "q_packed_insert", packed_kinds, 3, NULL, err);
	if (rc == 0)
		rc = copy_rows(src, dst, "q_copy_bursts", &id,
			       "q_bursts_insert", packed_kinds, 3, NULL, err);
	if (rc == 0)
		rc = copy_rows(src, dst, "q_copy_metrics", &id,
			       "q_metric_insert", metric_kinds, 5, NULL, err);
	if (rc == 0)
		rc = copy_rows(src, dst, "q_copy_files", &id, "q_file_put",
			       file_kinds, 2, NULL, err);
	return rc;
}

static int copy_all(struct pd_db *src, struct pd_db *dst,
		    struct pd_copy_result *res, struct pd_err *err)
{
	struct pd_st *r;
	int rc, s = PD_ST_DONE;

	rc = copy_rows(src, dst, "q_copy_bundles", NULL, "q_bundle_insert",
		       bundle_kinds, 3, &res->bundles, err);
	if (rc == 0)
		rc = copy_functions(src, dst, res, err);
	if (rc < 0)
		return rc;
	/*
	 * The runs table is small (one row per profile), read whole; each
	 * run's rows are read on their own.
	 */
	r = pd_db_stmt(src, "q_copy_runs", err);
	if (!r)
		return PD_EIO;
	while (rc == 0 && (s = pd_st_step(r)) == PD_ST_ROW) {
		rc = copy_run(src, dst, r, res, err);
		res->runs++;
	}
	if (rc == 0 && s != PD_ST_DONE)
		rc = pd_db_fail(src, err, "reading the runs");
	pd_st_reset(r);
	if (rc == 0)
		rc = copy_rows(src, dst, "q_copy_alerts", NULL,
			       "q_copy_alert_put", alert_kinds, 17,
			       &res->alerts, err);
	if (rc == 0 && !(r = pd_db_stmt(dst, "q_copy_done", err)))
		rc = PD_EIO;
	if (rc == 0)
		rc = put(dst, r, "setting the next ids", err);
	return rc;
}

int pd_store_copy(struct pd_db *src, struct pd_db *dst,
		  struct pd_copy_result *res, struct pd_err *err)
{
	struct pd_st *st;
	int rc;

	memset(res, 0, sizeof(*res));
	rc = pd_db_begin_write(dst, err);
	if (rc < 0)
		return rc;
	st = pd_db_stmt(dst, "q_copy_empty", err);
	if (!st)
		rc = PD_EIO;
	else if (pd_st_step(st) != PD_ST_ROW)
		rc = pd_db_fail(dst, err, "looking into the destination");
	else if (pd_st_col_i64(st, 0) > 0)
		rc = pd_err_set(err, PD_EINVAL,
				"%s: holds a history already; db copy writes"
				" into an empty one only (nothing was written)",
				dst->path);
	if (st)
		pd_st_reset(st);
	if (rc == 0)
		rc = copy_all(src, dst, res, err);
	if (rc == 0)
		rc = pd_db_exec(dst, "COMMIT", err);
	if (rc < 0)
		pd_db_rollback(dst);
	return rc;
}
