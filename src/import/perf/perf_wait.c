/*
 * Off-CPU time from perf script text (docs/formats.md, "Off-CPU time"):
 * a sched:sched_switch sample is a thread switched out, with the stack it
 * waits in; the thread's next switch-in (a "PERF_RECORD_SWITCH IN" line of
 * perf script --show-switch-events, or a system-wide recording's
 * sched_switch naming it as next_pid) ends the wait. Each wait is time of
 * the innermost frame of the program that waited, as a frame of its own
 * named by why ("read (io)"), the way a Thread Time export's are
 * (docs/statistics.md, "Waiting time").
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/xalloc.h"
#include "import/perf/perf_int.h"
#include "model/func.h"

#define SWITCH_EVENT "sched:sched_switch"
#define WAKEUP_EVENT "sched:sched_wakeup"

/* Why a thread was off its CPU, from prev_state. */
enum { KIND_BLOCKED, KIND_IO, KIND_READY, KIND_STOPPED, KIND_DEAD };

static const char *const kind_names[] = { "blocked", "io", "ready", "stopped" };

int pd_perf_is_switch(const char *event, size_t len)
{
	return len == sizeof(SWITCH_EVENT) - 1 &&
	       !memcmp(event, SWITCH_EVENT, len);
}

/*
 * prev_state as the kernel prints it: R or R+ preempted (ready to run),
 * D uninterruptible (disk reads, page faults from disk), S sleeping (a
 * lock, an event, a timer, a socket), T or t stopped, X or Z exiting.
 */
static int state_kind(const char *s)
{
	size_t n = strcspn(s, " \t");

	if (!n)
		return KIND_BLOCKED;
	if (*s == 'R')
		return KIND_READY;
	if (memchr(s, 'D', n))
		return KIND_IO;
	if (*s == 'T' || *s == 't')
		return KIND_STOPPED;
	if (*s == 'X' || *s == 'Z')
		return KIND_DEAD;
	return KIND_BLOCKED;
}

/* The number after key in s ("prev_pid=123"), -1 when not there. */
static long long field(const char *s, const char *key)
{
	const char *f = strstr(s, key);
	long long v = 0;
	int any = 0;

	if (!f)
		return -1;
	for (f += strlen(key); *f >= '0' && *f <= '9'; f++) {
		if (v < 1000000000000LL)
			v = v * 10 + (*f - '0');
		any = 1;
	}
	return any ? v : -1;
}

static void log_switch(struct perf_state *st, double time, long long tid,
		       uint32_t node)
{
	struct perf_switch w;

	if (tid < 0 || tid > (long long)UINT32_MAX || isnan(time))
		return;
	if (st->sw.n >= st->sw_cap) {
		if (!st->sw_over)
			st->sw_over_time = time;
		st->sw_over = 1;
		return;
	}
	w.time = time;
	w.tid = (uint32_t)tid;
	w.node = node;
	w.thread = st->thread;
	w.kind = (uint32_t)st->sw_kind;
	PD_VEC_PUSH(&st->sw, w);
	if (node == PERF_SW_IN)
		st->sw_in++;
	else if (node == PERF_SW_WAKE)
		st->sw_wake++;
	else
		st->sw_out++;
}

/*
 * A sched:sched_wakeup sample ("comm=... pid=N prio=... target_cpu=..."):
 * thread N runnable from then, in the waker's context. 1 when h is one.
 */
static int wakeup(struct perf_state *st, const struct perf_hdr *h)
{
	const char *o = st->o->event;
	long long tid;

	if (h->event_len != sizeof(WAKEUP_EVENT) - 1 ||
	    memcmp(h->event, WAKEUP_EVENT, h->event_len) || !h->rest ||
	    (o && !strcmp(o, WAKEUP_EVENT)))
		return 0;
	tid = field(h->rest, " pid=");
	if (tid <= 0)
		return 0;
	log_switch(st, h->time, tid, PERF_SW_WAKE);
	return 1;
}

