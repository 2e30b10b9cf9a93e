/*
 * The call tree of a callgrind call graph (docs/formats.md, "Callgrind:
 * the call tree"), in which every function's self cost and inclusive cost
 * are the file's.
 *
 * Callgrind gives each function's self cost and, for each caller and
 * callee, the inclusive cost of the calls between them, not the call
 * paths the cost came by. Read as a flow, the cost entering a function
 * through its calls leaves through its own self cost and its calls out.
 * Functions that call each other in a cycle (recursion: a strongly
 * connected component of the graph, found as Tarjan does) are one unit,
 * since the inclusive cost of a call inside a recursion counts the nested
 * calls again; a unit's cost from outside leaves through its functions'
 * self costs and their calls out of the unit. Between units the graph
 * has no cycle.
 *
 * The tree is a decomposition of that flow into paths, grown from the
 * units nobody outside calls: a node entered with some cost gives it to
 * its unit's parts (its self costs and calls out, largest first), each
 * as far as what is left of that part, and a call out takes its cost to
 * a node of the callee's unit below. Each part is used up exactly, so a
 * function's self is its own, the cost below its nodes its inclusive
 * cost, and the cost of its calls to a callee the calls' cost; all in
 * whole counts. The functions of a recursion other than the one it was
 * entered by are its callees, each once (inside a recursion a total is
 * the function's own part of it). Which path a cost goes by is not known;
 * here a caller takes its callees' largest parts first. Each node uses up
 * all but its last part, so the tree stays small: a part is used up once,
 * and a node's unfinished part passes on to one child at most.
 */
#include <stdlib.h>
#include <string.h>

#include "core/sort.h"
#include "core/xalloc.h"
#include "import/callgrind/callgrind_int.h"

/* Paths longer than this end there (no real call chain is that deep). */
#define MAX_DEPTH 1024

/* A part of a unit's cost: a function's self (to CG_NONE) or a call out. */
struct part {
	uint32_t fn, to;
	uint64_t cost;
};

/* A unit to enter below parent, with the cost it brings. */
struct call {
	uint32_t fn, parent, depth;
	uint64_t cost;
};

struct tree {
	struct cg_graph *g;
	struct pd_profile *p;
	uint32_t *unit; /* fn -> its strongly connected component */
	uint32_t nunits;
	uint64_t *unit_in; /* unit -> inclusive cost of calls from outside */
	uint32_t *part0;   /* unit -> its parts, largest first */
	uint32_t *next;	   /* unit -> its first part not used up */
	struct part *parts;
	uint64_t *left;		 /* part -> what is left of it */
	uint32_t *stamp, *mnode; /* fn -> entry it has a node in, the node */
	uint32_t *best;		 /* fn -> its node of most self, or CG_NONE */
	double *best_self;
	uint32_t entries;
	PD_VEC(struct call) stack;
	uint64_t unplaced; /* cost brought where nothing was left */
	int deep;	   /* MAX_DEPTH ended paths */
};

/* Whether an arc counts as a call: to another function, with cost. */
static int is_call(const struct cg_arc *a)
{
	return a->from != a->to && a->cost;
}

/* Calls grouped by caller: g->order, out0 and nout. */
static void index_calls(struct cg_graph *g)
{
	size_t i;
	uint32_t at = 0;

	for (i = 0; i < g->fns.n; i++)
		g->fns.v[i].nout = 0;
	for (i = 0; i < g->arcs.n; i++)
		g->fns.v[g->arcs.v[i].from].nout++;
	for (i = 0; i < g->fns.n; i++) {
		g->fns.v[i].out0 = at;
		at += g->fns.v[i].nout;
		g->fns.v[i].nout = 0;
	}
	g->order = pd_xreallocarray(g->order, g->arcs.n + 1, sizeof(uint32_t));
	for (i = 0; i < g->arcs.n; i++) {
		struct cg_fn *f = &g->fns.v[g->arcs.v[i].from];

		g->order[f->out0 + f->nout++] = (uint32_t)i;
	}
}

struct tarjan {
	uint32_t *index, *low;
	unsigned char *on;
	PD_VEC(uint32_t) stack;
	PD_VEC(uint32_t) walk; /* functions being visited, innermost last */
	PD_VEC(uint32_t) next; /* the next call of each to look at */
	uint32_t n;
};

