/*
 * One imported profile: its strings, frames, stack prefix tree and metadata.
 * The profile owns everything it points to; pd_profile_release() frees it all.
 * Weights are stored on tree nodes (self weight of the stack ending there),
 * so memory grows with the number of distinct stacks, not with samples.
 */
#ifndef PD_PROFILE_H
#define PD_PROFILE_H

#include <assert.h>
#include <stdint.h>

#include "core/compat.h"
#include "core/intern.h"
#include "core/vec.h"
#include "model/blocks.h"

#define PD_ROOT 0u
#define PD_NO_FRAME UINT32_MAX

enum pd_unit {
	PD_UNIT_SAMPLES, /* weights are sample counts */
	PD_UNIT_NS,	 /* time in nanoseconds */
	PD_UNIT_BYTES,
	PD_UNIT_COUNT, /* event counts (cycles, instructions, unknown) */
};

struct pd_frame {
	uint32_t name;	 /* raw function name (string id) */
	uint32_t module; /* raw module or path, 0 when unknown */
};

struct pd_node {
	uint32_t parent; /* node index; the root's parent is itself */
	uint32_t frame;	 /* PD_NO_FRAME for the root */
	double weight;	 /* self weight: samples whose stack ends here */
	double count;	 /* samples behind that weight */
};

/*
 * A table that is not CPU stacks (WPA Disk Usage, File I/O, ...): rows
 * keyed by their text columns, each with summed numeric measures.
 */
struct pd_mtable {
	char *name;
	PD_VEC(char *) keys;	 /* key column names */
	PD_VEC(char *) measures; /* measure column names, units included */
	PD_VEC(int) count_like;	 /* measure counts events (a count test fits) */
	struct pd_intern rowkeys; /* key values joined with '\t' -> row + 1 */
	PD_VEC(double) values;	  /* row * measures.n + measure */
	size_t rows_in;		  /* input rows summed into them */
	/*
	 * Counters (perf stat): each row is its own quantity, not a share of
	 * a table total; rse holds each value's relative standard error
	 * (-1 unknown) from runs repeats, and up marks rows where higher is
	 * better (IPC).
	 */
	int independent;
	PD_VEC(double) rse;
	PD_VEC(unsigned char) up;
	int runs; /* repeats behind rse, 0 when unknown */
};

struct pd_thread_info {
	uint32_t name; /* string id: "comm (tid)", a speedscope profile name */
	double weight;
};

struct pd_profile {
	struct pd_intern strs;
	PD_VEC(struct pd_frame) frames;
	uint32_t *frame_slots;
	size_t frame_nslots;
	PD_VEC(struct pd_node) nodes;
	uint32_t *node_slots;
	size_t node_nslots;
	/* last child looked up under each node: stacks repeat their paths */
	uint32_t *lc_frame, *lc_child;
	size_t lc_cap;
	/*
	 * While pd_import reads: the most nodes (PD_LIMIT_NODES); a stack
	 * past it ends at the last node it found and nodes_over is set, so
	 * the import fails in one line (0: PD_LIMIT_IDS, which exits).
	 */
	size_t node_cap;
	int nodes_over;

	enum pd_unit unit;
	double interval;    /* weight of one sample, 0 when unknown */
	const char *format; /* static name, e.g. "perf-script" */
	char *source;	    /* path as given */
	char *exporter;	    /* producing tool, when the file says */
	char *event;	    /* perf event, when there is one */
	char *count_rule;   /* how sample counts were derived */
	PD_VEC(struct pd_thread_info) threads;
	PD_VEC(char *) notes; /* importer warnings, one line each */
	uint64_t nsamples;    /* input samples (or events) kept */
	double total_weight, total_count;
	int has_modules; /* some frame has a module */
	int self_only;	 /* the input had self weights only (no stacks) */
	int exact;	 /* weights are exact counts (DHAT), not samples */
	uint32_t thread_module; /* module id of thread root frames, 0 = none */
	PD_VEC(struct pd_mtable *) tables;
	/*
	 * Sample counts in time blocks, from importers that know sample
	 * times (blk.nrows 0 otherwise); tree rebuilds carry them, merges
	 * of runs do not.
	 */
	struct pd_blocks blk;
	/*
	 * Frames that are time waited, not run (a PerfView Thread Time
	 * BLOCKED_TIME under its caller): how many waits each holds, per
	 * frame; NULL when none, else frame_waits_n long, 0 for a frame
	 * that runs (docs/statistics.md, "Waiting time").
	 */
	double *frame_waits;
	size_t frame_waits_n; /* frames frame_waits covers; 0 past them */
};

