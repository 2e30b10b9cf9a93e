/*
 * Firefox Profiler formats (docs/formats.md, "samply and the Firefox
 * Profiler"): the processed format samply writes (versions 24 to 70: tables per
 * thread before v60, in "shared" from v60, prefixOffset from v66) and the raw
 * Gecko format with its schema/data tables, including DevTools recordings that
 * wrap it.
 *
 * The stream is read with yajl into column tables; keys come in any order,
 * so everything is resolved when the document ends: sample columns become
 * per-stack sums, stacks become tree nodes, frames become functions, and
 * frames that carry only an address are symbolicated offline in one batch
 * per library. Memory holds the tables, never the JSON text.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl_parse.h>
#include <cJSON.h>

#include "core/buf.h"
#include "import/firefox/firefox_int.h"
#include "import/formats.h"
#include "import/json.h"

static int fail(struct ff_state *s, const char *what)
{
	return pd_json_walk_fail(&s->w, what);
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
		{ "stack", "weight", "threadCPUDelta", "time", "timeDeltas",
		  NULL },
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

static struct ff_col *new_col(struct ff_table *t, const char *name, int pos)
{
	struct ff_col *c;

	if (t->n >= FF_MAXCOL)
		return NULL;
	c = &t->c[t->n++];
	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->pos = pos;
	return c;
}

/*
 * What a value of table's column col must be (FF_CHECK_*): a stack,
 * prefix, prefix offset or frame is an index (an integer from 0) or
 * null, a sample's weight a number from 0 or null. Decided once a
 * column: it was a fifth of a large profile's reading a value at a time.
 */
static int value_check(int table, const char *col)
{
	if ((table == T_SAMPLES && !strcmp(col, "stack")) ||
	    (table == T_STACK &&
	     (!strcmp(col, "prefix") || !strcmp(col, "prefixOffset") ||
	      !strcmp(col, "frame"))))
		return FF_CHECK_INDEX;
	if (table == T_SAMPLES && !strcmp(col, "weight"))
		return FF_CHECK_WEIGHT;
	return FF_CHECK_NONE;
}

static struct ff_col *col_at(struct ff_table *t, int pos)
{
	int i;

	for (i = 0; i < t->n; i++)
		if (t->c[i].pos == pos)
			return &t->c[i];
	return new_col(t, "", pos);
}

static void lib_release(struct ff_lib *l)
{
	free(l->name);
	free(l->path);
	free(l->debug_name);
	free(l->debug_path);
	free(l->breakpad_id);
	free(l->code_id);
}

#define TOP(s) (&(s)->lv[(s)->w.depth])

static void value_start(struct ff_state *s)
{
	pd_json_walk_value(&s->w);
}

static struct ff_thread *cur_thread(struct ff_state *s)
{
	return &s->threads.v[s->threads.n - 1];
}

static struct ff_table *table_for(struct ff_state *s, int in_shared, int t)
{
	return in_shared ? &s->shared[t] : &cur_thread(s)->t[t];
}

