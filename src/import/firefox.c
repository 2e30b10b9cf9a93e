/*
 * Firefox Profiler formats (formats.md 2): the processed format samply
 * writes (versions 24 to 70: tables per thread before v60, in "shared"
 * from v60, prefixOffset from v66) and the raw Gecko format with its
 * schema/data tables, including DevTools recordings that wrap it.
 *
 * The stream is read with yajl into column tables; keys come in any order,
 * so everything is resolved when the document ends: sample columns become
 * per-stack sums, stacks become tree nodes, frames become functions, and
 * frames that carry only an address are symbolicated offline in one batch
 * per library. Memory holds the tables, never the JSON text.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl_parse.h>
#include <cJSON.h>

#include "core/buf.h"
#include "import/import.h"
#include "import/json.h"
#include "import/symbols.h"

#define MAXCOL 24
#define MAXDEPTH 24

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
		enum role r;
		int is_map;
		char key[48];
		long idx;
		size_t ctx;
		int table; /* T_* for R_TABLE and below */
		struct table *tab;
		struct col *col;
	} lv[MAXDEPTH];
	int depth;
	long skip;
	int failed, saw_meta, wrapper;
};

static void path_to(const struct ff *s, struct pd_buf *b)
{
	int i;

	pd_buf_addch(b, '$');
	for (i = 0; i <= s->depth && i < MAXDEPTH; i++)
		pd_json_path_step(b, s->lv[i].is_map, s->lv[i].key,
				  s->lv[i].idx);
}

static void json_path(void *arg, struct pd_buf *b)
{
	struct ff *s = arg;

	if (s->depth >= 0)
		path_to(s, b);
}

static int fail(struct ff *s, const char *what)
{
	return pd_json_fail(s->err, s->in->path, json_path, s, &s->failed,
			    what);
}

static int table_of(const char *k)
{
	static const char *const names[] = { "samples",	      "stackTable",
					     "frameTable",    "funcTable",
					     "resourceTable", "nativeSymbols" };
	int i;

	for (i = 0; i < T_NTABLES; i++)
		if (!strcmp(k, names[i]))
			return i;
	return -1;
}

/* Columns worth keeping, per table; others are skipped as they stream by. */
static int wanted(int table, const char *c)
{
	static const char *const keep[T_NTABLES][8] = {
		{ "stack", "weight", "threadCPUDelta", NULL },
		{ "frame", "prefix", "prefixOffset", NULL },
		{ "func", "address", "nativeSymbol", "lib", "location",
		  "inlineDepth", NULL },
		{ "name", "resource", "fileName", NULL },
		{ "lib", "name", "type", NULL },
		{ "libIndex", "address", "name", NULL },
	};
	int i;

	for (i = 0; keep[table][i]; i++)
		if (!strcmp(keep[table][i], c))
			return 1;
	return 0;
}

static struct col *new_col(struct table *t, const char *name, int pos)
{
	struct col *c;

	if (t->n >= MAXCOL)
		return NULL;
	c = &t->c[t->n++];
	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->pos = pos;
	return c;
}

static struct col *col_at(struct table *t, int pos)
{
	int i;

	for (i = 0; i < t->n; i++)
		if (t->c[i].pos == pos)
			return &t->c[i];
	return new_col(t, "", pos);
}

/* The named column, through the Gecko schema when there is one. */
static const struct col *get_col(const struct table *t, const char *name)
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

static size_t col_len(const struct col *c)
{
	return c ? c->v.n : 0;
}

static double cv(const struct col *c, size_t i)
{
	return c && i < c->v.n ? c->v.v[i] : PD_NAN;
}

static void table_release(struct table *t)
{
	int i;

	for (i = 0; i < t->n; i++)
		PD_VEC_FREE(&t->c[i].v);
	t->n = 0;
}

static void lib_release(struct lib *l)
{
	free(l->name);
	free(l->path);
	free(l->debug_name);
	free(l->debug_path);
	free(l->breakpad_id);
	free(l->code_id);
}

#define TOP(s) (&(s)->lv[(s)->depth])

static void value_start(struct ff *s)
{
	if (s->depth >= 0 && !TOP(s)->is_map)
		TOP(s)->idx++;
}

static struct thread *cur_thread(struct ff *s)
{
	return &s->threads.v[s->threads.n - 1];
}

static struct table *table_for(struct ff *s, int in_shared, int t)
{
	return in_shared ? &s->shared[t] : &cur_thread(s)->t[t];
}

static enum role child_role(struct ff *s, int is_map, int *table, int *shared)
{
	const char *k = TOP(s)->key;
	enum role r = TOP(s)->r;
	int t;

	*table = -1;
	*shared = 0;
	switch (r) {
	case R_ROOT:
		if (!strcmp(k, "meta") && is_map)
			return R_META;
		if (!strcmp(k, "libs") && !is_map)
			return R_LIBS;
		if (!strcmp(k, "threads") && !is_map)
			return R_THREADS;
		if (!strcmp(k, "shared") && is_map)
			return R_SHARED;
		if (!strcmp(k, "processes") && !is_map)
			return R_PROCESSES;
		if (!strcmp(k, "profile") && is_map)
			return R_ROOT; /* DevTools recording wrapper */
		break;
	case R_META:
		if (!strcmp(k, "sampleUnits") && is_map)
			return R_UNITS;
		break;
	case R_LIBS:
		if (is_map)
			return R_LIB;
		break;
	case R_THREADS:
		if (is_map)
			return R_THREAD;
		break;
	case R_PROCESSES:
		if (is_map)
			return R_ROOT;
		break;
	case R_THREAD:
	case R_SHARED:
		t = table_of(k);
		if (t >= 0 && is_map && !(r == R_SHARED && t == T_SAMPLES)) {
			*table = t;
			*shared = r == R_SHARED;
			return R_TABLE;
		}
		if ((!strcmp(k, "stringArray") ||
		     (r == R_THREAD && !strcmp(k, "stringTable"))) &&
		    !is_map)
			return R_STRINGS;
		if (!strcmp(k, "stringTable") && is_map)
			return R_STRTABLE;
		if (r == R_THREAD && !strcmp(k, "libs") && !is_map)
			return R_LIBS;
		break;
	case R_STRTABLE:
		if (!strcmp(k, "_array") && !is_map)
			return R_STRINGS;
		break;
	case R_TABLE:
		if (!strcmp(k, "schema") && is_map)
			return R_SCHEMA;
		if (!strcmp(k, "data") && !is_map)
			return R_DATA;
		if (!is_map && wanted(TOP(s)->table, k))
			return R_COL;
		break;
	case R_DATA:
		if (!is_map)
			return R_ROW;
		break;
	default:
		break;
	}
	return R_SKIP;
}

