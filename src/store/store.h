/*
 * The history: bundles in, runs out. Ingest writes a bundle in one
 * transaction or not at all; loading returns per-run aggregates that the
 * statistics consume. Results own their memory (see each _release).
 */
#ifndef PD_STORE_H
#define PD_STORE_H

#include "core/vec.h"
#include "import/bundle.h"
#include "model/func.h"
#include "store/db.h"

struct pd_import_opts;

struct pd_ingest_result {
	int skipped;	      /* already stored, unchanged: nothing written */
	size_t runs;	      /* runs written */
	size_t rows;	      /* run_functions rows written */
	size_t updated;	      /* stored runs given new metadata */
	size_t moved;	      /* stored runs given a new key */
	PD_VEC(char *) notes; /* files passed over, one line each */
	/* what changed in stored runs ("updated build_meta.json of ..."): */
	PD_VEC(char *) changes; /* one line each */
};

/*
 * ingest --rekey: runs stored from the bundle's folder (or from one that
 * is gone) under another sha or scenario take the ones it gives now,
 * where they are otherwise refused.
 */
#define PD_INGEST_REKEY 1u

/* The time now, UTC, as the history stores times (2026-11-26T23:08:19Z). */
void pd_store_now(char out[32]);

/* Adds a note line to an ingest's result. */
void pd_ingest_note(struct pd_ingest_result *r, const char *fmt, ...)
    PD_PRINTF(2, 3);
void pd_ingest_result_release(struct pd_ingest_result *r);
/*
 * Ingests a bundle folder, or a single profile file (then fallback must
 * give its sha and scenario). A broken profile refuses the whole bundle.
 * A file whose bytes were stored from this folder is that run, which
 * takes the key and metadata the bundle gives now (res->changes says
 * so); one stored from another folder under the same key is not stored
 * again (docs/history.md, "Ingest"). flags: PD_INGEST_REKEY or 0. io:
 * NULL, or the --symbols folders and --symbolizer to name frames with
 * (a bundle's own dist/ is looked in after them).
 */
PD_NODISCARD int pd_store_ingest(struct pd_db *db, const char *path,
				 const struct pd_bundle_key *fallback,
				 unsigned flags,
				 const struct pd_import_opts *io,
				 struct pd_ingest_result *res,
				 struct pd_err *err);

/* The tool that wrote a profile, from its file name, format and exporter. */
const char *pd_tool_name(const char *rel, const char *format,
			 const char *exporter);

/*
 * Stack tree blob (stacks.c): (u32 parent, u32 function, f64 weight, f64
 * count) per node after the root, little-endian, zlib-compressed.
 * Records appends the uncompressed records of p's nodes, node_func giving
 * each node's function; compress adds their blob to out; encode is both.
 */
struct pd_stack_node {
	uint32_t parent, func;
	double weight, count;
};

void pd_stacks_records(const struct pd_profile *p, const uint32_t *node_func,
		       struct pd_buf *raw);
void pd_stacks_compress(const struct pd_buf *raw, struct pd_buf *out);
void pd_stacks_encode(const struct pd_profile *p, const uint32_t *node_func,
		      struct pd_buf *out);
/* The records of a blob of nodes records into raw (reset first). */
PD_NODISCARD int pd_stacks_decode(const void *blob, size_t n, size_t nodes,
				  struct pd_buf *raw, struct pd_err *err);
/* Record i of raw; and setting its function. */
void pd_stacks_node(const struct pd_buf *raw, size_t i,
		    struct pd_stack_node *nd);
void pd_stacks_set_func(struct pd_buf *raw, size_t i, uint32_t func);

#endif
