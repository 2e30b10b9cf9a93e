/*
 * The Firefox importer's parts: firefox.c reads the JSON into column
 * tables, firefox_resolve.c turns the tables into the profile.
 */
#ifndef PD_IMPORT_FIREFOX_INT_H
#define PD_IMPORT_FIREFOX_INT_H

#include <string.h>

#include "core/compat.h"
#include "core/limits.h"
#include "import/formats.h"
#include "import/json.h"

#define FF_MAXCOL 24
#define FF_MAXDEPTH PD_LIMIT_JSON_DEPTH

enum ff_role {
	R_ROOT,
	R_META,
	R_UNITS,
	R_LIBS,
	R_LIB,
	R_THREADS,
	R_THREAD,
	R_SHARED,
	R_PROCESSES,
	R_TABLE,
	R_COL,
	R_SCHEMA,
	R_DATA,
	R_ROW,
	R_STRINGS,
	R_STRTABLE, /* {"_array": [...]} string tables of old versions */
	R_SKIP,
};

/*
 * A column, stored compactly: 4 bytes a value while every value is null
 * or an integer that fits (indices, counts, microseconds), 8 once one
 * does not. The weights and CPU deltas of samples are not stored at all
 * when the stack column came first, as samply writes it: they are added
 * to their stack's sums as they stream by (ff_table.wsum, csum).
 */
struct ff_col {
	char name[24];
	int pos;	    /* position in Gecko rows, -1 for named columns */
	size_t len;	    /* values seen, stored or folded */
	PD_VEC(uint32_t) u; /* UINT32_MAX: null */
	PD_VEC(double) v;   /* every value, once one did not fit in u */
	int wide;
	/*
	 * samples' weight (1), threadCPUDelta (2), time (3), timeDeltas (4):
	 * folded by stack
	 */
	int fold;
	const struct ff_col *fold_stack; /* the stack column then */
	int check; /* FF_CHECK_*: what each value must be */
};

enum { FF_CHECK_NONE, FF_CHECK_INDEX, FF_CHECK_WEIGHT };

struct ff_table {
	struct ff_col c[FF_MAXCOL];
	int n;
	char schema_name[FF_MAXCOL][24];
	int schema_pos[FF_MAXCOL];
	int nschema;
	int have; /* seen in the file */
	char weight_type[16];
	/* samples: per stack, the weights' sum and the CPU deltas' sum */
	struct ff_sum {
		double *v;
		size_t n, cap; /* a PD_VEC */
	} wsum, csum, dsum;    /* dsum: time since the sample before, in ms */
	int wfolded, cfolded;  /* those columns went into the sums */
	/*
	 * samples: their times into the import's time blocks (ff_state.blk),
	 * keyed per thread and stack: bkey[stack] is the key + 1, 0 none
	 */
	struct pd_blocks *blk;
	uint32_t *nbkeys;
	PD_VEC(uint32_t) bkey;
	double tsum;  /* timeDeltas summed so far */
	double tprev; /* the sample before's time, NaN before the first */
	int tfolded;  /* the time column went into the blocks */
};

enum { T_SAMPLES, T_STACK, T_FRAME, T_FUNC, T_RESOURCE, T_NATSYM, T_NTABLES };

struct ff_lib {
	char *name, *path, *debug_name, *debug_path, *breakpad_id, *code_id;
	double start, end, offset; /* Gecko: mapped range */
};

struct ff_ctx {		 /* a profile or one of its Gecko sub-processes */
	double interval; /* ms */
	double version, processed_version;
	char cpu_unit[24];
	int symbolicated;
	PD_VEC(struct ff_lib) libs;
};

struct ff_thread {
	char *name, *process, *pid, *tid;
	size_t ctx;
	struct ff_table t[T_NTABLES];
	PD_VEC(uint32_t) strings; /* string index -> p->strs id */
	int has_strings;
	PD_VEC(struct ff_lib) libs; /* per-thread libs of old versions */
};

/* A stack's waiting (wall - CPU), placed once its frames are named. */
struct ff_wait {
	uint32_t node;
	double weight, count;
	double waits; /* the stack's samples: its waits at most */
};