static void tarjan_push(struct tarjan *tj, const struct cg_graph *g, uint32_t v)
{
	tj->index[v] = tj->low[v] = tj->n++;
	tj->on[v] = 1;
	PD_VEC_PUSH(&tj->stack, v);
	PD_VEC_PUSH(&tj->walk, v);
	PD_VEC_PUSH(&tj->next, g->fns.v[v].out0);
}

/* The components reachable from v, without recursion in C. */
static void tarjan_visit(struct tarjan *tj, struct tree *t, uint32_t v)
{
	const struct cg_graph *g = t->g;

	tarjan_push(tj, g, v);
	while (tj->walk.n) {
		uint32_t u = tj->walk.v[tj->walk.n - 1];
		uint32_t *next = &tj->next.v[tj->next.n - 1];
		const struct cg_fn *f = &g->fns.v[u];

		if (*next < f->out0 + f->nout) {
			const struct cg_arc *a =
			    &g->arcs.v[g->order[(*next)++]];

			if (!is_call(a))
				continue;
			if (tj->index[a->to] == CG_NONE)
				tarjan_push(tj, g, a->to);
			else if (tj->on[a->to] && tj->index[a->to] < tj->low[u])
				tj->low[u] = tj->index[a->to];
			continue;
		}
		if (tj->low[u] == tj->index[u]) {
			uint32_t w;

			do {
				w = tj->stack.v[--tj->stack.n];
				tj->on[w] = 0;
				t->unit[w] = t->nunits;
			} while (w != u);
			t->nunits++;
		}
		tj->walk.n--;
		tj->next.n--;
		if (tj->walk.n) {
			uint32_t c = tj->walk.v[tj->walk.n - 1];

			if (tj->low[u] < tj->low[c])
				tj->low[c] = tj->low[u];
		}
	}
}

static void find_units(struct tree *t)
{
	const struct cg_graph *g = t->g;
	struct tarjan tj;
	size_t i, n = g->fns.n;

	memset(&tj, 0, sizeof(tj));
	tj.index = pd_xreallocarray(NULL, n + 1, sizeof(uint32_t));
	tj.low = pd_xreallocarray(NULL, n + 1, sizeof(uint32_t));
	tj.on = pd_xcalloc(n + 1, 1);
	for (i = 0; i < n; i++)
		tj.index[i] = CG_NONE;
	for (i = 0; i < n; i++)
		if (tj.index[i] == CG_NONE)
			tarjan_visit(&tj, t, (uint32_t)i);
	t->unit_in = pd_xcalloc((size_t)t->nunits + 1, sizeof(uint64_t));
	for (i = 0; i < g->arcs.n; i++) {
		const struct cg_arc *a = &g->arcs.v[i];
		uint64_t *in = &t->unit_in[t->unit[a->to]];

		if (is_call(a) && t->unit[a->from] != t->unit[a->to])
			*in = *in > UINT64_MAX - a->cost ? UINT64_MAX
							 : *in + a->cost;
	}
	free(tj.index);
	free(tj.low);
	free(tj.on);
	PD_VEC_FREE(&tj.stack);
	PD_VEC_FREE(&tj.walk);
	PD_VEC_FREE(&tj.next);
}

/* Largest first; ties by function and callee, for a stable tree. */
static int by_cost(const void *x, const void *y)
{
	const struct part *a = x, *b = y;

	if (a->cost != b->cost)
		return a->cost > b->cost ? -1 : 1;
	if (a->fn != b->fn)
		return a->fn < b->fn ? -1 : 1;
	return a->to < b->to ? -1 : a->to > b->to;
}