static int open_container(struct ff *s, int is_map)
{
	enum role r;
	int table = -1, shared = 0;

	if (s->skip) {
		s->skip++;
		return 1;
	}
	if (s->depth < 0) {
		if (!is_map)
			return fail(s, "not a Firefox profile (the top level is"
				       " not an object)");
		r = R_ROOT;
	} else {
		value_start(s);
		r = child_role(s, is_map, &table, &shared);
		if (r == R_SKIP) {
			s->skip = 1;
			return 1;
		}
	}
	if (s->depth + 1 >= MAXDEPTH)
		return fail(s, "nested too deeply");
	s->depth++;
	memset(TOP(s), 0, sizeof(*TOP(s)));
	TOP(s)->r = r;
	TOP(s)->is_map = is_map;
	TOP(s)->idx = -1;
	TOP(s)->ctx = s->depth > 0 ? s->lv[s->depth - 1].ctx : 0;
	TOP(s)->table = s->depth > 0 ? s->lv[s->depth - 1].table : -1;
	TOP(s)->tab = s->depth > 0 ? s->lv[s->depth - 1].tab : NULL;
	switch (r) {
	case R_ROOT: {
		struct ctx c;

		memset(&c, 0, sizeof(c));
		c.interval = 1;
		PD_VEC_PUSH(&s->ctxs, c);
		TOP(s)->ctx = s->ctxs.n - 1;
		if (s->depth > 0 && !strcmp(s->lv[s->depth - 1].key, "profile"))
			s->wrapper = 1;
		break;
	}
	case R_THREAD: {
		struct thread t;

		memset(&t, 0, sizeof(t));
		t.ctx = TOP(s)->ctx;
		PD_VEC_PUSH(&s->threads, t);
		break;
	}
	case R_LIB: {
		struct lib l;
		int per_thread = s->lv[s->depth - 2].r == R_THREAD;

		memset(&l, 0, sizeof(l));
		if (per_thread)
			PD_VEC_PUSH(&cur_thread(s)->libs, l);
		else
			PD_VEC_PUSH(&s->ctxs.v[TOP(s)->ctx].libs, l);
		break;
	}
	case R_TABLE:
		TOP(s)->table = table;
		TOP(s)->tab = table_for(s, shared, table);
		table_release(TOP(s)->tab);
		TOP(s)->tab->have = 1;
		TOP(s)->tab->nschema = 0;
		break;
	case R_COL:
		TOP(s)->col = new_col(TOP(s)->tab, s->lv[s->depth - 1].key, -1);
		if (!TOP(s)->col)
			return fail(s, "too many columns");
		break;
	case R_STRINGS:
		if (s->lv[s->depth - 1].r == R_SHARED) {
			s->shared_strings.n = 0;
			s->has_shared_strings = 1;
		} else {
			cur_thread(s)->strings.n = 0;
			cur_thread(s)->has_strings = 1;
		}
		break;
	default:
		break;
	}
	return 1;
}

static int cb_start_map(void *ctx)
{
	return open_container(ctx, 1);
}

static int cb_start_array(void *ctx)
{
	return open_container(ctx, 0);
}

static int cb_end(void *ctx)
{
	struct ff *s = ctx;

	if (s->skip) {
		s->skip--;
		return 1;
	}
	s->depth--;
	return 1;
}

static int cb_key(void *ctx, const unsigned char *k, size_t n)
{
	struct ff *s = ctx;

	if (s->skip)
		return 1;
	if (n >= sizeof(TOP(s)->key))
		n = sizeof(TOP(s)->key) - 1;
	memcpy(TOP(s)->key, k, n);
	TOP(s)->key[n] = '\0';
	return 1;
}

static char **lib_field(struct lib *l, const char *k)
{
	if (!strcmp(k, "name"))
		return &l->name;
	if (!strcmp(k, "path"))
		return &l->path;
	if (!strcmp(k, "debugName"))
		return &l->debug_name;
	if (!strcmp(k, "debugPath"))
		return &l->debug_path;
	if (!strcmp(k, "breakpadId"))
		return &l->breakpad_id;
	if (!strcmp(k, "codeId"))
		return &l->code_id;
	return NULL;
}

static struct lib *cur_lib(struct ff *s)
{
	int per_thread = s->lv[s->depth - 2].r == R_THREAD;

	if (per_thread)
		return &cur_thread(s)->libs.v[cur_thread(s)->libs.n - 1];
	return &s->ctxs.v[TOP(s)->ctx]
		    .libs.v[s->ctxs.v[TOP(s)->ctx].libs.n - 1];
}

