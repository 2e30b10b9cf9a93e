/*
 * samply's *.syms.json sidecar and debug ids (docs/symbols.md). ELF
 * symbol tables are elf.c; finding the build's files symfind.c; the
 * external symbolizers symbolizer.c.
 *
 * The sidecar is read as a stream: the strings are kept in one pool, each
 * library's known addresses as (address, symbol-table index) pairs and its
 * symbol table as string indices, resolved once the library's object
 * ends, so the keys may come in any order. Memory is the strings and 16
 * bytes an address, never a tree of the document (a 150 MB sidecar parsed
 * whole took 6.5 GB, and under a memory limit was "not a symbol file").
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/limits.h"
#include "core/buf.h"
#include "core/file.h"
#include "core/input.h"
#include "core/sort.h"
#include "core/vec.h"
#include "import/json.h"
#include "import/symbols/symbols.h"

void pd_debugid_norm(const char *in, char out[42])
{
	char d[64];
	size_t n = 0, i, k;

	out[0] = '\0';
	if (!in)
		return;
	for (; *in && n < sizeof(d); in++)
		if (isxdigit((unsigned char)*in))
			d[n++] = (char)toupper((unsigned char)*in);
	if (n < 32 || n > 40)
		return; /* not a GUID/UUID with an age of at most 8 digits */
	memcpy(out, d, 32);
	/* The age in hex without leading zeros, "0" for none. */
	for (i = 32; i + 1 < n && d[i] == '0'; i++)
		;
	for (k = 32; i < n; i++)
		out[k++] = d[i];
	if (k == 32)
		out[k++] = '0';
	out[k] = '\0';
}

#define SC_MAX_DEPTH PD_LIMIT_JSON_DEPTH
#define SC_NO_SYMBOL UINT32_MAX

struct sc_lib {
	char *debug_name;
	char id[42];
	uint64_t *addr; /* known addresses, sorted */
	uint32_t *sym;	/* their symbol's string index */
	size_t n;
};

struct pd_sidecar {
	struct pd_buf pool; /* the string table, NUL-separated */
	PD_VEC(size_t) str; /* offsets into pool */
	PD_VEC(struct sc_lib) libs;
};

/* What a container is, from where it sits. */
enum sc_ctx {
	C_OTHER,
	C_ROOT,
	C_STRINGS, /* $.string_table */
	C_DATA,	   /* $.data */
	C_LIB,	   /* $.data[i] */
	C_SYMTAB,  /* $.data[i].symbol_table */
	C_SYMENT,  /* $.data[i].symbol_table[j] */
	C_KNOWN,   /* $.data[i].known_addresses */
	C_PAIR	   /* $.data[i].known_addresses[j] */
};

/* The keys that matter, in the map being read. */
enum sc_key {
	K_OTHER,
	K_STRING_TABLE,
	K_DATA,
	K_DEBUG_NAME,
	K_DEBUG_ID,
	K_SYMBOL_TABLE,
	K_KNOWN_ADDRESSES,
	K_SYMBOL
};

struct sc_level {
	struct pd_json_step j; /* first: the walk reads it */
	enum sc_ctx ctx;
	enum sc_key key; /* in a map: the key being read */
};

/* One library while it is read. */
struct sc_pending {
	char *debug_name, *debug_id;
	PD_VEC(uint64_t) pairs;	 /* address, symbol-table index */
	PD_VEC(uint32_t) symtab; /* string index, SC_NO_SYMBOL when none */
	double pair[2];
	int pair_ok; /* bit i: pair[i] was read */
};

struct sc_reader {
	struct pd_json_stream js;
	struct pd_sidecar *s;
	struct sc_level lv[SC_MAX_DEPTH];
	struct pd_json_walk w;
	int seen_strings, seen_data;
	struct sc_pending lib;
	struct pd_err *err;
	const char *path;
};

static int sc_fail(struct sc_reader *r, const char *what)
{
	return pd_json_walk_fail(&r->w, what);
}

/*
 * A value starts in the innermost container: steps an array's index and
 * returns that container's context and (in a map) the key it is under.
 */
static enum sc_ctx value_in(struct sc_reader *r, enum sc_key *key)
{
	struct sc_level *up;

