/*
 * Choosing a trend's series (docs/history.md, "trend"): the functions a
 * --function pattern allows, or those with the largest share and change
 * over the window, read from every run's rows; and one function's series
 * read through the table's key.
 */
#include <assert.h>
#include <math.h>
#include <pthread.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/match.h"
#include "core/sort.h"
#include "core/xalloc.h"
#include "store/load_int.h"
#include "store/packed.h"
#include "store/trend_int.h"

/* Grows v to hold index i (zeroed). */
static void grow(double **v, size_t *n, size_t i)
{
	if (i < *n)
		return;
	*v = pd_xrealloc(*v, (i + 1) * sizeof(**v));
	memset(*v + *n, 0, (i + 1 - *n) * sizeof(**v));
	*n = i + 1;
}

/* A row's self weight as the view has it: self_w, else self_n x interval. */
static double self_weight(const double *v, double interval)
{
	return !isnan(v[2]) ? v[2] : isnan(v[0]) ? 0 : v[0] * interval;
}

/*
 * Calls fn for each (function id in [lo, hi), self weight) of a run:
 * from its packed rows, else (runs stored before them) from its rows.
 */
static int each_self(struct pd_db *db, const struct trun *run, int64_t lo,
		     int64_t hi, void (*fn)(void *, int64_t, double), void *arg,
		     struct pd_buf *blob, struct pd_err *err)
{
	struct pd_st *st;
	size_t nrows;
	int rc = pd_packed_load(db, run->id, blob, &nrows, err);

	if (rc == 1) {
		struct pd_packed_it it;
		struct pd_packed_row row;

		pd_packed_start(&it, blob->buf, blob->len, nrows);
		while ((rc = pd_packed_next(&it, &row)) == 1)
			if (row.fid >= lo && row.fid < hi)
				fn(arg, row.fid,
				   self_weight(row.v, run->interval));
		return rc == 0 ? 0
			       : pd_err_set(err, PD_EPARSE,
					    "%s: run %lld: damaged packed rows",
					    db->path, (long long)run->id);
	}
	if (rc < 0)
		return rc;
	st = pd_db_stmt(db, "q_run_self", err);
	if (!st)
		return PD_EIO;
	pd_st_i64(st, 1, run->id);
	pd_st_i64(st, 2, lo);
	pd_st_i64(st, 3, hi);
	while ((rc = pd_st_step(st)) == PD_ST_ROW) {
		/* as the view: self_w, else self_n x interval */
		double w = pd_st_col_f64n(st, 1);

		if (isnan(w)) {
			double n = pd_st_col_f64n(st, 2);

			w = isnan(n) ? 0 : n * run->interval;
		}
		fn(arg, pd_st_col_i64(st, 0), w);
	}
	pd_st_reset(st);
	return rc == PD_ST_DONE ? 0 : pd_db_fail(db, err, "reading a run");
}

static void rank_row(void *arg, int64_t id, double w)
{
	struct rank *k = arg;
	size_t i = (size_t)id, n;
	double share;

	if (id < 0 || (k->allow && (i >= k->nallow || !k->allow[i])))
		return;
	assert(k->n == k->n1 && k->n1 == k->n2); /* one length, grown alike */
	share = k->run_total > 0 ? w / k->run_total : 0;
	n = k->n;
	grow(&k->mean, &n, i);
	n = k->n1;
	grow(&k->first, &n, i);
	n = k->n2;
	grow(&k->last, &n, i);
	k->n = k->n1 = k->n2 = n;
	k->mean[i] += share;
	if (k->in_first)
		k->first[i] += share;
	if (k->in_last)
		k->last[i] += share;
}

static int by_score(const void *a, const void *b)
{
	const struct scored *x = a, *y = b;

	if (x->score < y->score)
		return 1;
	if (x->score > y->score)
		return -1;
	return (x->id > y->id) - (x->id < y->id);
}

/* Fills allow[] with the ids of functions whose "name [module]" matches. */
static int match_functions(struct pd_db *db, const regex_t *re, char **allow,
			   size_t *nallow, struct pd_err *err)
{
	struct pd_st *st = pd_db_stmt(db, "q_functions_all", err);
	struct pd_buf b = PD_BUF_INIT;
	size_t n = 0;
	int rc;

	if (!st)
		return PD_EIO;
	*allow = NULL;
	while ((rc = pd_st_step(st)) == PD_ST_ROW) {
		int64_t id = pd_st_col_i64(st, 0);
		const char *name = pd_st_col_text(st, 1);
		const char *mod = pd_st_col_text(st, 2);

		if (id < 0 || !pd_match_func(re, name, mod, &b))
			continue;
		if ((size_t)id >= n) {
			*allow = pd_xrealloc(*allow, (size_t)id + 1);
			memset(*allow + n, 0, (size_t)id + 1 - n);
			n = (size_t)id + 1;
		}
		(*allow)[id] = 1;
	}
	pd_st_reset(st);
	pd_buf_release(&b);
	*nallow = n;
	return rc == PD_ST_DONE ? 0 : pd_db_fail(db, err, "reading functions");
}

