/*
 * Time blocks of a profile's samples (docs/statistics.md, "Bursty
 * functions"): where an importer knows each sample's time, the recording
 * is cut into PD_BLOCKS spans of equal length and every node with samples
 * of its own keeps its sample count in each. A function whose counts
 * scatter over the blocks far more than sampling explains is bursty: its
 * time comes in bursts (a collector, a page-fault storm, a phase), and
 * one run says less about it than its count suggests.
 *
 * The span is not known in advance: it starts from the first gap between
 * two sample times and doubles, folding neighbouring blocks together,
 * whenever a sample lies past the last block; a sample before the first
 * block (perf writes a few out of order, and Firefox profiles list each
 * thread's samples in turn) moves the start back by whole blocks,
 * folding first if they would not fit. Between half and all of the
 * blocks hold samples in the end.
 */
#ifndef PD_BLOCKS_H
#define PD_BLOCKS_H

#include <stddef.h>
#include <stdint.h>

#define PD_BLOCKS 16

struct pd_blocks {
	float *rows;	  /* nrows * PD_BLOCKS sample counts */
	uint32_t *row_of; /* node -> its row + 1, 0 when none */
	size_t nrows, rows_cap, nnodes;
	double t0, width; /* block k: [t0 + k width, t0 + (k + 1) width) */
	double inv;	  /* 1 / width, 0 until there is a width */
	unsigned used;	  /* blocks from the first to the last with samples; 0
			     before any */
};

void pd_blocks_release(struct pd_blocks *b);
/* pd_blocks_add when the blocks must change (or the node has no row). */
void pd_blocks_add_slow(struct pd_blocks *b, uint32_t node, double t,
			double count);
/*
 * count samples of node at time t (any unit; NaN: not counted). Inline:
 * importers call it once a sample.
 */
static inline void pd_blocks_add(struct pd_blocks *b, uint32_t node, double t,
				 double count)
{
	double x = (t - b->t0) * b->inv;

	if (b->inv > 0 && x >= 0 && x < PD_BLOCKS && node < b->nnodes &&
	    b->row_of[node] && (unsigned)x < b->used) {
		b->rows[(size_t)(b->row_of[node] - 1) * PD_BLOCKS +
			(unsigned)x] += (float)count;
		return;
	}
	pd_blocks_add_slow(b, node, t, count);
}
void pd_blocks_add_span_slow(struct pd_blocks *b, uint32_t node, double ta,
			     double tb, double amount);
/*
 * amount spread evenly over the span [ta, tb) of node (an evented
 * profile's interval): each block gets its share of the span.
 */
static inline void pd_blocks_add_span(struct pd_blocks *b, uint32_t node,
				      double ta, double tb, double amount)
{
	double x0 = (ta - b->t0) * b->inv, x1 = (tb - b->t0) * b->inv;

	if (b->inv > 0 && x0 >= 0 && x1 < PD_BLOCKS && tb > ta &&
	    (unsigned)x0 == (unsigned)x1 && (unsigned)x1 < b->used &&
	    node < b->nnodes && b->row_of[node]) {
		b->rows[(size_t)(b->row_of[node] - 1) * PD_BLOCKS +
			(unsigned)x0] += (float)amount;
		return;
	}
	pd_blocks_add_span_slow(b, node, ta, tb, amount);
}
/* A node's row, or NULL when it has no timed samples. */
static inline const float *pd_blocks_row(const struct pd_blocks *b,
					 uint32_t node)
{
	return node < b->nnodes && b->row_of[node]
		   ? b->rows + (size_t)(b->row_of[node] - 1) * PD_BLOCKS
		   : NULL;
}
/*
 * Starts nb for a rebuilt tree of old's blocks (same span, no rows);
 * pd_blocks_carry then adds old node from's counts to new node to, and
 * pd_blocks_carry_count the same scaled to sum to count: for importers
 * whose rows count samples while the node's count is weighed otherwise
 * (CPU time, an interval's length), spread as the samples lie.
 */
void pd_blocks_restart(struct pd_blocks *nb, const struct pd_blocks *old);
void pd_blocks_carry(struct pd_blocks *nb, const struct pd_blocks *old,
		     uint32_t from, uint32_t to);
void pd_blocks_carry_count(struct pd_blocks *nb, const struct pd_blocks *old,
			   uint32_t from, uint32_t to, double count);

#endif