/* Gecko v3 and older: "libs" is a JSON string holding the array. */
static int libs_from_string(struct ff *s, const char *text, size_t n)
{
	char *copy = pd_xstrndup(text, n);
	cJSON *a = cJSON_Parse(copy), *e;
	struct ctx *c = &s->ctxs.v[TOP(s)->ctx];

	free(copy);
	if (!cJSON_IsArray(a)) {
		cJSON_Delete(a);
		return fail(s, "libs is a string but not a JSON array");
	}
	cJSON_ArrayForEach(e, a)
	{
		struct lib l;
		const cJSON *f;

		memset(&l, 0, sizeof(l));
		cJSON_ArrayForEach(f, e)
		{
			char **dst = lib_field(&l, f->string);

			if (dst && cJSON_IsString(f) && !*dst)
				*dst = pd_xstrdup(f->valuestring);
			else if (cJSON_IsNumber(f) &&
				 !strcmp(f->string, "start"))
				l.start = f->valuedouble;
			else if (cJSON_IsNumber(f) && !strcmp(f->string, "end"))
				l.end = f->valuedouble;
			else if (cJSON_IsNumber(f) &&
				 !strcmp(f->string, "offset"))
				l.offset = f->valuedouble;
		}
		PD_VEC_PUSH(&c->libs, l);
	}
	cJSON_Delete(a);
	return 1;
}

static int on_scalar(struct ff *s, double d, const char *str, size_t n)
{
	enum role r = TOP(s)->r;
	const char *k = TOP(s)->key;

	switch (r) {
	case R_META: {
		struct ctx *c = &s->ctxs.v[TOP(s)->ctx];

		s->saw_meta = 1;
		if (!strcmp(k, "interval") && !str && d > 0)
			c->interval = d;
		else if (!strcmp(k, "version") && !str)
			c->version = d;
		else if (!strcmp(k, "preprocessedProfileVersion") && !str)
			c->processed_version = d;
		else if (!strcmp(k, "symbolicated") && !str)
			c->symbolicated = d > 0;
		return 1;
	}
	case R_UNITS:
		if (!strcmp(k, "threadCPUDelta") && str) {
			struct ctx *c = &s->ctxs.v[TOP(s)->ctx];

			snprintf(c->cpu_unit, sizeof(c->cpu_unit), "%.*s",
				 (int)n, str);
		}
		return 1;
	case R_ROOT:
		if (!strcmp(k, "libs") && str)
			return libs_from_string(s, str, n);
		return 1;
	case R_LIB: {
		struct lib *l = cur_lib(s);
		char **dst = lib_field(l, k);

		if (dst && str && !*dst)
			*dst = pd_xstrndup(str, n);
		else if (!str && !strcmp(k, "start"))
			l->start = d;
		else if (!str && !strcmp(k, "end"))
			l->end = d;
		else if (!str && !strcmp(k, "offset"))
			l->offset = d;
		return 1;
	}
	case R_THREAD: {
		struct thread *t = cur_thread(s);
		char **dst = !strcmp(k, "name")		 ? &t->name
			     : !strcmp(k, "processName") ? &t->process
			     : !strcmp(k, "pid")	 ? &t->pid
			     : !strcmp(k, "tid")	 ? &t->tid
							 : NULL;
		struct pd_buf b = PD_BUF_INIT;

		if (!dst || *dst)
			return 1;
		if (str)
			pd_buf_add(&b, str, n);
		else if (!isnan(d))
			pd_buf_addf(&b, "%.0f", d);
		else
			return 1;
		*dst = pd_buf_detach(&b);
		return 1;
	}
	case R_TABLE:
		if (!strcmp(k, "weightType") && str)
			snprintf(TOP(s)->tab->weight_type,
				 sizeof(TOP(s)->tab->weight_type), "%.*s",
				 (int)n, str);
		return 1;
	case R_SCHEMA: {
		struct table *t = TOP(s)->tab;

		if (!str && t->nschema < MAXCOL && d >= 0 && d < 1000) {
			size_t kl = strlen(k);

			if (kl > 23) /* longer schema names are not ours */
				kl = 23;
			memcpy(t->schema_name[t->nschema], k, kl);
			t->schema_name[t->nschema][kl] = '\0';
			t->schema_pos[t->nschema++] = (int)d;
		}
		return 1;
	}
	case R_COL:
		PD_VEC_PUSH(&TOP(s)->col->v, str ? PD_NAN : d);
		return 1;
	case R_ROW: {
		struct col *c;

		if (TOP(s)->idx >= MAXCOL * 4)
			return 1;
		c = col_at(TOP(s)->tab, (int)TOP(s)->idx);
		if (!c)
			return 1;
		/* Pad rows that were shorter. */
		while (c->v.n < (size_t)s->lv[s->depth - 1].idx)
			PD_VEC_PUSH(&c->v, PD_NAN);
		PD_VEC_PUSH(&c->v, str ? PD_NAN : d);
		return 1;
	}
	case R_STRINGS: {
		int shared = s->lv[s->depth - 1].r == R_SHARED ||
			     (s->lv[s->depth - 1].r == R_STRTABLE &&
			      s->lv[s->depth - 2].r == R_SHARED);
		uint32_t id = str ? pd_intern(&s->p->strs, str, n) : 0;

		if (shared)
			PD_VEC_PUSH(&s->shared_strings, id);
		else
			PD_VEC_PUSH(&cur_thread(s)->strings, id);
		return 1;
	}
	default:
		return 1;
	}
}

/* Every scalar: counted in its array, then read (or skipped). */
static int scalar(struct ff *s, double d, const char *str, size_t n)
{
	if (s->skip)
		return 1;
	value_start(s);
	if (s->depth < 0)
		return fail(s, "not a Firefox profile");
	return on_scalar(s, d, str, n);
}

