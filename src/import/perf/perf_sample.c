/*
 * Samples into a profile, for both perf readers (perf_int.h): event
 * choice and filters, frame naming, the tree, threads, stacks cut short,
 * and the weighing rule (docs/formats.md, "Linux perf").
 */
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "core/limits.h"
#include "import/perf/perf_int.h"
#include "model/func.h"

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

/*
 * The frame perf script's "sym (dso)" names. An unresolved symbol is
 * named after its module, as stackcollapse does: "[libc.so.6]" says more
 * than "[unknown]" and still matches across runs (absolute addresses
 * would not).
 */
static void unknown_name(struct perf_state *st, const char **sym, size_t *sn,
			 const char *dso, size_t dn)
{
	if (!*sn || (*sn == 9 && !memcmp(*sym, "[unknown]", 9))) {
		size_t b = dn;

		while (b > 0 && dso[b - 1] != '/')
			b--;
		if (dn && !(dn == 9 && !memcmp(dso, "[unknown]", 9))) {
			pd_buf_reset(&st->name);
			pd_buf_addch(&st->name, '[');
			pd_buf_add(&st->name, dso + b, dn - b);
			pd_buf_addch(&st->name, ']');
			*sym = st->name.buf;
			*sn = st->name.len;
		} else {
			*sym = "[unknown]";
			*sn = 9;
		}
	}
}

uint32_t pd_perf_frame_id(struct perf_state *st, const char *sym, size_t sn,
			  const char *dso, size_t dn)
{
	unknown_name(st, &sym, &sn, dso, dn);
	return frame_for(st, sym, sn, dso, dn);
}

void pd_perf_frame_push(struct perf_state *st, uint32_t frame, int inlined)
{
	struct pframe f;

	f.name = frame;
	f.module = 0;
	f.inlined = inlined;
	PD_VEC_PUSH(&st->frames, f);
}

