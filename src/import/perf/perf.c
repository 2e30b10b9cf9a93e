/*
 * `perf script` text (docs/formats.md, "Linux perf"), its lines read (the
 * entry, whole or in pieces, is perf_split.c). A sample is a header line
 *   comm [pid/]tid [cpu] time: [period] event[:mods]: [ip sym (dso)]
 * followed by call-chain lines "ip sym[+off] (dso)", leaf first, up to an
 * empty line. comm may contain spaces, so the header is read by finding the
 * first numeric token after which the remaining fields fit.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "import/perf/perf_int.h"

#define MAX_TOK 48

struct tok {
	const char *s;
	size_t n;
};

static int is_digits(const char *s, size_t n)
{
	size_t i;

	if (!n)
		return 0;
	for (i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	return 1;
}

static size_t tokenize(const char *s, struct tok *t, size_t max)
{
	size_t k = 0;

	while (*s && k < max) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			break;
		t[k].s = s;
		while (*s && *s != ' ' && *s != '\t')
			s++;
		t[k].n = (size_t)(s - t[k].s);
		k++;
	}
	return k;
}

static int is_pidtid(const struct tok *t)
{
	const char *sl = memchr(t->s, '/', t->n);

	if (!sl)
		return is_digits(t->s, t->n);
	return is_digits(t->s, (size_t)(sl - t->s)) &&
	       is_digits(sl + 1, t->n - (size_t)(sl - t->s) - 1);
}

/*
 * A time token at s, "12345.678901:": digits, optionally a point and
 * digits, then ':' (two digits at least without the point). Returns the
 * byte after the ':' with the time in *v, or NULL. Up to 19 integer and
 * 9 fraction digits are read exactly, longer ones by strtod.
 */
static inline const char *time_token_end(const char *s, double *v)
{
	static const double tens[] = { 1,   1e1, 1e2, 1e3, 1e4,
				       1e5, 1e6, 1e7, 1e8, 1e9 };
	const char *t = s, *f = NULL;
	uint64_t ip = 0, fp = 0;

	while (*s >= '0' && *s <= '9')
		ip = ip * 10 + (uint64_t)(*s++ - '0');
	if (s == t)
		return NULL;
	if (*s == '.') {
		f = ++s;
		while (*s >= '0' && *s <= '9')
			fp = fp * 10 + (uint64_t)(*s++ - '0');
		if (s == f)
			return NULL;
	} else if (s - t < 2) {
		return NULL;
	}
	if (*s != ':')
		return NULL;
	if ((f ? f - 1 : s) - t > 19 ||
	    (f && (size_t)(s - f) >= sizeof(tens) / sizeof(*tens)))
		*v = strtod(t, NULL);
	else
		*v = (double)ip + (f ? (double)fp / tens[s - f] : 0);
	return s + 1;
}

/* Whether token t is a time; its value in *v. */
static int is_time(const struct tok *t, double *v)
{
	double x;

	if (t->n < 3 || time_token_end(t->s, &x) != t->s + t->n)
		return 0;
	*v = x;
	return 1;
}

static int is_event(const struct tok *t)
{
	double v;

	return t->n >= 2 && t->s[t->n - 1] == ':' && !is_time(t, &v);
}

/*
 * Sampling terms that leave the event what it is: cpu-clock/freq=1999/
 * is cpu-clock sampled at 1999 Hz (perf record's per-event -F).
 */
static size_t past_terms(const char *s, size_t n)
{
	static const char *const keys[] = { "freq",	  "period",
					    "call-graph", "stack-size",
					    "max-stack",  "no-inherit",
					    "inherit" };
	const char *open = memchr(s, '/', n), *t, *e = s + n - 1;

	if (!open || open == s || n < 3 || *e != '/')
		return n;
	for (t = open + 1; t < e;) {
		size_t k = strcspn(t, ",/="), j;

		for (j = 0; j < PD_ARRAY_SIZE(keys); j++)
			if (k == strlen(keys[j]) && !memcmp(t, keys[j], k))
				break;
		if (j == PD_ARRAY_SIZE(keys))
			return n;
		t += strcspn(t, ",/");
		if (*t == ',')
			t++;
	}
	return (size_t)(open - s);
}