/* Each unit's parts, largest first. */
static void find_parts(struct tree *t)
{
	const struct cg_graph *g = t->g;
	size_t i, n;
	uint32_t *at = pd_xcalloc((size_t)t->nunits + 1, sizeof(*at));

	t->part0 = pd_xcalloc((size_t)t->nunits + 2, sizeof(uint32_t));
	for (i = 0; i < g->fns.n; i++)
		t->part0[t->unit[i] + 1] += g->fns.v[i].self > 0;
	for (i = 0; i < g->arcs.n; i++) {
		const struct cg_arc *a = &g->arcs.v[i];

		t->part0[t->unit[a->from] + 1] +=
		    is_call(a) && t->unit[a->from] != t->unit[a->to];
	}
	for (i = 0; i < t->nunits; i++) {
		t->part0[i + 1] += t->part0[i];
		at[i] = t->part0[i];
	}
	n = t->part0[t->nunits];
	t->parts = pd_xreallocarray(NULL, n + 1, sizeof(*t->parts));
	t->left = pd_xreallocarray(NULL, n + 1, sizeof(*t->left));
	for (i = 0; i < g->fns.n; i++)
		if (g->fns.v[i].self) {
			struct part *pt = &t->parts[at[t->unit[i]]++];

			pt->fn = (uint32_t)i;
			pt->to = CG_NONE;
			pt->cost = g->fns.v[i].self;
		}
	for (i = 0; i < g->arcs.n; i++) {
		const struct cg_arc *a = &g->arcs.v[i];

		if (is_call(a) && t->unit[a->from] != t->unit[a->to]) {
			struct part *pt = &t->parts[at[t->unit[a->from]]++];

			pt->fn = a->from;
			pt->to = a->to;
			pt->cost = a->cost;
		}
	}
	t->next = at;
	for (i = 0; i < t->nunits; i++) {
		pd_sort(t->parts + t->part0[i], t->part0[i + 1] - t->part0[i],
			sizeof(*t->parts), by_cost);
		t->next[i] = t->part0[i];
	}
	for (i = 0; i < n; i++)
		t->left[i] = t->parts[i].cost;
}

static uint32_t frame_of(struct tree *t, uint32_t fn)
{
	struct cg_fn *f = &t->g->fns.v[fn];

	if (f->frame == PD_NO_FRAME) {
		f->frame = pd_profile_frame(t->p, f->name, f->module);
		t->p->has_modules |= f->module != 0;
	}
	return f->frame;
}

/* The node of fn in the entry being made: the entry's, or one below. */
static uint32_t member_node(struct tree *t, uint32_t fn, uint32_t top)
{
	if (t->stamp[fn] != t->entries) {
		t->stamp[fn] = t->entries;
		t->mnode[fn] = pd_profile_child(t->p, top, frame_of(t, fn));
	}
	return t->mnode[fn];
}

static void add_self(struct tree *t, uint32_t fn, uint32_t node, uint64_t w)
{
	struct pd_node *nd;

	pd_profile_add(t->p, node, (double)w, (double)w);
	nd = &t->p->nodes.v[node];
	if (t->best[fn] == CG_NONE || nd->weight > t->best_self[fn]) {
		t->best[fn] = node;
		t->best_self[fn] = nd->weight;
	}
}

static void push(struct tree *t, uint32_t fn, uint32_t parent, uint32_t depth,
		 uint64_t cost)
{
	struct call c;

	c.fn = fn;
	c.parent = parent;
	c.depth = depth;
	c.cost = cost;
	PD_VEC_PUSH(&t->stack, c);
}

/*
 * Enters c's unit at c->fn with c->cost: its parts take it in order, each
 * as much as is left of it; calls out go on below, the first last on the
 * stack so that it is entered first.
 */
static void enter(struct tree *t, const struct call *c)
{
	uint32_t u = t->unit[c->fn], e = t->part0[u + 1], k, top;
	uint64_t cost = c->cost;
	size_t first = t->stack.n, i, j;

	t->entries++;
	t->stamp[c->fn] = t->entries;
	top = t->mnode[c->fn] =
	    pd_profile_child(t->p, c->parent, frame_of(t, c->fn));
	for (k = t->next[u]; k < e && cost; k++) {
		const struct part *pt = &t->parts[k];
		uint64_t take = t->left[k] < cost ? t->left[k] : cost;
		uint32_t node;

		if (!take)
			continue;
		t->left[k] -= take;
		cost -= take;
		node = member_node(t, pt->fn, top);
		if (pt->to == CG_NONE)
			add_self(t, pt->fn, node, take);
		else if (c->depth + 1 < MAX_DEPTH)
			push(t, pt->to, node, c->depth + 1, take);
		else
			t->deep = 1; /* its callee's self stays left */
	}
	while (t->next[u] < e && !t->left[t->next[u]])
		t->next[u]++;
	t->unplaced += cost; /* more came in than the unit has: none if
				the file's costs add up */
	/* first part first: reverse what was pushed */
	for (i = first, j = t->stack.n; i + 1 < j; i++, j--) {
		struct call x = t->stack.v[i];

		t->stack.v[i] = t->stack.v[j - 1];
		t->stack.v[j - 1] = x;
	}
}

/*
 * Self costs the flow did not bring (a file whose costs do not add up,
 * or paths past MAX_DEPTH) go to their function's node of most self, or
 * to a root of their own. Returns how much went astray this way.
 */
