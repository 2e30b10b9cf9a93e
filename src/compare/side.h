/*
 * One side of a comparison, however it was given (docs/cli.md): profile
 * files, a bundle folder (its runs, build_meta.json and perf stat file),
 * or a stored commit (compare's REV, check's db:REV[:SCENARIO[:CACHE]]).
 * diff, compare and check assemble their two sides here, load them and
 * describe them (build differences, provenance) the same way. Nothing
 * here prints: errors come back in struct pd_err with the line to say.
 */
#ifndef PD_COMPARE_SIDE_H
#define PD_COMPARE_SIDE_H

#include "compare/bundle_side.h"
#include "compare/pool.h"
#include "core/compat.h"
#include "store/db.h"
#include "store/load.h"

struct pd_run_side {
	/* given as files or a bundle */
	struct pd_run_paths files;
	struct pd_series_list keys; /* each file's series; bundles only */
	struct pd_bundle bundle;    /* its dir is NULL for plain files */
	struct pd_meta meta;	    /* from the bundle's build_meta.json */
	const char *stat;	    /* the bundle's perf stat file, or NULL */
	/* given as a stored commit */
	const char *operand;		    /* as typed, for messages */
	char *spec;			    /* a copy, split in place */
	const char *rev, *scenario, *cache; /* as given */
	char *sha;			    /* resolved */
	char *why; /* why this commit, for its provenance (owned), or NULL */
	struct pd_loaded l;
	int loaded;
	/* its stored counters (perf stat), which the diff's tables read */
	struct pd_profile **counters;
	size_t ncounters;
	/* what a comparison of aggregates reads (compare, check) */
	struct pd_import_job *jobs; /* the files, imported */
	struct pd_agg *aggs;
	size_t n;
	struct pd_side side;
};

/* How the sides are read and compared; the strings stay the caller's. */
struct pd_compare_opts {
	const struct pd_import_opts *io; /* how files are read */
	const char *db;	  /* the history's path: noise learns on its own */
	const char *tool; /* the tool stored runs are of, or NULL: any */
	int want_mean;	  /* stored runs keep their mean tree (HTML) */
	/* the comparison's settings; whole_totals is decided here */
	struct pd_settings *set;
};

/* A file, or a bundle folder whose profiles are the side's runs. */
PD_NODISCARD int pd_compare_side_add(struct pd_run_side *s, const char *arg,
				     struct pd_err *err);

/*
 * Keeps the runs of series (cache, tool) alone (either NULL: any); a side
 * of plain files, which have no series, keeps them all. Returns how many
 * runs are left.
 */
size_t pd_run_side_keep(struct pd_run_side *s, const char *cache,
			const char *tool);

/*
 * Appends the side's series to b as "warm perfview (3 runs), cold samply
 * (1 run)", in the order they first occur.
 */
struct pd_buf;
void pd_run_side_series(const struct pd_run_side *s, struct pd_buf *b);

/*
 * The series both sides have (docs/cli.md, "Bundles"), kept to those of
 * cache and tool when given, in the order they first occur, into common;
 * a side of plain files goes with every series of the other. What only
 * one side has is described in only ("cold samply: baseline 2 runs,
 * candidate none; ..."). Neither side a bundle: common stays empty. 0, or
 * an error code with err set (a cache or tool no bundle has, or no series
 * in common).
 */
PD_NODISCARD int pd_compare_series(const struct pd_run_side *s,
				   const char *cache, const char *tool,
				   struct pd_series_list *common,
				   struct pd_buf *only, struct pd_err *err);

/*
 * A stored commit: rev[:SCENARIO[:CACHE]] (parts not given are scenario
 * and cache); 0, or an error code with err set. operand is the argument
 * as typed, for messages; it and cache and scenario must outlive s.
 */
PD_NODISCARD int pd_compare_stored(struct pd_run_side *s, const char *operand,
				   const char *rev, const char *scenario,
				   const char *cache, struct pd_err *err);

/* The runs' aggregates, where the time of each function went. */
static inline struct pd_agg *pd_run_side_aggs(const struct pd_run_side *s)
{
	return s->loaded ? s->l.runs : s->aggs;
}

static inline size_t pd_run_side_n(const struct pd_run_side *s)
{
	return s->loaded ? s->l.n : s->n;
}

/*
 * Both sides as per-run aggregates over fn, the stored ones read from db
 * with the noise the history learned for their scenario (on a second
 * thread and connection meanwhile), compared into d (pd_diff_aggs) and
 * described. Both stored: their counters (perf stat) join as tables. 0
 * when d was made (render it, then pd_diff_release), else an error code
 * with err set.
 */
PD_NODISCARD int pd_compare_sides(struct pd_run_side *s, struct pd_db *db,
				  const struct pd_compare_opts *o,
				  struct pd_funcs *fn, struct pd_diff *d,
				  struct pd_err *err);

/* Build differences between the sides and each side's provenance. */
void pd_run_sides_describe(struct pd_diff *d, struct pd_run_side *s,
			   const char *cache, const char *tool);

void pd_run_side_release(struct pd_run_side *s);

#endif