size_t pd_perf_event_name_len(const char *s, size_t n)
{
	const char *c;
	size_t i;

	if (n && s[n - 1] == ':')
		n--;
	n = past_terms(s, n);
	c = memchr(s, ':', n);
	if (!c)
		return n;
	for (i = (size_t)(c - s) + 1; i < n; i++)
		if (!strchr("ukhIGHpPSDWebR:", s[i]))
			return n;
	return (size_t)(c - s);
}

/* The value of n decimal digits (a period: exact below 2^53). */
static double digits_value(const char *s, size_t n)
{
	uint64_t v = 0;
	size_t i;

	if (n > 19)
		return strtod(s, NULL);
	for (i = 0; i < n; i++)
		v = v * 10 + (uint64_t)(s[i] - '0');
	return (double)v;
}

static int frame_shaped(const char *s);

/* A header line into h; its time token into *tt when it has one. */
static int parse_header(const char *line, struct perf_hdr *h, struct tok *tt)
{
	struct tok t[MAX_TOK];
	size_t k = tokenize(line, t, MAX_TOK), i, j;

	for (i = 1; i < k; i++) {
		if (!is_pidtid(&t[i]))
			continue;
		j = i + 1;
		if (j < k && t[j].n >= 3 && t[j].s[0] == '[' &&
		    t[j].s[t[j].n - 1] == ']' &&
		    is_digits(t[j].s + 1, t[j].n - 2))
			j++;
		memset(h, 0, sizeof(*h));
		h->time = PD_NAN;
		if (tt)
			tt->s = NULL;
		if (j < k && is_time(&t[j], &h->time)) {
			if (tt)
				*tt = t[j];
			j++;
		}
		if (j + 1 < k && is_digits(t[j].s, t[j].n) &&
		    is_event(&t[j + 1])) {
			h->period = digits_value(t[j].s, t[j].n);
			h->has_period = 1;
			j++;
		}
		if (j >= k || !is_event(&t[j]))
			continue;
		h->comm = t[0].s;
		h->comm_len = (size_t)(t[i - 1].s + t[i - 1].n - t[0].s);
		{
			const char *sl = memchr(t[i].s, '/', t[i].n);

			if (sl) {
				h->pid = t[i].s;
				h->pid_len = (size_t)(sl - t[i].s);
				h->tid = sl + 1;
				h->tid_len = t[i].n - h->pid_len - 1;
			} else {
				h->tid = t[i].s;
				h->tid_len = t[i].n;
			}
		}
		h->event = t[j].s;
		h->event_len = pd_perf_event_name_len(t[j].s, t[j].n);
		h->rest = t[j].s + t[j].n;
		return 1;
	}
	return 0;
}

int pd_perf_piece_start(const char *line, int first, const char **event,
			size_t *event_len)
{
	struct perf_hdr h;

	if (*line == '#' || !*line || (!first && frame_shaped(line)) ||
	    !parse_header(line, &h, NULL))
		return 0;
	*event = h.event;
	*event_len = h.event_len;
	return 1;
}

int pd_perf_sniff(const char *head, size_t len)
{
	struct pd_buf line = PD_BUF_INIT;
	const char *p = head, *end = head + len;
	struct perf_hdr h;
	int seen = 0, ok = 0;

	/* The first non-comment line must be a sample header. */
	while (p < end && seen < 1) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end;
		const char *s = p;

		p = nl ? nl + 1 : end;
		while (s < e && (*s == ' ' || *s == '\t' || *s == '\r'))
			s++;
		if (s == e || *s == '#')
			continue;
		seen++;
		pd_buf_reset(&line);
		pd_buf_add(&line, s, (size_t)(e - s));
		ok = parse_header(line.buf, &h, NULL);
	}
	pd_buf_release(&line);
	return ok;
}

/*
 * Consecutive headers of one thread differ in their time alone: a line
 * whose bytes before and after its time token are the last full parse's
 * gets that parse's fields (the same tokens, so the same answer) and only
 * its time read.
 */
