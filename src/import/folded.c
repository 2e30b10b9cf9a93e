/*
 * Folded stacks (docs/formats.md, "Folded stacks"): "root;...;leaf COUNT" per
 * line. The count is the last blank-separated token; comment lines (#, //) are
 * skipped and malformed lines are counted, not fatal. Counts may be periods (ns
 * per sample), so sample counts come from the weights' common divisor.
 */
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "import/formats.h"

/* Returns the offset of the count token, or 0 when the line has none. */
static size_t count_at(const char *s, size_t n, double *val)
{
	size_t e = n, b, i, dots = 0;
	char *end;

	while (e && (s[e - 1] == ' ' || s[e - 1] == '\t'))
		e--;
	b = e;
	while (b && s[b - 1] != ' ' && s[b - 1] != '\t')
		b--;
	if (b == 0 || b == e)
		return 0;
	for (i = b; i < e; i++) {
		if (s[i] == '.')
			dots++;
		else if (s[i] < '0' || s[i] > '9')
			return 0;
	}
	if (dots > 1 || s[b] == '.')
		return 0;
	*val = strtod(s + b, &end);
	return b;
}

/*
 * A blank outside brackets: "ran 3 times" has one, a C++ signature
 * ("Start(unsigned long, int)", "Map<int, char>") has its blanks inside.
 */
static int bare_blank(const char *s, size_t n)
{
	size_t i;
	int depth = 0;

	for (i = 0; i < n; i++) {
		if (s[i] == '(' || s[i] == '<' || s[i] == '[')
			depth++;
		else if ((s[i] == ')' || s[i] == '>' || s[i] == ']') && depth)
			depth--;
		else if ((s[i] == ' ' || s[i] == '\t') && !depth)
			return 1;
	}
	return 0;
}

/* A long cut line of frames joined by ';', with no JSON or CSV in it. */
static int deep_stack(const char *p, size_t n)
{
	size_t i, semis = 0;

	for (i = 0; i < n; i++) {
		if (p[i] == ';')
			semis++;
		else if (p[i] == '{' || p[i] == '"' || p[i] == '\0')
			return 0;
	}
	return semis >= 64;
}

/*
 * Folded stacks: lines of a stack and a count. A file of single frames
 * is folded only when every line is one and no frame has a blank in it:
 * a note ("ran 3 times 2") or /proc/self/status ("Threads: 1") is no
 * profile.
 */
int pd_folded_sniff(const char *head, size_t len)
{
	const char *p = head, *end = head + len;
	int good = 0, bad = 0, stacks = 0, blanks = 0;

	while (p < end && good + bad < 20) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end;
		size_t n = (size_t)(e - p);
		double v;

		if (!nl && end - head == (ptrdiff_t)PD_INPUT_HEAD) {
			/*
			 * A cut line proves nothing, unless it is all there
			 * is: a first stack longer than the head (8000
			 * frames) is folded when it reads like one.
			 */
			if (!good && !bad && p == head)
				return deep_stack(p, n);
			break;
		}
		if (n && p[n - 1] == '\r')
			n--;
		if (n && p[0] != '#' &&
		    !(n > 1 && p[0] == '/' && p[1] == '/')) {
			if (count_at(p, n, &v)) {
				const char *sp = p + n;

				good++;
				stacks += memchr(p, ';', n) != NULL;
				/* the count's own blank is no blank in a name
				 */
				while (sp > p && sp[-1] != ' ' &&
				       sp[-1] != '\t')
					sp--;
				while (sp > p &&
				       (sp[-1] == ' ' || sp[-1] == '\t'))
					sp--;
				blanks += bare_blank(p, (size_t)(sp - p));
			} else
				bad++;
		}
		p = nl ? nl + 1 : end;
	}
	/*
	 * Stacks with a few bad lines (collapsers write some) are folded;
	 * single frames only when every line is one and none has a blank.
	 */
	return good > 0 && good >= 2 * bad && (stacks || (!blanks && !bad));
}

/* Frames by their text, so that a name is looked up once a file. */
struct frame_cache {
	struct pd_intern text; /* frame text -> index into frame */
	PD_VEC(uint32_t) frame;
};

/* The node of the stack line[0..at): frames joined by ';', root first. */
static uint32_t stack_node(struct pd_profile *p, struct frame_cache *fc,
			   const char *line, size_t at)
{
	uint32_t node = PD_ROOT;
	size_t i, start;

	for (start = 0, i = 0; i <= at; i++) {
		if (i < at && line[i] != ';')
			continue;
		if (i > start) {
			uint32_t id =
			    pd_intern(&fc->text, line + start, i - start);

			if (id >= fc->frame.n) {
				uint32_t f = pd_profile_frame(
				    p,
				    pd_intern(&p->strs, line + start,
					      i - start),
				    0);

				PD_VEC_RESERVE(&fc->frame, (size_t)id + 1);
				while (fc->frame.n <= id)
					fc->frame.v[fc->frame.n++] = UINT32_MAX;
				fc->frame.v[id] = f;
			}
			node = pd_profile_child(p, node, fc->frame.v[id]);
		}
		start = i + 1;
	}
	return node;
}

