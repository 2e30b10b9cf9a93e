/*
 * Time blocks of a profile's samples (blocks.h; docs/statistics.md,
 * "Time inside a run").
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/xalloc.h"
#include "model/blocks.h"

void pd_blocks_release(struct pd_blocks *b)
{
	free(b->rows);
	free(b->row_of);
	memset(b, 0, sizeof(*b));
}

/* Node's row, made when it has none. */
static float *row_for(struct pd_blocks *b, uint32_t node)
{
	if (node >= b->nnodes) {
		size_t n = b->nnodes ? b->nnodes : 64;

		while (n <= node)
			n *= 2;
		b->row_of = pd_xreallocarray(b->row_of, n, sizeof(*b->row_of));
		memset(b->row_of + b->nnodes, 0,
		       (n - b->nnodes) * sizeof(*b->row_of));
		b->nnodes = n;
	}
	if (!b->row_of[node]) {
		if (b->nrows == b->rows_cap) {
			b->rows_cap = b->rows_cap ? 2 * b->rows_cap : 64;
			b->rows = pd_xreallocarray(
			    b->rows, b->rows_cap * PD_BLOCKS, sizeof(*b->rows));
		}
		memset(b->rows + b->nrows * PD_BLOCKS, 0,
		       PD_BLOCKS * sizeof(*b->rows));
		b->row_of[node] = (uint32_t)++b->nrows;
	}
	return b->rows + (size_t)(b->row_of[node] - 1) * PD_BLOCKS;
}

/* Doubles the blocks' length: block k becomes blocks 2k and 2k + 1. */
static void fold(struct pd_blocks *b)
{
	size_t r;
	unsigned k;

	for (r = 0; r < b->nrows; r++) {
		float *v = b->rows + r * PD_BLOCKS;

		for (k = 0; k < PD_BLOCKS / 2; k++)
			v[k] = v[2 * k] + v[2 * k + 1];
		memset(v + PD_BLOCKS / 2, 0, PD_BLOCKS / 2 * sizeof(*v));
	}
	b->width *= 2;
	b->inv = 1 / b->width;
	b->used = (b->used + 1) / 2;
}

/*
 * Moves the blocks' start m blocks earlier, for a sample before it:
 * every row's counts shift m places (the caller made room).
 */
static void shift(struct pd_blocks *b, unsigned m)
{
	size_t r;

	for (r = 0; r < b->nrows; r++) {
		float *v = b->rows + r * PD_BLOCKS;

		memmove(v + m, v, (PD_BLOCKS - m) * sizeof(*v));
		memset(v, 0, m * sizeof(*v));
	}
	b->t0 -= m * b->width;
	b->used += m;
}

/*
 * Makes the blocks cover time t (finite): starts them, sets their length
 * from the first gap, moves their start back or folds them. Returns t's
 * block.
 */
static unsigned place(struct pd_blocks *b, double t)
{
	double k = 0;

	if (!b->used) {
		b->t0 = t;
		b->used = 1;
	} else if (!(b->width > 0) && (t > b->t0 || t < b->t0)) {
		/* The first gap: a sample period or so, an eighth a block. */
		b->width = fabs(t - b->t0) / 8;
		b->inv = 1 / b->width;
	}
	if (b->width > 0 && t < b->t0) {
		/* earlier than all so far: the blocks grow to the left */
		double m = ceil((b->t0 - t) / b->width);

		while (m + b->used > PD_BLOCKS) {
			fold(b);
			m = ceil((b->t0 - t) / b->width);
		}
		shift(b, (unsigned)m);
	}
	if (b->width > 0 && t > b->t0) {
		while ((t - b->t0) / b->width >= PD_BLOCKS)
			fold(b);
		k = floor((t - b->t0) / b->width);
	}
	if ((unsigned)k + 1 > b->used)
		b->used = (unsigned)k + 1;
	return (unsigned)k;
}

void pd_blocks_add_slow(struct pd_blocks *b, uint32_t node, double t,
			double count)
{
	unsigned k;

	if (isnan(t) || isinf(t))
		return;
	k = place(b, t);
	row_for(b, node)[k] += (float)count;
}

/* t's block once the blocks cover it, within the blocks in use. */
static unsigned block_of(const struct pd_blocks *b, double t)
{
	double x = b->width > 0 ? floor((t - b->t0) * b->inv) : 0;

	if (!(x > 0))
		return 0;
	return x >= b->used ? b->used - 1 : (unsigned)x;
}

void pd_blocks_add_span_slow(struct pd_blocks *b, uint32_t node, double ta,
			     double tb, double amount)
{
	unsigned k, k0, k1;
	float *row;

	if (isnan(ta) || isinf(ta) || isnan(tb) || isinf(tb))
		return;
	if (!(tb > ta)) {
		pd_blocks_add_slow(b, node, ta, amount);
		return;
	}
	place(b, ta);
	place(b, tb);
	row = row_for(b, node);
	k0 = block_of(b, ta);
	k1 = block_of(b, tb);
	for (k = k0; k <= k1; k++) {
		double lo = fmax(ta, b->t0 + k * b->width);
		double hi = fmin(tb, b->t0 + (k + 1) * b->width);

		if (k == k0)
			lo = ta;
		if (k == k1)
			hi = tb;
		if (hi > lo)
			row[k] += (float)(amount * (hi - lo) / (tb - ta));
	}
}

void pd_blocks_restart(struct pd_blocks *nb, const struct pd_blocks *old)
{
	memset(nb, 0, sizeof(*nb));
	nb->t0 = old->t0;
	nb->width = old->width;
	nb->inv = old->inv;
	nb->used = old->used;
}

static void carry(struct pd_blocks *nb, const float *src, uint32_t to,
		  double scale)
{
	float *dst = row_for(nb, to);
	unsigned k;

	for (k = 0; k < PD_BLOCKS; k++)
		dst[k] += (float)((double)src[k] * scale);
}

void pd_blocks_carry(struct pd_blocks *nb, const struct pd_blocks *old,
		     uint32_t from, uint32_t to)
{
	const float *src = pd_blocks_row(old, from);

	if (src)
		carry(nb, src, to, 1);
}

void pd_blocks_carry_count(struct pd_blocks *nb, const struct pd_blocks *old,
			   uint32_t from, uint32_t to, double count)
{
	const float *src = pd_blocks_row(old, from);
	double n = 0;
	unsigned k;

	for (k = 0; src && k < PD_BLOCKS; k++)
		n += (double)src[k];
	if (n > 0)
		carry(nb, src, to, count / n);
}