void pd_profile_init(struct pd_profile *p);
void pd_profile_release(struct pd_profile *p);
uint32_t pd_profile_frame(struct pd_profile *p, uint32_t name, uint32_t module);
uint32_t pd_profile_child(struct pd_profile *p, uint32_t parent,
			  uint32_t frame);
static inline void pd_profile_add(struct pd_profile *p, uint32_t node,
				  double weight, double count)
{
	assert(node < p->nodes.n);
	p->nodes.v[node].weight += weight;
	p->nodes.v[node].count += count;
}
/* Adds n waits to frame f (a frame of waited time). */
void pd_profile_add_waits(struct pd_profile *p, uint32_t frame, double n);
void pd_profile_note(struct pd_profile *p, const char *fmt, ...)
    PD_PRINTF(2, 3);
void pd_profile_thread(struct pd_profile *p, const char *name, size_t len,
		       double weight);
/*
 * With pd_import_opts.thread_roots (perfdiff convert), importers that know
 * threads start each stack under a frame naming its thread; this returns
 * that node. pd_profile_is_thread_frame() tells such frames apart.
 */
uint32_t pd_profile_thread_root(struct pd_profile *p, const char *name,
				size_t len);
static inline int pd_profile_is_thread_frame(const struct pd_profile *p,
					     uint32_t frame)
{
	return p->thread_module &&
	       p->frames.v[frame].module == p->thread_module;
}
/*
 * Replaces frames by chains of frames (inlined functions, outermost
 * first): frame f becomes chain[start[f] .. start[f] + len[f]) where
 * len[f] > 0, and stays itself where len[f] == 0 (len and start have
 * nframes entries: frames created after them stay themselves). The
 * tree is rebuilt with each node's weight on the innermost frame of its
 * chain; identical paths merge.
 */
/*
 * Removes the root frames marked in drop (one flag a frame): their
 * children become roots, merged where they meet, and their own weight
 * stays at the root, in no function.
 */
void pd_profile_drop_roots(struct pd_profile *p, const unsigned char *drop);
void pd_profile_expand(struct pd_profile *p, size_t nframes,
		       const uint32_t *start, const uint32_t *len,
		       const uint32_t *chain);
/*
 * Keeps the samples a filter wants, as pprof's options do: with focus
 * (may be NULL) only samples with a frame it marks; never samples with a
 * frame ignore marks; frames hide marks are taken out of the stacks,
 * their samples going to the caller. The marks are per frame id (frames.n
 * entries, 1 marked). The tree is rebuilt; call pd_profile_finish after.
 */
void pd_profile_filter(struct pd_profile *p, const unsigned char *focus,
		       const unsigned char *ignore, const unsigned char *hide);
/*
 * Adds src's stacks to dst with their weights and counts times scale
 * (1/n for the mean of n runs); dst takes src's unit, interval and format
 * when it has none yet. Strings, frames and nodes new to dst get ids in
 * src's order. With nodes, *nodes maps src's nodes to dst's (the
 * caller frees it). Call pd_profile_finish after the last.
 */
void pd_profile_merge(struct pd_profile *dst, const struct pd_profile *src,
		      double scale, uint32_t **nodes);
/* Computes totals; call once after import. */
void pd_profile_finish(struct pd_profile *p);
const char *pd_unit_name(enum pd_unit u);
/*
 * A unit word as profilers write it ("nanoseconds" ... "seconds",
 * "bytes", "kilobytes", "megabytes"): 1 with the unit and the factor to
 * it, 0 when the word is none of these.
 */
int pd_unit_parse(const char *name, size_t len, enum pd_unit *u, double *scale);
struct pd_mtable *pd_mtable_new(struct pd_profile *p, const char *name);
/* Adds values (one per measure) to the row with this key. */
void pd_mtable_add(struct pd_mtable *t, const char *key, size_t klen,
		   const double *values);
/* Sets a row's relative standard errors (one per measure, -1 unknown). */
void pd_mtable_set_rse(struct pd_mtable *t, const char *key, size_t klen,
		       const double *rse, int higher_is_better);
/* A row's relative standard error for measure m, or -1. */
double pd_mtable_rse(const struct pd_mtable *t, const char *key, size_t m);
/*
 * A row key as people read it: its tab-separated parts joined with " / "
 * ("task-clock / msec"; a counter's empty unit adds nothing), control
 * characters as '?'.
 */
struct pd_buf;
void pd_mtable_key_text(struct pd_buf *b, const char *key);
/* Whether more of a counter (perf stat event) is better: IPC. */
int pd_counter_up(const char *event);

#endif
