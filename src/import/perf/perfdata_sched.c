/*
 * Off-CPU time from perf.data read directly (docs/formats.md, "Off-CPU
 * time"): a sched:sched_switch sample carries its fields (prev_pid,
 * prev_state, next_pid) as raw tracepoint bytes, laid out as the format
 * perf recorded in the file's tracing data says (a sched_wakeup its
 * pid); PERF_RECORD_SWITCH and
 * PERF_RECORD_SWITCH_CPU_WIDE records (perf record --switch-events) carry
 * their thread and time in the sample id trailer. Both are given to the
 * same assembly the perf script reader uses (perf_wait.c), so that a
 * recording and its text have the same waits.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/perf/perf_int.h"
#include "import/perf/perfdata_int.h"

/* ---- the tracing data feature (tools/perf/util/trace-event-read.c) ---- */

struct tcur {
	const unsigned char *b;
	uint64_t n, at;
};

static int t_skip(struct tcur *c, uint64_t k)
{
	if (k > c->n - c->at)
		return -1;
	c->at += k;
	return 0;
}

static int t_u32(struct tcur *c, uint32_t *v)
{
	if (c->n - c->at < 4)
		return -1;
	*v = u32at(c->b + c->at);
	c->at += 4;
	return 0;
}

static int t_u64(struct tcur *c, uint64_t *v)
{
	if (c->n - c->at < 8)
		return -1;
	*v = u64at(c->b + c->at);
	c->at += 8;
	return 0;
}

/* A NUL-terminated string at the cursor: its start, or NULL. */
static const char *t_str(struct tcur *c)
{
	const unsigned char *s = c->b + c->at;
	const unsigned char *z = memchr(s, 0, (size_t)(c->n - c->at));

	if (!z)
		return NULL;
	c->at += (uint64_t)(z - s) + 1;
	return (const char *)s;
}

/* The number after key in the line [s, e), or -1. */
static long long line_num(const char *s, const char *e, const char *key)
{
	size_t k = strlen(key);
	long long v = 0;
	int any = 0;

	for (; s + k <= e; s++)
		if (!memcmp(s, key, k))
			break;
	if (s + k > e)
		return -1;
	for (s += k; s < e && *s >= '0' && *s <= '9' && v < (1LL << 40); s++) {
		v = v * 10 + (*s - '0');
		any = 1;
	}
	return any ? v : -1;
}

/*
 * A "field:TYPE NAME[N];\toffset:O;\tsize:S;" line: the field's name is
 * the identifier before ';' or '[' of the part after "field:".
 */
static void format_field(struct pdd_sched *s, const char *l, const char *e)
{
	static const char *const names[PDD_SCHED_NFIELDS] = { "prev_pid",
							      "prev_state",
							      "next_pid" };
	const char *f = l, *semi, *end;
	long long off, size;
	size_t i;

	while (f < e && (*f == ' ' || *f == '\t'))
		f++;
	if ((size_t)(e - f) < 6 || memcmp(f, "field:", 6))
		return;
	semi = memchr(f, ';', (size_t)(e - f));
	if (!semi)
		return;
	end = memchr(f, '[', (size_t)(semi - f));
	if (!end)
		end = semi;
	off = line_num(semi, e, "offset:");
	size = line_num(semi, e, "size:");
	if (off < 0 || size <= 0 || off > 65535 || size > 8)
		return;
	for (i = 0; i < PDD_SCHED_NFIELDS; i++) {
		size_t k = strlen(names[i]);

		if ((size_t)(end - f) > k && !memcmp(end - k, names[i], k) &&
		    (end[-(long)k - 1] == ' ' || end[-(long)k - 1] == '*')) {
			s->off[i] = (uint32_t)off;
			s->size[i] = (uint32_t)size;
		}
	}
}

/*
 * prev_state's letters from the print format's __print_flags table,
 * "{ 0x00000002, "D" }" (or "{ 2, "D" }" before Linux 4.14). A state with
 * none of them is "R"; the bit above the highest is "+" (preempted).
 */
static void format_flags(struct pdd_sched *s, const char *p, const char *e)
{
	s->nflags = 0;
	for (; p < e && s->nflags < PDD_SCHED_NFLAGS; p++) {
		char *after;
		unsigned long long v;
		const char *q;

		if (*p != '{')
			continue;
		v = strtoull(p + 1, &after, 0);
		q = after;
		if (q == p + 1 || q >= e || *q != ',')
			continue;
		for (q++; q < e && *q == ' '; q++)
			;
		if (e - q < 3 || q[0] != '"' || q[2] != '"' || !v)
			continue;
		s->flag[s->nflags] = v;
		s->letter[s->nflags++] = q[1];
	}
}

