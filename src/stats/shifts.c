/*
 * Cost shifts (docs/statistics.md): a function whose own time regressed
 * while its main caller's total stayed the same and a sibling improved
 * by a similar amount: the work moved, it did not grow. Found from the
 * call edges of both profiles.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "core/intern.h"
#include "core/sort.h"
#include "core/xalloc.h"
#include "stats/diff_int.h"

/* Caller -> callee weights: the inclusive weight under each call edge. */
struct edge {
	uint32_t caller, callee;
	double w[2]; /* baseline, candidate */
};

struct edges {
	struct edge *v;
	size_t n, cap;
	uint32_t *slot; /* open addressing: edge index + 1, 0 = empty */
	size_t nslots;
};

/* The edge caller -> callee, made on first sight (a hash look-up). */
static struct edge *edge_at(struct edges *e, uint32_t caller, uint32_t callee)
{
	uint64_t key = (uint64_t)caller << 32 | callee;
	size_t i, mask;

	if ((e->n + 1) * 2 > e->nslots) {
		size_t k, n = e->nslots ? 2 * e->nslots : 1024;

		free(e->slot);
		e->slot = pd_xcalloc(n, sizeof(*e->slot));
		e->nslots = n;
		for (k = 0; k < e->n; k++) {
			uint64_t kk =
			    (uint64_t)e->v[k].caller << 32 | e->v[k].callee;

			for (i = pd_hash_u64(kk) & (n - 1); e->slot[i];
			     i = (i + 1) & (n - 1))
				;
			e->slot[i] = (uint32_t)k + 1;
		}
	}
	mask = e->nslots - 1;
	for (i = pd_hash_u64(key) & mask; e->slot[i]; i = (i + 1) & mask) {
		struct edge *x = &e->v[e->slot[i] - 1];

		if (x->caller == caller && x->callee == callee)
			return x;
	}
	{
		struct edge x = { caller, callee, { 0, 0 } };

		PD_VEC_PUSH(e, x);
		e->slot[i] = (uint32_t)e->n;
	}
	return &e->v[e->n - 1];
}

static void add_edges(struct edges *e, const struct pd_profile *p,
		      const struct pd_agg *a, int side)
{
	size_t nn = p->nodes.n, i;
	double *sub = pd_xmalloc(nn * sizeof(*sub));

	for (i = 0; i < nn; i++)
		sub[i] = p->nodes.v[i].weight;
	for (i = nn; i-- > 1;) {
		/* parents first: one backward pass sums the subtrees */
		assert(p->nodes.v[i].parent < i);
		sub[p->nodes.v[i].parent] += sub[i];
	}
	for (i = 1; i < nn; i++) {
		const struct pd_node *nd = &p->nodes.v[i];
		uint32_t callee, caller;

		if (nd->parent == PD_ROOT)
			continue;
		callee = a->frame_func[nd->frame];
		caller = a->frame_func[p->nodes.v[nd->parent].frame];
		if (caller == callee)
			continue;
		edge_at(e, caller, callee)->w[side] += sub[i];
	}
	free(sub);
}

/* An edge's index under one of its two ends, for grouping by that end. */
struct eix {
	uint32_t key; /* the callee, or the caller */
	size_t i;     /* the edge, in the order edges were found */
};

static int by_key(const void *a, const void *b)
{
	const struct eix *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i);
}

/* The edges grouped by callee (callee 1) or by caller. */
static struct eix *group(const struct edges *e, int callee)
{
	struct eix *ix = pd_xmalloc((e->n + 1) * sizeof(*ix));
	size_t i;

	for (i = 0; i < e->n; i++) {
		ix[i].key = callee ? e->v[i].callee : e->v[i].caller;
		ix[i].i = i;
	}
	pd_sort(ix, e->n, sizeof(*ix), by_key);
	return ix;
}

/* The first entry of ix whose key is >= k. */
static size_t lower(const struct eix *ix, size_t n, uint32_t k)
{
	size_t at;

	PD_LOWER_BOUND(at, ix, n, key, k);
	return at;
}

/* A regressed f, its main caller, and a sibling that improved alike. */
static void shift_for(struct pd_diff *d, const struct edges *e,
		      const struct eix *in, const struct eix *out,
		      const int64_t *at, struct pd_fdiff *f)
{
	uint32_t caller = UINT32_MAX;
	double best = 0;
	size_t j;

	/* in edge order, as the scan over every edge chose */
	for (j = lower(in, e->n, f->func); j < e->n && in[j].key == f->func;
	     j++) {
		const struct edge *x = &e->v[in[j].i];

		if (x->w[0] + x->w[1] > best) {
			best = x->w[0] + x->w[1];
			caller = x->caller;
		}
	}
	if (caller == UINT32_MAX || at[caller] < 0 ||
	    d->funcs.v[at[caller]].total.status != PD_SAME)
		return;
	for (j = lower(out, e->n, caller); j < e->n && out[j].key == caller;
	     j++) {
		const struct edge *x = &e->v[out[j].i];
		struct pd_fdiff *s;
		double r;

		if (x->callee == f->func || at[x->callee] < 0)
			continue;
		s = &d->funcs.v[at[x->callee]];
		r = -s->self.delta / f->self.delta;
		if (s->self.status == PD_IMPROVED && r >= 0.5 && r <= 2) {
			f->self.shift = s->func;
			s->self.shift = f->func;
			return;
		}
	}
}

/*
 * statistics.md: a function regressed while its main caller's total is
 * "same" and a sibling improved by a similar amount: the work moved, it
 * did not grow. Both get the other's id in shift. Edges are found by
 * hash and grouped by sorting (a profile has millions of nodes and
 * edges: a scan per node was quadratic).
 */
void pd_label_cost_shifts(struct pd_diff *d, const struct pd_profile *pa,
			  const struct pd_agg *aa, const struct pd_profile *pb,
			  const struct pd_agg *ab)
{
	struct edges e = { NULL, 0, 0, NULL, 0 };
	int64_t *at;
	size_t i, nf = d->fn->v.n;
	struct eix *in, *out;

	for (i = 0; i < d->funcs.n; i++)
		if (d->funcs.v[i].self.status == PD_REGRESSED)
			break;
	if (i == d->funcs.n)
		return;
	add_edges(&e, pa, aa, 0);
	add_edges(&e, pb, ab, 1);
	in = group(&e, 1);
	out = group(&e, 0);
	at = pd_xmalloc((nf + 1) * sizeof(*at));
	for (i = 0; i < nf; i++)
		at[i] = -1;
	for (i = 0; i < d->funcs.n; i++)
		at[d->funcs.v[i].func] = (int64_t)i;
	for (i = 0; i < d->funcs.n; i++)
		if (d->funcs.v[i].self.status == PD_REGRESSED)
			shift_for(d, &e, in, out, at, &d->funcs.v[i]);
	free(at);
	free(in);
	free(out);
	free(e.slot);
	PD_VEC_FREE(&e);
}