static int cb_number(void *ctx, const char *v, size_t n)
{
	struct ff *s = ctx;
	char tmp[64], *end;

	if (s->skip)
		return 1;
	if (n >= sizeof(tmp)) {
		value_start(s);
		return fail(s, "number too long");
	}
	memcpy(tmp, v, n);
	tmp[n] = '\0';
	return scalar(s, strtod(tmp, &end), NULL, 0);
}

static int cb_string(void *ctx, const unsigned char *v, size_t n)
{
	return scalar(ctx, PD_NAN, (const char *)v, n);
}

static int cb_null(void *ctx)
{
	return scalar(ctx, PD_NAN, NULL, 0);
}

static int cb_bool(void *ctx, int b)
{
	return scalar(ctx, b ? 1 : 0, NULL, 0);
}

static const yajl_callbacks callbacks = {
	cb_null,      cb_bool, NULL,   NULL,	       cb_number, cb_string,
	cb_start_map, cb_key,  cb_end, cb_start_array, cb_end,
};

/* ---- resolution ---- */

struct frameinfo {
	uint32_t frame; /* pd frame, UINT32_MAX until known */
	int32_t lib;	/* -1: none */
	uint64_t addr;	/* for symbolication */
	int pending;	/* waits for a symbol */
};

/* Tables and strings a thread uses: its own, or the shared ones. */
struct view {
	const struct table *t[T_NTABLES];
	const uint32_t *str;
	size_t nstr;
	const struct lib *libs;
	size_t nlibs;
	int gecko;
	const struct ctx *ctx;
};

static void view_of(struct ff *s, struct thread *th, struct view *v)
{
	int i;

	for (i = 0; i < T_NTABLES; i++)
		v->t[i] =
		    th->t[i].have || i == T_SAMPLES ? &th->t[i] : &s->shared[i];
	if (th->has_strings) {
		v->str = th->strings.v;
		v->nstr = th->strings.n;
	} else {
		v->str = s->shared_strings.v;
		v->nstr = s->shared_strings.n;
	}
	v->ctx = &s->ctxs.v[th->ctx];
	if (th->libs.n) {
		v->libs = th->libs.v;
		v->nlibs = th->libs.n;
	} else {
		v->libs = v->ctx->libs.v;
		v->nlibs = v->ctx->libs.n;
	}
	v->gecko = !(v->ctx->processed_version > 0) &&
		   get_col(v->t[T_FRAME], "location");
}

static const char *vstr(const struct view *v, struct pd_profile *p, double i)
{
	if (isnan(i) || i < 0 || i >= (double)v->nstr)
		return NULL;
	return pd_intern_str(&p->strs, v->str[(size_t)i]);
}

static int is_hex_name(const char *n)
{
	size_t i;

	if (!n || n[0] != '0' || (n[1] != 'x' && n[1] != 'X') || !n[2])
		return 0;
	for (i = 2; n[i]; i++)
		if (!isxdigit((unsigned char)n[i]))
			return 0;
	return 1;
}

static const char *lib_label(const struct lib *l)
{
	return l->name ? l->name : l->debug_name ? l->debug_name : "?";
}

/* Pending symbol look-ups: one per unsymbolicated frame (lib, address). */
struct pend {
	const struct lib *lib;
	uint64_t addr;
	uint32_t frame;
	const struct lib *orig; /* lib survives "handled" marking */
	int resolved;
};

struct pendings {
	PD_VEC(struct pend) v;
	PD_VEC(int32_t) of_frame; /* pd frame -> index in v, -1 */
};

static uint32_t frame_of(struct ff *s, const struct view *v, size_t f,
			 struct pendings *pend, int *bad)
{
	struct pd_profile *p = s->p;
	const struct table *ft = v->t[T_FRAME], *fn = v->t[T_FUNC];
	const struct table *rt = v->t[T_RESOURCE], *ns = v->t[T_NATSYM];
	double func, res, lib = PD_NAN, nsym, addr;
	uint32_t name_id;
	const char *name = NULL, *module = "";
	struct pd_buf b = PD_BUF_INIT;
	uint32_t id;

	if (v->gecko) {
		const char *loc = vstr(v, p, cv(get_col(ft, "location"), f));
		size_t i;

		if (!loc) {
			*bad = 1;
			return 0;
		}
		if (is_hex_name(loc)) {
			/* An absolute address: find its library. */
			uint64_t a = strtoull(loc, NULL, 16);

			for (i = 0; i < v->nlibs; i++) {
				const struct lib *l = &v->libs[i];

				if (l->end > l->start &&
				    (double)a >= l->start &&
				    (double)a < l->end) {
					uint64_t rva = a - (uint64_t)l->start +
						       (uint64_t)l->offset;

					pd_buf_addf(&b, "%s+0x%llx",
						    lib_label(l),
						    (unsigned long long)rva);
					id = pd_profile_frame(
					    p,
					    pd_intern(&p->strs, b.buf, b.len),
					    pd_intern_cstr(&p->strs,
							   lib_label(l)));
					pd_buf_release(&b);
					return id;
				}
			}
			return pd_profile_frame(
			    p, pd_intern_cstr(&p->strs, loc), 0);
		}
		/* JS: "fn (url:line:col)", the module is the URL. */
		{
			const char *paren = strrchr(loc, '(');
			size_t len = strlen(loc);

			if (paren && paren > loc && paren[-1] == ' ' &&
			    loc[len - 1] == ')') {
				const char *colon = paren + 1, *c;
				size_t mlen;

				for (c = loc + len - 2;
				     c > paren &&
				     (isdigit((unsigned char)*c) || *c == ':');
				     c--)
					;
				mlen = (size_t)(c - colon + 1);
				id = pd_profile_frame(
				    p,
				    pd_intern(&p->strs, loc,
					      (size_t)(paren - 1 - loc)),
				    pd_intern(&p->strs, colon, mlen));
				return id;
			}
		}
		return pd_profile_frame(p, pd_intern_cstr(&p->strs, loc), 0);
	}