/* sched_wakeup's format text [b, e): 1 when its pid's place is known. */
static int read_wakeup(struct pdd_sched *s, const char *b, const char *e)
{
	const char *l, *nl;
	long long id = -1;

	if ((size_t)(e - b) < 19 || memcmp(b, "name: sched_wakeup\n", 19))
		return 0;
	for (l = b; l < e; l = nl + 1) {
		const char *f = l, *semi;

		nl = memchr(l, '\n', (size_t)(e - l));
		if (!nl)
			nl = e;
		if (!strncmp(l, "ID: ", 4))
			id = line_num(l, nl, "ID: ");
		while (f < nl && (*f == ' ' || *f == '\t'))
			f++;
		semi = memchr(f, ';', (size_t)(nl - f));
		if ((size_t)(nl - f) > 6 && !memcmp(f, "field:", 6) && semi &&
		    semi - f > 4 && !memcmp(semi - 4, " pid", 4)) {
			long long off = line_num(semi, nl, "offset:");
			long long size = line_num(semi, nl, "size:");

			if (off >= 0 && off <= 65535 && size > 0 && size <= 8) {
				s->wake_off = (uint32_t)off;
				s->wake_size = (uint32_t)size;
			}
		}
	}
	if (id < 0 || !s->wake_size)
		return 0;
	s->wake_id = (uint64_t)id;
	return 1;
}

/* The sched_switch format text [b, e): 1 when its three fields are known. */
static int read_format(struct pdd_sched *s, const char *b, const char *e)
{
	const char *l, *nl;
	long long id = -1;
	size_t i;

	if ((size_t)(e - b) < 19 || memcmp(b, "name: sched_switch\n", 19))
		return 0;
	for (l = b; l < e; l = nl + 1) {
		nl = memchr(l, '\n', (size_t)(e - l));
		if (!nl)
			nl = e;
		if (!strncmp(l, "ID: ", 4))
			id = line_num(l, nl, "ID: ");
		else if (!strncmp(l, "print fmt:", 10))
			format_flags(s, l, e);
		else
			format_field(s, l, nl);
	}
	for (i = 0; i < PDD_SCHED_NFIELDS; i++)
		if (!s->size[i])
			return 0;
	if (id < 0)
		return 0;
	s->id = (uint64_t)id;
	return 1;
}

void pd_pdd_tracing_data(struct pdd *d, const unsigned char *b, uint64_t n)
{
	static const unsigned char magic[10] = { 0x17, 0x08, 0x44, 't', 'r',
						 'a',  'c',  'i',  'n', 'g' };
	struct tcur c = { b, n, 0 };
	struct pdd_sched s;
	uint32_t k, i, nsys, nev;
	uint64_t size;
	const char *sys;

	memset(&s, 0, sizeof(s));
	if (n < sizeof(magic) || memcmp(b, magic, sizeof(magic)))
		return;
	c.at = sizeof(magic);
	if (!t_str(&c) || c.n - c.at < 6)
		return;
	if (b[c.at]) /* a big-endian machine's tracepoints */
		return;
	if (t_skip(&c, 6) || t_skip(&c, 12) || t_u64(&c, &size) ||
	    t_skip(&c, size) || t_skip(&c, 13) || t_u64(&c, &size) ||
	    t_skip(&c, size) || t_u32(&c, &k))
		return;
	for (i = 0; i < k; i++) /* ftrace's own formats */
		if (t_u64(&c, &size) || t_skip(&c, size))
			return;
	if (t_u32(&c, &nsys))
		return;
	while (nsys--) {
		sys = t_str(&c);
		if (!sys || t_u32(&c, &nev))
			return;
		for (i = 0; i < nev; i++) {
			const char *f;

			if (t_u64(&c, &size))
				return;
			f = (const char *)b + c.at;
			if (t_skip(&c, size))
				return;
			if (strcmp(sys, "sched"))
				continue;
			if (!s.ok && read_format(&s, f, f + size))
				s.ok = 1;
			else if (!s.wake_ok && read_wakeup(&s, f, f + size))
				s.wake_ok = 1;
			if (s.ok || s.wake_ok)
				d->sched = s;
			if (s.ok && s.wake_ok)
				return;
		}
	}
}

/* ---- samples and switch records ---- */

