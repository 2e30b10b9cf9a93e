/*
 * Callgrind and Cachegrind cost files (docs/formats.md, "Callgrind and
 * Cachegrind"): callgrind.out.* and cachegrind.out.*, read line by line
 * into a call graph for one event (callgrind_int.h), which
 * callgrind_tree.c turns into the call tree.
 *
 * Cost lines are self costs of the current function (fn=, in ob= and
 * fl=); the cost line after calls= is the inclusive cost of calls to the
 * function cfn= named (in cob= and cfi=, for that call only). Names may
 * be given an id once, "(7) name", and then be written "(7)"; objects,
 * files and functions each have ids of their own. Positions (line,
 * instruction address, absolute, +N, -N or *) are checked and skipped:
 * costs are summed per function. Several parts (part:) are summed.
 * Counts are exact: the profile is judged by the threshold alone.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/intern.h"
#include "core/xalloc.h"
#include "import/callgrind_int.h"
#include "import/import.h"

#define NONE UINT32_MAX

/* Name spaces of "(id)": objects, files, functions. */
enum { K_OB, K_FL, K_FN, K_N };

struct cg {
	struct pd_profile *p;
	struct pd_input *in;
	const struct pd_import_opts *o;
	struct pd_err *err;
	struct pd_lines lines;
	int cachegrind; /* the file was sniffed as cachegrind's */

	/* names as written, private: objects, files, functions */
	struct pd_intern raw;
	struct pd_intern ids[K_N];    /* "(id)" digits -> slot in idname */
	PD_VEC(uint32_t) idname[K_N]; /* slot -> raw name */
	struct pd_intern fnkeys;      /* (ob, fl, fn) raw ids -> fn + 1 */
	struct pd_intern arckeys;     /* (from, to) -> arc + 1 */
	struct cg_graph g;

	/* where cost lines go */
	uint32_t ob, fl, pos_fl, fn; /* raw names; fn NONE before fn= */
	uint32_t cur;		     /* graph function, NONE until looked up */
	/* the call being described: cob=, cfi= and cfn=, then calls= */
	uint32_t c_ob, c_fl, callee; /* NONE when not given */
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
	unsigned mismatches;
	int version;
	char *creator;
};

static int fail(struct cg *s, const char *what)
{
	return pd_err_set(s->err, PD_EPARSE, "%s:%zu: %s", s->in->path,
			  s->lines.lineno, what);
}

