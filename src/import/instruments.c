/*
 * Instruments (macOS) "deep copy" text: the call tree of Time Profiler or
 * Allocations copied with Edit > Deep Copy (docs/formats.md,
 * "Instruments"). One header line names tab-separated columns, then one
 * row per tree node: an inclusive weight with its percentage ("4.93 s
 * 100.0%", "4273.0ms 99.9%", " 429.93 MB 100.0%"), a self weight (Time
 * Profiler) or a count (Allocations), and the symbol indented by one
 * space a level. Time Profiler's self weights are read as they are;
 * Allocations' self bytes and counts are a node's inclusive numbers less
 * its children's, and exact. The process row ("app (4321)") and thread
 * rows ("Main Thread 0x1a2b") are no functions: their children are roots.
 */
#include <ctype.h>
#include <math.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/vec.h"
#include "import/formats.h"
#include "import/rowtree.h"

enum ins_kind { INS_TIME, INS_ALLOC };

struct ins {
	struct pd_profile *p;
	const struct pd_import_opts *o;
	const char *path;
	struct pd_err *err;
	enum ins_kind kind;
	int c_weight, c_self, c_count, c_name, ncols;
	int nread; /* the columns a row must have: the last one read, + 1 */
	size_t base_indent; /* "Symbol Names": the first row's indentation */
	int base_set;
	double interval_ns;
	struct pd_rowtree tree; /* a process or thread row's node: PD_ROOT */
	int skip_depth; /* rows deeper than this are filtered out; -1 none */
	regex_t alloc;	/* Allocations: the allocator's frames */
	int alloc_set;
	PD_VEC(unsigned char) is_alloc; /* per frame: 0 unseen, 1 no, 2 yes */
};

/*
 * The allocator's frames in an Allocations tree (libmalloc, the C++ and
 * Swift runtimes, Objective-C object creation): their bytes go to the
 * caller. --alloc-frames replaces the list.
 */
const char pd_instruments_alloc_default[] =
    "^(malloc|calloc|realloc|reallocf|valloc|free|posix_memalign|"
    "aligned_alloc|malloc_zone_[a-z_]+|_malloc_zone_[a-z_]+|"
    "szone_[a-z_]+|tiny_[a-z_]+|small_[a-z_]+|large_[a-z_]+|"
    "nanov2_[a-z_]+|nano_[a-z_]+|mvm_[a-z_]+|default_zone_[a-z_]+|"
    "operator new.*|swift_allocObject|swift_slowAlloc|_swift_[a-zA-Z_]*"
    "[Aa]lloc[a-zA-Z_]*|objc_alloc[a-zA-Z_]*|_objc_rootAlloc[a-zA-Z_]*|"
    "class_createInstance[a-zA-Z_]*|_class_createInstance[a-zA-Z_]*|"
    "\\+\\[NSObject alloc\\]|\\+\\[NSObject allocWithZone:\\])$";

/* Whether a frame of the profile is one of the allocator's. */
static int alloc_frame(struct ins *s, uint32_t f)
{
	while (s->is_alloc.n <= f)
		PD_VEC_PUSH(&s->is_alloc, 0);
	if (!s->is_alloc.v[f])
		s->is_alloc.v[f] =
		    regexec(&s->alloc,
			    pd_intern_str(&s->p->strs, s->p->frames.v[f].name),
			    0, NULL, 0)
			? 1
			: 2;
	return s->is_alloc.v[f] == 2;
}

int pd_instruments_sniff(const char *head, size_t len)
{
	const char *nl = memchr(head, '\n', len);
	size_t n = nl ? (size_t)(nl - head) : len;

	if (!pd_filter_match("\tSymbol Name", head, n))
		return 0;
	return (n > 7 && !memcmp(head, "Weight\t", 7)) ||
	       (n > 13 && !memcmp(head, "Running Time\t", 13)) ||
	       (n > 11 && !memcmp(head, "Bytes Used\t", 11));
}

/* The tab-separated fields of line (modified in place). */
static size_t split_tabs(char *line, char **f, size_t max)
{
	size_t n = 0;
	char *s = line;

	while (n < max) {
		char *t = strchr(s, '\t');

		f[n++] = s;
		if (!t)
			break;
		*t = '\0';
		s = t + 1;
	}
	return n;
}

/*
 * "4.93 s  100.0%", "846.00 ms", "4273.0ms", " 429.93 MB", "1.2 min",
 * "0", "-": the first number and the unit right after it, in ns (time) or
 * bytes. bare is the unit of a number without one (Self (ms)). 0 with
 * *v set, or -1 with *why set.
 */
