/* What the two phases of an ingest share (ingest.c, ingest_write.c). */
#ifndef PD_STORE_INGEST_INT_H
#define PD_STORE_INGEST_INT_H

#include "core/buf.h"
#include "core/vec.h"
#include "import/bundle.h"
#include "model/func.h"
#include "store/db.h"
#include "store/store.h"

/* A row of the metrics table: a counter or a table cell. */
struct mrow {
	char *source, *key, *measure;
	double value;
};

/* One profile, imported and aggregated, waiting to be written. */
struct pending {
	char *rel, *format, *event, *exporter;
	const char *tool, *cache;
	int repeat;
	enum pd_unit unit;
	double interval, total_w, total_n;
	struct pd_agg agg;
	struct pd_buf stacks; /* node records, the ingest's numbering */
	size_t nodes;
	PD_VEC(struct mrow) metrics;
	int table_only; /* no stacks (perf stat): joins another run */
};

/* Whether the bundle with content hash is stored already (*found). */
int pd_ingest_stored(struct pd_db *db, const char *hash, int *found,
		     struct pd_err *err);

/*
 * On a server: the history ids of every function the write will use, in
 * dbid (by function of fn), in a few statements; new ones are added in
 * the order the write would first use them.
 */
int pd_ingest_ids(struct pd_db *db, const struct pending *pv, size_t np,
		  const struct pd_funcs *fn, int64_t *dbid, struct pd_err *err);

/*
 * Writes the bundle read from path and its np runs in one transaction,
 * each function's history id on first use; nothing when another process
 * stored the same bundle meanwhile (res->skipped). 0 or the error code.
 */
int pd_ingest_write(struct pd_db *db, struct pd_bundle *b, const char *path,
		    struct pending *pv, size_t np, struct pd_funcs *fn,
		    struct pd_ingest_result *res, struct pd_err *err);

#endif