static int memo_header(const struct perf_memo *m, const char *line, size_t len,
		       struct perf_hdr *h)
{
	const char *e, *post;
	double time;
	char c;

	if (!m->ok || len < m->pre + m->post + 3 ||
	    memcmp(line, m->bytes.buf, m->pre))
		return 0;
	e = time_token_end(line + m->pre, &time);
	if (!e || (size_t)(line + len - e) < m->post)
		return 0;
	post = m->bytes.buf + m->pre;
	c = e[m->post];
	if (memcmp(e, post, m->post) || (c && c != ' ' && c != '\t'))
		return 0;
	h->comm = line + m->comm_off;
	h->comm_len = m->comm_len;
	h->pid = m->pid_off == SIZE_MAX ? NULL : line + m->pid_off;
	h->pid_len = m->pid_len;
	h->tid = line + m->tid_off;
	h->tid_len = m->tid_len;
	h->period = m->period;
	h->has_period = m->has_period;
	h->event = e + m->event_off;
	h->event_len = m->event_len;
	h->rest = e + m->post;
	h->time = time;
	return 1;
}

/* Remembers a header parsed in full, when it has a time to vary. */
static void memo_keep(struct perf_memo *m, const char *line,
		      const struct perf_hdr *h, const struct tok *tt)
{
	const char *e;

	m->ok = 0;
	if (!tt->s || h->rest < tt->s + tt->n || h->comm < line ||
	    h->tid + h->tid_len > tt->s)
		return;
	e = tt->s + tt->n;
	m->pre = (size_t)(tt->s - line);
	m->post = (size_t)(h->rest - e);
	pd_buf_reset(&m->bytes);
	pd_buf_add(&m->bytes, line, m->pre);
	pd_buf_add(&m->bytes, e, m->post);
	m->comm_off = (size_t)(h->comm - line);
	m->comm_len = h->comm_len;
	m->pid_off = h->pid ? (size_t)(h->pid - line) : SIZE_MAX;
	m->pid_len = h->pid_len;
	m->tid_off = (size_t)(h->tid - line);
	m->tid_len = h->tid_len;
	m->event_off = (size_t)(h->event - e);
	m->event_len = h->event_len;
	m->period = h->period;
	m->has_period = h->has_period;
	m->ok = 1;
}

/* A header line: from the memo when only its time differs, else parsed. */
static int header(struct perf_state *st, const char *line, size_t len,
		  struct perf_hdr *h)
{
	struct tok tt;

	if (memo_header(&st->memo, line, len, h))
		return 1;
	if (!parse_header(line, h, &tt))
		return 0;
	memo_keep(&st->memo, line, h, &tt);
	return 1;
}

/* Parses "ip sym[+off] (dso)" (ip already skipped); returns 0 if not one. */
static int add_frame_text(struct perf_state *st, const char *s, size_t n)
{
	const char *sym = s, *dso = "", *open = NULL;
	size_t sn = n, dn = 0, i;
	int inlined = 0;

	while (sn && (sym[sn - 1] == ' ' || sym[sn - 1] == '\t'))
		sn--;
	if (sn && sym[sn - 1] == ')') {
		/* The module is the last parenthesised group. */
		for (i = sn - 1; i > 0; i--) {
			if (sym[i] == '(' &&
			    (sym[i - 1] == ' ' || sym[i - 1] == '\t')) {
				open = sym + i;
				break;
			}
		}
		if (open) {
			dso = open + 1;
			dn = (size_t)(sym + sn - 1 - dso);
			sn = (size_t)(open - sym);
			while (sn &&
			       (sym[sn - 1] == ' ' || sym[sn - 1] == '\t'))
				sn--;
			if (dn == 7 && !memcmp(dso, "inlined", 7)) {
				inlined = 1;
				dn = 0;
			}
		}
	}
	/* sym+0x1f: the offset varies per sample and is not part of a name. */
	for (i = sn; i > 0 && isxdigit((unsigned char)sym[i - 1]); i--)
		;
	if (i >= 3 && i < sn && sym[i - 1] == 'x' && sym[i - 2] == '0' &&
	    sym[i - 3] == '+')
		sn = i - 3;
	return pd_perf_frame_add(st, sym, sn, dso, dn, inlined);
}

