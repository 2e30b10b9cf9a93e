/*
 * The body lines of a callgrind or cachegrind file (docs/formats.md,
 * "Callgrind and Cachegrind"): cost lines, the names of objects, files and
 * functions with their ids, and calls; they build the call graph
 * (callgrind_int.h). callgrind.c reads the file and its header lines.
 */
#include <stdio.h>
#include <stdarg.h>
#include <ctype.h>

#include "core/xalloc.h"
#include "import/callgrind/callgrind_int.h"

int pd_cg_fail(struct cg_reader *s, const char *fmt, ...)
{
	char what[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return pd_err_set(s->err, PD_EPARSE, "%s:%zu: %s", s->in->path,
			  s->lines.lineno, what);
}

/* Numbers and positions. */

static int ends_token(char c)
{
	return c == '\0' || c == ' ' || c == '\t';
}

static int is_hex(char c)
{
	return cg_is_digit(c) || (c >= 'a' && c <= 'f') ||
	       (c >= 'A' && c <= 'F');
}

/* A subposition: absolute (decimal or 0x hex), +N, -N or '*'. */
static const char *subpos(const char *s)
{
	const char *d;

	if (*s == '*')
		return ends_token(s[1]) ? s + 1 : NULL;
	if (*s == '+' || *s == '-')
		s++;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		for (d = s + 2; is_hex(*d); d++)
			;
		return d > s + 2 && ends_token(*d) ? d : NULL;
	}
	for (d = s; cg_is_digit(*d); d++)
		;
	return d > s && ends_token(*d) ? d : NULL;
}

/* A decimal count; NULL when s holds none or it overflows 64 bits. */
static const char *count(const char *s, uint64_t *v)
{
	uint64_t x = 0;
	const char *d;

	for (d = s; *d >= '0' && *d <= '9'; d++) {
		unsigned c = (unsigned)(*d - '0');

		if (x > (UINT64_MAX - c) / 10)
			return NULL;
		x = x * 10 + c;
	}
	if (d == s || !ends_token(*d))
		return NULL;
	*v = x;
	return d;
}

int pd_cg_costs(struct cg_reader *s, const char *c, uint64_t *v)
{
	int i;

	*v = 0;
	for (i = 0; *(c = cg_blanks(c)); i++) {
		uint64_t x;
		const char *e = count(c, &x);

		if (!e)
			return pd_cg_fail(
			    s,
			    "a cost must be a whole number of at most"
			    " 64 bits: \"%.40s\"%s",
			    c,
			    strchr("*+-", *c)
				? " (only positions may be written * or"
				  " relative)"
				: "");
		if (i >= s->nev)
			return pd_cg_fail(s,
					  "more costs than the %d events of the"
					  " events: line",
					  s->nev);
		if (i == s->ev)
			*v = x;
		c = e;
	}
	return 0;
}

/* Positions then costs: the chosen event's cost in *v. */
static int cost_line(struct cg_reader *s, const char *c, uint64_t *v)
{
	int i;

	if (!s->seen_events)
		return pd_cg_fail(s, "a cost line before the events: line");
	for (i = 0; i < s->npos; i++) {
		const char *e = subpos(c = cg_blanks(c));

		if (!e)
			return pd_cg_fail(
			    s,
			    "a position must be a number, +N, -N or"
			    " *: \"%.40s\"",
			    *c ? c : "(none)");
		c = e;
	}
	if (*cg_blanks(c))
		s->costed_lines++;
	return pd_cg_costs(s, c, v);
}

/* Names and the graph. */

/* A sum past 64 bits is no real run's: it stays at the largest. */
static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/*
 * A function's name without callgrind's context: "walk'2" (a recursion
 * level, --separate-recs) and "hash'render'main" (its callers,
 * --separate-callers) are walk and hash. The cut is the first quote
 * outside brackets, so that a C++ 'a' or a Rust &'a T inside <> stays;
 * the < and > of operator<, operator<< and operator-> are no brackets.
 */
static size_t plain_len(const char *s, size_t n)
{
	size_t i;
	int depth = 0;

	for (i = 0; i < n; i++) {
		if (i >= 8 && !memcmp(s + i - 8, "operator", 8))
			while (i < n && s[i] && strchr("<>=-!+*/%^&|~", s[i]))
				i++;
		if (i == n)
			break;
		if (s[i] == '\'' && !depth && i)
			return i;
		if (strchr("(<[{", s[i]))
			depth++;
		else if (strchr(")>]}", s[i]) && depth)
			depth--;
	}
	return n;
}