static uint64_t raw_field(const struct pdd_sched *s, int i,
			  const unsigned char *raw, uint32_t nraw, int *ok)
{
	uint32_t o = s->off[i], z = s->size[i];
	uint64_t v = 0;

	if (o > nraw || z > nraw - o) {
		*ok = 0;
		return 0;
	}
	if (z == 8)
		v = u64at(raw + o);
	else if (z == 4)
		v = u32at(raw + o);
	else if (z == 2)
		v = u16at(raw + o);
	else
		v = raw[o];
	return v;
}

/* prev_state as perf prints it: "S", "D", "R", "R+", "S|D" ... */
static void state_text(const struct pdd_sched *s, uint64_t v, struct pd_buf *b)
{
	static const uint64_t dflag[] = { 1, 2, 4, 8, 0x10, 0x20, 0x40, 0x80 };
	static const char dletter[] = "SDTtXZPI";
	const uint64_t *flag = s->nflags ? s->flag : dflag;
	const char *letter = s->nflags ? s->letter : dletter;
	unsigned n = s->nflags ? s->nflags : 8, i, any = 0;
	uint64_t top = 0;

	for (i = 0; i < n; i++)
		if (flag[i] > top)
			top = flag[i];
	for (i = 0; i < n; i++) {
		if (!(v & flag[i]))
			continue;
		if (any++)
			pd_buf_addch(b, '|');
		pd_buf_addch(b, letter[i]);
	}
	if (!any)
		pd_buf_addch(b, 'R');
	if (top && top < ((uint64_t)1 << 62) && (v & top << 1))
		pd_buf_addch(b, '+');
}

int pd_pdd_sched_text(const struct pdd *d, const struct pdd_attr *a,
		      const unsigned char *raw, uint32_t nraw, struct pd_buf *b)
{
	const struct pdd_sched *s = &d->sched;
	uint64_t prev, state, next;
	int ok = 1;

	if (!raw || a->type != 2)
		return 0;
	if (s->wake_ok && a->config == s->wake_id) {
		uint32_t o = s->wake_off, z = s->wake_size;

		if (o > nraw || z > nraw - o || z < 4)
			return 0;
		pd_buf_reset(b);
		pd_buf_addf(b, " pid=%u", (unsigned)u32at(raw + o));
		return 1;
	}
	if (!s->ok || a->config != s->id)
		return 0;
	prev = raw_field(s, PDD_SCHED_PREV_PID, raw, nraw, &ok);
	state = raw_field(s, PDD_SCHED_PREV_STATE, raw, nraw, &ok);
	next = raw_field(s, PDD_SCHED_NEXT_PID, raw, nraw, &ok);
	if (!ok)
		return 0;
	/* the fields the text reader takes, as perf script prints them */
	pd_buf_reset(b);
	pd_buf_addf(b, " prev_pid=%u prev_state=", (unsigned)(uint32_t)prev);
	state_text(s, state, b);
	pd_buf_addf(b, " ==> next_pid=%u", (unsigned)(uint32_t)next);
	return 1;
}

/*
 * The thread and time of a non-sample record's sample id trailer, laid
 * out by its event's sample_type (found by its IDENTIFIER when it has
 * one): TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER, 8 bytes each, last at
 * the end. 0 when the record has no thread and time.
 */
static int trailer(const struct pdd *d, const unsigned char *r, size_t size,
		   uint32_t *tid, uint64_t *time)
{
	uint64_t t = d->trailer_type;
	size_t n, at;

	if ((t & S_IDENTIFIER) && size >= 16 && d->attrs.n > 1) {
		size_t a = pd_pdd_attr_of(d, u64at(r + size - 8));

		if (a != SIZE_MAX)
			t = d->attrs.v[a].sample_type;
	}
	if (!(t & S_TID) || !(t & S_TIME))
		return 0;
	n = 2 + !!(t & S_ID) + !!(t & S_STREAM_ID) + !!(t & S_CPU) +
	    !!(t & S_IDENTIFIER);
	if (size < 8 + 8 * n)
		return 0;
	at = size - 8 * n;
	*tid = u32at(r + at + 4);
	*time = u64at(r + at + 8);
	return 1;
}

void pd_pdd_switch_record(const struct pdd *d, struct perf_state *st,
			  const unsigned char *r, size_t size)
{
	uint32_t tid;
	uint64_t time;

	if (!d->trailer_type || !trailer(d, r, size, &tid, &time))
		return;
	pd_perf_sample_end(st);
	pd_perf_switch_record(st, (double)time, (long long)tid,
			      !!(u16at(r + 4) & MISC_SWITCH_OUT));
}