/*
 * One function's self weight in each run of the window (0 where it has
 * no row), in one query: with --function, a few functions' rows among
 * millions.
 */
int pd_trend_series(struct pd_db *db, const struct pd_trend_query *q,
		    const struct pd_trend *t, const struct trun *rs, size_t nrs,
		    int64_t id, double *w, struct pd_err *err)
{
	int64_t *ids = pd_xmalloc((nrs + 1) * sizeof(*ids));
	struct pd_func_row *rows = pd_xmalloc((nrs + 1) * sizeof(*rows));
	const struct pd_hkey series = { NULL, q->key.scenario, t->cache,
					t->tool };
	size_t i;
	int rc;

	for (i = 0; i < nrs; i++)
		ids[i] = rs[i].id;
	rc = pd_store_func_rows(db, &series, ids, nrs, id, rows, err);
	for (i = 0; i < nrs && rc == 0; i++) {
		const double *v = rows[i].v;

		/* as the view: self_w, else self_n x interval */
		w[i] = !rows[i].present ? 0
		       : !isnan(v[2])	? v[2]
		       : !isnan(v[0])	? v[0] * rs[i].interval
					: 0;
	}
	free(ids);
	free(rows);
	return rc;
}

/* rank_row for the functions --function allows, one at a time. */
static int rank_allowed(struct pd_db *db, const struct pd_trend_query *q,
			const struct pd_trend *t, size_t ncs,
			const struct trun *rs, size_t nrs, struct rank *rk,
			struct pd_err *err)
{
	double *w = pd_xmalloc((nrs + 1) * sizeof(*w));
	size_t id, i;
	int rc = 0;

	for (id = 0; id < rk->nallow && rc == 0; id++) {
		if (!rk->allow[id])
			continue;
		rc = pd_trend_series(db, q, t, rs, nrs, (int64_t)id, w, err);
		/* in run order, as the scan would sum them */
		for (i = 0; i < nrs && rc == 0; i++) {
			rk->run_total = rs[i].total;
			rk->in_first = rs[i].commit == 0;
			rk->in_last = rs[i].commit == ncs - 1;
			rank_row(rk, (int64_t)id, w[i]);
		}
	}
	free(w);
	return rc;
}

/*
 * The functions ranked by impact over the window (mean share plus the
 * move from the first commit to the last) into sc, best first; the
 * number worth a series (at most q->top, each at least half a percent).
 */
/* Every run's rows of the functions in [lo, hi), in run order. */
static int scan_range(struct pd_db *db, const struct trun *rs, size_t nrs,
		      size_t ncs, int64_t lo, int64_t hi, struct rank *rk,
		      struct pd_err *err)
{
	struct pd_buf blob = PD_BUF_INIT;
	size_t i;
	int rc = 0;

	for (i = 0; i < nrs && rc == 0; i++) {
		assert(rs[i].commit < ncs); /* else in no commit's sum */
		rk->run_total = rs[i].total;
		rk->in_first = rs[i].commit == 0;
		rk->in_last = rs[i].commit == ncs - 1;
		rc = each_self(db, &rs[i], lo, hi, rank_row, rk, &blob, err);
	}
	pd_buf_release(&blob);
	return rc;
}

struct upper {
	const char *path;
	const struct trun *rs;
	size_t nrs, ncs;
	int64_t lo;
	struct rank rk;
	struct pd_err err;
	int rc;
};

static void *scan_upper(void *arg)
{
	struct upper *u = arg;
	struct pd_db db;

	u->rc = pd_db_open(&db, u->path, PD_DB_READ_AGAIN, &u->err);
	if (u->rc == 0) {
		u->rc = scan_range(&db, u->rs, u->nrs, u->ncs, u->lo, INT64_MAX,
				   &u->rk, &u->err);
		pd_db_close(&db);
	}
	return NULL;
}

