/*
 * Each function's dispersion over a profile's time blocks
 * (docs/statistics.md, "Time inside a run"): its self and total counts per
 * block against what an even rate would put there, the block's share of
 * the steady samples. Steady: the program's samples less the self
 * samples of functions that are plainly bursty by themselves (a burst
 * pushes the rest of a thread aside, so every other function would look
 * bursty against the whole); a system frame's against all samples.
 * pd_agg_compute is here: the stack tree's sums (func.c), then these.
 */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/xalloc.h"
#include "model/func.h"

/* Blocks summed over a subtree at a time: 4 doubles a node. */
#define CHUNK 4

/*
 * Fewest samples a block for a dispersion: Pearson's X^2 has its
 * chi-square tail when expected counts are not tiny.
 */
#define MIN_PER_BLOCK 3

/* Bursty functions taken out of the steady samples, at most. */
#define MAX_BURSTY 8

/*
 * Plainly bursty: X^2 beyond its 0.999 quantile (Wilson and Hilferty's
 * cube-root normal form of the chi-square; z = 3.09).
 */
static int plainly_bursty(double disp, double df)
{
	double h, q;

	if (!(df > 0))
		return 0;
	h = 2 / (9 * df);
	q = 1 - h + 3.09 * sqrt(h);
	return disp > q * q * q;
}

struct chunk {
	double *sub; /* node * CHUNK */
	double *tot; /* function * PD_BLOCKS */
	unsigned at; /* first block of the chunk */
};

static void add_total(void *ctx, uint32_t node, uint32_t fn)
{
	struct chunk *c = ctx;
	unsigned j;

	for (j = 0; j < CHUNK; j++)
		c->tot[(size_t)fn * PD_BLOCKS + c->at + j] +=
		    c->sub[(size_t)node * CHUNK + j];
}

/*
 * How many separate stretches of the run the counts c come in: a block
 * is active when it holds at least half of its even share (C e_k / E),
 * and two active blocks with an inactive one between them are two
 * stretches (blocks without exposure neither join nor part them). A
 * function that runs in one phase of the program (a start-up, the parse
 * before the index) is one stretch: concentrated in time like a burst,
 * but by the program's order, the same in every run (statistics.md,
 * "Time inside a run").
 */
static unsigned stretches(const double *c, const double *e, unsigned used,
			  double C, double E)
{
	unsigned k, n = 0;
	int active = 0, gap = 0;

	for (k = 0; k < used; k++) {
		if (!(e[k] > 0))
			continue;
		if (c[k] >= 0.5 * C * e[k] / E) {
			n += !active && (gap || !n);
			active = 1;
			gap = 0;
		} else {
			gap = active || gap;
			active = 0;
		}
	}
	return n;
}

/*
 * X^2 / df of counts c against exposures e over used blocks; with cap, at
 * most 1 (sampling's) for counts in a single stretch of the run. The
 * search for the bursts that push the rest aside caps nothing: one burst
 * in mid-run is taken out of the steady samples, or every steady
 * function would show a gap there.
 */
static void dispersion(const double *c, const double *e, unsigned used, int cap,
		       double *disp, double *df)
{
	double C = 0, E = 0, x2 = 0;
	unsigned k, K = 0;

	*disp = 0;
	*df = 0;
	for (k = 0; k < used; k++)
		if (e[k] > 0) {
			C += c[k];
			E += e[k];
			K++;
		}
	if (K < 4 || C < MIN_PER_BLOCK * K)
		return;
	for (k = 0; k < used; k++)
		if (e[k] > 0) {
			double m = C * e[k] / E;

			x2 += (c[k] - m) * (c[k] - m) / m;
		}
	*df = K - 1;
	*disp = x2 / *df;
	/* a phase is no evidence of bursts: at most sampling's scatter */
	if (cap && *disp > 1 && stretches(c, e, used, C, E) < 2)
		*disp = 1;
}

/*
 * Takes the self samples of plainly bursty functions out of the
 * program's block totals into steady, the burstiest first and one at a
 * time (the functions a burst pushes aside look bursty too until it is
 * out), marking them in out; unless that leaves less than half of them
 * (a program of phases: no part of it is steady), when steady is the
 * program's totals and none is marked.
 */
static void steady_blocks(const struct pd_agg *a, const struct pd_funcs *f,
			  const double *self, const double *prog,
			  double *steady, unsigned char *out, unsigned used)
{
	double before = 0, after = 0, disp, df;
	size_t i, worst;
	unsigned j, round;

	memcpy(steady, prog, PD_BLOCKS * sizeof(*steady));
	for (round = 0; round < MAX_BURSTY; round++) {
		double most = 0;

		worst = SIZE_MAX;
		for (i = 0; i < a->n; i++) {
			if (f->v.v[i].system || out[i])
				continue;
			dispersion(self + i * PD_BLOCKS, steady, used, 0, &disp,
				   &df);
			if (plainly_bursty(disp, df) && disp > most) {
				most = disp;
				worst = i;
			}
		}
		if (worst == SIZE_MAX)
			break;
		out[worst] = 1;
		for (j = 0; j < used; j++) {
			steady[j] -= self[worst * PD_BLOCKS + j];
			if (!(steady[j] > 0.5))
				steady[j] = 0;
		}
	}
	for (j = 0; j < used; j++) {
		before += prog[j];
		after += steady[j];
	}
	if (after < before / 2) {
		memcpy(steady, prog, PD_BLOCKS * sizeof(*steady));
		memset(out, 0, a->n);
	}
}

