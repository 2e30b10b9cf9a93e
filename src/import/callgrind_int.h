/*
 * Shared by the callgrind reader (callgrind.c) and the call tree it builds
 * (callgrind_tree.c): the call graph of one cost file, for one event.
 */
#ifndef PD_CALLGRIND_INT_H
#define PD_CALLGRIND_INT_H

#include <stdint.h>

#include "core/vec.h"
#include "model/profile.h"

/*
 * One function of the graph, as callgrind names it: its object, file and
 * name as written, so that a recursion level ("walk'2") or a caller
 * context ("hash'render") is a function of its own here, while its frame
 * is named without them.
 */
struct cg_fn {
	uint32_t name;	     /* the frame's name, in the profile's strings */
	uint32_t module;     /* the object, in the profile's strings; 0 none */
	uint32_t frame;	     /* PD_NO_FRAME until the tree uses it */
	uint64_t self;	     /* the chosen event in its own cost lines */
	uint32_t out0, nout; /* its calls: cg_graph.order[out0 .. +nout) */
};

/* Calls from one function to another, summed over call sites and parts. */
struct cg_arc {
	uint32_t from, to;
	uint64_t cost; /* inclusive cost of the calls, the chosen event */
};

struct cg_graph {
	PD_VEC(struct cg_fn) fns;
	PD_VEC(struct cg_arc) arcs;
	uint32_t *order; /* arc indices grouped by caller (pd_cg_tree) */
};

/*
 * Adds the graph to p as a call tree (docs/formats.md, "Callgrind: the
 * call tree"): each function's self cost exactly, split over the call
 * paths the tree has for it in proportion to the inclusive cost that
 * reaches each path. Notes in p say when the tree had to leave out call
 * paths. Never fails.
 */
void pd_cg_tree(struct cg_graph *g, struct pd_profile *p);

#endif