static enum ff_role child_role(struct ff_state *s, int is_map, int *table,
			       int *shared)
{
	const char *k = TOP(s)->j.key;
	enum ff_role r = TOP(s)->r;
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

static int open_container(void *arg, int is_map)
{
	struct ff_state *s = arg;
	enum ff_role r;
	int table = -1, shared = 0, rc;

	if (pd_json_walk_enter(&s->w, is_map, &rc))
		return rc;
	if (s->w.depth < 0) {
		r = R_ROOT;
	} else {
		r = child_role(s, is_map, &table, &shared);
		if (r == R_SKIP) {
			/* an unused column (the samples' times): scan passes
			 * over its numbers faster than yajl */
			s->w.scan_here = !is_map;
			return pd_json_walk_skip(&s->w);
		}
	}
	if (!pd_json_walk_push(&s->w, is_map))
		return 0;
	TOP(s)->r = r;
	TOP(s)->col = NULL;
	TOP(s)->ctx = s->w.depth > 0 ? s->lv[s->w.depth - 1].ctx : 0;
	TOP(s)->table = s->w.depth > 0 ? s->lv[s->w.depth - 1].table : -1;
	TOP(s)->tab = s->w.depth > 0 ? s->lv[s->w.depth - 1].tab : NULL;
	switch (r) {
	case R_ROOT: {
		struct ff_ctx c;

		memset(&c, 0, sizeof(c));
		c.interval = 1;
		PD_VEC_PUSH(&s->ctxs, c);
		TOP(s)->ctx = s->ctxs.n - 1;
		if (s->w.depth > 0 &&
		    !strcmp(s->lv[s->w.depth - 1].j.key, "profile"))
			s->wrapper = 1;
		break;
	}
	case R_THREAD: {
		struct ff_thread t;

		memset(&t, 0, sizeof(t));
		t.ctx = TOP(s)->ctx;
		PD_VEC_PUSH(&s->threads, t);
		break;
	}
	case R_LIB: {
		struct ff_lib l;
		int per_thread = s->lv[s->w.depth - 2].r == R_THREAD;

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
		pd_ff_table_release(TOP(s)->tab);
		TOP(s)->tab->have = 1;
		TOP(s)->tab->nschema = 0;
		if (table == T_SAMPLES) {
			TOP(s)->tab->blk = &s->blk;
			TOP(s)->tab->nbkeys = &s->nbkeys;
		}
		break;
	case R_COL: {
		struct ff_col *c =
		    new_col(TOP(s)->tab, s->lv[s->w.depth - 1].j.key, -1);
		const struct ff_col *st;

		if (!c)
			return fail(s, "too many columns");
		TOP(s)->col = c;
		c->check = value_check(TOP(s)->table, c->name);
		st = ff_get_col(TOP(s)->tab, "stack");
		if (TOP(s)->table == T_SAMPLES && st && st != c) {
			/* the stacks are known: sum, not store */
			c->fold = pd_ff_fold_kind(c->name);
			c->fold_stack = st;
			if (c->fold == 1)
				TOP(s)->tab->wfolded = 1;
			else if (c->fold == 2)
				TOP(s)->tab->cfolded = 1;
			else if (c->fold >= 3)
				TOP(s)->tab->tfolded = 1;
		}
		s->w.scan_here = 1; /* scan reads its numbers */
		break;
	}
	case R_STRINGS:
		if (s->lv[s->w.depth - 1].r == R_SHARED) {
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

static int cb_end(void *ctx)
{
	struct ff_state *s = ctx;

	if (pd_json_walk_skip_close(&s->w))
		return 1;
	return pd_json_walk_pop(&s->w);
}

static int cb_key(void *ctx, const unsigned char *k, size_t n)
{
	struct ff_state *s = ctx;

	if (!s->w.skip)
		pd_json_walk_key(&s->w, k, n);
	return 1;
}

static char **lib_field(struct ff_lib *l, const char *k)
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

static struct ff_lib *cur_lib(struct ff_state *s)
{
	int per_thread = s->lv[s->w.depth - 2].r == R_THREAD;

	if (per_thread)
		return &cur_thread(s)->libs.v[cur_thread(s)->libs.n - 1];
	return &s->ctxs.v[TOP(s)->ctx]
		    .libs.v[s->ctxs.v[TOP(s)->ctx].libs.n - 1];
}

/* A value of a table: a column's next, or a Gecko row's field. */
static void table_value(struct ff_state *s, enum ff_role r, double d)
{
	struct ff_col *c;

	if (r == R_COL) {
		c = TOP(s)->col;
		if (!c->fold)
			pd_ff_col_push(c, d);
		else
			pd_ff_fold_value(
			    TOP(s)->tab, c->fold_stack, c->fold, c->len++,
			    c->fold >= 3 ? pd_ff_sample_time(TOP(s)->tab,
							     c->fold == 4, d)
					 : d);
		return;
	}
	if (TOP(s)->j.idx >= FF_MAXCOL * 4)
		return;
	c = col_at(TOP(s)->tab, (int)TOP(s)->j.idx);
	if (!c)
		return;
	/* Pad rows that were shorter. */
	while (c->len < (size_t)s->lv[s->w.depth - 1].j.idx)
		pd_ff_col_push(c, PD_NAN);
	pd_ff_col_push(c, d);
}

/* Gecko v3 and older: "libs" is a JSON string holding the array. */
static int libs_from_string(struct ff_state *s, const char *text, size_t n)
{
	char *copy = pd_xstrndup(text, n);
	cJSON *a = cJSON_Parse(copy), *e;
	struct ff_ctx *c = &s->ctxs.v[TOP(s)->ctx];

	free(copy);
	if (!cJSON_IsArray(a)) {
		cJSON_Delete(a);
		return fail(s, "libs is a string but not a JSON array");
	}
	cJSON_ArrayForEach(e, a)
	{
		struct ff_lib l;
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

/* The name of the column a Gecko row's field at pos is, or "". */
static const char *schema_name_at(const struct ff_table *t, long pos)
{
	int j;

	for (j = 0; j < t->nschema; j++)
		if (t->schema_pos[j] == pos)
			return t->schema_name[j];
	return "";
}

/*
 * Why a value of a column checked as check is wrong, or NULL: a string,
 * a fraction or a negative number is refused where it is, not taken as
 * null or as the index it rounds to.
 */
static const char *bad_value(int check, const char *str, double d)
{
	int index = check == FF_CHECK_INDEX;

	if (check == FF_CHECK_NONE)
		return NULL;
	if (str)
		return index ? "an index is a number, not a string"
			     : "a weight is a number, not a string";
	if (isnan(d))
		return NULL; /* null */
	if (index && (d < 0 || d - floor(d) > 0 || isinf(d)))
		return "not an index (an integer from 0, or null)";
	if (!index && d < 0)
		return "a negative weight";
	if (!index && isinf(d))
		return "a weight too large";
	return NULL;
}

/* A scalar of meta: the interval, the versions, whether symbolicated. */
static int meta_scalar(struct ff_state *s, const char *k, double d,
		       const char *str)
{
	struct ff_ctx *c = &s->ctxs.v[TOP(s)->ctx];

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

/* A scalar of one library: its names and its address range. */
static int lib_scalar(struct ff_state *s, const char *k, double d,
		      const char *str, size_t n)
{
	struct ff_lib *l = cur_lib(s);
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

/* A scalar of a thread: its name, process, pid and tid, the first seen. */
static int thread_scalar(struct ff_state *s, const char *k, double d,
			 const char *str, size_t n)
{
	struct ff_thread *t = cur_thread(s);
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

/* A column's value: nearly every value of a large profile. */
static inline int col_value(struct ff_state *s, double d, const char *str)
{
	const char *why = bad_value(TOP(s)->col->check, str, d);

	if (why)
		return fail(s, why);
	table_value(s, R_COL, str ? PD_NAN : d);
	return 1;
}

static int on_scalar(struct ff_state *s, double d, const char *str, size_t n)
{
	enum ff_role r = TOP(s)->r;
	const char *k = TOP(s)->j.key;

	if (r == R_COL)
		return col_value(s, d, str);
	switch (r) {
	case R_META:
		return meta_scalar(s, k, d, str);
	case R_UNITS:
		if (!strcmp(k, "threadCPUDelta") && str) {
			struct ff_ctx *c = &s->ctxs.v[TOP(s)->ctx];

			snprintf(c->cpu_unit, sizeof(c->cpu_unit), "%.*s",
				 (int)n, str);
		}
		return 1;
	case R_ROOT:
		if (!strcmp(k, "libs") && str)
			return libs_from_string(s, str, n);
		return 1;
	case R_LIB:
		return lib_scalar(s, k, d, str, n);
	case R_THREAD:
		return thread_scalar(s, k, d, str, n);
	case R_TABLE:
		if (!strcmp(k, "weightType") && str)
			snprintf(TOP(s)->tab->weight_type,
				 sizeof(TOP(s)->tab->weight_type), "%.*s",
				 (int)n, str);
		return 1;
	case R_SCHEMA: {
		struct ff_table *t = TOP(s)->tab;

		if (!str && t->nschema < FF_MAXCOL && d >= 0 && d < 1000) {
			size_t kl = strlen(k);

			if (kl > 23) /* longer schema names are not ours */
				kl = 23;
			memcpy(t->schema_name[t->nschema], k, kl);
			t->schema_name[t->nschema][kl] = '\0';
			t->schema_pos[t->nschema++] = (int)d;
		}
		return 1;
	}
	case R_ROW: {
		const char *why = bad_value(
		    value_check(TOP(s)->table,
				schema_name_at(TOP(s)->tab, TOP(s)->j.idx)),
		    str, d);

		if (why)
			return fail(s, why);
		table_value(s, r, str ? PD_NAN : d);
		return 1;
	}
	case R_STRINGS: {
		int shared = s->lv[s->w.depth - 1].r == R_SHARED ||
			     (s->lv[s->w.depth - 1].r == R_STRTABLE &&
			      s->lv[s->w.depth - 2].r == R_SHARED);
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
static int scalar(struct ff_state *s, double d, const char *str, size_t n)
{
	if (s->w.skip)
		return 1;
	value_start(s);
	if (s->w.depth < 0)
		return fail(s, "not a Firefox profile");
	return on_scalar(s, d, str, n);
}

static int cb_number(void *ctx, const char *v, size_t n)
{
	struct ff_state *s = ctx;
	double d;

	if (s->w.skip)
		return 1;
	if (n >= 64) {
		value_start(s);
		return fail(s, "number too long");
	}
	if (!pd_json_number(v, n, &d)) /* 1e999: as strtod gives it */
		d = n && v[0] == '-' ? -HUGE_VAL : HUGE_VAL;
	return scalar(s, d, NULL, 0);
}

static int cb_string(void *ctx, const unsigned char *v, size_t n)
{
	return scalar(ctx, PD_NAN, (const char *)v, n);
}

/* null (-1), false (0) or true (1) */
static int cb_literal(void *ctx, int v)
{
	return scalar(ctx, v < 0 ? PD_NAN : v, NULL, 0);
}

/* A number read by scan: as cb_number takes it, parsed already. */
static int scan_number(void *ctx, const char *v, size_t n, double d)
{
	struct ff_state *s = ctx;

	(void)v;
	(void)n;
	if (s->w.skip)
		return 1;
	/* the columns' numbers straight to their column */
	if (s->w.depth >= 0 && TOP(s)->r == R_COL) {
		value_start(s);
		return col_value(s, d, NULL);
	}
	return scalar(s, d, NULL, 0);
}

/*
 * A column's elements (pd_json_events.scan): the numbers and nulls of a
 * samples or stack table are most of a profile, and read here without
 * yajl.
 */
static size_t scan(void *arg, const char *p, size_t n, uint64_t off, int *more)
{
	static const struct pd_json_scalars cb = { scan_number, cb_literal };
	struct ff_state *s = arg;

	return pd_json_scan_scalars(&s->w, p, n, off, more, &cb, s);
}

static const struct pd_json_events events = {
	NULL,	cb_string, cb_key,     open_container,
	cb_end, cb_number, cb_literal, scan,
};

/* ---- resolution ---- */

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

int pd_firefox_import(struct pd_input *in, struct pd_profile *p,
		      const struct pd_import_opts *o, struct pd_err *err)
{
	struct ff_state s;
	struct pd_json_stream js;
	size_t i;
	int rc = 0, k;

	memset(&s, 0, sizeof(s));
	s.p = p;
	s.o = o;
	s.in = in;
	s.err = err;
	pd_json_walk_init(&s.w, s.lv, sizeof(s.lv[0]), FF_MAXDEPTH,
			  "PD_LIMIT_JSON_DEPTH", in->path, err);
	s.w.top = "a Firefox profile";
	pd_json_stream_events(&js, &events, &s, &s.w);
	/* insta snapshots of samply's writer carry a YAML header: skip it */
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
		struct ff_thread *t = &s.threads.v[i];
		const char *missing = NULL;

		if (!ff_col_len(ff_get_col(&t->t[T_SAMPLES], "stack")))
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
	rc = pd_firefox_resolve(&s);
out:
	yajl_free(js.h);
	for (i = 0; i < s.threads.n; i++) {
		struct ff_thread *t = &s.threads.v[i];
		size_t j;

		for (k = 0; k < T_NTABLES; k++)
			pd_ff_table_release(&t->t[k]);
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
		pd_ff_table_release(&s.shared[k]);
	PD_VEC_FREE(&s.shared_strings);
	PD_VEC_FREE(&s.waits);
	pd_blocks_release(&s.blk);
	return rc;
}
