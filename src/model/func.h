/*
 * Functions across profiles: a shared table maps each normalised
 * (name, module) key to a dense function id, so two profiles with their own
 * string tables meet in one integer space. The table owns its strings; a
 * pd_agg owns its arrays.
 */
#ifndef PD_FUNC_H
#define PD_FUNC_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/intern.h"
#include "core/vec.h"
#include "model/profile.h"

enum {
	PD_FUNCS_NO_NORMALIZE = 1 << 0, /* keep names exactly as written */
	PD_FUNCS_NO_MODULE = 1 << 1,	/* match on the name alone */
	/*
	 * Judge system frames (kernel, interrupts, drivers) like the
	 * program's own: --system include. Without it their time stays out
	 * of the program's functions' totals and of the verdict
	 * (statistics.md, "System frames").
	 */
	PD_FUNCS_SYSTEM = 1 << 2,
	/*
	 * Names as folded stacks write them: ';' as ':' (a folded file
	 * cannot hold ';', every collapser writes ':'), so that Java's
	 * "Lpkg/Cls;::m" meets its folded form. Set when a side is folded.
	 */
	PD_FUNCS_FOLDED_NAMES = 1 << 3,
	/*
	 * As collapsers tidy names, when the folded side shows it: argument
	 * lists cut ("f(int) const" as "f") and Java's leading 'L' dropped
	 * ("Ljava/io/File;::read" as "java/io/File:::read").
	 */
	PD_FUNCS_NO_ARGS = 1 << 4,
	PD_FUNCS_NO_JAVA_L = 1 << 5,
};

/* Where the argument list of a C++/C# name opens; n when it has none. */
size_t pd_name_args_start(const char *s, size_t n);
/* Whether a name has an argument list, "f(int)"; a Java "Lpkg/..." name. */
int pd_name_has_args(const char *s, size_t n);
int pd_name_is_java_l(const char *s, size_t n);

struct pd_func {
	uint32_t name;	      /* normalised name (string id in pd_funcs.strs) */
	uint32_t module;      /* module basename, 0 when none or ignored */
	PD_VEC(uint32_t) raw; /* distinct raw names seen, at most a few */
	size_t nraw_total;    /* how many distinct raw names there were */
	int system;	      /* PD_SYSTEM_*: judged apart, 0 when not */
};

/*
 * Frames judged apart from the program's (docs/statistics.md, "System
 * frames"): a kernel, interrupt or driver frame, whose time is also kept
 * out of the program's totals; and an unnamed frame ("libc.so.6+0x1b2")
 * of a shared library, whose time stays in its callers' totals but which
 * is never a verdict, a headline or one of the program's tests, since
 * its name is an address that a rebuild or another machine moves.
 */
enum { PD_SYSTEM_KERNEL = 1, PD_SYSTEM_UNNAMED_LIB = 2 };

struct pd_funcs {
	struct pd_intern strs;
	PD_VEC(struct pd_func) v;
	uint32_t *slots;
	size_t nslots;
	unsigned flags;
	PD_VEC(uint32_t) alias_from, alias_to; /* module basename ids */
};

/*
 * Whether a frame is unsymbolicated, "module+0xRVA" with module the
 * frame's own (up to an "@debugid"): the offset is then its identity.
 */
int pd_frame_is_module_offset(const char *name, size_t nlen, const char *module,
			      size_t mlen);
void pd_funcs_init(struct pd_funcs *f, unsigned flags);
void pd_funcs_release(struct pd_funcs *f);
/* Returns the function id for a raw frame, creating it when new. */
uint32_t pd_funcs_get(struct pd_funcs *f, const char *name, size_t nlen,
		      const char *module, size_t mlen);
static inline const char *pd_func_name(const struct pd_funcs *f, uint32_t id)
{
	return pd_intern_str(&f->strs, f->v.v[id].name);
}
static inline const char *pd_func_module(const struct pd_funcs *f, uint32_t id)
{
	return pd_intern_str(&f->strs, f->v.v[id].module);
}

/*
 * Whether a raw frame is the operating system's: a kernel or driver
 * module ([kernel.kallsyms], vmlinux, ntoskrnl.exe, hal.dll, *.sys), or a
 * collapser's kernel mark (name_[k]) on a frame without a module.
 */
int pd_frame_is_system(const char *name, size_t nlen, const char *module,
		       size_t mlen);

/*
 * Whether a module is the C library, the loader or the system's API
 * layer (libc, ld-linux, ntdll.dll, kernelbase.dll, libsystem_kernel):
 * where every program's waits pass on their way to the kernel, so that
 * a wait is the caller's (docs/formats.md, "Off-CPU time").
 */
int pd_frame_is_runtime(const char *module, size_t mlen);