static int failf(struct cg *s, const char *fmt, ...) PD_PRINTF(2, 3);
static int failf(struct cg *s, const char *fmt, ...)
{
	char what[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return fail(s, what);
}

/* Sniffing (docs/formats.md, "recognised by"). */

static int word_is(const char *s, size_t n, const char *w)
{
	return n == strlen(w) && !memcmp(s, w, n);
}

/* The length of a leading lowercase key followed by c ('=' or ':'), or 0. */
static size_t key_len(const char *s, size_t n, char c)
{
	size_t k = 0;

	while (k < n && s[k] >= 'a' && s[k] <= 'z')
		k++;
	return k && k < n && s[k] == c ? k : 0;
}

enum hkey {
	H_NONE,
	H_VERSION,
	H_CREATOR,
	H_PID,
	H_CMD,
	H_PART,
	H_THREAD,
	H_DESC,
	H_POSITIONS,
	H_EVENT,
	H_EVENTS,
	H_SUMMARY,
	H_TOTALS
};

static enum hkey header_key(const char *s, size_t k)
{
	static const char *const keys[] = { "version", "creator",   "pid",
					    "cmd",     "part",	    "thread",
					    "desc",    "positions", "event",
					    "events",  "summary",   "totals" };
	size_t i;

	for (i = 0; i < PD_ARRAY_SIZE(keys); i++)
		if (word_is(s, k, keys[i]))
			return (enum hkey)(i + 1);
	return H_NONE;
}

/* Spec keys only callgrind writes. */
static int callgrind_spec(const char *s, size_t k)
{
	static const char *const keys[] = { "ob",   "cob",   "cfi",  "cfl",
					    "cfn",  "calls", "jump", "jcnd",
					    "jfi",  "jfn",   "fi",   "fe",
					    "frfn", "rec",   "ln",   "bb" };
	size_t i;

	for (i = 0; i < PD_ARRAY_SIZE(keys); i++)
		if (word_is(s, k, keys[i]))
			return 1;
	return 0;
}

/*
 * 2 callgrind, 1 cachegrind, 0 neither: a marker line first, or lines of
 * known header keys up to events: and then body lines. Callgrind's own
 * keys (version:, creator:, positions:, ob=, calls=, ...) tell it apart.
 */
static int valgrind_kind(const char *head, size_t len)
{
	const char *p = head, *end = head + len;
	int events = 0, body = 0, cg = 0, first = 1;

	while (p < end && body < 4) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n, k;

		if (!nl && len == PD_INPUT_HEAD)
			break; /* a cut line says nothing */
		n = (size_t)((nl ? nl : end) - p);
		if (n && p[n - 1] == '\r')
			n--;
		if (first && n && p[0] == '#') {
			if (n >= 18 && !memcmp(p, "# callgrind format", 18))
				return 2;
			if (n >= 19 && !memcmp(p, "# cachegrind format", 19))
				return 1;
		}
		if (n && p[0] != '#') {
			first = 0;
			if ((k = key_len(p, n, ':')) && header_key(p, k)) {
				enum hkey h = header_key(p, k);

				events |= h == H_EVENTS;
				cg |= h == H_VERSION || h == H_PID ||
				      h == H_PART || h == H_THREAD ||
				      h == H_POSITIONS ||
				      (h == H_CREATOR && n > k + 11 &&
				       !memcmp(p + k, ": callgrind", 11));
			} else if (events && (k = key_len(p, n, '='))) {
				body++;
				cg |= callgrind_spec(p, k);
			} else if (events && (isdigit((unsigned char)p[0]) ||
					      p[0] == '+' || p[0] == '-' ||
					      p[0] == '*')) {
				body++;
			} else {
				return 0;
			}
		}
		p = nl ? nl + 1 : end;
	}
	if (!events)
		return 0;
	return cg ? 2 : 1;
}

int pd_callgrind_sniff(const char *head, size_t len)
{
	return valgrind_kind(head, len) == 2;
}

int pd_cachegrind_sniff(const char *head, size_t len)
{
	return valgrind_kind(head, len) == 1;
}

/* Numbers and positions. */