static uint64_t place_rest(struct tree *t)
{
	size_t k, n = t->part0[t->nunits];
	uint64_t rest = 0;

	for (k = 0; k < n; k++) {
		const struct part *pt = &t->parts[k];
		uint32_t node;

		if (pt->to != CG_NONE || !t->left[k])
			continue;
		node = t->best[pt->fn];
		if (node == CG_NONE)
			node = pd_profile_child(t->p, PD_ROOT,
						frame_of(t, pt->fn));
		add_self(t, pt->fn, node, t->left[k]);
		rest += t->left[k];
		t->left[k] = 0;
	}
	return rest;
}

/* What a unit's parts cost, all of them. */
static uint64_t unit_cost(const struct tree *t, uint32_t u)
{
	uint64_t all = 0;
	uint32_t k;

	for (k = t->part0[u]; k < t->part0[u + 1]; k++)
		all = all > UINT64_MAX - t->parts[k].cost
			  ? UINT64_MAX
			  : all + t->parts[k].cost;
	return all;
}

/*
 * Grows the tree from the cost of each unit that no call brings, entered
 * at the unit's first function: all of a unit nobody calls, and what a
 * unit does beyond what its calls bring. The second is how callgrind
 * records a thread in a file of all threads: the new thread starts inside
 * clone, which its parent called, so clone's call to start_thread is the
 * thread's work, not a part of the parent's call. Those are entered
 * first, to take the largest parts (the thread's) as a root of their own;
 * in a file whose costs add up there are none.
 */
static void grow(struct tree *t)
{
	size_t i, n = t->g->fns.n;
	unsigned char *seen = pd_xcalloc((size_t)t->nunits + 1, 1);
	PD_VEC(uint32_t) first = PD_VEC_INIT;
	int pass;

	for (i = 0; i < n; i++) {
		uint32_t u = t->unit[i];

		if (!seen[u] && t->part0[u + 1] > t->part0[u]) {
			seen[u] = 1;
			PD_VEC_PUSH(&first, (uint32_t)i);
		}
	}
	/* the stack: roots in file order, the excesses above them */
	for (pass = 0; pass < 2; pass++)
		for (i = first.n; i-- > 0;) {
			uint32_t u = t->unit[first.v[i]];
			uint64_t all = unit_cost(t, u), in = t->unit_in[u];

			if (!pass && !in)
				push(t, first.v[i], PD_ROOT, 0, all);
			else if (pass && in && all > in)
				push(t, first.v[i], PD_ROOT, 0, all - in);
		}
	while (t->stack.n) {
		struct call c = t->stack.v[--t->stack.n];

		enter(t, &c);
	}
	free(seen);
	PD_VEC_FREE(&first);
}

void pd_cg_tree(struct cg_graph *g, struct pd_profile *p)
{
	struct tree t;
	size_t i, n = g->fns.n;
	double total = 0;
	uint64_t rest;

	memset(&t, 0, sizeof(t));
	t.g = g;
	t.p = p;
	t.unit = pd_xreallocarray(NULL, n + 1, sizeof(uint32_t));
	t.stamp = pd_xcalloc(n + 1, sizeof(uint32_t));
	t.mnode = pd_xcalloc(n + 1, sizeof(uint32_t));
	t.best = pd_xreallocarray(NULL, n + 1, sizeof(uint32_t));
	t.best_self = pd_xcalloc(n + 1, sizeof(double));
	for (i = 0; i < n; i++) {
		t.best[i] = CG_NONE;
		total += (double)g->fns.v[i].self;
	}
	index_calls(g);
	find_units(&t);
	find_parts(&t);
	grow(&t);
	rest = place_rest(&t);
	/* a file whose costs add up places everything by its flow */
	if ((double)rest > total * 1e-3 || (double)t.unplaced > total * 1e-3)
		pd_profile_note(p,
				"the inclusive costs of calls do not add up to"
				" the callees' own costs (%.3g %% of the total"
				" more, %.3g %% less): totals are approximate,"
				" self costs exact",
				(double)t.unplaced / total * 100,
				(double)rest / total * 100);
	if (t.deep)
		pd_profile_note(p,
				"call paths deeper than %d functions end there:"
				" totals are approximate, self costs exact",
				MAX_DEPTH);
	free(t.unit);
	free(t.unit_in);
	free(t.part0);
	free(t.next);
	free(t.parts);
	free(t.left);
	free(t.stamp);
	free(t.mnode);
	free(t.best);
	free(t.best_self);
	PD_VEC_FREE(&t.stack);
}
