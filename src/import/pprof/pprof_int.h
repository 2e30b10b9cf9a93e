/*
 * What the two halves of the pprof importer share: pprof.c reads the
 * protobuf into dictionaries and per-stack sums, pprof_build.c resolves
 * them into the profile tree.
 */
#ifndef PD_IMPORT_PPROF_INT_H
#define PD_IMPORT_PPROF_INT_H

#include <stdint.h>

#include "core/compat.h"
#include "core/vec.h"
#include "import/formats.h"
#include "import/pprof/protobuf.h"

struct pprof_type {
	int64_t type, unit; /* string indices */
	uint64_t off;
};

struct pprof_func {
	uint64_t id;
	int64_t name, sysname;
	uint64_t off;
};

struct pprof_map {
	uint64_t id, start, offset;
	int64_t file;
	uint64_t off;
};

struct pprof_loc {
	uint64_t id, mapping, address;
	size_t line0, nlines;	/* function ids in lines[] */
	size_t frame0, nframes; /* resolved frames, root first */
	int resolved;
	uint64_t off;
};

/* id -> index, open addressing; ids are arbitrary and sparse. */
struct pprof_state {
	struct pd_input *in;
	struct pd_err *err;
	const char *path;
	const struct pd_import_opts *o;
	/* the input window */
	uint8_t *buf;
	size_t cap, pos, len;
	uint64_t off; /* input offset of buf[0] */
	int eof;

	PD_VEC(struct pprof_type) types;
	struct pprof_type period_type;
	int64_t period, default_type;
	int seen_time;
	size_t ndrop;
	PD_VEC(struct pprof_func) funcs;
	PD_VEC(struct pprof_map) maps;
	PD_VEC(struct pprof_loc) locs;
	struct pd_u64s lines;
	PD_VEC(uint32_t) frames;
	PD_VEC(char) strs;
	PD_VEC(size_t) stroff; /* string i is strs[stroff[i]..stroff[i+1]) */

	struct pd_intern stacks;   /* location ids as bytes -> stack id */
	PD_VEC(double) vals;	   /* stack id * nv + value index */
	PD_VEC(uint64_t) stack_at; /* input offset of a stack's first sample */
	size_t nv;		   /* values per sample, from the first */
	uint64_t nsample_msgs, nempty, nnegative, negative_at;
	struct pd_u64s tmp_locs, tmp_vals;
};

/* "FILE: byte N: pprof: ..." as the error; returns the code. */
int pd_pprof_fail(struct pprof_state *s, uint64_t off, const char *fmt, ...)
    PD_PRINTF(3, 4);
/* String idx of the table, or NULL with the error naming what. */
PD_NODISCARD const char *pd_pprof_str(struct pprof_state *s, int64_t idx,
				      size_t *len, uint64_t off,
				      const char *what);
int pd_pprof_str_is(struct pprof_state *s, int64_t idx, const char *want);
/* Resolves the summed stacks into p (pprof_build.c). */
PD_NODISCARD int pd_pprof_build(struct pprof_state *s, struct pd_profile *p);

#endif