/*
 * The raw name a spec line gives: "name", "(id) name", which also names
 * id, or "(id)", a name given before. The spec says a name in the
 * compressed form starts with "(" and a digit; others are names as they
 * are, "(below main)" among them. An empty object or file name is none
 * (CG_NONE): "cfl=" with nothing after it takes back an earlier cfl=, as
 * callgrind_annotate and KCachegrind read it; a function needs a name.
 */
static int name_of(struct cg_reader *s, int kind, const char *v, uint32_t *out)
{
	const char *d = v + 1;

	if (!*v && kind != CG_FN) {
		*out = CG_NONE;
		return 0;
	}

	if (v[0] == '(' && isdigit((unsigned char)v[1])) {
		while (isdigit((unsigned char)*d))
			d++;
		if (*d == ')' && (!d[1] || d[1] == ' ')) {
			size_t n = (size_t)(d - v - 1);
			uint32_t slot;

			if (!d[1]) {
				slot = pd_intern_find(&s->ids[kind], v + 1, n);
				if (slot == UINT32_MAX)
					return pd_cg_fail(
					    s,
					    "%.40s refers to no name"
					    " given before",
					    v);
				*out = s->idname[kind].v[slot];
				return 0;
			}
			if (!d[2])
				return pd_cg_fail(
				    s, "%.40s gives an empty name", v);
			slot = pd_intern(&s->ids[kind], v + 1, n);
			PD_VEC_RESERVE(&s->idname[kind], (size_t)slot + 1);
			while (s->idname[kind].n <= slot)
				s->idname[kind].v[s->idname[kind].n++] =
				    CG_NONE;
			*out = s->idname[kind].v[slot] =
			    pd_intern_cstr(&s->raw, d + 2);
			return 0;
		}
	}
	if (!*v)
		return pd_cg_fail(s, "an empty function name");
	*out = pd_intern_cstr(&s->raw, v);
	return 0;
}

/* The graph function of (object, file, name), made when first seen. */
static uint32_t fn_index(struct cg_reader *s, uint32_t ob, uint32_t fl,
			 uint32_t fn)
{
	uint32_t key[3], id;

	key[0] = ob;
	key[1] = fl;
	key[2] = fn;
	id = pd_intern(&s->fnkeys, (const char *)key, sizeof(key)) - 1;
	if (id == s->g.fns.n) {
		struct cg_fn f;
		const char *name = pd_intern_str(&s->raw, fn);
		const char *obj =
		    ob == CG_NONE ? "" : pd_intern_str(&s->raw, ob);

		memset(&f, 0, sizeof(f));
		f.name = pd_intern(&s->p->strs, name,
				   plain_len(name, pd_intern_len(&s->raw, fn)));
		/* valgrind writes ??? for code in no known object */
		if (*obj && strcmp(obj, "???"))
			f.module = pd_intern_cstr(&s->p->strs, obj);
		f.frame = PD_NO_FRAME;
		PD_VEC_PUSH(&s->g.fns, f);
	}
	return id;
}

static void add_call(struct cg_reader *s, uint32_t from, uint32_t to,
		     uint64_t cost)
{
	uint32_t key[2], id;

	key[0] = from;
	key[1] = to;
	id = pd_intern(&s->arckeys, (const char *)key, sizeof(key)) - 1;
	if (id == s->g.arcs.n) {
		struct cg_arc a;

		a.from = from;
		a.to = to;
		a.cost = 0;
		PD_VEC_PUSH(&s->g.arcs, a);
	}
	s->g.arcs.v[id].cost = add_sat(s->g.arcs.v[id].cost, cost);
}