static int frame_shaped(const char *s)
{
	const char *t;

	while (*s == ' ' || *s == '\t')
		s++;
	t = s;
	while (isxdigit((unsigned char)*s))
		s++;
	if (s == t || (*s != ' ' && *s != '\t'))
		return 0;
	while (*s == ' ' || *s == '\t')
		s++;
	t = s;
	while ((*s >= '0' && *s <= '9') || *s == '/')
		s++;
	return s == t || (*s != ' ' && *s != '\t' && *s != '\0');
}

static int try_frame_line(struct perf_state *st, const char *s)
{
	const char *ip;

	while (*s == ' ' || *s == '\t')
		s++;
	ip = s;
	while (isxdigit((unsigned char)*s))
		s++;
	if (s == ip || (*s != ' ' && *s != '\t'))
		return 0;
	while (*s == ' ' || *s == '\t')
		s++;
	if (!*s)
		return 0;
	return add_frame_text(st, s, strlen(s));
}

/* Distinct frame lines remembered; a file of only distinct ones stops there. */
#define LINE_CACHE_MAX 1000000

/*
 * Real recordings repeat a few thousand distinct frame lines millions of
 * times: a line seen before pushes its frame without being parsed again
 * (lines that gave one frame are remembered with it; a JIT chain or a
 * line that is no frame is parsed each time). A frame line whose text
 * was seen before: its frame pushed, 1; or parsed again: 1, or -1 when it
 * gave no frame (a line to skip). 0 for a line not seen before. (Id 0,
 * the empty string, is the table's own: a blank line gives -1.)
 */
static int seen_line(struct perf_state *st, const char *s, size_t n)
{
	uint32_t id;

	while (n && (*s == ' ' || *s == '\t')) {
		s++;
		n--;
	}
	id = pd_intern_find(&st->lines, s, n);
	if (id == UINT32_MAX)
		return 0;
	if (id < st->line_frame.n && st->line_frame.v[id] != UINT32_MAX) {
		pd_perf_frame_push(st, st->line_frame.v[id] >> 1,
				   (int)(st->line_frame.v[id] & 1));
		return 1;
	}
	return try_frame_line(st, s) ? 1 : -1;
}

/* A frame line of n bytes that seen_line has not seen: parsed, kept. */
static int frame_line(struct perf_state *st, const char *s, size_t n)
{
	size_t before = st->frames.n;
	uint32_t id, v = UINT32_MAX;
	int rc;

	while (n && (*s == ' ' || *s == '\t')) {
		s++;
		n--;
	}
	rc = try_frame_line(st, s);
	if (!n || st->lines.n >= LINE_CACHE_MAX)
		return rc;
	if (rc && st->frames.n == before + 1 &&
	    st->frames.v[before].name < UINT32_MAX / 2)
		v = st->frames.v[before].name << 1 |
		    (uint32_t) !!st->frames.v[before].inlined;
	id = pd_intern(&st->lines, s, n);
	while (st->line_frame.n <= id)
		PD_VEC_PUSH(&st->line_frame, UINT32_MAX);
	st->line_frame.v[id] = v;
	return rc;
}

