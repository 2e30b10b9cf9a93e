/* What load.c and noise.c share inside store/ (not for other layers). */
#ifndef PD_STORE_LOAD_INT_H
#define PD_STORE_LOAD_INT_H

#include "core/compat.h"
#include "store/load.h"

/*
 * One run's function rows into an aggregate: over the id map's functions
 * (names resolved), or, with ids NULL, in database id space.
 */
/*
 * A stored row's numbers (self_n, total_n, self_w, total_w; NaN for a
 * NULL): each NULL is the other number of its pair through the interval.
 */
void pd_store_row_fill(double v[4], double interval);
PD_NODISCARD int pd_store_load_run(struct pd_db *db, int64_t run,
				   double interval, double total_w,
				   double total_n, struct pd_idmap *ids,
				   struct pd_agg *a, struct pd_err *err);
/* A function's row in one run: present, and its four numbers (NaN: NULL). */
struct pd_func_row {
	int present;
	double v[4];
};

/*
 * Function func's rows in the runs ids[0 .. n) of one series, into
 * rows[i] for ids[i] (present 0 where the run has none): one query.
 */
PD_NODISCARD int pd_store_func_rows(struct pd_db *db,
				    const struct pd_hkey *series,
				    const int64_t *ids, size_t n, int64_t func,
				    struct pd_func_row *rows,
				    struct pd_err *err);
/* Sizes later database-id aggregates to the largest function id. */
void pd_store_size_hint(struct pd_db *db);

#endif
