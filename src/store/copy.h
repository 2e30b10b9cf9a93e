/*
 * A whole history into an empty database, either backend to either, ids
 * kept (docs/history.md, "Moving a history").
 */
#ifndef PD_STORE_COPY_H
#define PD_STORE_COPY_H

#include "store/db.h"

struct pd_copy_result {
	size_t bundles, runs, functions, rows, alerts;
};

/* Writes dst in one transaction, or nothing. */
PD_NODISCARD int pd_store_copy(struct pd_db *src, struct pd_db *dst,
			       struct pd_copy_result *res, struct pd_err *err);

#endif
