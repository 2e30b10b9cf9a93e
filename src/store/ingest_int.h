/* What the two phases of an ingest share (ingest.c, ingest_write.c). */
#ifndef PD_STORE_INGEST_INT_H
#define PD_STORE_INGEST_INT_H

#include "core/buf.h"
#include "core/compat.h"
#include "core/vec.h"
#include "import/bundle.h"
#include "model/func.h"
#include "store/db.h"
#include "store/store.h"

/* Adds a line saying what changed in stored runs to an ingest's result. */
void pd_ingest_change(struct pd_ingest_result *r, const char *fmt, ...)
    PD_PRINTF(2, 3);

/* A row of the metrics table: a counter or a table cell. */
struct mrow {
	char *source, *key, *measure;
	double value;
};

/* One profile, imported and aggregated, waiting to be written. */
struct pending {
	char *rel, *format, *event, *exporter;
	const char *tool, *cache;
	const char *hash; /* its file's SHA-256 (the bundle's string) */
	size_t file;	  /* its file's index in the bundle */
	/* the files joined to it (perf stat counters): their SHA-256 */
	PD_VEC(const char *) joined;
	int repeat;
	enum pd_unit unit;
	double interval, total_w, total_n;
	struct pd_agg agg;
	struct pd_buf stacks; /* node records, the ingest's numbering */
	size_t nodes;
	PD_VEC(struct mrow) metrics;
	int table_only; /* no stacks (perf stat): joins another run */
};

/* Where a stored run's bundle was read from, seen from this ingest. */
enum { PLACE_OTHER, PLACE_SAME, PLACE_GONE };

/* A stored run that one of the bundle's files was read into. */
struct stored_run {
	int64_t id;
	char *sha, *scenario, *cache, *source, *build_meta, *commit_date,
	    *run_date, *host, *bundle_hash, *bundle_path;
	size_t file; /* the bundle's file it is */
	int place;   /* PLACE_ */
};

/* What a file of the bundle is (docs/history.md, "Ingest"). */
enum {
	MATCH_NEW,  /* a run to store */
	MATCH_OWN,  /* its stored run, which takes this bundle's key and
		       metadata */
	MATCH_COPY, /* stored from another folder under the same key: left
		       as it is, not stored again */
};

/*
 * The bundle's files that are stored runs, by the hash of their bytes:
 * run[i] is the run file i is (0 for a new one), kind[i] what it is;
 * runs holds the MATCH_OWN runs.
 */
struct match {
	int64_t *run;
	char *kind;
	PD_VEC(struct stored_run) runs;
	size_t files;  /* files that are stored runs */
	size_t copies; /* of them MATCH_COPY */
	int v1;	       /* found as a bundle of a history before schema 5 */
	/*
	 * a run found is stored under a prefix of the bundle's sha or the
	 * other way round: one commit, merged (or ambiguous) when written
	 */
	int prefix;
	/*
	 * --rekey: a run stored from this folder, or from one that is gone,
	 * under another sha or scenario moves to the ones given now.
	 */
	int rekey;
};

void pd_match_release(struct match *m);

/*
 * Every file of b read from path that can be a run, looked up. v1, when
 * not NULL, is the bundle's hash as a history before schema 5 stored it:
 * its runs are the files of the same path, and with adopt they are given
 * their files' hashes (inside the write transaction). A file stored from
 * this very folder under another sha or scenario is refused without
 * m->rekey (set before the call). 0 or the error code.
 */
PD_NODISCARD int pd_match_files(struct pd_db *db, const struct pd_bundle *b,
				const char *path, const char *v1, int adopt,
				int rekey, struct match *m, struct pd_err *err);
/* File i looked up again (after its hash was recorded), into m. */
PD_NODISCARD int pd_match_file(struct pd_db *db, const struct pd_bundle *b,
			       const char *path, size_t i, struct match *m,
			       struct pd_err *err);
/* Records that p's file and the files joined to it were read into run. */
PD_NODISCARD int pd_match_put(struct pd_db *db, const struct pending *p,
			      int64_t run, struct pd_err *err);
/* Whether the bundle gives a MATCH_OWN run another key or metadata. */
int pd_match_changed(const struct pd_bundle *b, const struct match *m);

/* Whether some run was stored before schema 5, without file hashes. */
PD_NODISCARD int pd_match_legacy_any(struct pd_db *db, int *any,
				     struct pd_err *err);

/*
 * A new run that a history before schema 5 may hold already, stored from
 * the same folder (path) under the same file name, tool and totals: its
 * id in *run (0 when none), given the file's hash. In the write
 * transaction.
 */
PD_NODISCARD int pd_match_legacy_run(struct pd_db *db, const char *path,
				     const struct pending *p, int64_t *run,
				     struct pd_err *err);

/*
 * The MATCH_OWN runs of m under the key and metadata the bundle b read
 * from path gives now, each change said in res. In the write
 * transaction. 0 or the error code.
 */
PD_NODISCARD int pd_match_rekey(struct pd_db *db, const struct pd_bundle *b,
				const char *path, const struct match *m,
				struct pd_ingest_result *res,
				struct pd_err *err);

/* The path a bundle row records: the folder's real path, else as given. */
char *pd_match_place(const char *path);

/*
 * On a server: the history ids of every function the write will use, in
 * dbid (by function of fn), in a few statements; new ones are added in
 * the order the write would first use them.
 */
PD_NODISCARD int pd_ingest_ids(struct pd_db *db, const struct pending *pv,
			       size_t np, const struct pd_funcs *fn,
			       int64_t *dbid, struct pd_err *err);

/*
 * Writes the bundle read from path in one transaction: its np new runs
 * (each function's history id on first use), and its stored runs under
 * the key and metadata it gives now (pd_match_rekey); a run another
 * process stored meanwhile is not written twice. v1 and rekey as for
 * pd_match_files. res->skipped when nothing changed. 0 or the error code.
 */
PD_NODISCARD int pd_ingest_write(struct pd_db *db, struct pd_bundle *b,
				 const char *path, struct pending *pv,
				 size_t np, struct pd_funcs *fn, const char *v1,
				 int rekey, struct pd_ingest_result *res,
				 struct pd_err *err);

#endif