static const char *blanks(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

static int ends_token(char c)
{
	return c == '\0' || c == ' ' || c == '\t';
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int is_hex(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
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
	for (d = s; is_digit(*d); d++)
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

/*
 * Reads the costs from s (after the positions): the chosen event's into
 * *v, 0 when the line stops before it. Fewer costs than events are
 * zeros; more is an error.
 */
static int costs(struct cg *s, const char *c, uint64_t *v)
{
	int i;

	*v = 0;
	for (i = 0; *(c = blanks(c)); i++) {
		uint64_t x;
		const char *e = count(c, &x);

		if (!e)
			return failf(s,
				     "a cost must be a whole number of at most"
				     " 64 bits: \"%.40s\"",
				     c);
		if (i >= s->nev)
			return failf(s,
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
static int cost_line(struct cg *s, const char *c, uint64_t *v)
{
	int i;

	if (!s->seen_events)
		return fail(s, "a cost line before the events: line");
	for (i = 0; i < s->npos; i++) {
		const char *e = subpos(c = blanks(c));

		if (!e)
			return failf(s,
				     "a position must be a number, +N, -N or"
				     " *: \"%.40s\"",
				     *c ? c : "(none)");
		c = e;
	}
	return costs(s, c, v);
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
 * are, "(below main)" among them.
 */
static int name_of(struct cg *s, int kind, const char *v, uint32_t *out)
{
	const char *d = v + 1;

	if (v[0] == '(' && isdigit((unsigned char)v[1])) {
		while (isdigit((unsigned char)*d))
			d++;
		if (*d == ')' && (!d[1] || d[1] == ' ')) {
			size_t n = (size_t)(d - v - 1);
			uint32_t slot;

			if (!d[1]) {
				slot = pd_intern_find(&s->ids[kind], v + 1, n);
				if (slot == UINT32_MAX)
					return failf(s,
						     "%.40s refers to no name"
						     " given before",
						     v);
				*out = s->idname[kind].v[slot];
				return 0;
			}
			if (!d[2])
				return failf(s, "%.40s gives an empty name", v);
			slot = pd_intern(&s->ids[kind], v + 1, n);
			PD_VEC_RESERVE(&s->idname[kind], (size_t)slot + 1);
			while (s->idname[kind].n <= slot)
				s->idname[kind].v[s->idname[kind].n++] = NONE;
			*out = s->idname[kind].v[slot] =
			    pd_intern_cstr(&s->raw, d + 2);
			return 0;
		}
	}
	if (!*v)
		return fail(s, "an empty name");
	*out = pd_intern_cstr(&s->raw, v);
	return 0;
}

/* The graph function of (object, file, name), made when first seen. */
static uint32_t fn_index(struct cg *s, uint32_t ob, uint32_t fl, uint32_t fn)
{
	uint32_t key[3], id;

	key[0] = ob;
	key[1] = fl;
	key[2] = fn;
	id = pd_intern(&s->fnkeys, (const char *)key, sizeof(key)) - 1;
	if (id == s->g.fns.n) {
		struct cg_fn f;
		const char *name = pd_intern_str(&s->raw, fn);
		const char *obj = ob == NONE ? "" : pd_intern_str(&s->raw, ob);

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

static void add_call(struct cg *s, uint32_t from, uint32_t to, uint64_t cost)
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

/* Header lines: "key: value", in a part's header or anywhere after. */

/* The chosen event: --event, else Ir, else the first; one per file. */
static int on_events(struct cg *s, const char *v)
{
	const char *want = s->o->event ? s->o->event : s->p->event;
	int n = 0, ir = -1, hit = -1;
	const char *t = blanks(v);

	pd_buf_reset(&s->events);
	while (*t) {
		const char *e = t;

		while (*e && *e != ' ' && *e != '\t')
			e++;
		if (want && (size_t)(e - t) == strlen(want) &&
		    !memcmp(t, want, strlen(want)))
			hit = n;
		if (e - t == 2 && !memcmp(t, "Ir", 2))
			ir = n;
		pd_buf_addf(&s->events, "%s%.*s", n ? ", " : "", (int)(e - t),
			    t);
		n++;
		t = blanks(e);
	}
	if (!n)
		return fail(s, "an events: line naming no event");
	if (want && hit < 0) {
		char what[1024];
		struct pd_buf needle = PD_BUF_INIT;
		int derived;

		pd_buf_addf(&needle, " %s ", want);
		derived =
		    pd_filter_match(needle.buf, s->derived.buf, s->derived.len);
		pd_buf_release(&needle);

		snprintf(what, sizeof(what),
			 "no event %.100s on the events: line (%.600s)%s", want,
			 s->events.buf,
			 derived ? "; it is derived from others (event:"
				   " NAME = ...), which perfdiff does not"
				   " compute"
				 : "");
		return pd_err_set(s->err, PD_EUSAGE, "%s:%zu: %s", s->in->path,
				  s->lines.lineno, what);
	}
	s->nev = n;
	s->ev = want ? hit : ir >= 0 ? ir : 0;
	s->seen_events = 1;
	if (!s->p->event) {
		t = blanks(v);
		for (n = 0; n < s->ev; n++) {
			t += strcspn(t, " \t");
			t = blanks(t);
		}
		s->p->event = pd_xstrndup(t, strcspn(t, " \t"));
	}
	return 0;
}

static int on_positions(struct cg *s, const char *v)
{
	const char *t = blanks(v);

	s->npos = 0;
	while (*t) {
		size_t n = strcspn(t, " \t");

		if (!word_is(t, n, "line") && !word_is(t, n, "instr") &&
		    !word_is(t, n, "bb"))
			return failf(s,
				     "positions: takes instr, bb and line, not"
				     " \"%.40s\"",
				     t);
		s->npos++;
		t = blanks(t + n);
	}
	return 0;
}

/* Checks the part just read against its totals: line (or summary:). */
static void end_part(struct cg *s)
{
	int bad = 0;

	if (s->has_totals)
		bad = s->part_sum != s->part_totals;
	else if (s->has_summary)
		bad = s->part_sum > s->part_summary;
	if (bad && !s->mismatches++)
		s->mismatch_line = s->part_line;
	s->part_sum = s->part_totals = s->part_summary = 0;
	s->has_totals = s->has_summary = s->has_costs = 0;
}

static int on_header(struct cg *s, enum hkey h, const char *v)
{
	uint64_t x;

	switch (h) {
	case H_EVENTS:
		return on_events(s, v);
	case H_POSITIONS:
		return on_positions(s, v);
	case H_EVENT: {
		/* "event: NAME = EXPR" derives NAME from others */
		const char *t = blanks(v);
		size_t n = strcspn(t, " \t=:");

		if (*blanks(t + n) == '=')
			pd_buf_addf(&s->derived, " %.*s ", (int)n, t);
		return 0;
	}
	case H_PART:
		if (s->nparts++ || s->has_costs)
			end_part(s);
		return 0;
	case H_TOTALS:
	case H_SUMMARY:
		if (!s->seen_events)
			return 0;
		if (costs(s, v, &x) < 0)
			return s->err->code;
		if (h == H_TOTALS) {
			s->part_totals = x;
			s->has_totals = 1;
			s->part_line = s->lines.lineno;
		} else {
			s->part_summary = x;
			s->has_summary = 1;
			if (!s->has_totals)
				s->part_line = s->lines.lineno;
		}
		return 0;
	case H_VERSION:
		s->version = atoi(v);
		return 0;
	case H_CREATOR:
		free(s->creator);
		s->creator = pd_xstrdup(blanks(v));
		return 0;
	default:
		return 0;
	}
}

/* Body lines: "spec=value" and cost lines. */

/* "calls=COUNT TARGET": the next cost line is the calls' inclusive cost. */
static int on_calls(struct cg *s, const char *v)
{
	uint64_t n;
	const char *c = count(v, &n);
	int i;

	if (!c)
		return failf(s, "calls= wants a count, not \"%.40s\"", v);
	/* the target's position, which some writers leave out */
	for (i = 0; i < s->npos && *(c = blanks(c)); i++) {
		c = subpos(c);
		if (!c)
			return failf(s,
				     "calls= wants a count and the target's"
				     " position: \"%.60s\"",
				     v);
	}
	if (*blanks(c))
		return failf(s,
			     "calls= has more than a count and a position:"
			     " \"%.60s\"",
			     v);
	if (s->callee == NONE)
		return fail(s, "calls= with no cfn= before it");
	s->calling = 1;
	return 0;
}

/* The graph function cost lines go to, looked up once per fn=. */
static int current(struct cg *s, uint32_t *fn)
{
	if (s->fn == NONE)
		return fail(s, "a cost line before any fn= line");
	if (s->cur == NONE)
		s->cur = fn_index(s, s->ob, s->fl, s->fn);
	*fn = s->cur;
	return 0;
}

static int on_spec(struct cg *s, const char *k, size_t n, const char *v)
{
	uint32_t id;

	if (word_is(k, n, "fn") || word_is(k, n, "ob") || word_is(k, n, "fl")) {
		int kind = k[0] == 'f' ? (k[1] == 'n' ? K_FN : K_FL) : K_OB;

		if (name_of(s, kind, v, &id) < 0)
			return s->err->code;
		if (kind == K_FN)
			s->fn = id;
		else if (kind == K_OB)
			s->ob = id;
		else
			s->fl = s->pos_fl = id;
		s->cur = NONE;
		s->c_ob = s->c_fl = s->callee = NONE;
		return 0;
	}
	if (word_is(k, n, "fi") || word_is(k, n, "fe")) {
		/* inlined code: the file changes, the function does not */
		return name_of(s, K_FL, v, &s->pos_fl) < 0 ? s->err->code : 0;
	}
	if (word_is(k, n, "cob"))
		return name_of(s, K_OB, v, &s->c_ob) < 0 ? s->err->code : 0;
	if (word_is(k, n, "cfi") || word_is(k, n, "cfl"))
		return name_of(s, K_FL, v, &s->c_fl) < 0 ? s->err->code : 0;
	if (word_is(k, n, "cfn")) {
		if (name_of(s, K_FN, v, &id) < 0)
			return s->err->code;
		/* cob= and cfi= name the callee of this cfn= only */
		s->callee = fn_index(s, s->c_ob != NONE ? s->c_ob : s->ob,
				     s->c_fl != NONE ? s->c_fl : s->pos_fl, id);
		s->c_ob = s->c_fl = NONE;
		return 0;
	}
	if (word_is(k, n, "calls"))
		return on_calls(s, v);
	/* names of jumps and of the caller context: ids to remember */
	if (word_is(k, n, "jfi"))
		return name_of(s, K_FL, v, &id) < 0 ? s->err->code : 0;
	if (word_is(k, n, "jfn") || word_is(k, n, "frfn"))
		return name_of(s, K_FN, v, &id) < 0 ? s->err->code : 0;
	/* jumps (their next line is a position without cost), levels */
	if (word_is(k, n, "jump") || word_is(k, n, "jcnd") ||
	    word_is(k, n, "rec") || word_is(k, n, "ln") || word_is(k, n, "bb"))
		return 0;
	if (!s->unknown++)
		s->unknown_line = s->lines.lineno;
	return 0;
}

static int on_cost(struct cg *s, const char *line)
{
	uint64_t v;
	uint32_t fn = NONE;

	if (cost_line(s, line, &v) < 0 || current(s, &fn) < 0)
		return s->err->code;
	s->cost_lines++;
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

static int on_line(struct cg *s, char *line, size_t len)
{
	size_t k;
	char c = line[0];

	if (!len || c == '#' || !*blanks(line))
		return 0;
	if (is_digit(c) || c == '+' || c == '-' || c == '*')
		return on_cost(s, line);
	if (s->calling)
		return fail(s, "calls= must be followed by its cost line");
	if ((k = key_len(line, len, '=')))
		return on_spec(s, line, k, line + k + 1);
	if ((k = key_len(line, len, ':')))
		return on_header(s, header_key(line, k), line + k + 1);
	return failf(
	    s, "not a line of a callgrind or cachegrind file: \"%.60s\"", line);
}

/* What the file said that the user should know, and the profile's labels. */
static void finish(struct cg *s)
{
	struct pd_profile *p = s->p;
	const char *path = s->in->path;
	int last_totals = s->has_totals;

	if (s->has_costs || s->has_totals || s->has_summary)
		end_part(s);
	if (s->mismatches)
		pd_profile_note(p,
				"%s:%zu: the cost lines of %u part%s do not add"
				" up to its totals: (or exceed its summary:)"
				" line for %s; the file may be damaged",
				path, s->mismatch_line, s->mismatches,
				s->mismatches == 1 ? "" : "s", p->event);
	else if (s->cost_lines && !last_totals && s->creator &&
		 !strncmp(s->creator, "callgrind", 9))
		pd_profile_note(p,
				"%s: no totals: line at the end, which"
				" callgrind writes last: the file may be cut"
				" short",
				path);
	if (s->unknown)
		pd_profile_note(p,
				"%s:%zu: %zu line%s of a kind perfdiff does"
				" not know, passed over",
				path, s->unknown_line, s->unknown,
				s->unknown == 1 ? "" : "s");
	if (s->version > 1)
		pd_profile_note(p,
				"%s: format version %d (this reader knows"
				" version 1)",
				path, s->version);
	if (strchr(s->events.buf, ','))
		pd_profile_note(p,
				"%s: using event %s; the file has %s (--event"
				" to choose)",
				path, p->event, s->events.buf);
	p->exact = 1;
	p->unit = PD_UNIT_COUNT;
	p->interval = 0;
	p->nsamples = s->cost_lines;
	free(p->exporter);
	p->exporter = pd_xstrdup(s->creator	 ? s->creator
				 : s->cachegrind ? "valgrind cachegrind"
						 : "callgrind");
	free(p->count_rule);
	p->count_rule = pd_xstrdup(
	    s->cachegrind ? "exact (cachegrind counts every event): the counts"
			    " are the events"
			  : "exact (callgrind counts every event): the counts"
			    " are the events");
	if (!s->g.arcs.n) {
		p->self_only = 1;
		pd_profile_note(
		    p,
		    "%s: %s has self costs only (no calls=):"
		    " total is left empty",
		    path, s->cachegrind ? "a cachegrind file" : "this file");
	}
}

static int read_file(struct cg *s)
{
	char *line;
	size_t len;
	int rc;

	while ((rc = pd_lines_next(&s->lines, &line, &len, s->err)) > 0)
		if (on_line(s, line, len) < 0)
			return s->err->code;
	if (rc < 0)
		return rc;
	if (s->calling)
		return fail(s, "the file ends after calls=, before its cost"
			       " line");
	if (!s->seen_events)
		return pd_err_set(s->err, PD_EPARSE,
				  "%s: no events: line: not a callgrind or"
				  " cachegrind file",
				  s->in->path);
	return 0;
}

static int import(struct pd_input *in, struct pd_profile *p,
		  const struct pd_import_opts *o, struct pd_err *err,
		  int cachegrind)
{
	struct cg *s = pd_xcalloc(1, sizeof(*s));
	size_t k;
	int rc;

	s->p = p;
	s->in = in;
	s->o = o;
	s->err = err;
	s->cachegrind = cachegrind;
	s->npos = 1; /* "line" unless positions: says otherwise */
	s->ob = s->fl = s->pos_fl = s->fn = s->cur = NONE;
	s->c_ob = s->c_fl = s->callee = NONE;
	pd_buf_init(&s->events);
	pd_buf_init(&s->derived);
	pd_intern_init(&s->raw);
	pd_intern_init(&s->fnkeys);
	pd_intern_init(&s->arckeys);
	for (k = 0; k < K_N; k++)
		pd_intern_init(&s->ids[k]);
	pd_lines_init(&s->lines, in);
	rc = read_file(s);
	if (!rc) {
		finish(s);
		pd_cg_tree(&s->g, p);
	}
	pd_lines_release(&s->lines);
	pd_buf_release(&s->events);
	pd_buf_release(&s->derived);
	pd_intern_release(&s->raw);
	pd_intern_release(&s->fnkeys);
	pd_intern_release(&s->arckeys);
	for (k = 0; k < K_N; k++) {
		pd_intern_release(&s->ids[k]);
		PD_VEC_FREE(&s->idname[k]);
	}
	PD_VEC_FREE(&s->g.fns);
	PD_VEC_FREE(&s->g.arcs);
	free(s->g.order);
	free(s->creator);
	free(s);
	return rc;
}

int pd_callgrind_import(struct pd_input *in, struct pd_profile *p,
			const struct pd_import_opts *o, struct pd_err *err)
{
	return import(in, p, o, err, 0);
}

int pd_cachegrind_import(struct pd_input *in, struct pd_profile *p,
			 const struct pd_import_opts *o, struct pd_err *err)
{
	return import(in, p, o, err, 1);
}