int pd_perf_switch_start(struct perf_state *st, const struct perf_hdr *h)
{
	const char *o = st->o->event, *state;
	long long prev, next;

	st->in_switch = 0;
	if (wakeup(st, h))
		return 1;
	if (!pd_perf_is_switch(h->event, h->event_len) || !h->rest ||
	    (o && !strcmp(o, SWITCH_EVENT)))
		return 0;
	prev = field(h->rest, " prev_pid=");
	state = strstr(h->rest, " prev_state=");
	if (prev < 0 || !state)
		return 0; /* not the kernel's format: a sample as any other */
	st->sw_seen++;
	next = field(h->rest, " next_pid=");
	if (next > 0)
		log_switch(st, h->time, next, PERF_SW_IN);
	st->sw_kind = state_kind(state + 12);
	st->sw_tid = (uint32_t)prev;
	st->in_switch = st->sw_kind != KIND_DEAD && prev > 0 &&
			prev <= (long long)UINT32_MAX;
	return 1;
}

static int frame_system(const struct pd_profile *p, uint32_t f)
{
	const struct pd_frame *fr = &p->frames.v[f];

	return pd_frame_is_system(pd_intern_str(&p->strs, fr->name),
				  pd_intern_len(&p->strs, fr->name),
				  pd_intern_str(&p->strs, fr->module),
				  pd_intern_len(&p->strs, fr->module));
}

static int frame_runtime(const struct pd_profile *p, uint32_t f)
{
	uint32_t m = p->frames.v[f].module;

	return pd_frame_is_runtime(pd_intern_str(&p->strs, m),
				   pd_intern_len(&p->strs, m));
}

/* "name (kind)" in the module of frame f (PD_NO_FRAME: "(kind)"). */
static uint32_t wait_frame(struct perf_state *st, uint32_t f, int kind)
{
	struct pd_profile *p = st->p;
	struct pd_buf b = PD_BUF_INIT;
	uint32_t mod = 0, w;

	if (f != PD_NO_FRAME) {
		const struct pd_frame *fr = &p->frames.v[f];

		pd_buf_add(&b, pd_intern_str(&p->strs, fr->name),
			   pd_intern_len(&p->strs, fr->name));
		pd_buf_addch(&b, ' ');
		mod = fr->module;
	}
	pd_buf_addf(&b, "(%s)", kind_names[kind]);
	w = pd_profile_frame(p, pd_intern(&p->strs, b.buf, b.len), mod);
	pd_buf_release(&b);
	return w;
}

/*
 * The kernel's frames at the leaf (the scheduler, the system call, the
 * interrupt that preempted), and the C library's below them, are left
 * out of the wait's stack: kernel frames are set apart from the
 * program's time (docs/statistics.md, "System frames"), and the wait is
 * the program's function's, which called read or nanosleep. A stack of
 * kernel frames alone (a kernel thread) keeps them all; one of the C
 * library's alone keeps the library's.
 */
void pd_perf_switch_end(struct perf_state *st)
{
	struct pd_profile *p = st->p;
	size_t n = st->frames.n, u = 0, i;
	uint32_t node = PD_ROOT;

	while (u < n && frame_system(p, st->frames.v[u].name))
		u++;
	if (u == n)
		u = 0;
	for (i = u; i < n && frame_runtime(p, st->frames.v[i].name);)
		i++;
	if (i < n)
		u = i;
	if (st->o->thread_roots)
		node = pd_profile_thread_root(
		    p, pd_intern_str(&p->strs, st->thread),
		    pd_intern_len(&p->strs, st->thread));
	for (i = n; i-- > u;)
		node = pd_profile_child(p, node, st->frames.v[i].name);
	node = pd_profile_child(
	    p, node,
	    wait_frame(st, n ? st->frames.v[u].name : PD_NO_FRAME,
		       st->sw_kind));
	log_switch(st, st->time, st->sw_tid, node);
}