int pd_perf_frame_add(struct perf_state *st, const char *sym, size_t sn,
		      const char *dso, size_t dn, int inlined)
{
	unknown_name(st, &sym, &sn, dso, dn);
	if (sn > 2 && dn > 4 && !memcmp(dso + dn - 4, ".map", 4) &&
	    memchr(sym, '-', sn) &&
	    add_jit_chain(st, sym, sn, dso, dn, inlined))
		return 1;
	pd_perf_frame_push(st, frame_for(st, sym, sn, dso, dn), inlined);
	return 1;
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

void pd_perf_sample_end(struct perf_state *st)
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
	if (st->in_switch) {
		pd_perf_switch_end(st);
		st->frames.n = 0;
		return;
	}
	if (st->o->thread_roots)
		node = pd_profile_thread_root(
		    p, pd_intern_str(&p->strs, st->thread),
		    pd_intern_len(&p->strs, st->thread));
	for (i = st->frames.n; i-- > 0;)
		node = pd_profile_child(p, node, st->frames.v[i].name);
	pd_profile_add(p, node, st->weight, 1);
	if (st->log_times) {
		struct perf_tlog t;

		t.node = node;
		t.time = st->time;
		PD_VEC_PUSH(&st->tlog, t);
	} else {
		pd_blocks_add(&p->blk, node, st->time, 1);
	}
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

void pd_perf_period_seen(struct perf_state *st, double period)
{
	if (!st->any_period)
		st->first_period = period;
	else if (period < st->first_period || period > st->first_period)
		st->const_period = 0;
	st->any_period = 1;
}

int pd_perf_sample_start(struct perf_state *st, const struct perf_hdr *h)
{
	uint32_t ev = pd_intern(&st->events, h->event, h->event_len);
	const struct pd_import_opts *o = st->o;
	int sw;

	while (st->event_samples.n <= ev)
		PD_VEC_PUSH(&st->event_samples, 0);
	st->event_samples.v[ev]++;
	st->in_sample = 1;
	st->time = h->time;
	st->got_frames = 0;
	st->frames.n = 0;
	sw = pd_perf_switch_start(st, h);
	if (!sw && st->chosen == UINT32_MAX) {
		if (!o->event || (strlen(o->event) == h->event_len &&
				  !memcmp(o->event, h->event, h->event_len))) {
			st->chosen = ev;
			st->io_kind = pd_perf_io_event(h->event, h->event_len);
			st->io_by_bytes = st->io_kind && o->metric &&
					  !strcmp(o->metric, "bytes");
		}
	}
	st->keep = sw ? st->in_switch : ev == st->chosen;
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
	if (sw) {
		st->thread = pd_intern(&st->p->strs, h->comm, h->comm_len);
		return 0;
	}
	if (h->has_period) {
		pd_perf_period_seen(st, h->period);
	} else {
		st->all_period = 0;
	}
	st->weight = h->has_period ? h->period : 1;
	if (st->io_kind)
		pd_perf_io_sample(st, h);
	st->thread = pd_intern(&st->p->strs, h->comm, h->comm_len);
	return 0;
}

static int is_time_event(const char *e)
{
	return !strcmp(e, "cpu-clock") || !strcmp(e, "task-clock");
}

/* No sample of the event asked for, or none at all. */
static int no_samples(const struct perf_state *st, const char *path,
		      const struct pd_import_opts *o, struct pd_err *err)
{
	struct pd_buf names = PD_BUF_INIT;
	size_t i;
	int rc;

	if (!o->event && st->sw_wake && !st->sw_out)
		return pd_err_set(err, PD_EEMPTY,
				  "%s: only sched:sched_wakeup samples, which"
				  " split off-CPU time beside sched_switch"
				  " (docs/formats.md, \"Off-CPU time\"); read"
				  " them as events with --event"
				  " sched:sched_wakeup",
				  path);
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
	if (!strncmp(p->event, "sched:", 6) &&
	    st->sw_mode != PERF_SW_WAITS_ONLY)
		pd_profile_note(p,
				"%s: event %s counts scheduler events, not"
				" time: each sample is one %s, weighed 1"
				" (off-CPU time is not measured from it;"
				" docs/formats.md, \"Linux perf\")",
				path, p->event,
				!strcmp(p->event, "sched:sched_switch")
				    ? "context switch"
				    : "event");
	if (st->events.n > (size_t)2 + (st->sw_mode >= PERF_SW_WAITS) +
			       (st->wake_event != UINT32_MAX)) {
		struct pd_buf others = PD_BUF_INIT;

		for (i = 1; i < st->events.n; i++) {
			if (i == st->chosen || i == st->wake_event ||
			    (i == st->sw_event && st->sw_mode >= PERF_SW_WAITS))
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

	if (st->io_kind && st->sw_mode != PERF_SW_WAITS_ONLY) {
		pd_perf_io_weigh(st, p, path);
		return;
	}
	if (st->sw_mode == PERF_SW_WAITS_ONLY) {
		p->unit = PD_UNIT_NS;
		p->count_rule =
		    pd_xstrdup("weights = ns switched out; sample counts = ms");
		return;
	}
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

void pd_perf_state_init(struct perf_state *st, struct pd_profile *p,
			const struct pd_import_opts *o)
{
	memset(st, 0, sizeof(*st));
	st->last_outer = UINT32_MAX;
	st->p = p;
	st->o = o;
	st->chosen = UINT32_MAX;
	st->sw_event = UINT32_MAX;
	st->wake_event = UINT32_MAX;
	st->time_ns = 1e9;
	st->all_period = 1;
	st->const_period = 1;
	st->sw_cap = PD_LIMIT_PERF_SWITCHES;
	pd_intern_init(&st->cache);
	pd_intern_init(&st->events);
	pd_intern_init(&st->lines);
	pd_buf_init(&st->key);
	pd_buf_init(&st->name);
	pd_buf_init(&st->memo.bytes);
}

void pd_perf_state_release(struct perf_state *st)
{
	pd_intern_release(&st->cache);
	pd_intern_release(&st->events);
	pd_intern_release(&st->lines);
	pd_buf_release(&st->memo.bytes);
	PD_VEC_FREE(&st->line_frame);
	PD_VEC_FREE(&st->cache_frame);
	PD_VEC_FREE(&st->frames);
	PD_VEC_FREE(&st->event_samples);
	PD_VEC_FREE(&st->tlog);
	PD_VEC_FREE(&st->sw);
	pd_buf_release(&st->key);
	pd_buf_release(&st->name);
}

int pd_perf_limits(struct perf_state *st, struct pd_err *err)
{
	unsigned long long n;
	int rc = pd_limit_env("PERFDIFF_LIMIT_PERF_SWITCHES",
			      PD_LIMIT_PERF_SWITCHES, &n, err);

	st->sw_cap = n;
	return rc;
}

int pd_perf_finish(struct perf_state *st, const char *path, struct pd_err *err)
{
	struct pd_profile *p = st->p;
	int rc;

	pd_perf_sample_end(st);
	if (st->sw_over)
		return pd_err_set(
		    err, PD_ETOOBIG,
		    "%s: at time %.6f s: over perfdiff's limit of %llu context"
		    " switches, wakeups and switch-ins in a recording"
		    " (PD_LIMIT_PERF_SWITCHES in src/core/limits.h;"
		    " PERFDIFF_LIMIT_PERF_SWITCHES=N raises it)",
		    path, st->sw_over_time * st->time_ns / 1e9,
		    (unsigned long long)st->sw_cap);
	pd_perf_waits(st, path);
	if (st->chosen == UINT32_MAX)
		return no_samples(st, path, st->o, err);
	rc = pd_perf_io_check(st, path, err);
	if (rc)
		return rc;
	p->event = pd_xstrdup(pd_intern_str(&st->events, st->chosen));
	pd_profile_finish(p);
	notes(st, p, path);
	weigh(st, p, path);
	return 0;
}
