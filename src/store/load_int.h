/* What load.c and noise.c share inside store/ (not for other layers). */
#ifndef PD_STORE_LOAD_INT_H
#define PD_STORE_LOAD_INT_H

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
int pd_store_load_run(struct pd_db *db, int64_t run, double interval,
		      double total_w, double total_n, struct pd_idmap *ids,
		      struct pd_agg *a, struct pd_err *err);
/* Sizes later database-id aggregates to the largest function id. */
void pd_store_size_hint(struct pd_db *db);

#endif