static int weight_of(const char *s, enum ins_kind kind, double bare, double *v,
		     const char **why)
{
	static const struct {
		const char *unit;
		double scale;
		int alloc;
	} units[] = {
		{ "min", 60e9, 0 },	   { "ms", 1e6, 0 },
		{ "s", 1e9, 0 },	   { "\xc2\xb5s", 1e3, 0 },
		{ "us", 1e3, 0 },	   { "ns", 1, 0 },
		{ "Bytes", 1, 1 },	   { "bytes", 1, 1 },
		{ "KB", 1024.0, 1 },	   { "MB", 1048576.0, 1 },
		{ "GB", 1073741824.0, 1 }, { "TB", 1099511627776.0, 1 },
	};
	const char *u;
	char *end;
	size_t i;

	while (*s == ' ' || *s == '\t')
		s++;
	if (!*s || !strcmp(s, "-")) {
		*v = 0;
		return 0;
	}
	if (!isdigit((unsigned char)*s)) {
		*why = "not a weight";
		return -1;
	}
	*v = strtod(s, &end);
	if (!isfinite(*v) || *v < 0) {
		*why = "not a weight";
		return -1;
	}
	u = end;
	while (*u == ' ')
		u++;
	if (!*u || *u == '\xe2' || isdigit((unsigned char)*u)) {
		/* no unit: the column's own (Self (ms)) */
		*v *= bare;
		return 0;
	}
	for (i = 0; i < PD_ARRAY_SIZE(units); i++) {
		size_t k = strlen(units[i].unit);

		if (!strncmp(u, units[i].unit, k) &&
		    (!u[k] || u[k] == ' ' || u[k] == '\t')) {
			if (units[i].alloc != (kind == INS_ALLOC)) {
				*why = kind == INS_ALLOC
					   ? "a time where bytes were expected"
					   : "a size where a time was expected";
				return -1;
			}
			*v *= units[i].scale;
			return 0;
		}
	}
	*why = "a unit perfdiff does not know (Time Profiler's times and"
	       " Allocations' bytes are read; cycle counts (Kc, Mc, Gc)"
	       " carry no sample count to judge them by)";
	return -1;
}

static int is_process_row(const char *s, size_t n)
{
	size_t i = n;

	if (n < 4 || s[n - 1] != ')')
		return 0;
	for (i = n - 1; i > 0 && isdigit((unsigned char)s[i - 1]); i--)
		;
	return i >= 3 && i < n - 1 && s[i - 1] == '(' && s[i - 2] == ' ';
}

static int is_thread_row(const char *s, size_t n)
{
	const char *x = NULL;
	size_t i;

	for (i = 0; i + 3 < n; i++)
		if (!memcmp(s + i, " 0x", 3))
			x = s + i;
	if (!x || !(pd_filter_match("Thread", s, n) ||
		    pd_filter_match("thread", s, n)))
		return 0;
	for (x += 3; x < s + n; x++)
		if (!isxdigit((unsigned char)*x))
			return 0;
	return 1;
}

/* alloc_frame for the row tree. */
static int alloc_frame_cb(void *arg, uint32_t f)
{
	return alloc_frame(arg, f);
}

static int fail(struct ins *s, size_t line, const char *what)
{
	return pd_err_set(s->err, PD_EPARSE, "%s:%zu: %s", s->path, line, what);
}

static int imax(int a, int b)
{
	return a > b ? a : b;
}

static int header(struct ins *s, char *line)
{
	char *f[16];
	size_t n = split_tabs(line, f, 16), i;

	s->c_weight = s->c_self = s->c_count = s->c_name = -1;
	for (i = 0; i < n; i++) {
		if (!strcmp(f[i], "Weight") || !strcmp(f[i], "Running Time"))
			s->c_weight = (int)i;
		else if (!strcmp(f[i], "Bytes Used")) {
			const char *rx = s->o->alloc_frames
					     ? s->o->alloc_frames
					     : pd_instruments_alloc_default;

			s->c_weight = (int)i;
			s->kind = INS_ALLOC;
			if (!s->alloc_set &&
			    regcomp(&s->alloc, rx, REG_EXTENDED | REG_NOSUB))
				return fail(s, 1,
					    "--alloc-frames: not a regular"
					    " expression");
			s->alloc_set = 1;
		} else if (!strncmp(f[i], "Self", 4))
			s->c_self = (int)i;
		else if (!strcmp(f[i], "Count"))
			s->c_count = (int)i;
		else if (!strcmp(f[i], "Symbol Name") ||
			 !strcmp(f[i], "Symbol Names"))
			s->c_name = (int)i;
	}
	s->ncols = (int)n;
	if (s->c_weight < 0 || s->c_name < 0 ||
	    (s->kind == INS_TIME && s->c_self < 0))
		return fail(s, 1,
			    "an Instruments deep copy without the columns"
			    " perfdiff reads (Weight or Running Time with"
			    " Self Weight, or Bytes Used, and Symbol Name)");
	s->nread = imax(s->c_weight, s->c_name);
	s->nread = imax(s->nread, s->kind == INS_TIME ? s->c_self : s->c_count);
	s->nread++;
	return 0;
}

