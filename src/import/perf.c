/*
 * `perf script` text (docs/formats.md, "Linux perf"). A sample is a header line
 *   comm [pid/]tid [cpu] time: [period] event[:mods]: [ip sym (dso)]
 * followed by call-chain lines "ip sym[+off] (dso)", leaf first, up to an
 * empty line. comm may contain spaces, so the header is read by finding the
 * first numeric token after which the remaining fields fit.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "import/import.h"
#include "model/func.h"

#define MAX_TOK 48

struct tok {
	const char *s;
	size_t n;
};

struct hdr {
	const char *comm;
	size_t comm_len;
	const char *pid, *tid;
	size_t pid_len, tid_len;
	double period;
	int has_period;
	const char *event;
	size_t event_len;
	const char *rest; /* text after the event, may hold a frame */
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

static int is_time(const struct tok *t)
{
	const char *dot;

	if (t->n < 3 || t->s[t->n - 1] != ':')
		return 0;
	dot = memchr(t->s, '.', t->n);
	if (!dot)
		return is_digits(t->s, t->n - 1);
	return is_digits(t->s, (size_t)(dot - t->s)) &&
	       is_digits(dot + 1, t->n - (size_t)(dot - t->s) - 2);
}

static int is_event(const struct tok *t)
{
	return t->n >= 2 && t->s[t->n - 1] == ':' && !is_time(t);
}

/* Strips modifiers (cycles:u -> cycles) but keeps tracepoint names. */
static size_t event_name_len(const char *s, size_t n)
{
	const char *c;
	size_t i;

	if (n && s[n - 1] == ':')
		n--;
	c = memchr(s, ':', n);
	if (!c)
		return n;
	for (i = (size_t)(c - s) + 1; i < n; i++)
		if (!strchr("ukhIGHpPSDWebR:", s[i]))
			return n;
	return (size_t)(c - s);
}

static int parse_header(const char *line, struct hdr *h)
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
		if (j < k && is_time(&t[j]))
			j++;
		memset(h, 0, sizeof(*h));
		if (j + 1 < k && is_digits(t[j].s, t[j].n) &&
		    is_event(&t[j + 1])) {
			h->period = strtod(t[j].s, NULL);
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
		h->event_len = event_name_len(t[j].s, t[j].n);
		h->rest = t[j].s + t[j].n;
		return 1;
	}
	return 0;
}

int pd_perf_sniff(const char *head, size_t len)
{
	struct pd_buf line = PD_BUF_INIT;
	const char *p = head, *end = head + len;
	struct hdr h;
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
		ok = parse_header(line.buf, &h);
	}
	pd_buf_release(&line);
	return ok;
}

struct pframe {
	uint32_t name, module;
	int inlined;
};

struct perf_state {
	struct pd_profile *p;
	const struct pd_import_opts *o;
	struct pd_intern cache; /* "sym\0dso" -> index into cache_frame */
	PD_VEC(uint32_t) cache_frame;
	PD_VEC(struct pframe) frames; /* current sample, leaf first */
	struct pd_buf key, name;
	/* current sample */
	int in_sample, keep, got_frames;
	double weight;
	uint32_t thread; /* string id of "comm" */
	/* events */
	struct pd_intern events;
	PD_VEC(uint64_t) event_samples;
	uint32_t chosen; /* event id, UINT32_MAX until known */
	int any_period, all_period, const_period;
	double first_period;
	uint32_t last_thread_name;
	size_t last_thread_idx;
	uint64_t skipped_lines;
	size_t first_skipped;
	double cut_weight; /* samples whose stack stops short of a start */
	uint32_t last_outer,
	    last_outer_ok; /* frame id seen last, its verdict */
};