	*key = K_OTHER;
	if (r->w.depth < 0)
		return C_OTHER;
	pd_json_walk_value(&r->w);
	up = &r->lv[r->w.depth];
	if (up->j.is_map)
		*key = up->key;
	return up->ctx;
}

/* A string table entry: every element keeps its index, "" when odd. */
static void add_string(struct pd_sidecar *s, const unsigned char *v, size_t n)
{
	const unsigned char *nul = v ? memchr(v, '\0', n) : NULL;

	if (nul) /* a name stops at its first NUL, as C reads it */
		n = (size_t)(nul - v);
	PD_VEC_PUSH(&s->str, s->pool.len);
	if (v && n)
		pd_buf_add(&s->pool, v, n);
	pd_buf_add(&s->pool, "", 1);
}

static void lib_reset(struct sc_pending *l)
{
	free(l->debug_name);
	free(l->debug_id);
	l->debug_name = l->debug_id = NULL;
	l->pairs.n = l->symtab.n = 0;
}

static int cmp_pair(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return (x[0] > y[0]) - (x[0] < y[0]);
}

/* A library's object ended: keep it when it names itself. */
static void lib_end(struct sc_reader *r)
{
	struct sc_pending *l = &r->lib;
	struct sc_lib out;
	size_t i, n = 0;

	if (!l->debug_name) {
		lib_reset(l);
		return;
	}
	memset(&out, 0, sizeof(out));
	out.debug_name = l->debug_name;
	l->debug_name = NULL;
	pd_debugid_norm(l->debug_id, out.id);
	/* pairs hold (address, table index); make it (address, string) */
	for (i = 0; i + 1 < l->pairs.n; i += 2) {
		uint64_t t = l->pairs.v[i + 1];

		if (t >= l->symtab.n || l->symtab.v[t] == SC_NO_SYMBOL)
			continue;
		l->pairs.v[2 * n] = l->pairs.v[i];
		l->pairs.v[2 * n + 1] = l->symtab.v[t];
		n++;
	}
	pd_sort(l->pairs.v, n, 2 * sizeof(uint64_t), cmp_pair);
	out.addr = pd_xmalloc((n + 1) * sizeof(*out.addr));
	out.sym = pd_xmalloc((n + 1) * sizeof(*out.sym));
	for (i = 0; i < n; i++) {
		out.addr[i] = l->pairs.v[2 * i];
		out.sym[i] = (uint32_t)l->pairs.v[2 * i + 1];
	}
	out.n = n;
	PD_VEC_PUSH(&r->s->libs, out);
	lib_reset(l);
}

static int sc_open(void *arg, int is_map)
{
	struct sc_reader *r = arg;
	enum sc_key key;
	enum sc_ctx up = value_in(r, &key), ctx = C_OTHER;
	struct sc_level *lv;

	if (r->w.failed)
		return 0;
	if (r->w.depth < 0 && !is_map)
		return sc_fail(r, "not an object");
	if (r->w.depth < 0)
		ctx = C_ROOT;
	else if (up == C_ROOT && !is_map && key == K_STRING_TABLE)
		ctx = C_STRINGS;
	else if (up == C_ROOT && !is_map && key == K_DATA)
		ctx = C_DATA;
	else if (up == C_DATA && is_map)
		ctx = C_LIB;
	else if (up == C_LIB && !is_map && key == K_SYMBOL_TABLE)
		ctx = C_SYMTAB;
	else if (up == C_LIB && !is_map && key == K_KNOWN_ADDRESSES)
		ctx = C_KNOWN;
	else if (up == C_SYMTAB && is_map)
		ctx = C_SYMENT;
	else if (up == C_KNOWN && !is_map)
		ctx = C_PAIR;
	if (up == C_STRINGS)
		add_string(r->s, NULL, 0);
	if (up == C_SYMTAB) /* every entry keeps its index */
		PD_VEC_PUSH(&r->lib.symtab, SC_NO_SYMBOL);
	r->seen_strings |= ctx == C_STRINGS;
	r->seen_data |= ctx == C_DATA;
	if (ctx == C_LIB)
		lib_reset(&r->lib);
	if (ctx == C_PAIR)
		r->lib.pair_ok = 0;
	lv = pd_json_walk_push(&r->w, is_map);
	if (!lv)
		return 0;
	lv->ctx = ctx;
	lv->key = K_OTHER;
	return 1;
}