struct ff_state {
	struct pd_profile *p;
	const struct pd_import_opts *o;
	struct pd_input *in;
	struct pd_err *err;
	PD_VEC(struct ff_ctx) ctxs;
	PD_VEC(struct ff_thread) threads;
	struct ff_table shared[T_NTABLES];
	PD_VEC(uint32_t) shared_strings;
	int has_shared_strings;
	/* parse state */
	struct {
		struct pd_json_step j; /* first: the walk reads it */
		enum ff_role r;
		size_t ctx;
		int table; /* T_* for R_TABLE and below */
		struct ff_table *tab;
		struct ff_col *col;
	} lv[FF_MAXDEPTH];
	struct pd_json_walk w;
	int saw_meta, wrapper;
	/* every thread's samples by time (statistics.md, "Bursty functions") */
	struct pd_blocks blk;
	uint32_t nbkeys;
	/* --weight both: each stack's wall time beyond its CPU time */
	PD_VEC(struct ff_wait) waits;
	/* CPU time by default: that waiting, not shown, and the CPU time */
	double unshown_wait, cpu_w;
};

/*
 * The waits of s->waits added to the profile, each as time of the
 * innermost frame of the program above it, a frame "name (waiting)"
 * (firefox_wait.c; docs/formats.md, "samply and the Firefox Profiler").
 */
void pd_ff_add_waits(struct ff_state *s);
/*
 * By default, CPU time: one note says how much waiting (each stack's
 * wall time beyond its CPU deltas) is left out, when it is 1 % of the
 * CPU time or more.
 */
void pd_ff_note_unshown(struct ff_state *s);

/* The named column, through the Gecko schema when there is one. */
static inline const struct ff_col *ff_get_col(const struct ff_table *t,
					      const char *name)
{
	int i, j;

	for (i = 0; i < t->n; i++)
		if (t->c[i].pos < 0 && !strcmp(t->c[i].name, name))
			return &t->c[i];
	for (j = 0; j < t->nschema; j++)
		if (!strcmp(t->schema_name[j], name))
			for (i = 0; i < t->n; i++)
				if (t->c[i].pos == t->schema_pos[j])
					return &t->c[i];
	return NULL;
}

static inline size_t ff_col_len(const struct ff_col *c)
{
	return c ? c->len : 0;
}

/*
 * Whether x can index a table: a number from 0 that converts to size_t
 * (a larger one, cast, would be undefined behaviour; past a table's end
 * it reads as null, as ff_cv says).
 */
static inline int ff_is_index(double x)
{
	return !isnan(x) && x >= 0 && x < 0x1p53;
}

/* Value i of c: NaN for null, a string, a folded value or past the end. */
static inline double ff_cv(const struct ff_col *c, size_t i)
{
	if (!c)
		return PD_NAN;
	if (c->wide)
		return i < c->v.n ? c->v.v[i] : PD_NAN;
	return i < c->u.n && c->u.v[i] != UINT32_MAX ? (double)c->u.v[i]
						     : PD_NAN;
}

/* Appends d (NaN for null) to c, which is not folded. */
void pd_ff_col_push(struct ff_col *c, double d);
/* The blocks key of stack st of a samples table, made when new. */
uint32_t pd_ff_block_key(struct ff_table *t, size_t st);
/*
 * Sample i's value d of a samples column folded by stack (kind as
 * pd_ff_fold_kind says) into the stack's sums or time blocks.
 */
void pd_ff_fold_value(struct ff_table *t, const struct ff_col *stack, int kind,
		      size_t i, double d);
/* 1 weight, 2 threadCPUDelta, 3 time, 4 timeDeltas; 0 not folded. */
int pd_ff_fold_kind(const char *name);
/* A sample's time from its time or (deltas) timeDeltas value d. */
double pd_ff_sample_time(struct ff_table *t, int deltas, double d);
void pd_ff_table_release(struct ff_table *t);
/*
 * Checks that each of a thread's samples names one of its nst stacks,
 * then folds the stored sample columns; 0 or the error.
 */
PD_NODISCARD int pd_ff_thread_fold(struct ff_state *s, struct ff_thread *th,
				   size_t nst);
/* "name (tid) in process", as reports and convert name a thread. */
void pd_ff_thread_label(const struct ff_thread *th, struct pd_buf *name);
/* Whether --thread and --process keep the thread. */
int pd_ff_thread_wanted(const struct pd_import_opts *o,
			const struct ff_thread *t);
/* Stack st's time blocks onto profile node node, spread over count c. */
void pd_ff_carry_blocks(struct ff_state *s, const struct ff_table *t, size_t st,
			uint32_t node, double c);
/*
 * The samples' per-stack sums, completed from the columns that were
 * stored (weights and CPU deltas that came before the stacks).
 */
void pd_ff_fold_samples(struct ff_table *t);

/* Tables to profile: stacks, frames, symbols, weights. */
PD_NODISCARD int pd_firefox_resolve(struct ff_state *s);

#endif