static uint32_t frame_for(struct perf_state *st, const char *sym, size_t sn,
			  const char *dso, size_t dn)
{
	uint32_t id;

	pd_buf_reset(&st->key);
	pd_buf_add(&st->key, sym, sn);
	pd_buf_addch(&st->key, 0);
	pd_buf_add(&st->key, dso, dn);
	id = pd_intern(&st->cache, st->key.buf, st->key.len);
	if (id >= st->cache_frame.n) {
		uint32_t f =
		    pd_profile_frame(st->p, pd_intern(&st->p->strs, sym, sn),
				     pd_intern(&st->p->strs, dso, dn));

		PD_VEC_RESERVE(&st->cache_frame, (size_t)id + 1);
		while (st->cache_frame.n <= id)
			st->cache_frame.v[st->cache_frame.n++] = UINT32_MAX;
		st->cache_frame.v[id] = f;
	}
	return st->cache_frame.v[id];
}

/*
 * perf-map-agent "unfoldall": a->b->c, caller first, on one line of a JIT
 * map frame. Elsewhere "->" is a name (C++ operator->). Adds the chain
 * leaf first, the callers marked inlined into it; 0 when sym has no "->".
 */
static int add_jit_chain(struct perf_state *st, const char *sym, size_t sn,
			 const char *dso, size_t dn, int inlined)
{
	const char *q = sym, *e = sym + sn;
	size_t start = st->frames.n, i, a, b;
	struct pframe f;

	for (i = 0; i + 1 < sn; i++)
		if (sym[i] == '-' && sym[i + 1] == '>')
			break;
	if (i + 1 >= sn)
		return 0;
	while (q < e) {
		const char *x = q;

		while (x + 1 < e && !(x[0] == '-' && x[1] == '>'))
			x++;
		if (x + 1 >= e)
			x = e;
		/* stash (offset, length); resolved below */
		f.name = (uint32_t)(q - sym);
		f.module = (uint32_t)(x - q);
		f.inlined = 0;
		PD_VEC_PUSH(&st->frames, f);
		q = x < e ? x + 2 : e;
	}
	/* Caller first on the line; frames are kept leaf first. */
	for (a = start, b = st->frames.n - 1; a < b; a++, b--) {
		struct pframe t = st->frames.v[a];

		st->frames.v[a] = st->frames.v[b];
		st->frames.v[b] = t;
	}
	for (i = start; i < st->frames.n; i++) {
		uint32_t off = st->frames.v[i].name;
		uint32_t len = st->frames.v[i].module;

		st->frames.v[i].name = frame_for(st, sym + off, len, dso, dn);
		st->frames.v[i].module = 0;
		st->frames.v[i].inlined = i > start || inlined;
	}
	return 1;
}

