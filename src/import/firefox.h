/*
 * The Firefox importer's parts: firefox.c reads the JSON into column
 * tables, firefox_resolve.c turns the tables into the profile.
 */
#ifndef PD_IMPORT_FIREFOX_H
#define PD_IMPORT_FIREFOX_H

#include <string.h>

#include "core/limits.h"
#include "import/import.h"
#include "import/json.h"

#define MAXCOL 24
#define MAXDEPTH PD_LIMIT_JSON_DEPTH

enum role {
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

struct col {
	char name[24];
	int pos; /* position in Gecko rows, -1 for named columns */
	PD_VEC(double) v;
};

struct table {
	struct col c[MAXCOL];
	int n;
	char schema_name[MAXCOL][24];
	int schema_pos[MAXCOL];
	int nschema;
	int have; /* seen in the file */
	char weight_type[16];
};

enum { T_SAMPLES, T_STACK, T_FRAME, T_FUNC, T_RESOURCE, T_NATSYM, T_NTABLES };

struct lib {
	char *name, *path, *debug_name, *debug_path, *breakpad_id, *code_id;
	double start, end, offset; /* Gecko: mapped range */
};

struct ctx {		 /* a profile or one of its Gecko sub-processes */
	double interval; /* ms */
	double version, processed_version;
	char cpu_unit[24];
	int symbolicated;
	PD_VEC(struct lib) libs;
};

struct thread {
	char *name, *process, *pid, *tid;
	size_t ctx;
	struct table t[T_NTABLES];
	PD_VEC(uint32_t) strings; /* string index -> p->strs id */
	int has_strings;
	PD_VEC(struct lib) libs; /* per-thread libs of old versions */
};

struct ff {
	struct pd_profile *p;
	const struct pd_import_opts *o;
	struct pd_input *in;
	struct pd_err *err;
	PD_VEC(struct ctx) ctxs;
	PD_VEC(struct thread) threads;
	struct table shared[T_NTABLES];
	PD_VEC(uint32_t) shared_strings;
	int has_shared_strings;
	/* parse state */
	struct {
		struct pd_json_step j; /* first: the walk reads it */
		enum role r;
		size_t ctx;
		int table; /* T_* for R_TABLE and below */
		struct table *tab;
		struct col *col;
	} lv[MAXDEPTH];
	struct pd_json_walk w;
	int saw_meta, wrapper;
};

/* The named column, through the Gecko schema when there is one. */
static inline const struct col *get_col(const struct table *t, const char *name)
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

static inline size_t col_len(const struct col *c)
{
	return c ? c->v.n : 0;
}

static inline double cv(const struct col *c, size_t i)
{
	return c && i < c->v.n ? c->v.v[i] : PD_NAN;
}

/* Tables to profile: stacks, frames, symbols, weights. */
int pd_firefox_resolve(struct ff *s);

#endif