/* "calls=COUNT TARGET": the next cost line is the calls' inclusive cost. */
static int on_calls(struct cg_reader *s, const char *v)
{
	uint64_t n;
	const char *c = count(v, &n);
	int i;

	if (!c)
		return pd_cg_fail(s, "calls= wants a count, not \"%.40s\"", v);
	/* the target's position, which some writers leave out */
	for (i = 0; i < s->npos && *(c = cg_blanks(c)); i++) {
		c = subpos(c);
		if (!c)
			return pd_cg_fail(
			    s,
			    "calls= wants a count and the target's"
			    " position: \"%.60s\"",
			    v);
	}
	if (*cg_blanks(c))
		return pd_cg_fail(s,
				  "calls= has more than a count and a position:"
				  " \"%.60s\"",
				  v);
	if (s->callee == CG_NONE)
		return pd_cg_fail(s, "calls= with no cfn= before it");
	s->calling = 1;
	return 0;
}

/* The graph function cost lines go to, looked up once per fn=. */
static int current(struct cg_reader *s, uint32_t *fn)
{
	if (s->fn == CG_NONE)
		return pd_cg_fail(s, "a cost line before any fn= line");
	if (s->cur == CG_NONE)
		s->cur = fn_index(s, s->ob, s->fl, s->fn);
	*fn = s->cur;
	return 0;
}

int pd_cg_spec(struct cg_reader *s, const char *k, size_t n, const char *v)
{
	uint32_t id = 0; /* set by name_of; gcc for Windows cannot tell */

	if (cg_word_is(k, n, "fn") || cg_word_is(k, n, "ob") ||
	    cg_word_is(k, n, "fl")) {
		int kind = k[0] == 'f' ? (k[1] == 'n' ? CG_FN : CG_FL) : CG_OB;

		if (name_of(s, kind, v, &id) < 0)
			return s->err->code;
		if (kind == CG_FN)
			s->fn = id;
		else if (kind == CG_OB)
			s->ob = id;
		else
			s->fl = s->pos_fl = id;
		s->cur = CG_NONE;
		s->c_ob = s->c_fl = s->callee = CG_NONE;
		return 0;
	}
	if (cg_word_is(k, n, "fi") || cg_word_is(k, n, "fe")) {
		/* inlined code: the file changes, the function does not */
		return name_of(s, CG_FL, v, &s->pos_fl) < 0 ? s->err->code : 0;
	}
	if (cg_word_is(k, n, "cob"))
		return name_of(s, CG_OB, v, &s->c_ob) < 0 ? s->err->code : 0;
	if (cg_word_is(k, n, "cfi") || cg_word_is(k, n, "cfl"))
		return name_of(s, CG_FL, v, &s->c_fl) < 0 ? s->err->code : 0;
	if (cg_word_is(k, n, "cfn")) {
		if (name_of(s, CG_FN, v, &id) < 0)
			return s->err->code;
		/* cob= and cfi= name the callee of this cfn= only */
		s->callee =
		    fn_index(s, s->c_ob != CG_NONE ? s->c_ob : s->ob,
			     s->c_fl != CG_NONE ? s->c_fl : s->pos_fl, id);
		s->c_ob = s->c_fl = CG_NONE;
		return 0;
	}
	if (cg_word_is(k, n, "calls"))
		return on_calls(s, v);
	/* names of jumps and of the caller context: ids to remember */
	if (cg_word_is(k, n, "jfi"))
		return name_of(s, CG_FL, v, &id) < 0 ? s->err->code : 0;
	if (cg_word_is(k, n, "jfn") || cg_word_is(k, n, "frfn"))
		return name_of(s, CG_FN, v, &id) < 0 ? s->err->code : 0;
	/* jumps (their next line is a position without cost), levels */
	if (cg_word_is(k, n, "jump") || cg_word_is(k, n, "jcnd") ||
	    cg_word_is(k, n, "rec") || cg_word_is(k, n, "ln") ||
	    cg_word_is(k, n, "bb"))
		return 0;
	if (!s->unknown++)
		s->unknown_line = s->lines.lineno;
	return 0;
}

int pd_cg_cost(struct cg_reader *s, const char *line)
{
	uint64_t v;
	uint32_t fn = CG_NONE;

	if (cost_line(s, line, &v) < 0 || current(s, &fn) < 0)
		return s->err->code;
	s->cost_lines++;
	s->nonzero_lines += v != 0;
	if (s->calling) {
		s->calling = 0;
		if (v)
			add_call(s, fn, s->callee, v);
		return 0;
	}
	s->has_costs = 1;
	s->part_sum = add_sat(s->part_sum, v);
	s->g.fns.v[fn].self = add_sat(s->g.fns.v[fn].self, v);
	return 0;
}