/*
 * --folded-unit: the numbers are time (bcc's offcputime -f writes the
 * microseconds each stack waited), shown in ns; a sample is
 * --sample-weight of the file's unit, else 1 ms (docs/formats.md,
 * "Folded stacks").
 */
static void time_unit(struct pd_profile *p, const struct pd_import_opts *o)
{
	double ns = o->folded_ns, one;
	size_t i;

	one = o->sample_weight > 0 ? o->sample_weight * ns : 1e6;
	for (i = 0; i < p->nodes.n; i++) {
		p->nodes.v[i].weight *= ns;
		p->nodes.v[i].count = p->nodes.v[i].weight / one;
	}
	p->unit = PD_UNIT_NS;
	p->interval = one;
	free(p->count_rule);
	p->count_rule = pd_xstrdup(o->sample_weight > 0
				       ? "weights = the file's time; sample"
					 " counts = weights / --sample-weight"
				       : "weights = the file's time; sample"
					 " counts = ms (one sample a ms)");
}

int pd_folded_import(struct pd_input *in, struct pd_profile *p,
		     const struct pd_import_opts *o, struct pd_err *err)
{
	struct pd_lines lines;
	struct frame_cache fc;
	char *line;
	size_t len, bad = 0, first_bad = 0, filtered = 0;
	size_t good = 0, two = 0, first_two = 0;
	int rc;

	pd_lines_init(&lines, in);
	pd_intern_init(&fc.text);
	fc.frame.v = NULL;
	fc.frame.n = fc.frame.cap = 0;
	while ((rc = pd_lines_next(&lines, &line, &len, err)) > 0) {
		double w = 0;
		size_t at;

		if (!len || line[0] == '#' ||
		    (len > 1 && line[0] == '/' && line[1] == '/'))
			continue;
		at = count_at(line, len, &w);
		if (!at) {
			if (!bad++)
				first_bad = lines.lineno;
			continue;
		}
		while (at && (line[at - 1] == ' ' || line[at - 1] == '\t'))
			at--;
		if (!at) {
			if (!bad++)
				first_bad = lines.lineno;
			continue;
		}
		good++;
		{
			double w2;

			if (count_at(line, at, &w2) && !two++)
				first_two = lines.lineno;
		}
		if (w <= 0)
			continue;
		if (o->process || o->thread) {
			/* The first frame is the process/thread in most
			 * collapsers. */
			const char *semi = memchr(line, ';', at);
			size_t k = semi ? (size_t)(semi - line) : at;

			if (!pd_filter_match(o->process, line, k) ||
			    !pd_filter_match(o->thread, line, k)) {
				filtered++;
				continue;
			}
		}
		pd_profile_add(p, stack_node(p, &fc, line, at), w, 0);
		p->nsamples++;
	}
	if (rc < 0)
		goto out;
	/*
	 * Two counts on every line: the before and after of difffolded.pl
	 * (or perfdiff -f folded), which read as one profile would glue the
	 * first count to the leaf's name.
	 */
	if (good && two == good) {
		rc = pd_err_set(err, PD_EFORMAT,
				"%s:%zu: two counts a line: a differential"
				" folded file (difffolded.pl, perfdiff -f"
				" folded), not a profile; compare the two"
				" folded files it was made from",
				in->path, first_two);
		goto out;
	}
	rc = 0;
	if (bad)
		pd_profile_note(p,
				"skipped %zu malformed line%s, first at %s:%zu",
				bad, bad == 1 ? "" : "s", in->path, first_bad);
	if (o->folded_ns > 0) {
		time_unit(p, o);
	} else {
		p->unit = PD_UNIT_SAMPLES;
		pd_counts_from_weights(p, o->sample_weight, "weights");
		if (p->interval > 1 || (p->interval > 0 && p->interval < 1))
			p->unit = PD_UNIT_COUNT;
		else
			p->interval = 1;
	}
	{
		double total = 0;
		size_t i;

		for (i = 0; i < p->nodes.n; i++)
			total += p->nodes.v[i].count;
		p->nsamples =
		    total < 1.8e19 ? (uint64_t)(total + 0.5) : UINT64_MAX;
	}
	(void)filtered;
out:
	pd_lines_release(&lines);
	pd_intern_release(&fc.text);
	PD_VEC_FREE(&fc.frame);
	return rc;
}