/* The largest function id, or 0. */
static int64_t max_func(struct pd_db *db)
{
	struct pd_err e = PD_ERR_INIT;
	struct pd_st *st = pd_db_stmt(db, "q_max_func", &e);
	int64_t max = 0;

	if (st && pd_st_step(st) == PD_ST_ROW)
		max = pd_st_col_i64(st, 0);
	if (st)
		pd_st_reset(st);
	return max;
}

/* Whether run id has packed rows (runs stored from schema 3 on). */
static int is_packed(struct pd_db *db, int64_t id)
{
	struct pd_err e = PD_ERR_INIT;
	struct pd_buf blob = PD_BUF_INIT;
	size_t n;
	int rc = pd_packed_load(db, id, &blob, &n, &e);

	pd_buf_release(&blob);
	return rc == 1;
}

/*
 * Sums every function's share over the window: the rows of every run,
 * most of a trend's time. Runs stored row by row (before schema 3) are
 * read on two connections and threads, the second taking the upper half
 * of the function ids; each function is summed by one thread in run
 * order, so the sums are those of one thread. Packed runs are read on
 * one: each thread would decode every blob whole.
 */
static int scan_window(struct pd_db *db, const struct trun *rs, size_t nrs,
		       size_t ncs, struct rank *rk, struct pd_err *err)
{
	struct upper u;
	pthread_t th;
	int64_t mid = max_func(db) / 2 + 1;
	size_t i;
	int rc;

	/* the window's oldest run packed: so are the later ones */
	if (nrs < 8 || mid < 64 || !pd_db_threads() || is_packed(db, rs[0].id))
		return scan_range(db, rs, nrs, ncs, 0, INT64_MAX, rk, err);
	memset(&u, 0, sizeof(u));
	u.path = db->target;
	u.rs = rs;
	u.nrs = nrs;
	u.ncs = ncs;
	u.lo = mid;
	if (pthread_create(&th, NULL, scan_upper, &u))
		return scan_range(db, rs, nrs, ncs, 0, INT64_MAX, rk, err);
	rc = scan_range(db, rs, nrs, ncs, 0, mid, rk, err);
	pthread_join(th, NULL);
	if (rc == 0 && u.rc < 0) {
		*err = u.err;
		rc = u.rc;
	}
	for (i = (size_t)mid; rc == 0 && i < u.rk.n; i++) {
		size_t n = rk->n;

		grow(&rk->mean, &n, i);
		n = rk->n1;
		grow(&rk->first, &n, i);
		n = rk->n2;
		grow(&rk->last, &n, i);
		rk->n = rk->n1 = rk->n2 = n;
		rk->mean[i] = u.rk.mean[i];
		rk->first[i] = u.rk.first[i];
		rk->last[i] = u.rk.last[i];
	}
	free(u.rk.mean);
	free(u.rk.first);
	free(u.rk.last);
	return rc;
}

int pd_trend_rank(struct pd_db *db, const struct pd_trend_query *q,
		  const struct pd_trend *t, const struct tcommit *cs,
		  size_t ncs, const struct trun *rs, size_t nrs,
		  struct rank *rk, struct scored **sc, size_t *nsel,
		  struct pd_err *err)
{
	size_t i;
	int rc;

	if (q->function && (rc = match_functions(db, q->function, &rk->allow,
						 &rk->nallow, err)))
		return rc;
	/* (a pattern that matches nothing let every function through) */
	if (q->function && !rk->nallow)
		return pd_err_set(
		    err, PD_EINVAL,
		    "%s: no stored function's name or \"name [module]\""
		    " matches --function",
		    db->path);
	if (q->function && q->top &&
	    (rc = rank_allowed(db, q, t, ncs, rs, nrs, rk, err)))
		return rc;
	if (q->top && !q->function &&
	    (rc = scan_window(db, rs, nrs, ncs, rk, err)))
		return rc;
	/* the window has commits and each has runs: the means divide by them */
	assert(ncs > 0 && nrs > 0 && cs[0].nruns > 0 && cs[ncs - 1].nruns > 0);
	*sc = pd_xmalloc((rk->n + 1) * sizeof(**sc));
	for (i = 0; i < rk->n; i++) {
		double f = rk->first[i] / (double)cs[0].nruns;
		double l = rk->last[i] / (double)cs[ncs - 1].nruns;

		(*sc)[i].id = i;
		(*sc)[i].score = rk->mean[i] / (double)nrs + fabs(l - f);
	}
	pd_sort(*sc, rk->n, sizeof(**sc), by_score);
	*nsel = q->top < rk->n ? q->top : rk->n;
	/* a function below half a percent of the run is not a trend */
	while (*nsel && !((*sc)[*nsel - 1].score >= 0.005))
		(*nsel)--;
	return 0;
}
