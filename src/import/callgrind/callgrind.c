/*
 * Callgrind and Cachegrind cost files (docs/formats.md, "Callgrind and
 * Cachegrind"): callgrind.out.* and cachegrind.out.*, recognised by their
 * lines, read line by line into a call graph for one event
 * (callgrind_int.h), which callgrind_tree.c turns into the call tree.
 *
 * This file reads the file, its header lines (the events and the chosen
 * one, positions, parts and their totals: and summary: lines) and says
 * what the user should know; callgrind_body.c reads the cost lines, names
 * and calls. The counts are exact: the profile is judged by the threshold
 * alone.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/intern.h"
#include "core/xalloc.h"
#include "import/callgrind/callgrind_int.h"
#include "import/formats.h"

/* Sniffing (docs/formats.md, "recognised by"). */

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
		if (cg_word_is(s, k, keys[i]))
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
		if (cg_word_is(s, k, keys[i]))
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

/* Header lines: "key: value", in a part's header or anywhere after. */

/* The chosen event: --event, else Ir, else the first; one per file. */
static int on_events(struct cg_reader *s, const char *v)
{
	const char *want = s->o->event ? s->o->event : s->p->event;
	int n = 0, ir = -1, hit = -1;
	const char *t = cg_blanks(v);

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
		t = cg_blanks(e);
	}
	if (!n)
		return pd_cg_fail(s, "an events: line naming no event");
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
		t = cg_blanks(v);
		for (n = 0; n < s->ev; n++) {
			t += strcspn(t, " \t");
			t = cg_blanks(t);
		}
		s->p->event = pd_xstrndup(t, strcspn(t, " \t"));
	}
	return 0;
}

static int on_positions(struct cg_reader *s, const char *v)
{
	const char *t = cg_blanks(v);

	s->npos = 0;
	s->positions_line = s->lines.lineno;
	while (*t) {
		size_t n = strcspn(t, " \t");

		if (!cg_word_is(t, n, "line") && !cg_word_is(t, n, "instr") &&
		    !cg_word_is(t, n, "bb"))
			return pd_cg_fail(
			    s,
			    "positions: takes instr, bb and line, not"
			    " \"%.40s\"",
			    t);
		s->npos++;
		t = cg_blanks(t + n);
	}
	return 0;
}

/* Checks the part just read against its totals: line (or summary:). */
static void end_part(struct cg_reader *s)
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

static int on_header(struct cg_reader *s, enum hkey h, const char *v)
{
	uint64_t x;

	switch (h) {
	case H_EVENTS:
		return on_events(s, v);
	case H_POSITIONS:
		return on_positions(s, v);
	case H_EVENT: {
		/* "event: NAME = EXPR" derives NAME from others */
		const char *t = cg_blanks(v);
		size_t n = strcspn(t, " \t=:");

		if (*cg_blanks(t + n) == '=')
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
		if (pd_cg_costs(s, v, &x) < 0)
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
	case H_THREAD:
		s->thread = atoi(v);
		return 0;
	case H_CREATOR:
		free(s->creator);
		s->creator = pd_xstrdup(cg_blanks(v));
		return 0;
	default:
		return 0;
	}
}

static int on_line(struct cg_reader *s, char *line, size_t len)
{
	size_t k;
	char c = line[0];

	if (!len || c == '#' || !*cg_blanks(line))
		return 0;
	if (cg_is_digit(c) || c == '+' || c == '-' || c == '*')
		return pd_cg_cost(s, line);
	if (s->calling)
		return pd_cg_fail(s,
				  "calls= must be followed by its cost line");
	if ((k = key_len(line, len, '=')))
		return pd_cg_spec(s, line, k, line + k + 1);
	if ((k = key_len(line, len, ':')))
		return on_header(s, header_key(line, k), line + k + 1);
	return pd_cg_fail(
	    s, "not a line of a callgrind or cachegrind file: \"%.60s\"", line);
}

/* What the file said that the user should know, and the profile's labels. */
static void finish(struct cg_reader *s)
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
	if (s->thread > 0)
		pd_profile_note(p,
				"%s: thread %d of a run recorded with"
				" --separate-threads=yes: this file holds that"
				" thread alone (the others are the files of the"
				" same name ending -01, -02, ...; without the"
				" option callgrind writes the whole run in one"
				" file)",
				path, s->thread);
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

/*
 * A file whose every cost reads as 0 is not a profile: most often its
 * positions: line names more positions than its cost lines hold, so that
 * the costs were taken for positions (docs/formats.md, "Callgrind and
 * Cachegrind").
 */
static int check_costs(struct cg_reader *s)
{
	if (!s->cost_lines || s->nonzero_lines)
		return 0;
	if (!s->costed_lines && s->positions_line)
		return pd_err_set(s->err, PD_EPARSE,
				  "%s:%zu: positions: names %d positions, and"
				  " no cost line holds a number past them:"
				  " every cost would read as 0 (do the"
				  " positions match the cost lines?)",
				  s->in->path, s->positions_line, s->npos);
	return pd_err_set(s->err, PD_EPARSE,
			  "%s: every cost of event %s is 0 on all %zu cost"
			  " lines: nothing to compare (--event to choose"
			  " another of: %s)",
			  s->in->path, s->p->event ? s->p->event : "?",
			  s->cost_lines, s->events.buf);
}

static int read_file(struct cg_reader *s)
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
		return pd_cg_fail(s,
				  "the file ends after calls=, before its cost"
				  " line");
	if (!s->seen_events)
		return pd_err_set(s->err, PD_EPARSE,
				  "%s: no events: line: not a callgrind or"
				  " cachegrind file",
				  s->in->path);
	return check_costs(s);
}

static int import(struct pd_input *in, struct pd_profile *p,
		  const struct pd_import_opts *o, struct pd_err *err,
		  int cachegrind)
{
	struct cg_reader *s = pd_xcalloc(1, sizeof(*s));
	size_t k;
	int rc;

	s->p = p;
	s->in = in;
	s->o = o;
	s->err = err;
	s->cachegrind = cachegrind;
	s->npos = 1; /* "line" unless positions: says otherwise */
	s->ob = s->fl = s->pos_fl = s->fn = s->cur = CG_NONE;
	s->c_ob = s->c_fl = s->callee = CG_NONE;
	pd_buf_init(&s->events);
	pd_buf_init(&s->derived);
	pd_intern_init(&s->raw);
	pd_intern_init(&s->fnkeys);
	pd_intern_init(&s->arckeys);
	for (k = 0; k < CG_N; k++)
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
	for (k = 0; k < CG_N; k++) {
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
