/* Indented rows to a call tree (rowtree.h). */
#include <stdlib.h>
#include <string.h>

#include "import/rowtree.h"

void pd_rowtree_init(struct pd_rowtree *t, struct pd_profile *p, int settle,
		     int (*is_alloc)(void *arg, uint32_t frame), void *arg)
{
	memset(t, 0, sizeof(*t));
	t->p = p;
	t->settle = settle;
	t->is_alloc = is_alloc;
	t->arg = arg;
}

void pd_rowtree_release(struct pd_rowtree *t)
{
	PD_VEC_FREE(&t->open);
}

int pd_rowtree_depth(const struct pd_rowtree *t)
{
	return t->open.n ? t->open.v[t->open.n - 1].depth : -1;
}

/* A closed row's own part, to its node or its allocator's caller. */
static void settle(struct pd_rowtree *t, const struct pd_rowtree_row *r)
{
	const struct pd_node *nd = t->p->nodes.v;
	double w = r->w - r->kids_w, c = r->c - r->kids_c;
	uint32_t at = r->node;

	if (at == PD_ROOT)
		return;
	while (t->is_alloc && nd[at].parent != PD_ROOT &&
	       t->is_alloc(t->arg, nd[at].frame))
		at = nd[at].parent;
	/* rounding of "73.35 MB" or "1.2 ms" can leave a sliver below 0 */
	if (w > 0 || c > 0)
		pd_profile_add(t->p, at, w > 0 ? w : 0, c > 0 ? c : 0);
}

void pd_rowtree_close(struct pd_rowtree *t, int depth)
{
	while (t->open.n && t->open.v[t->open.n - 1].depth >= depth) {
		if (t->settle)
			settle(t, &t->open.v[t->open.n - 1]);
		t->open.n--;
	}
}

uint32_t pd_rowtree_begin(struct pd_rowtree *t, int depth, double w, double c)
{
	struct pd_rowtree_row *up;

	pd_rowtree_close(t, depth);
	if (!t->open.n)
		return PD_ROOT;
	up = &t->open.v[t->open.n - 1];
	up->kids_w += w;
	up->kids_c += c;
	return up->node;
}

void pd_rowtree_push(struct pd_rowtree *t, int depth, uint32_t node, double w,
		     double c)
{
	struct pd_rowtree_row r;

	memset(&r, 0, sizeof(r));
	r.depth = depth;
	r.node = node;
	r.w = w;
	r.c = c;
	PD_VEC_PUSH(&t->open, r);
}