	func = cv(get_col(ft, "func"), f);
	if (isnan(func) || func < 0 ||
	    func >= (double)col_len(get_col(fn, "name"))) {
		*bad = 1;
		return 0;
	}
	name = vstr(v, p, cv(get_col(fn, "name"), (size_t)func));
	if (!name) {
		*bad = 2;
		return 0;
	}
	res = cv(get_col(fn, "resource"), (size_t)func);
	if (get_col(ft, "lib"))
		lib = cv(get_col(ft, "lib"), f);
	else if (!isnan(res) && res >= 0)
		lib = cv(get_col(rt, "lib"), (size_t)res);
	if (!isnan(lib) && (lib < 0 || lib >= (double)v->nlibs)) {
		*bad = 3;
		return 0;
	}
	if (!isnan(lib))
		module = lib_label(&v->libs[(size_t)lib]);
	else if (!isnan(res) && res >= 0) {
		const char *rn =
		    vstr(v, p, cv(get_col(rt, "name"), (size_t)res));

		module = rn ? rn : "";
	}
	nsym = cv(get_col(ft, "nativeSymbol"), f);
	if (!isnan(nsym) && nsym >= 0) {
		const char *sn =
		    vstr(v, p, cv(get_col(ns, "name"), (size_t)nsym));

		if (sn && !is_hex_name(sn))
			name = sn;
	}
	addr = cv(get_col(ft, "address"), f);
	if (is_hex_name(name) && !isnan(lib) && !isnan(addr) && addr >= 0) {
		/* Unsymbolicated: named lib+0xRVA until a symbol is found. */
		const struct lib *l = &v->libs[(size_t)lib];

		pd_buf_addf(&b, "%s+0x%llx", lib_label(l),
			    (unsigned long long)addr);
		name_id = pd_intern(&p->strs, b.buf, b.len);
		/*
		 * Without a symbol the library's debug id is part of the
		 * identity: the same offset in another build is other code.
		 */
		pd_buf_reset(&b);
		pd_buf_addf(&b, "%s%s%s", module, l->breakpad_id ? "@" : "",
			    l->breakpad_id ? l->breakpad_id : "");
		id = pd_profile_frame(p, name_id,
				      pd_intern(&p->strs, b.buf, b.len));
		pd_buf_release(&b);
		while (pend->of_frame.n <= id)
			PD_VEC_PUSH(&pend->of_frame, -1);
		if (pend->of_frame.v[id] < 0) {
			struct pend x = { l, (uint64_t)addr, id, l, 0 };

			pend->of_frame.v[id] = (int32_t)pend->v.n;
			PD_VEC_PUSH(&pend->v, x);
		}
		return id;
	}
	return pd_profile_frame(p, pd_intern_cstr(&p->strs, name),
				pd_intern_cstr(&p->strs, module));
}

/* Sums of one thread's samples per stack index. */
struct sums {
	double *wall, *cpu, *n;
	size_t len;
};

static double unit_ns(const char *u)
{
	if (!strcmp(u, "ns"))
		return 1;
	if (!strcmp(u, "ms"))
		return 1e6;
	return 1e3; /* "µs", samply's unit */
}

static int thread_sums(struct ff *s, struct thread *th, const struct view *v,
		       struct sums *out, int *has_cpu)
{
	const struct table *t = v->t[T_SAMPLES];
	const struct col *stack = get_col(t, "stack");
	const struct col *weight = get_col(t, "weight");
	const struct col *cpu = get_col(t, "threadCPUDelta");
	size_t n = col_len(stack), i, nst;
	double interval_ns = v->ctx->interval * 1e6;
	double cpu_scale = unit_ns(v->ctx->cpu_unit);
	const char *wt = t->weight_type;

	(void)th;
	nst = col_len(get_col(v->t[T_STACK], "frame"));
	out->len = nst;
	out->wall = pd_xcalloc(nst + 1, sizeof(double));
	out->cpu = pd_xcalloc(nst + 1, sizeof(double));
	out->n = pd_xcalloc(nst + 1, sizeof(double));
	*has_cpu = cpu && col_len(cpu) == n && n > 1 &&
		   strcmp(v->ctx->cpu_unit, "variable CPU cycles");
	for (i = 0; i < n; i++) {
		double st = cv(stack, i), w = weight ? cv(weight, i) : 1, c;

		if (isnan(st))
			continue; /* a sample without a stack */
		if (st < 0 || st >= (double)nst || st - floor(st) > 0) {
			pd_err_set(s->err, PD_EPARSE,
				   "%s: thread \"%s\": samples.stack[%zu] = %g"
				   " is out of range (%zu stacks)",
				   s->in->path, th->name ? th->name : "?", i,
				   st, nst);
			free(out->wall);
			free(out->cpu);
			free(out->n);
			out->wall = out->cpu = out->n = NULL;
			return PD_EPARSE;
		}
		if (isnan(w))
			w = 1;
		if (!strcmp(wt, "tracing-ms"))
			out->wall[(size_t)st] += w * 1e6;
		else
			out->wall[(size_t)st] += w * interval_ns;
		out->n[(size_t)st] += w;
		c = i ? cv(cpu, i) : 0; /* the first delta means nothing */
		if (!isnan(c) && c > 0)
			out->cpu[(size_t)st] += c * cpu_scale;
	}
	return 0;
}

