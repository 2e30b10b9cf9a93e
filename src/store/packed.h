/*
 * A run's function rows packed into one blob (docs/history.md, "Tables",
 * run_packed): per row in increasing function id, the id's increase as a
 * varint, a tag byte with two bits per number (self_n, total_n, self_w,
 * total_w: 0 NULL, 1 varint, 2 little-endian binary64), then the numbers.
 * A whole run is then one database row, read at memory speed; the values
 * read back are exactly those of run_functions.
 */
#ifndef PD_STORE_PACKED_H
#define PD_STORE_PACKED_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/err.h"
#include "store/db.h"

struct pd_packed_row {
	int64_t fid;
	double v[4]; /* self_n, total_n, self_w, total_w; NaN for NULL */
};

/*
 * Rows (any order; sorted here by id, ids distinct and positive) into
 * out, which is reset first.
 */
void pd_packed_encode(struct pd_buf *out, struct pd_packed_row *rows, size_t n);

struct pd_packed_it {
	const unsigned char *p, *end;
	int64_t fid;
	size_t left; /* rows still to read */
};

void pd_packed_start(struct pd_packed_it *it, const void *blob, size_t len,
		     size_t nrows);
/*
 * The next row: 1 with it in *row, 0 after the last (when the blob ends
 * exactly there), -1 when the blob is damaged.
 */
PD_NODISCARD int pd_packed_next(struct pd_packed_it *it,
				struct pd_packed_row *row);

/*
 * Run run's packed rows copied into blob, their number in *nrows:
 * 1 when the run has them, 0 when not (stored before schema 3), or an
 * error.
 */
PD_NODISCARD int pd_packed_load(struct pd_db *db, int64_t run,
				struct pd_buf *blob, size_t *nrows,
				struct pd_err *err);
/*
 * Stores run's function rows (sorted here by id) in run_functions and,
 * packed, in run_packed, in the caller's transaction: how ingest (and
 * the history benchmark) write a run. v[0] and v[1] are always written;
 * a NaN weight is a NULL (derived from the count).
 */
PD_NODISCARD int pd_store_run_rows(struct pd_db *db, int64_t run,
				   struct pd_packed_row *rows, size_t n,
				   struct pd_buf *scratch, struct pd_err *err);

/*
 * A run's time-block dispersions (docs/history.md, "Tables", run_bursts)
 * in the same format: per function, v = { self dispersion x 1000
 * rounded, its degrees of freedom, the same for total }, NaN where the
 * metric has none. Stored only when n > 0; loaded as pd_packed_load
 * (0 when the run has none).
 */
#define PD_BURST_SCALE 1000.0
PD_NODISCARD int pd_store_run_bursts(struct pd_db *db, int64_t run,
				     struct pd_packed_row *rows, size_t n,
				     struct pd_buf *scratch,
				     struct pd_err *err);
PD_NODISCARD int pd_bursts_load(struct pd_db *db, int64_t run,
				struct pd_buf *blob, size_t *nrows,
				struct pd_err *err);

#endif
