/*
 * A call tree read as indented rows, one node a row (WPA's tree view,
 * Instruments' deep copy): each row's depth, node and inclusive weight
 * and count. When a row closes, its own part (inclusive less its
 * children's) is added to its node, or, for an allocator's frame, to the
 * allocator's caller. The rows' owner keeps the tree; the profile owns
 * the nodes.
 */
#ifndef PD_IMPORT_ROWTREE_H
#define PD_IMPORT_ROWTREE_H

#include <stdint.h>

#include "core/vec.h"
#include "model/profile.h"

struct pd_rowtree_row {
	int depth;
	uint32_t node; /* PD_ROOT for a row that is no frame */
	double w, c;   /* inclusive weight and count */
	double kids_w, kids_c;
};

struct pd_rowtree {
	struct pd_profile *p;
	PD_VEC(struct pd_rowtree_row) open;
	/* 0: the rows' own parts are added elsewhere (Time Profiler) */
	int settle;
	/* the frames whose own part is their caller's, or NULL */
	int (*is_alloc)(void *arg, uint32_t frame);
	void *arg;
};

void pd_rowtree_init(struct pd_rowtree *t, struct pd_profile *p, int settle,
		     int (*is_alloc)(void *arg, uint32_t frame), void *arg);
void pd_rowtree_release(struct pd_rowtree *t);

/* The depth of the innermost open row, -1 when none is. */
int pd_rowtree_depth(const struct pd_rowtree *t);

/* Closes the rows at depth or deeper, settling each; depth 0: all. */
void pd_rowtree_close(struct pd_rowtree *t, int depth);

/*
 * A row at depth begins: the rows at its depth or deeper close, its
 * weight and count join its parent's children's, and the parent's node
 * is returned (PD_ROOT at the top). pd_rowtree_push then opens it.
 */
uint32_t pd_rowtree_begin(struct pd_rowtree *t, int depth, double w, double c);
void pd_rowtree_push(struct pd_rowtree *t, int depth, uint32_t node, double w,
		     double c);

#endif