int pd_firefox_sniff(const char *head, size_t len)
{
	return pd_filter_match("\"preprocessedProfileVersion\"", head, len) ||
	       (pd_filter_match("\"meta\"", head, len) &&
		pd_filter_match("\"threads\"", head, len) &&
		(pd_filter_match("\"stringTable\"", head, len) ||
		 pd_filter_match("\"schema\"", head, len) ||
		 pd_filter_match("\"stackTable\"", head, len))) ||
	       (pd_filter_match("\"profile\"", head, len) &&
		(pd_filter_match("\"systemHost\"", head, len) ||
		 pd_filter_match("\"ticks\"", head, len)));
}

static int thread_wanted(const struct pd_import_opts *o, const struct thread *t)
{
	const char *name = t->name ? t->name : "";
	const char *proc = t->process ? t->process : name;

	if (o->thread && !pd_filter_match(o->thread, name, strlen(name)) &&
	    !(t->tid && !strcmp(o->thread, t->tid)))
		return 0;
	if (o->process && !pd_filter_match(o->process, proc, strlen(proc)) &&
	    !(t->pid && !strcmp(o->process, t->pid)))
		return 0;
	return 1;
}

static void symbolicate(struct ff *s, struct pendings *pend)
{
	struct pd_profile *p = s->p;
	struct pd_sidecar *side;
	struct pd_err serr = PD_ERR_INIT;
	char *side_path = NULL;
	struct pd_buf notes = PD_BUF_INIT;
	size_t i, done = 0;

	if (!pend->v.n)
		return;
	side = pd_sidecar_load(s->in->path, &side_path, &serr);
	if (serr.code)
		pd_profile_note(p, "%s", serr.msg);
	/* One batch per library. */
	for (i = 0; i < pend->v.n;) {
		const struct lib *l = pend->v.v[i].lib;
		struct pd_libinfo li = { l->name,	 l->path,
					 l->debug_name,	 l->debug_path,
					 l->breakpad_id, l->code_id };
		struct pd_symreq *reqs;
		size_t j, k, n = 0, got = 0;
		char *file = NULL;

		for (j = i; j < pend->v.n; j++)
			n += pend->v.v[j].lib == l;
		reqs = pd_xcalloc(n, sizeof(*reqs));
		for (j = i, k = 0; j < pend->v.n; j++)
			if (pend->v.v[j].lib == l)
				reqs[k++].addr = pend->v.v[j].addr;
		if (side)
			got += pd_sidecar_resolve(side, &li, reqs, n);
		if (got < n && s->o->symbol_dirs)
			got += pd_symbols_from_dirs(s->o->symbol_dirs, &li,
						    reqs, n, &file, &notes);
		for (j = i, k = 0; j < pend->v.n; j++) {
			struct pend *e = &pend->v.v[j];

			if (e->lib != l)
				continue;
			if (reqs[k].name) {
				p->frames.v[e->frame].name =
				    pd_intern_cstr(&p->strs, reqs[k].name);
				/* Named: it matches across builds by name
				 * again. */
				p->frames.v[e->frame].module =
				    pd_intern_cstr(&p->strs, lib_label(l));
				e->resolved = 1;
				done++;
			}
			free(reqs[k].name);
			k++;
			e->lib = NULL; /* handled */
		}
		free(reqs);
		free(file);
		while (i < pend->v.n && !pend->v.v[i].lib)
			i++;
	}
	if (notes.len)
		pd_profile_note(p, "%s", notes.buf);
	if (done && side_path)
		pd_profile_note(p, "symbols from %s", side_path);
	free(side_path);
	pd_sidecar_free(side);
	pd_buf_release(&notes);
}

/* Per library: unsymbolicated weight, heaviest first, for the report. */
static void unsym_report(struct ff *s, const struct pendings *pend,
			 const double *frame_weight)
{
	struct pd_profile *p = s->p;
	PD_VEC(const char *) libs = PD_VEC_INIT;
	PD_VEC(double) w = PD_VEC_INIT;
	struct pd_buf b = PD_BUF_INIT;
	double total = 0;
	size_t i, k, shown = 0;

	for (i = 0; i < pend->v.n; i++) {
		const struct pend *e = &pend->v.v[i];
		const char *lib = lib_label(e->orig);

		if (e->resolved)
			continue;
		for (k = 0; k < libs.n; k++)
			if (!strcmp(libs.v[k], lib))
				break;
		if (k == libs.n) {
			PD_VEC_PUSH(&libs, lib);
			PD_VEC_PUSH(&w, 0.0);
		}
		w.v[k] += frame_weight[e->frame];
		total += frame_weight[e->frame];
	}
	/* heaviest first */
	for (i = 0; i < libs.n; i++)
		for (k = i + 1; k < libs.n; k++)
			if (w.v[k] > w.v[i]) {
				const char *t = libs.v[i];
				double x = w.v[i];

				libs.v[i] = libs.v[k];
				libs.v[k] = t;
				w.v[i] = w.v[k];
				w.v[k] = x;
			}
	if (total > 0 && p->total_weight > 0) {
		pd_buf_addf(&b,
			    "%.1f %% of the weight is in unsymbolicated"
			    " frames (",
			    total / p->total_weight * 100);
		for (k = 0; k < libs.n && shown < 5; k++) {
			if (w.v[k] <= 0)
				continue;
			pd_buf_addf(&b, "%s%s %.1f %%", shown++ ? ", " : "",
				    libs.v[k], w.v[k] / p->total_weight * 100);
		}
		pd_buf_addf(&b,
			    "); they match across builds only when the"
			    " library is the same build. Pass --symbols DIR"
			    " with the binaries, or keep samply's .syms.json"
			    " next to the profile (docs/symbols.md)");
		pd_profile_note(p, "%s", b.buf);
	}
	PD_VEC_FREE(&libs);
	PD_VEC_FREE(&w);
	pd_buf_release(&b);
}