/* Parses "ip sym[+off] (dso)" (ip already skipped); returns 0 if not one. */
static int add_frame_text(struct perf_state *st, const char *s, size_t n)
{
	const char *sym = s, *dso = "", *open = NULL;
	size_t sn = n, dn = 0, i;
	int inlined = 0;
	struct pframe f;

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
	/*
	 * An unresolved symbol is named after its module, as stackcollapse
	 * does: "[libc.so.6]" says more than "[unknown]" and still matches
	 * across runs (absolute addresses would not).
	 */
	if (!sn || (sn == 9 && !memcmp(sym, "[unknown]", 9))) {
		size_t b = dn;

		while (b > 0 && dso[b - 1] != '/')
			b--;
		if (dn && !(dn == 9 && !memcmp(dso, "[unknown]", 9))) {
			pd_buf_reset(&st->name);
			pd_buf_addch(&st->name, '[');
			pd_buf_add(&st->name, dso + b, dn - b);
			pd_buf_addch(&st->name, ']');
			sym = st->name.buf;
			sn = st->name.len;
		} else {
			sym = "[unknown]";
			sn = 9;
		}
	}
	if (sn > 2 && dn > 4 && !memcmp(dso + dn - 4, ".map", 4) &&
	    memchr(sym, '-', sn) &&
	    add_jit_chain(st, sym, sn, dso, dn, inlined))
		return 1;
	f.name = frame_for(st, sym, sn, dso, dn);
	f.module = 0;
	f.inlined = inlined;
	PD_VEC_PUSH(&st->frames, f);
	return 1;
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

static size_t thread_index(struct perf_state *st, uint32_t name)
{
	struct pd_profile *p = st->p;
	size_t i;

	if (p->threads.n && st->last_thread_name == name)
		return st->last_thread_idx;
	for (i = 0; i < p->threads.n; i++)
		if (p->threads.v[i].name == name)
			break;
	if (i == p->threads.n) {
		struct pd_thread_info t = { name, 0 };

		PD_VEC_PUSH(&p->threads, t);
	}
	st->last_thread_name = name;
	st->last_thread_idx = i;
	return i;
}

/*
 * Whether a stack's outermost frame is where a thread starts: the
 * process's entry (_start, __libc_start_main, ...), a thread's (clone,
 * start_thread, ...), or the kernel (its own threads). Anything else is a
 * stack cut short, as unwinding by frame pointers leaves it in code built
 * without them.
 */
static int reaches_start(const struct pd_profile *p, uint32_t frame)
{
	static const char *const starts[] = {
		"_start",
		"__libc_start_main",
		"__libc_start_call_main",
		"__libc_start_main_impl",
		"start_thread",
		"clone",
		"clone3",
		"__clone",
		"__clone3",
		"thread_start",
		"_dl_start_user",
		"__start",
		"RtlUserThreadStart",
		"BaseThreadInitThunk",
		"main",
	};
	const char *name = pd_intern_str(&p->strs, p->frames.v[frame].name);
	const char *mod = pd_intern_str(&p->strs, p->frames.v[frame].module);
	size_t i, n = strcspn(name, "+");

	if (pd_frame_is_system(name, strlen(name), mod, strlen(mod)))
		return 1;
	for (i = 0; i < sizeof(starts) / sizeof(*starts); i++)
		if (n == strlen(starts[i]) && !strncmp(name, starts[i], n))
			return 1;
	return 0;
}

static void end_sample(struct perf_state *st)
{
	struct pd_profile *p = st->p;
	uint32_t node = PD_ROOT;
	size_t i;

	if (!st->in_sample)
		return;
	st->in_sample = 0;
	if (!st->keep) {
		st->frames.n = 0;
		return;
	}
	/* An inlined frame lives in the module of the frame it sits in. */
	for (i = st->frames.n; i-- > 0;) {
		uint32_t fr = st->frames.v[i].name;

		if (st->frames.v[i].inlined && i + 1 < st->frames.n &&
		    p->frames.v[fr].module == 0) {
			uint32_t outer = st->frames.v[i + 1].name;
			uint32_t mod = p->frames.v[outer].module;

			st->frames.v[i].name =
			    pd_profile_frame(p, p->frames.v[fr].name, mod);
		}
	}
	if (st->o->thread_roots)
		node = pd_profile_thread_root(
		    p, pd_intern_str(&p->strs, st->thread),
		    pd_intern_len(&p->strs, st->thread));
	for (i = st->frames.n; i-- > 0;)
		node = pd_profile_child(p, node, st->frames.v[i].name);
	pd_profile_add(p, node, st->weight, 1);
	if (st->frames.n > 0) {
		uint32_t outer = st->frames.v[st->frames.n - 1].name;

		if (outer != st->last_outer) { /* one look-up per new frame */
			st->last_outer = outer;
			st->last_outer_ok = (uint32_t)reaches_start(p, outer);
		}
		if (!st->last_outer_ok)
			st->cut_weight += st->weight;
	}
	i = thread_index(st, st->thread); /* may grow p->threads */
	p->threads.v[i].weight += st->weight;
	p->nsamples++;
	st->frames.n = 0;
}

static int start_sample(struct perf_state *st, const struct hdr *h)
{
	uint32_t ev = pd_intern(&st->events, h->event, h->event_len);
	const struct pd_import_opts *o = st->o;

	while (st->event_samples.n <= ev)
		PD_VEC_PUSH(&st->event_samples, 0);
	st->event_samples.v[ev]++;
	st->in_sample = 1;
	st->got_frames = 0;
	st->frames.n = 0;
	if (st->chosen == UINT32_MAX) {
		if (!o->event || (strlen(o->event) == h->event_len &&
				  !memcmp(o->event, h->event, h->event_len)))
			st->chosen = ev;
	}
	st->keep = ev == st->chosen;
	if (st->keep && (o->process || o->thread)) {
		int pm =
		    pd_filter_match(o->process, h->comm, h->comm_len) ||
		    (h->pid && o->process && strlen(o->process) == h->pid_len &&
		     !memcmp(o->process, h->pid, h->pid_len));
		int tm = pd_filter_match(o->thread, h->comm, h->comm_len) ||
			 (o->thread && strlen(o->thread) == h->tid_len &&
			  !memcmp(o->thread, h->tid, h->tid_len));

		st->keep = pm && tm;
	}
	if (!st->keep)
		return 0;
	if (h->has_period) {
		if (!st->any_period)
			st->first_period = h->period;
		else if (h->period < st->first_period ||
			 h->period > st->first_period)
			st->const_period = 0;
		st->any_period = 1;
	} else {
		st->all_period = 0;
	}
	st->weight = h->has_period ? h->period : 1;
	st->thread = pd_intern(&st->p->strs, h->comm, h->comm_len);
	/* A header may carry the only frame (perf script without -g). */
	if (h->rest && *h->rest)
		try_frame_line(st, h->rest);
	return 0;
}

static int is_time_event(const char *e)
{
	return !strcmp(e, "cpu-clock") || !strcmp(e, "task-clock");
}

/* Reads every line into st's samples; 0, or the error code. */
static int read_lines(struct perf_state *st, struct pd_lines *lines,
		      struct pd_err *err)
{
	struct hdr h;
	char *line;
	size_t len;
	int rc;

	while ((rc = pd_lines_next(lines, &line, &len, err)) > 0) {
		const char *s = line;
		int indented = *s == ' ' || *s == '\t';

		if (!len) {
			/* A blank line ends a sample once it has frames. */
			if (st->in_sample && st->frames.n)
				end_sample(st);
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
			int maybe_header = !frame_shaped(line);

			if (!maybe_header || !parse_header(line, &h)) {
				if (st->keep && !try_frame_line(st, line) &&
				    !st->skipped_lines++)
					/* srcline or an unknown line: skip */
					st->first_skipped = lines->lineno;
				continue;
			}
			end_sample(st);
			start_sample(st, &h);
			continue;
		}
		if (parse_header(line, &h)) {
			end_sample(st);
			start_sample(st, &h);
			continue;
		}
		if (!st->in_sample && *s != '#' && !st->skipped_lines++)
			st->first_skipped = lines->lineno;
	}
	if (rc == 0)
		end_sample(st);
	return rc;
}

/* No sample of the event asked for, or none at all. */
static int no_samples(const struct perf_state *st, const char *path,
		      const struct pd_import_opts *o, struct pd_err *err)
{
	struct pd_buf names = PD_BUF_INIT;
	size_t i;
	int rc;

	if (!o->event || st->events.n <= 1)
		return pd_err_set(err, PD_EEMPTY,
				  "%s: no perf samples found (empty profile)",
				  path);
	for (i = 1; i < st->events.n; i++)
		pd_buf_addf(&names, "%s%s", i > 1 ? ", " : "",
			    pd_intern_str(&st->events, (uint32_t)i));
	rc = pd_err_set(err, PD_EEMPTY,
			"%s: no samples of event '%s' (the file has: %s)", path,
			o->event, names.buf);
	pd_buf_release(&names);
	return rc;
}

/* What the reader saw that the user should know: notes on p. */
static void notes(const struct perf_state *st, struct pd_profile *p,
		  const char *path)
{
	size_t i;

	if (p->nsamples >= 100 && st->cut_weight > 0.2 * p->total_weight)
		pd_profile_note(
		    p,
		    "%.0f %% of the samples' stacks stop short of a thread's"
		    " start (_start, clone, start_thread): the frames above"
		    " were lost unwinding code without frame pointers, so"
		    " callers' totals are too low; record with perf record"
		    " --call-graph dwarf, or build with"
		    " -fno-omit-frame-pointer (docs/formats.md)",
		    st->cut_weight / p->total_weight * 100);
	if (st->events.n > 2) {
		struct pd_buf others = PD_BUF_INIT;

		for (i = 1; i < st->events.n; i++) {
			if (i == st->chosen)
				continue;
			pd_buf_addf(&others, "%s%s (%llu samples)",
				    others.len ? ", " : "",
				    pd_intern_str(&st->events, (uint32_t)i),
				    (unsigned long long)st->event_samples.v[i]);
		}
		pd_profile_note(p,
				"%s: using event %s; also in the file: %s"
				" (--event to choose)",
				path, p->event, others.buf);
		pd_buf_release(&others);
	}
}

/* The unit: periods when every sample has one, else samples of 1. */
static void weigh(const struct perf_state *st, struct pd_profile *p,
		  const char *path)
{
	size_t i;

	if (st->any_period && st->all_period) {
		p->unit = is_time_event(p->event) ? PD_UNIT_NS : PD_UNIT_COUNT;
		if (st->const_period)
			p->interval = st->first_period;
		p->count_rule = pd_xstrdup(
		    "sample counts = perf samples; weights = periods");
		return;
	}
	if (st->any_period)
		pd_profile_note(p,
				"%s: some samples carry no period; weighting"
				" every sample as 1",
				path);
	for (i = 0; i < p->nodes.n; i++)
		p->nodes.v[i].weight = p->nodes.v[i].count;
	p->unit = PD_UNIT_SAMPLES;
	p->interval = 1;
	p->count_rule = pd_xstrdup("sample counts = perf samples");
}

int pd_perf_import(struct pd_input *in, struct pd_profile *p,
		   const struct pd_import_opts *o, struct pd_err *err)
{
	struct perf_state st;
	struct pd_lines lines;
	int rc;

	memset(&st, 0, sizeof(st));
	st.last_outer = UINT32_MAX;
	st.p = p;
	st.o = o;
	st.chosen = UINT32_MAX;
	st.all_period = 1;
	st.const_period = 1;
	pd_intern_init(&st.cache);
	pd_intern_init(&st.events);
	pd_buf_init(&st.key);
	pd_buf_init(&st.name);
	pd_lines_init(&lines, in);
	rc = read_lines(&st, &lines, err);
	if (rc == 0 && st.chosen == UINT32_MAX)
		rc = no_samples(&st, in->path, o, err);
	if (rc == 0) {
		p->event = pd_xstrdup(pd_intern_str(&st.events, st.chosen));
		pd_profile_finish(p);
		notes(&st, p, in->path);
		weigh(&st, p, in->path);
		if (st.skipped_lines)
			pd_profile_note(p,
					"%s: skipped %llu unrecognised lines,"
					" first at %s:%zu",
					in->path,
					(unsigned long long)st.skipped_lines,
					in->path, st.first_skipped);
	}
	pd_lines_release(&lines);
	pd_intern_release(&st.cache);
	pd_intern_release(&st.events);
	PD_VEC_FREE(&st.cache_frame);
	PD_VEC_FREE(&st.frames);
	PD_VEC_FREE(&st.event_samples);
	pd_buf_release(&st.key);
	pd_buf_release(&st.name);
	return rc;
}