static int row(struct ins *s, char *line, size_t lineno)
{
	char *f[16];
	size_t n = split_tabs(line, f, 16), indent, len;
	const char *name, *why = NULL;
	double incl, self = 0, cnt = 1;
	uint32_t parent, node;
	int depth;

	/*
	 * Instruments writes every column on every row (a spacer holds a
	 * blank): a shorter row was cut or edited, and the columns it lacks
	 * have no value to read (docs/formats.md, "Instruments").
	 */
	if (n < (size_t)s->nread)
		return pd_err_set(s->err, PD_EPARSE,
				  "%s:%zu: fewer columns than the header (%zu"
				  " of %d): a deep copy has every column on"
				  " every row",
				  s->path, lineno, n, s->ncols);
	name = f[s->c_name];
	indent = strspn(name, " ");
	if (!s->base_set) {
		/* "Symbol Names" (Instruments 16) pads every row alike */
		s->base_indent =
		    s->c_name == s->ncols - 1 && s->c_name == 2 ? indent : 0;
		s->base_set = 1;
	}
	if (indent < s->base_indent)
		return fail(s, lineno, "indented less than the first row");
	depth = (int)(indent - s->base_indent);
	name += indent;
	len = strlen(name);
	while (len && (name[len - 1] == ' ' || name[len - 1] == '\r'))
		len--;
	if (!len)
		return fail(s, lineno, "a row without a symbol name");
	if (weight_of(f[s->c_weight], s->kind, 1e6, &incl, &why) < 0)
		return fail(s, lineno, why);
	if (s->kind == INS_TIME &&
	    weight_of(f[s->c_self], s->kind, 1e6, &self, &why) < 0)
		return fail(s, lineno, why);
	if (s->kind == INS_ALLOC && s->c_count >= 0) {
		char *end;

		cnt = strtod(f[s->c_count], &end);
		if (end == f[s->c_count] || !(cnt >= 0) || !isfinite(cnt))
			return fail(s, lineno, "not a count");
	}
	if (s->skip_depth >= 0 && depth > s->skip_depth)
		return 0; /* under a process or thread filtered out */
	s->skip_depth = -1;
	if (depth > pd_rowtree_depth(&s->tree) + 1)
		return fail(s, lineno,
			    "indented deeper than the row above allows");
	parent = pd_rowtree_begin(&s->tree, depth, incl, cnt);
	if (parent == PD_ROOT &&
	    (is_process_row(name, len) || is_thread_row(name, len))) {
		/* a process or thread: --process / --thread filter on it */
		const char *want =
		    is_process_row(name, len) ? s->o->process : s->o->thread;

		if (!pd_filter_match(want, name, len)) {
			s->skip_depth = depth;
			return 0;
		}
		node = PD_ROOT;
	} else {
		struct pd_profile *p = s->p;

		node = pd_profile_child(
		    p, parent,
		    pd_profile_frame(p, pd_intern(&p->strs, name, len), 0));
	}
	if (s->kind == INS_TIME && self > 0)
		pd_profile_add(s->p, node, self, self / s->interval_ns);
	pd_rowtree_push(&s->tree, depth, node, incl, cnt);
	s->p->nsamples++;
	return 0;
}

int pd_instruments_import(struct pd_input *in, struct pd_profile *p,
			  const struct pd_import_opts *o, struct pd_err *err)
{
	struct pd_lines lines;
	struct ins s;
	char *line;
	size_t len;
	int rc;

	memset(&s, 0, sizeof(s));
	s.p = p;
	s.o = o;
	s.path = in->path;
	s.err = err;
	s.skip_depth = -1;
	pd_rowtree_init(&s.tree, p, 0, alloc_frame_cb, &s);
	s.interval_ns = (o->interval_ms > 0 ? o->interval_ms : 1) * 1e6;
	pd_lines_init(&lines, in);
	rc = pd_lines_next(&lines, &line, &len, err);
	if (rc > 0)
		rc = header(&s, line);
	/* Allocations settles each row's own bytes; Time Profiler has a
	 * Self column */
	s.tree.settle = s.kind == INS_ALLOC;
	while (rc >= 0 && (rc = pd_lines_next(&lines, &line, &len, err)) > 0) {
		if (!len)
			continue;
		rc = row(&s, line, lines.lineno);
	}
	if (rc >= 0) {
		pd_rowtree_close(&s.tree, 0);
		rc = 0;
		if (s.kind == INS_ALLOC) {
			p->unit = PD_UNIT_BYTES;
			p->exact = 1;
			p->interval = 1;
			p->count_rule = pd_xstrdup(
			    "exact (Instruments Allocations records every"
			    " allocation); counts = the Count column");
		} else {
			p->unit = PD_UNIT_NS;
			p->interval = s.interval_ns;
			struct pd_buf b = PD_BUF_INIT;

			pd_buf_addf(&b,
				    "sample counts = self time / %g ms, the"
				    " sampling interval%s",
				    s.interval_ns / 1e6,
				    o->interval_ms > 0
					? " (--interval)"
					: " (Time Profiler's default;"
					  " --interval to set)");
			p->count_rule = pd_buf_detach(&b);
		}
	}
	pd_rowtree_release(&s.tree);
	PD_VEC_FREE(&s.is_alloc);
	if (s.alloc_set)
		regfree(&s.alloc);
	pd_lines_release(&lines);
	return rc;
}