static int resolve(struct ff *s)
{
	struct pd_profile *p = s->p;
	const struct pd_import_opts *o = s->o;
	struct pendings pend;
	size_t ti, i, used = 0;
	int any_cpu = 0, all_cpu = 1, want_cpu = o->weight_mode != 1, rc = 0;
	int cpu_fallback = 0;
	double *frame_w;
	uint32_t *shared_frames = NULL;
	size_t nshared = 0;

	memset(&pend, 0, sizeof(pend));
	/* First pass: does every used thread carry CPU deltas? */
	for (ti = 0; ti < s->threads.n; ti++) {
		struct thread *th = &s->threads.v[ti];
		struct view v;
		const struct col *cpu;

		if (!thread_wanted(o, th))
			continue;
		view_of(s, th, &v);
		cpu = get_col(v.t[T_SAMPLES], "threadCPUDelta");
		if (!col_len(get_col(v.t[T_SAMPLES], "stack")))
			continue;
		if (cpu && col_len(cpu) > 1 &&
		    strcmp(v.ctx->cpu_unit, "variable CPU cycles"))
			any_cpu = 1;
		else
			all_cpu = 0;
	}
	want_cpu = want_cpu && any_cpu && all_cpu;
retry:
	for (ti = 0; ti < s->threads.n; ti++) {
		struct thread *th = &s->threads.v[ti];
		struct view v;
		struct sums sm;
		const struct col *fr, *pre, *off;
		uint32_t *node_of = NULL, *frames = NULL;
		size_t nst, nfr;
		int has_cpu = 0;
		double tw = 0;
		int own = 0;

		if (!thread_wanted(o, th))
			continue;
		view_of(s, th, &v);
		if (!col_len(get_col(v.t[T_SAMPLES], "stack")))
			continue;
		rc = thread_sums(s, th, &v, &sm, &has_cpu);
		if (rc < 0)
			goto out; /* earlier threads' pending symbols too */
		fr = get_col(v.t[T_STACK], "frame");
		pre = get_col(v.t[T_STACK], "prefix");
		off = get_col(v.t[T_STACK], "prefixOffset");
		nst = col_len(fr);
		nfr = col_len(
		    get_col(v.t[T_FRAME], v.gecko ? "location" : "func"));
		/* Frame ids are per table set: shared tables share them. */
		own = v.t[T_FRAME] != &s->shared[T_FRAME];
		if (own) {
			frames = pd_xmalloc((nfr + 1) * sizeof(*frames));
		} else {
			if (!shared_frames) {
				nshared = nfr;
				shared_frames = pd_xmalloc(
				    (nfr + 1) * sizeof(*shared_frames));
				for (i = 0; i < nfr; i++)
					shared_frames[i] = UINT32_MAX;
			}
			frames = shared_frames;
		}
		if (own)
			for (i = 0; i < nfr; i++)
				frames[i] = UINT32_MAX;
		node_of = pd_xmalloc((nst + 1) * sizeof(*node_of));
		for (i = 0; i < nst && rc == 0; i++) {
			double f = cv(fr, i), parent;
			int bad = 0;

			if (off)
				parent = cv(off, i) > 0 ? (double)i - cv(off, i)
							: -1;
			else
				parent = isnan(cv(pre, i)) ? -1 : cv(pre, i);
			if (isnan(f) || f < 0 || f >= (double)nfr ||
			    parent >= (double)i ||
			    (parent < 0 && parent > -1)) {
				rc = pd_err_set(
				    s->err, PD_EPARSE,
				    "%s: thread \"%s\": stackTable row %zu"
				    " points to frame %g or parent %g out"
				    " of range",
				    s->in->path, th->name ? th->name : "?", i,
				    f, parent);
				break;
			}
			if (frames[(size_t)f] == UINT32_MAX) {
				frames[(size_t)f] =
				    frame_of(s, &v, (size_t)f, &pend, &bad);
				if (bad) {
					rc = pd_err_set(
					    s->err, PD_EPARSE,
					    "%s: thread \"%s\": frameTable"
					    " row %g %s",
					    s->in->path,
					    th->name ? th->name : "?", f,
					    bad == 1
						? "names a func out of range"
					    : bad == 2
						? "names a string out of range"
						: "names a lib out of range");
					frames[(size_t)f] = UINT32_MAX;
					break;
				}
			}
			node_of[i] = pd_profile_child(
			    p, parent < 0 ? PD_ROOT : node_of[(size_t)parent],
			    frames[(size_t)f]);
		}
		for (i = 0; i < nst && rc == 0; i++) {
			double w = want_cpu ? sm.cpu[i] : sm.wall[i];
			double c = want_cpu
				       ? sm.cpu[i] / (v.ctx->interval * 1e6)
				       : sm.n[i];

			if (w > 0) {
				pd_profile_add(p, node_of[i], w, c);
				tw += w;
			}
		}
		if (rc == 0 && tw > 0) {
			struct pd_buf name = PD_BUF_INIT;

			pd_buf_addf(&name, "%s",
				    th->name ? th->name : "thread");
			if (th->tid)
				pd_buf_addf(&name, " (%s)", th->tid);
			if (th->process &&
			    (!th->name || strcmp(th->process, th->name)))
				pd_buf_addf(&name, " in %s", th->process);
			pd_profile_thread(p, name.buf, name.len, tw);
			pd_buf_release(&name);
			used++;
		}
		p->nsamples += col_len(get_col(v.t[T_SAMPLES], "stack"));
		if (own)
			free(frames);
		free(node_of);
		free(sm.wall);
		free(sm.cpu);
		free(sm.n);
		if (rc < 0)
			break;
	}
	free(shared_frames);
	shared_frames = NULL;
	(void)nshared;
	if (rc < 0)
		goto out;
	if (want_cpu && used == 0) {
		/* CPU deltas all zero (synthetic or idle): use the samples. */
		size_t k;

		for (k = 0; k < p->nodes.n; k++)
			p->nodes.v[k].weight = p->nodes.v[k].count = 0;
		p->threads.n = 0;
		p->nsamples = 0;
		want_cpu = 0;
		cpu_fallback = 1;
		goto retry;
	}
	if (cpu_fallback)
		pd_profile_note(p,
				"the CPU deltas are all zero: using wall-clock"
				" sample weights");
	p->unit = PD_UNIT_NS;
	p->interval = s->ctxs.n ? s->ctxs.v[0].interval * 1e6 : 1e6;
	free(p->count_rule);
	p->count_rule = pd_xstrdup(
	    want_cpu ? "weights = CPU time (threadCPUDelta); sample counts ="
		       " CPU time / sampling interval"
		     : "weights = samples x sampling interval (wall clock,"
		       " off-CPU included); sample counts = samples");
	if (o->weight_mode != 1 && any_cpu && !all_cpu)
		pd_profile_note(
		    p, "some threads have no CPU deltas: using wall-clock"
		       " sample weights for all");
	pd_profile_finish(p);
	symbolicate(s, &pend);
	frame_w = pd_xcalloc(p->frames.n + 1, sizeof(double));
	for (i = 1; i < p->nodes.n; i++)
		frame_w[p->nodes.v[i].frame] += p->nodes.v[i].weight;
	unsym_report(s, &pend, frame_w);
	free(frame_w);
	free(p->exporter);
	p->exporter = pd_xstrdup(s->ctxs.n && s->ctxs.v[0].processed_version > 0
				     ? "Firefox Profiler processed format"
				     : "Firefox Gecko format");
	if (!used)
		pd_profile_note(p, "no thread had samples%s",
				o->thread || o->process ? " after filtering"
							: "");
out:
	free(shared_frames);
	PD_VEC_FREE(&pend.v);
	PD_VEC_FREE(&pend.of_frame);
	return rc;
}