void pd_perf_switch_line(struct perf_state *st, const char *line, const char *m)
{
	const char *t, *e;
	const char *dir;
	double time;
	long long tid = 0;

	dir = m + 20;
	if (!strncmp(dir, "_CPU_WIDE", 9))
		dir += 9;
	while (*dir == ' ')
		dir++;
	if (strncmp(dir, "IN", 2)) {
		/* a switch-out: its sched_switch has the stack */
		if (!strncmp(dir, "OUT", 3))
			pd_perf_switch_record(st, 0, -1, 1);
		return;
	}
	/* back from the colon: the time, perhaps [cpu], then [pid/]tid */
	e = m;
	for (t = e; t > line && t[-1] != ' '; t--)
		;
	time = strtod(t, NULL);
	while (t > line && t[-1] == ' ')
		t--;
	if (t > line && t[-1] == ']') {
		while (t > line && t[-1] != '[')
			t--;
		if (t > line)
			t--;
		while (t > line && t[-1] == ' ')
			t--;
	}
	e = t;
	while (t > line && t[-1] >= '0' && t[-1] <= '9')
		t--;
	if (t == e)
		return;
	for (; t < e && tid < 1000000000000LL; t++)
		tid = tid * 10 + (*t - '0');
	pd_perf_switch_record(st, time, tid, 0);
}

void pd_perf_switch_record(struct perf_state *st, double time, long long tid,
			   int out)
{
	if (out)
		st->sw_outrec++;
	else
		log_switch(st, time, tid, PERF_SW_IN);
}

struct order {
	double time;
	uint32_t tid;
	size_t at; /* index in the log: file order breaks ties */
};

static int by_thread_time(const void *a, const void *b)
{
	const struct order *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->time < y->time)
		return -1;
	if (x->time > y->time)
		return 1;
	return x->at < y->at ? -1 : x->at > y->at;
}

static int time_event(const char *e)
{
	return !strcmp(e, "cpu-clock") || !strcmp(e, "task-clock");
}

/* Each switch-out counted once, as perfdiff read them before. */
static void count_switches(struct perf_state *st)
{
	struct pd_profile *p = st->p;
	size_t i;

	for (i = 0; i < st->sw.n; i++) {
		const struct perf_switch *w = &st->sw.v[i];

		if (w->node == PERF_SW_IN || w->node == PERF_SW_WAKE)
			continue;
		pd_profile_add(p, w->node, 1, 1);
		pd_profile_thread(p, pd_intern_str(&p->strs, w->thread),
				  pd_intern_len(&p->strs, w->thread), 1);
		p->nsamples++;
	}
}

/*
 * The "(ready)" node beside a wait's node: the same function's time
 * waiting for a CPU once woken ("read_file (io)" -> "read_file (ready)").
 */
static uint32_t ready_node(struct perf_state *st, uint32_t node, int kind)
{
	struct pd_profile *p = st->p;
	const struct pd_node *nd = &p->nodes.v[node];
	const struct pd_frame *fr = &p->frames.v[nd->frame];
	const char *name = pd_intern_str(&p->strs, fr->name);
	size_t len = pd_intern_len(&p->strs, fr->name);
	size_t k = strlen(kind_names[kind]) + 2;
	uint32_t parent = nd->parent, mod = fr->module, f;
	struct pd_buf b = PD_BUF_INIT;

	if (len >= k)
		len -= k; /* the "(kind)" wait_frame added */
	pd_buf_add(&b, name, len);
	pd_buf_addf(&b, "(%s)", kind_names[KIND_READY]);
	f = pd_profile_frame(p, pd_intern(&p->strs, b.buf, b.len), mod);
	pd_buf_release(&b);
	return pd_profile_child(p, parent, f);
}