static int sc_close(void *arg)
{
	struct sc_reader *r = arg;
	struct sc_level *lv = &r->lv[r->w.depth];

	if (r->w.failed)
		return 0;
	if (lv->ctx == C_LIB)
		lib_end(r);
	if (lv->ctx == C_PAIR && r->lib.pair_ok == 3) {
		double a = r->lib.pair[0], t = r->lib.pair[1];

		/*
		 * Compared as doubles before any cast: a negative or huge
		 * number cast to an integer is undefined.
		 */
		if (a >= 0 && a < 18446744073709551616.0 && t >= 0 &&
		    t < 4294967296.0) {
			PD_VEC_PUSH(&r->lib.pairs, (uint64_t)a);
			PD_VEC_PUSH(&r->lib.pairs, (uint64_t)t);
		}
	}
	return pd_json_walk_pop(&r->w);
}

static int sc_key(void *arg, const unsigned char *k, size_t n)
{
	struct sc_reader *r = arg;
	struct sc_level *lv = &r->lv[r->w.depth];
	static const struct {
		enum sc_ctx in;
		enum sc_key key;
		const char *name;
	} keys[] = {
		{ C_ROOT, K_STRING_TABLE, "string_table" },
		{ C_ROOT, K_DATA, "data" },
		{ C_LIB, K_DEBUG_NAME, "debug_name" },
		{ C_LIB, K_DEBUG_ID, "debug_id" },
		{ C_LIB, K_SYMBOL_TABLE, "symbol_table" },
		{ C_LIB, K_KNOWN_ADDRESSES, "known_addresses" },
		{ C_SYMENT, K_SYMBOL, "symbol" },
	};
	size_t i;

	if (r->w.failed)
		return 0;
	lv->key = K_OTHER;
	pd_json_walk_key(&r->w, k, n);
	for (i = 0; i < PD_ARRAY_SIZE(keys); i++)
		if (keys[i].in == lv->ctx && strlen(keys[i].name) == n &&
		    !memcmp(keys[i].name, k, n))
			lv->key = keys[i].key;
	return 1;
}

static int sc_number(void *arg, double v, int integral)
{
	struct sc_reader *r = arg;
	enum sc_key key;
	enum sc_ctx up = value_in(r, &key);

	(void)integral;
	if (r->w.failed)
		return 0;
	if (up == C_SYMENT && key == K_SYMBOL) {
		if (v >= 0 && v < (double)SC_NO_SYMBOL)
			r->lib.symtab.v[r->lib.symtab.n - 1] = (uint32_t)v;
	} else if (up == C_PAIR && r->lv[r->w.depth].j.idx <= 1) {
		int i = (int)r->lv[r->w.depth].j.idx;

		r->lib.pair[i] = v;
		r->lib.pair_ok |= 1 << i;
	} else if (up == C_STRINGS) {
		add_string(r->s, NULL, 0);
	} else if (up == C_SYMTAB) {
		PD_VEC_PUSH(&r->lib.symtab, SC_NO_SYMBOL);
	}
	return 1;
}

static int sc_scalar(void *arg, const unsigned char *v, size_t n)
{
	struct sc_reader *r = arg;
	enum sc_key key;
	enum sc_ctx up = value_in(r, &key);

	if (r->w.failed)
		return 0;
	if (up == C_STRINGS) {
		add_string(r->s, v, n);
	} else if (up == C_SYMTAB) {
		PD_VEC_PUSH(&r->lib.symtab, SC_NO_SYMBOL);
	} else if (v && up == C_LIB && key == K_DEBUG_NAME) {
		free(r->lib.debug_name);
		r->lib.debug_name = pd_xstrndup((const char *)v, n);
	} else if (v && up == C_LIB && key == K_DEBUG_ID) {
		free(r->lib.debug_id);
		r->lib.debug_id = pd_xstrndup((const char *)v, n);
	}
	return 1;
}

static const struct pd_json_events sc_events = {
	sc_number, sc_scalar, sc_key, sc_open, sc_close, NULL, NULL, NULL,
};