/* Fills a->bdisp and a->bdf from p's time blocks. */
static void agg_blocks(struct pd_agg *a, const struct pd_profile *p,
		       const struct pd_funcs *f)
{
	size_t nn = p->nodes.n, nf = a->n, i;
	unsigned used = p->blk.used, j;
	double *self = pd_xcalloc(nf * PD_BLOCKS + 1, sizeof(double));
	double *tot = pd_xcalloc(nf * PD_BLOCKS + 1, sizeof(double));
	double prog[PD_BLOCKS] = { 0 }, all[PD_BLOCKS] = { 0 };
	double steady[PD_BLOCKS];
	unsigned char *out = pd_xcalloc(nf + 1, 1);
	uint32_t *first = pd_xmalloc(nn * sizeof(*first));
	uint32_t *next = pd_xmalloc(nn * sizeof(*next));
	struct chunk c;
	int k;

	/* chunks of CHUNK blocks read up to used, within a row's PD_BLOCKS */
	assert(used <= PD_BLOCKS && PD_BLOCKS % CHUNK == 0);
	assert(a->nframes == p->frames.n && nf <= f->v.n);
	c.sub = pd_xmalloc(nn * CHUNK * sizeof(*c.sub));
	c.tot = tot;
	for (c.at = 0; c.at < used; c.at += CHUNK) {
		for (i = 0; i < nn; i++) {
			const float *r = pd_blocks_row(&p->blk, (uint32_t)i);

			for (j = 0; j < CHUNK; j++)
				c.sub[i * CHUNK + j] =
				    r ? (double)r[c.at + j] : 0;
		}
		for (i = nn; i-- > 1;) {
			uint32_t fn = a->frame_func[p->nodes.v[i].frame];
			const float *r = pd_blocks_row(&p->blk, (uint32_t)i);
			double *to =
			    c.sub + (size_t)p->nodes.v[i].parent * CHUNK;

			for (j = 0; r && j < CHUNK; j++)
				self[(size_t)fn * PD_BLOCKS + c.at + j] +=
				    (double)r[c.at + j];
			if (pd_agg_sets_apart(a, p, f, i))
				to = all + c.at;
			for (j = 0; j < CHUNK; j++)
				to[j] += c.sub[i * CHUNK + j];
		}
		for (j = 0; j < CHUNK; j++)
			prog[c.at + j] = c.sub[j];
		pd_tree_lists(p, first, next);
		pd_tree_walk(p, a->frame_func, nf, first, next, add_total, &c);
	}
	for (j = 0; j < PD_BLOCKS; j++)
		all[j] += prog[j];
	steady_blocks(a, f, self, prog, steady, out, used);
	for (k = 0; k < 2; k++) {
		free(a->bdisp[k]);
		free(a->bdf[k]);
		a->bdisp[k] = pd_xcalloc(nf ? nf : 1, sizeof(double));
		a->bdf[k] = pd_xcalloc(nf ? nf : 1, sizeof(double));
	}
	for (i = 0; i < nf; i++) {
		double own[PD_BLOCKS];
		const double *e = f->v.v[i].system ? all : steady;

		for (k = 0; k < 2; k++)
			dispersion((k ? tot : self) + i * PD_BLOCKS, e, used, 1,
				   &a->bdisp[k][i], &a->bdf[k][i]);
		if (!out[i])
			continue;
		/*
		 * A bursty function against the steady samples counts its
		 * bursts per unit of the steady work, which is how their number
		 * varies from run to run; but a block all burst has no steady
		 * samples and counts for nothing there. Against the steady
		 * samples and its own (the block's time in a thread) such a
		 * block counts, and bursts that take much of the time look
		 * more even than they are. The larger of the two.
		 */
		for (j = 0; j < PD_BLOCKS; j++)
			own[j] = steady[j] + self[i * PD_BLOCKS + j];
		for (k = 0; k < 2; k++) {
			double d, df;

			dispersion((k ? tot : self) + i * PD_BLOCKS, own, used,
				   1, &d, &df);
			if (d > a->bdisp[k][i]) {
				a->bdisp[k][i] = d;
				a->bdf[k][i] = df;
			}
		}
	}
	free(c.sub);
	free(out);
	free(self);
	free(tot);
	free(first);
	free(next);
}

void pd_agg_compute(struct pd_agg *a, const struct pd_profile *p,
		    struct pd_funcs *f)
{
	pd_agg_stacks(a, p, f);
	if (p->blk.nrows)
		agg_blocks(a, p, f);
}