int pd_firefox_import(struct pd_input *in, struct pd_profile *p,
		      const struct pd_import_opts *o, struct pd_err *err)
{
	struct ff s;
	struct pd_json_stream js;
	yajl_handle h;
	size_t i;
	int rc = 0, k;

	memset(&s, 0, sizeof(s));
	memset(&js, 0, sizeof(js));
	s.p = p;
	s.o = o;
	s.in = in;
	s.err = err;
	s.depth = -1;
	h = yajl_alloc(&callbacks, NULL, &s);
	if (!h)
		pd_die_oom(0);
	/* insta snapshots of samply's writer carry a YAML header: skip it */
	js.h = h;
	js.failed = &s.failed;
	js.path = json_path;
	js.arg = &s;
	js.yaml_header = 1;
	rc = pd_json_stream_run(&js, in, err);
	if (rc)
		goto out;
	if (!s.saw_meta || !s.threads.n) {
		rc = pd_err_set(err, PD_EFORMAT,
				"%s: not a Firefox profile: %s", in->path,
				!s.saw_meta ? "no \"meta\"" : "no \"threads\"");
		goto out;
	}
	for (i = 0; i < s.ctxs.n; i++) {
		double v = s.ctxs.v[i].processed_version;

		if (v > 70) {
			rc = pd_err_set(
			    err, PD_EFORMAT,
			    "%s: $.meta.preprocessedProfileVersion: %g"
			    " is newer than this perfdiff reads (up to"
			    " 70); upgrade perfdiff or save the profile"
			    " again from an older Firefox Profiler",
			    in->path, v);
			goto out;
		}
	}
	for (i = 0; i < s.threads.n; i++) {
		struct thread *t = &s.threads.v[i];
		const char *missing = NULL;

		if (!col_len(get_col(&t->t[T_SAMPLES], "stack")))
			continue; /* no samples: nothing to resolve */
		if (!t->t[T_STACK].have && !s.shared[T_STACK].have)
			missing = "stackTable";
		else if (!t->t[T_FRAME].have && !s.shared[T_FRAME].have)
			missing = "frameTable";
		else if (!t->has_strings && !s.has_shared_strings)
			missing = "stringArray";
		if (missing) {
			rc = pd_err_set(
			    err, PD_EPARSE,
			    "%s: $.threads[%zu] (\"%s\"): no %s, in the"
			    " thread or in $.shared",
			    in->path, i, t->name ? t->name : "?", missing);
			goto out;
		}
	}
	rc = resolve(&s);
out:
	yajl_free(h);
	for (i = 0; i < s.threads.n; i++) {
		struct thread *t = &s.threads.v[i];
		size_t j;

		for (k = 0; k < T_NTABLES; k++)
			table_release(&t->t[k]);
		PD_VEC_FREE(&t->strings);
		for (j = 0; j < t->libs.n; j++)
			lib_release(&t->libs.v[j]);
		PD_VEC_FREE(&t->libs);
		free(t->name);
		free(t->process);
		free(t->pid);
		free(t->tid);
	}
	PD_VEC_FREE(&s.threads);
	for (i = 0; i < s.ctxs.n; i++) {
		size_t j;

		for (j = 0; j < s.ctxs.v[i].libs.n; j++)
			lib_release(&s.ctxs.v[i].libs.v[j]);
		PD_VEC_FREE(&s.ctxs.v[i].libs);
	}
	PD_VEC_FREE(&s.ctxs);
	for (k = 0; k < T_NTABLES; k++)
		table_release(&s.shared[k]);
	PD_VEC_FREE(&s.shared_strings);
	return rc;
}