static const char *skip_blanks(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* The end of a token of hex digits alone at s, or NULL. */
static const char *hex_token(const char *s)
{
	const char *e = s;

	while (isxdigit((unsigned char)*e))
		e++;
	return e > s && (!*e || *e == ' ' || *e == '\t') ? e : NULL;
}

/*
 * Past the memory fields perf script prints for perf mem and record -d
 * samples before the sample's address (docs/formats.md, "perf script"):
 * data_src decoded as "|OP LOAD|LVL L1 hit|...|LCK No|BLK  N/A" ends with
 * a field whose value is one of a few words.
 */
static const char *past_data_src(const char *s)
{
	static const char *const words[] = { "N/A", "No", "Yes", "Data",
					     "Addr" };
	const char *op = strstr(s, " |OP "), *bar, *p;
	size_t i, n;

	if (!op)
		return s;
	bar = strrchr(op, '|');
	p = bar + 1;
	while (*p && *p != ' ' && *p != '\t')
		p++; /* the field's name: LCK, BLK */
	for (;;) {
		p = skip_blanks(p);
		n = strcspn(p, " \t");
		for (i = 0; i < PD_ARRAY_SIZE(words); i++)
			if (n == strlen(words[i]) && !memcmp(p, words[i], n))
				break;
		if (!n || i == PD_ARRAY_SIZE(words))
			return p;
		p += n;
	}
}

/*
 * The frame a header line carries (no -g): "IP SYM (DSO)" after the
 * event, perhaps behind the sample's data address, data source and
 * weight (perf mem, record -d -W), which are numbers too. In a run of
 * number-shaped tokens the address is the last, unless the symbol is
 * (a function named "add"): then what follows the run is the module or
 * nothing.
 */
static void header_frame(struct perf_state *st, const char *rest)
{
	const char *tok[64], *p = past_data_src(rest), *e;
	size_t k = 0;

	for (p = skip_blanks(p); k < PD_ARRAY_SIZE(tok) && (e = hex_token(p));
	     p = skip_blanks(e))
		tok[k++] = p;
	if (k >= 2 && (!*p || *p == '('))
		k--; /* the last is the symbol */
	try_frame_line(st, k >= 2 ? tok[k - 1] : skip_blanks(rest));
}

/* A header starts a sample; it may carry the only frame (no -g). */
static void start(struct perf_state *st, const struct perf_hdr *h)
{
	pd_perf_sample_start(st, h);
	if (st->keep && h->rest && *h->rest)
		header_frame(st, h->rest);
}

/* Reads every line into st's samples; 0, or the error code. */
int pd_perf_read_lines(struct perf_state *st, struct pd_lines *lines,
		       struct pd_err *err)
{
	struct perf_hdr h;
	char *line;
	size_t len;
	int rc;

	while ((rc = pd_lines_next(lines, &line, &len, err)) > 0) {
		const char *s = line, *m;
		int indented = *s == ' ' || *s == '\t';

		if (!len) {
			/* A blank line ends a sample once it has frames. */
			if (st->in_sample && st->frames.n)
				pd_perf_sample_end(st);
			continue;
		}
		if (*s == '#' && !st->in_sample)
			continue;
		if (st->in_sample &&
		    (indented || isxdigit((unsigned char)*s))) {
			/*
			 * Fast path: a frame line is "hex symbol...", and a
			 * symbol is never a bare pid; a padded header whose
			 * comm looks like hex ("cc1") is followed by one.
			 */
			int maybe_header, seen;

			/*
			 * A line seen before is what it was then: a frame
			 * line is not a header in any state (its text
			 * decided that), so it is pushed at once.
			 */
			if (st->keep && (seen = seen_line(st, line, len))) {
				if (seen < 0 && !st->skipped_lines++)
					st->first_skipped = lines->lineno;
				continue;
			}
			maybe_header = !frame_shaped(line);

			if (!maybe_header || !header(st, line, len, &h)) {
				if (maybe_header &&
				    (m = pd_perf_switch_mark(line))) {
					pd_perf_sample_end(st);
					pd_perf_switch_line(st, line, m);
					continue;
				}
				if (st->keep && !frame_line(st, line, len) &&
				    !st->skipped_lines++)
					/* srcline or an unknown line: skip */
					st->first_skipped = lines->lineno;
				continue;
			}
			pd_perf_sample_end(st);
			start(st, &h);
			continue;
		}
		if (header(st, line, len, &h)) {
			pd_perf_sample_end(st);
			start(st, &h);
			continue;
		}
		if ((m = pd_perf_switch_mark(line))) {
			pd_perf_sample_end(st);
			pd_perf_switch_line(st, line, m);
			continue;
		}
		if (!st->in_sample && *s != '#' && !st->skipped_lines++)
			st->first_skipped = lines->lineno;
	}
	if (rc == 0)
		pd_perf_sample_end(st);
	return rc;
}
