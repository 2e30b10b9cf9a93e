/*
 * Function ids of a bundle on a server (ingest_int.h): the functions the
 * write will use, in the order it would first use them (each run's rows
 * by function, then its stack tree's nodes), found or made in a few
 * statements. On SQLite each is looked up when first used (a lookup there
 * costs a microsecond; on a server a round trip).
 */
#include <stdlib.h>

#include "core/xalloc.h"
#include "store/ingest_int.h"
#include "store/store.h"

struct order {
	PD_VEC(uint32_t) v;
};

/* Appends function f to the order when it is not in it yet. */
static void want(uint32_t f, unsigned char *seen, struct order *o)
{
	if (seen[f])
		return;
	seen[f] = 1;
	PD_VEC_PUSH(&o->v, f);
}

static int put_wanted(struct pd_db *db, const struct pd_funcs *fn,
		      const uint32_t *order, size_t n, struct pd_err *err)
{
	struct pd_st *st = pd_db_stmt(db, "q_want_put", err);
	size_t k;

	if (!st)
		return PD_EIO;
	for (k = 0; k < n; k++) {
		pd_st_i64(st, 1, (int64_t)k);
		pd_st_text(st, 2, pd_func_name(fn, order[k]));
		pd_st_text(st, 3, pd_func_module(fn, order[k]));
		if (pd_st_step(st) < 0)
			return pd_db_fail(db, err, "listing the functions");
		pd_st_reset(st);
	}
	return 0;
}

static int step_all(struct pd_db *db, const char *name, const uint32_t *order,
		    size_t n, int64_t *dbid, struct pd_err *err)
{
	struct pd_st *st = pd_db_stmt(db, name, err);
	int rc;

	if (!st)
		return PD_EIO;
	while ((rc = pd_st_step(st)) == PD_ST_ROW && dbid) {
		int64_t k = pd_st_col_i64(st, 0);

		if (k >= 0 && (size_t)k < n)
			dbid[order[k]] = pd_st_col_i64(st, 1);
	}
	pd_st_reset(st);
	return rc < 0 ? pd_db_fail(db, err, name) : 0;
}

int pd_ingest_ids(struct pd_db *db, const struct pending *pv, size_t np,
		  const struct pd_funcs *fn, int64_t *dbid, struct pd_err *err)
{
	unsigned char *seen = pd_xcalloc(fn->v.n + 1, 1);
	struct order order = { PD_VEC_INIT };
	size_t k, i;
	int rc;

	for (k = 0; k < np; k++) {
		for (i = 0; i < pv[k].agg.n && i < fn->v.n; i++)
			if (pv[k].agg.total_w[i] > 0)
				want((uint32_t)i, seen, &order);
		for (i = 0; i < pv[k].nodes; i++) {
			struct pd_stack_node nd;

			pd_stacks_node(&pv[k].stacks, i, &nd);
			if (nd.func < fn->v.n)
				want(nd.func, seen, &order);
		}
	}
	rc = step_all(db, "q_want_create", NULL, 0, NULL, err);
	if (rc == 0)
		rc = put_wanted(db, fn, order.v.v, order.v.n, err);
	if (rc == 0)
		rc = step_all(db, "q_want_insert", NULL, 0, NULL, err);
	if (rc == 0)
		rc =
		    step_all(db, "q_want_ids", order.v.v, order.v.n, dbid, err);
	PD_VEC_FREE(&order.v);
	free(seen);
	return rc;
}