void pd_sidecar_free(struct pd_sidecar *s)
{
	size_t i;

	if (!s)
		return;
	pd_buf_release(&s->pool);
	PD_VEC_FREE(&s->str);
	for (i = 0; i < s->libs.n; i++) {
		free(s->libs.v[i].debug_name);
		free(s->libs.v[i].addr);
		free(s->libs.v[i].sym);
	}
	PD_VEC_FREE(&s->libs);
	free(s);
}

/* samply writes <output>.with_extension("syms.json"): the last extension goes.
 */
static char *sidecar_find(const char *profile, struct pd_err *err)
{
	const char *slash = pd_path_sep(profile), *dot;
	const char *suffix[] = { ".syms.json", ".sym.json" };
	size_t i, stem;

	dot = strrchr(slash ? slash : profile, '.');
	stem = dot ? (size_t)(dot - profile) : strlen(profile);
	for (i = 0; i < 4; i++) {
		struct pd_buf b = PD_BUF_INIT;
		struct stat st;

		if (i % 2 == 0)
			pd_buf_add(&b, profile, stem);
		else
			pd_buf_adds(&b, profile);
		pd_buf_adds(&b, suffix[i / 2]);
		if (stat(b.buf, &st) == 0) {
			if (!S_ISREG(st.st_mode))
				pd_err_set(err, PD_EFORMAT,
					   "%s: %s, not a file; refused", b.buf,
					   pd_file_kind(st.st_mode));
			return pd_buf_detach(&b);
		}
		if (errno != ENOENT) {
			pd_err_set(err, PD_EIO, "%s: %s", b.buf,
				   strerror(errno));
			return pd_buf_detach(&b);
		}
		pd_buf_release(&b);
	}
	return NULL;
}

struct pd_sidecar *pd_sidecar_load(const char *profile_path, char **found,
				   struct pd_err *err)
{
	struct sc_reader r;
	struct pd_input in;
	int rc;

	*found = sidecar_find(profile_path, err);
	if (!*found || err->code) /* err becomes a note of the profile's */
		return NULL;
	memset(&r, 0, sizeof(r));
	r.s = pd_xcalloc(1, sizeof(*r.s));
	r.err = err;
	r.path = *found;
	rc = pd_input_open(&in, *found, err);
	if (!rc) {
		pd_json_walk_init(&r.w, r.lv, sizeof(r.lv[0]), SC_MAX_DEPTH,
				  "PD_LIMIT_JSON_DEPTH", *found, err);
		pd_json_stream_events(&r.js, &sc_events, &r, &r.w);
		rc = pd_json_stream_run(&r.js, &in, err);
		yajl_free(r.js.h);
	}
	pd_input_close(&in);
	lib_reset(&r.lib);
	PD_VEC_FREE(&r.lib.pairs);
	PD_VEC_FREE(&r.lib.symtab);
	if (!rc && (!r.seen_strings || !r.seen_data))
		rc = pd_err_set(err, PD_EPARSE,
				"%s: not a samply symbol file (no string_table"
				" and data); ignored",
				*found);
	if (rc) {
		pd_sidecar_free(r.s);
		return NULL;
	}
	return r.s;
}

size_t pd_sidecar_resolve(const struct pd_sidecar *s,
			  const struct pd_libinfo *lib, struct pd_symreq *reqs,
			  size_t n)
{
	char want[42];
	size_t i, got = 0;
	const struct sc_lib *l = NULL;
	const char *dn = lib->debug_name ? lib->debug_name : lib->name;

	pd_debugid_norm(lib->breakpad_id, want);
	for (i = 0; i < s->libs.n && !l && dn; i++)
		if (!strcmp(s->libs.v[i].debug_name, dn) &&
		    (!want[0] || !s->libs.v[i].id[0] ||
		     !strcmp(want, s->libs.v[i].id)))
			l = &s->libs.v[i];
	if (!l)
		return 0;
	for (i = 0; i < n; i++) {
		size_t lo = 0, hi = l->n;

		if (reqs[i].name)
			continue;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;

			if (l->addr[mid] < reqs[i].addr)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < l->n && l->addr[lo] == reqs[i].addr &&
		    l->sym[lo] < s->str.n) {
			reqs[i].name =
			    pd_xstrdup(s->pool.buf + s->str.v[l->sym[lo]]);
			reqs[i].how = "sidecar";
			got++;
		}
	}
	return got;
}