/* Frame f of p is the kernel's or a system library's (the two above). */
int pd_frame_is_below_program(const struct pd_profile *p, uint32_t f);

/*
 * Where a wait at the stack ending in node leaf belongs: the program's
 * innermost frame above the kernel's and the system libraries'
 * (docs/formats.md, "Off-CPU time"); leaf itself when its stack is those
 * alone.
 */
uint32_t pd_profile_waiter(const struct pd_profile *p, uint32_t leaf);

/* The child of node at for its frame's waits of kind: "name (kind)". */
uint32_t pd_profile_wait_node(struct pd_profile *p, uint32_t at,
			      const char *kind);

/*
 * Whether a raw frame is an unnamed frame of a shared library: its name
 * the library's plus an offset, the library a .so (.so.N), .dll, .dylib
 * or a framework's binary.
 */
int pd_frame_is_unnamed_lib(const char *name, size_t nlen, const char *module,
			    size_t mlen);

/* Treats module basename `from` as `to` in later lookups. */
void pd_funcs_alias(struct pd_funcs *f, const char *from, const char *to);

/* Writes the matching key of a raw function name into out. */
void pd_normalize_name(const char *s, size_t n, struct pd_buf *out);
/* Returns the offset where the basename of a module path starts. */
size_t pd_module_basename(const char *s, size_t n);

/* Per-function aggregates of one profile, indexed by function id. */
struct pd_agg {
	size_t n;
	double *self_w, *total_w, *self_c, *total_c;
	double all_w, all_c;  /* profile totals (without system time, unless
				 PD_FUNCS_SYSTEM) */
	double sys_w, sys_c;  /* system time kept out of all_w, all_c */
	uint32_t *frame_func; /* profile frame -> function id */
	size_t nframes;
	/*
	 * From a profile with time blocks: each function's self [0] and
	 * total [1] counts' dispersion over the blocks (Pearson's X^2 over
	 * its degrees of freedom, 1 for counts as even as sampling makes
	 * them) and those degrees of freedom, 0 where too few samples say
	 * nothing (docs/statistics.md, "Time inside a run"). NULL without
	 * blocks.
	 */
	double *bdisp[2], *bdf[2];
	/*
	 * Waits behind each function's self time (functions that are time
	 * waited, pd_profile.frame_waits), and behind its total: how many
	 * waits and the samples they hold; and the samples of "(ready)" waits
	 * (pd_func_is_ready_wait) behind each total. NULL when the profile
	 * has none.
	 */
	double *self_waits, *total_waits, *total_wait_c, *total_ready_c;
};

/*
 * Whether function id is time waited for a CPU once the thread could run,
 * a "name (ready)" wait (docs/formats.md, "Off-CPU time").
 */
int pd_func_is_ready_wait(const struct pd_funcs *f, uint32_t id);

void pd_agg_init(struct pd_agg *a);
void pd_agg_release(struct pd_agg *a);
/*
 * Computes self and total per function; total counts a sample once per
 * function however often the function recurses in its stack. Without
 * PD_FUNCS_SYSTEM, the time of system frames called from the program's
 * frames counts for the system functions alone: not in their callers'
 * totals, not in all_w (it is sys_w). Where p has time blocks, each
 * function's dispersion over them too (a->bdisp, a->bdf: agg_blocks.c).
 */
void pd_agg_compute(struct pd_agg *a, const struct pd_profile *p,
		    struct pd_funcs *f);
/* pd_agg_compute's half that reads the stack tree alone, not the blocks. */
void pd_agg_stacks(struct pd_agg *a, const struct pd_profile *p,
		   struct pd_funcs *f);
/* Extends the arrays with zeros to n functions (after f grew). */
void pd_agg_resize(struct pd_agg *a, size_t n);
/*
 * Whether node's subtree is system time set apart: a system frame under
 * the program's frames or the root, without PD_FUNCS_SYSTEM.
 */
int pd_agg_sets_apart(const struct pd_agg *a, const struct pd_profile *p,
		      const struct pd_funcs *f, size_t node);
/*
 * Each node's children as lists: first[n] its first child, next[c] the
 * child after c, UINT32_MAX ending a list (nodes.n entries each).
 */
void pd_tree_lists(const struct pd_profile *p, uint32_t *first, uint32_t *next);
/*
 * Visits the tree depth first, calling visit with each node whose
 * function (frame_func of its frame) is not already on the path above
 * it: a sample counts once per function however deep it recurses. The
 * lists from pd_tree_lists are consumed.
 */
void pd_tree_walk(const struct pd_profile *p, const uint32_t *frame_func,
		  size_t nfuncs, uint32_t *first, const uint32_t *next,
		  void (*visit)(void *ctx, uint32_t node, uint32_t fn),
		  void *ctx);

#endif
