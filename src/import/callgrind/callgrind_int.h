/*
 * Shared by the callgrind reader (callgrind.c: the file and its header
 * lines; callgrind_body.c: cost lines, names and calls) and the call tree
 * it builds (callgrind_tree.c): the reader's state and the call graph of
 * one cost file, for one event.
 */
#ifndef PD_CALLGRIND_INT_H
#define PD_CALLGRIND_INT_H

#include <stdint.h>
#include <string.h>

#include "core/buf.h"
#include "core/compat.h"
#include "core/err.h"
#include "core/input.h"
#include "core/intern.h"
#include "core/vec.h"
#include "import/formats.h"
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

#define CG_NONE UINT32_MAX

/* Name spaces of "(id)": objects, files, functions. */
enum { CG_OB, CG_FL, CG_FN, CG_N };

/* The reader of one file (callgrind.c, callgrind_body.c). */
struct cg_reader {
	struct pd_profile *p;
	struct pd_input *in;
	const struct pd_import_opts *o;
	struct pd_err *err;
	struct pd_lines lines;
	int cachegrind; /* the file was sniffed as cachegrind's */

	/* names as written, private: objects, files, functions */
	struct pd_intern raw;
	struct pd_intern ids[CG_N];    /* "(id)" digits -> slot in idname */
	PD_VEC(uint32_t) idname[CG_N]; /* slot -> raw name */
	struct pd_intern fnkeys;       /* (ob, fl, fn) raw ids -> fn + 1 */
	struct pd_intern arckeys;      /* (from, to) -> arc + 1 */
	struct cg_graph g;

	/* where cost lines go */
	uint32_t ob, fl, pos_fl, fn; /* raw names; fn CG_NONE before fn= */
	uint32_t cur; /* graph function, CG_NONE until looked up */
	/* the call being described: cob=, cfi= and cfn=, then calls= */
	uint32_t c_ob, c_fl, callee; /* CG_NONE when not given */
	int calling;		     /* calls= seen: the next cost line is it */

	/* the part being read */
	int npos;    /* subpositions before the costs */
	int nev, ev; /* events on a cost line, the chosen one's index */
	int seen_events;
	uint64_t part_sum, part_totals, part_summary;
	int has_totals, has_summary, has_costs;
	size_t part_line; /* where the part's totals: line is */
	unsigned nparts;
	struct pd_buf events;  /* the events: line, for messages */
	struct pd_buf derived; /* "event: X = ..." names, blank-separated */

	size_t cost_lines, unknown, unknown_line, mismatch_line;
	/*
	 * Cost lines that hold a cost past their positions, and those whose
	 * chosen event's cost is not 0; where positions: was (0: none).
	 */
	size_t costed_lines, nonzero_lines, positions_line;
	unsigned mismatches;
	int version;
	int thread; /* thread: N (--separate-threads=yes), 0 none */
	char *creator;
};

static inline const char *cg_blanks(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

static inline int cg_word_is(const char *s, size_t n, const char *w)
{
	return n == strlen(w) && !memcmp(s, w, n);
}

static inline int cg_is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Fails the import with "FILE:LINE: " and the message; returns the code. */
int pd_cg_fail(struct cg_reader *s, const char *fmt, ...) PD_PRINTF(2, 3);
/*
 * The costs of a line after its positions: the chosen event's in *v, 0
 * when the line stops before it; more costs than events is an error.
 */
PD_NODISCARD int pd_cg_costs(struct cg_reader *s, const char *c, uint64_t *v);
/* A body line "KEY=VALUE" (the key k, n bytes long) or a cost line. */
PD_NODISCARD int pd_cg_spec(struct cg_reader *s, const char *k, size_t n,
			    const char *v);
PD_NODISCARD int pd_cg_cost(struct cg_reader *s, const char *line);

/*
 * Adds the graph to p as a call tree (docs/formats.md, "Callgrind: the
 * call tree"): each function's self cost exactly, split over the call
 * paths the tree has for it in proportion to the inclusive cost that
 * reaches each path. Notes in p say when the tree had to leave out call
 * paths. Never fails.
 */
void pd_cg_tree(struct cg_graph *g, struct pd_profile *p);

#endif
