/*
 * Loading stored runs for comparisons. A pd_loaded owns its aggregates and
 * strings; its side description points into them.
 */
#ifndef PD_LOAD_H
#define PD_LOAD_H

#include <pthread.h>

#include "model/func.h"
#include "stats/diff.h"
#include "core/buf.h"
#include "model/profile.h"
#include "store/db.h"
#include "store/key.h"

/* Maps database function ids to a pd_funcs table, filled as rows arrive. */
struct pd_idmap_name {
	int64_t id;
	size_t name, module; /* offsets in names */
};

struct pd_idmap {
	struct pd_funcs *fn;
	PD_VEC(uint32_t) map; /* db id -> function id + 1, 0 = not yet */
	/*
	 * On a server, the names of a run's functions read in one query
	 * (by id, for bsearch), and the runs so read.
	 */
	PD_VEC(struct pd_idmap_name) pre;
	struct pd_buf names;
	PD_VEC(int64_t) pre_runs;
};

void pd_idmap_init(struct pd_idmap *m, struct pd_funcs *fn);
void pd_idmap_release(struct pd_idmap *m);

struct pd_loaded {
	struct pd_agg *runs;
	size_t n;
	struct pd_side side;
	char *source, *format, *event, *host, *build_meta;
	char *commit_date; /* as stored (git's, or build_meta.json's) */
	/*
	 * Every run was aggregated from its stack tree with the function
	 * table's flags, system frames set apart as in a diff of files; 0
	 * when some run had only its whole totals (stored by an older
	 * perfdiff: docs/history.md).
	 */
	int set_apart;
	/*
	 * With want_mean: the side's mean run as a profile of functions,
	 * rebuilt from the stored trees (every run's weights / n), for the
	 * HTML report's flame graph; NULL when a run has no usable tree.
	 */
	struct pd_profile *mean;
};

void pd_loaded_release(struct pd_loaded *l);
/*
 * The one full sha starting with prefix among the runs of the series'
 * scenario (and cache state when given); ambiguity lists the candidates.
 */
PD_NODISCARD int pd_store_resolve(struct pd_db *db, const char *prefix,
				  const struct pd_hkey *series, char **sha,
				  struct pd_err *err);
/*
 * Whether the commit full (a 40-digit id git gave) has stored runs of
 * scenario, and of cache and tool when not NULL: 1 with the sha it is
 * stored under in *sha (owned; a prefix of full when stored so), 0 when
 * it has none, or a negative PD_E* code.
 */
PD_NODISCARD int pd_store_has_runs(struct pd_db *db, const struct pd_hkey *k,
				   char **sha, struct pd_err *err);
/*
 * Settles k's cache state and tool when not given (k->cache or k->tool
 * NULL) from the runs of commit k->sha in k->scenario: exactly one must
 * exist. Owned copies go to *_out, and k's parts point at them.
 */
PD_NODISCARD int pd_store_settle(struct pd_db *db, struct pd_hkey *k,
				 char **cache_out, char **tool_out,
				 struct pd_err *err);
/*
 * The runs of commit k (every part given), aggregated from their stack
 * trees (system frames set apart, out->set_apart) when every run has one
 * the reader can resolve and how has no PD_LOAD_WHOLE; else from their
 * function rows, whole totals. PD_LOAD_MEAN keeps the side's mean run as
 * a profile too (out->mean). On an error out holds nothing (it is
 * released here).
 */
PD_NODISCARD int pd_store_load(struct pd_db *db, const struct pd_hkey *k,
			       struct pd_idmap *ids, unsigned how,
			       struct pd_loaded *out, struct pd_err *err);
/*
 * Learns noise from the last 30 commits of the series (its sha unused;
 * scenario, cache and tool all given), leaving
 * out the shas in exclude (NULL-terminated): priors for the t-test from
 * repeats, phi from A/A pairs, per-function thresholds from neighbours.
 * With ids NULL the result is indexed by database function id.
 */
PD_NODISCARD int pd_store_noise(struct pd_db *db, const struct pd_hkey *series,
				const char *const *exclude,
				struct pd_idmap *ids, struct pd_noise *noise,
				struct pd_err *err);

/*
 * The same for the functions only[] (database ids; the total too), from
 * just their rows: what a trend of a few series needs. Indexed by
 * database id; the numbers are those pd_store_noise gives them.
 */
PD_NODISCARD int pd_store_noise_only(struct pd_db *db,
				     const struct pd_hkey *series,
				     const int64_t *only, size_t n,
				     struct pd_noise *noise,
				     struct pd_err *err);

/*
 * The same on a thread of its own (its own connection, database ids), so
 * a comparison loads its two sides meanwhile. finish() joins and re-indexes
 * the result through the caller's id map (after both sides are loaded); it
 * must be called once.
 */
struct pd_noise_task {
	void *job;
	pthread_t th;
	int threaded;
};

/* Returns 0: what fails is reported by finish(). */
int pd_store_noise_start(struct pd_noise_task *t, const char *db_path,
			 const struct pd_hkey *series,
			 const char *const *exclude);
PD_NODISCARD int pd_store_noise_finish(struct pd_noise_task *t,
				       struct pd_idmap *ids,
				       struct pd_noise *out,
				       struct pd_err *err);

/*
 * The stored metric tables (perf stat counters) of a commit, one profile
 * per run that has them, holding only tables. The caller releases and
 * frees each profile and the array.
 */
PD_NODISCARD int pd_store_metrics(struct pd_db *db, const struct pd_hkey *k,
				  struct pd_profile ***out, size_t *n,
				  struct pd_err *err);

#endif