/* One wait of node from t0 to t1 (in the file's time unit). */
static double add_wait(struct perf_state *st, const struct perf_switch *w,
		       uint32_t node, double t0, double t1, double interval)
{
	struct pd_profile *p = st->p;
	double ns = (t1 - t0) * st->time_ns;

	pd_profile_add(p, node, ns, ns / interval);
	pd_profile_add_waits(p, p->nodes.v[node].frame, 1);
	pd_blocks_add_span(&p->blk, node, t0, t1, ns / interval);
	pd_profile_thread(p, pd_intern_str(&p->strs, w->thread),
			  pd_intern_len(&p->strs, w->thread), ns);
	return ns;
}

/*
 * Each switch-out paired with its thread's next switch-in, wakeups
 * between them passed over: the wait between them added to its node, in
 * ns, a count of ns / interval; where a sched_wakeup woke the thread
 * first (a thread that left preempted was runnable already), the wait is
 * its kind up to the wakeup and ready from then, as ETW's ReadyThread
 * splits one (docs/formats.md, "Off-CPU time"). Returns the waits added;
 * *waited their ns, *unpaired the switch-outs with none, *split the
 * waits cut at a wakeup.
 */
static uint64_t add_paired(struct perf_state *st, double interval,
			   double *waited, uint64_t *unpaired, uint64_t *split)
{
	size_t i, j, n = st->sw.n;
	struct order *ord = pd_xreallocarray(NULL, n + 1, sizeof(*ord));
	uint64_t paired = 0;

	for (i = 0; i < n; i++) {
		ord[i].time = st->sw.v[i].time;
		ord[i].tid = st->sw.v[i].tid;
		ord[i].at = i;
	}
	qsort(ord, n, sizeof(*ord), by_thread_time);
	for (i = 0; i < n; i++) {
		const struct perf_switch *w = &st->sw.v[ord[i].at], *in = NULL;
		const struct perf_switch *wake = NULL;
		double ready;

		if (w->node == PERF_SW_IN || w->node == PERF_SW_WAKE)
			continue;
		for (j = i + 1; j < n && ord[j].tid == w->tid; j++) {
			const struct perf_switch *x = &st->sw.v[ord[j].at];

			if (x->node != PERF_SW_WAKE) {
				in = x;
				break;
			}
			if (!wake)
				wake = x;
		}
		if (!in || in->node != PERF_SW_IN) {
			(*unpaired)++;
			continue;
		}
		ready = wake && w->kind != KIND_READY ? wake->time : in->time;
		if (ready > w->time || ready >= in->time)
			*waited +=
			    add_wait(st, w, w->node, w->time, ready, interval);
		if (ready < in->time) {
			*waited += add_wait(
			    st, w,
			    ready > w->time ? ready_node(st, w->node, w->kind)
					    : w->node,
			    ready, in->time, interval);
			*split += ready > w->time;
		}
		paired++;
	}
	free(ord);
	return paired;
}

void pd_perf_waits(struct perf_state *st, const char *path)
{
	struct pd_profile *p = st->p;
	uint32_t ev;
	const char *cpu = st->chosen != UINT32_MAX && st->p->nsamples
			      ? pd_intern_str(&st->events, st->chosen)
			      : NULL;
	double cpu_w = 0, cpu_n = 0, interval, waited = 0;
	uint64_t paired, unpaired = 0, split = 0;
	size_t i;

	ev =
	    pd_intern_find(&st->events, SWITCH_EVENT, sizeof(SWITCH_EVENT) - 1);
	if (!st->sw_out) {
		/*
		 * Text printed without the tracepoint's fields, or a
		 * perf.data without the format that lays them out.
		 */
		if (ev != UINT32_MAX && ev != st->chosen && cpu)
			pd_profile_note(
			    p,
			    "%s: %llu context switches (" SWITCH_EVENT
			    ") not read as off-CPU time: their fields"
			    " (prev_pid, prev_state) are not in the file"
			    " (perf script -F without trace, or a perf.data"
			    " without its tracepoint formats)",
			    path, (unsigned long long)st->event_samples.v[ev]);
		return;
	}
	st->sw_event = ev;
	if (!cpu && !st->sw_in) {
		st->chosen = ev;
		st->sw_mode = PERF_SW_COUNTED;
		count_switches(st);
		return;
	}
	if (st->sw_outrec > st->sw_seen + st->sw_seen / 50 + 2) {
		/* -F sets every event's frequency, the tracepoint's too */
		pd_profile_note(
		    p,
		    "%s: %llu context switches (" SWITCH_EVENT ") not read"
		    " as off-CPU time: only %llu of the %llu switch-outs"
		    " were sampled with their stack; record the tracepoint"
		    " at every switch, -e cpu-clock/freq=1999/ -e " SWITCH_EVENT
		    " (not -F, which samples it too;"
		    " docs/formats.md, \"Off-CPU time\")",
		    path, (unsigned long long)st->sw_out,
		    (unsigned long long)st->sw_seen,
		    (unsigned long long)st->sw_outrec);
		if (!cpu) {
			st->chosen = ev;
			st->sw_mode = PERF_SW_COUNTED;
			count_switches(st);
		} else
			st->sw_mode = PERF_SW_NOTED;
		return;
	}
	if (cpu && (!st->sw_in || !time_event(cpu) || !st->all_period)) {
		pd_profile_note(
		    p,
		    "%s: %llu context switches (" SWITCH_EVENT ") not read"
		    " as off-CPU time: %s (docs/formats.md, \"Off-CPU time\")",
		    path, (unsigned long long)st->sw_out,
		    !st->sw_in ? "the file has no switch-ins; record with"
				 " perf record --switch-events and print with"
				 " perf script --show-switch-events"
			       : "the CPU samples are not of time; record"
				 " them with -e cpu-clock");
		st->sw_mode = PERF_SW_NOTED;
		return;
	}
	for (i = 0; i < p->nodes.n; i++) {
		cpu_w += p->nodes.v[i].weight;
		cpu_n += p->nodes.v[i].count;
	}
	interval = cpu && cpu_n > 0 ? cpu_w / cpu_n : 1e6;
	paired = add_paired(st, interval, &waited, &unpaired, &split);
	if (!paired && !cpu) {
		st->chosen = ev;
		st->sw_mode = PERF_SW_COUNTED;
		count_switches(st);
		return;
	}
	if (!paired) {
		pd_profile_note(p,
				"%s: %llu context switches (" SWITCH_EVENT
				") not read as off-CPU time: none has a"
				" switch-in of its thread after it",
				path, (unsigned long long)st->sw_out);
		st->sw_mode = PERF_SW_NOTED;
		return;
	}
	if (!cpu)
		st->chosen = ev;
	st->sw_mode = cpu ? PERF_SW_WAITS : PERF_SW_WAITS_ONLY;
	pd_profile_note(p,
			"%s: off-CPU time from %llu context switches, each to"
			" the thread's next switch-in: %.1f ms waiting beside"
			" %.1f ms on CPU",
			path, (unsigned long long)paired, waited / 1e6,
			cpu ? cpu_w / 1e6 : 0.0);
	if (st->sw_wake)
		st->wake_event = pd_intern_find(&st->events, WAKEUP_EVENT,
						sizeof(WAKEUP_EVENT) - 1);
	if (split)
		pd_profile_note(p,
				"%s: %llu of the waits were split where"
				" " WAKEUP_EVENT " woke the thread: its kind"
				" until then, ready (waiting for a CPU) after",
				path, (unsigned long long)split);
	if (unpaired)
		pd_profile_note(p,
				"%s: %llu of the switch-outs had no switch-in"
				" of their thread after them and were left"
				" out",
				path, (unsigned long long)unpaired);
}
