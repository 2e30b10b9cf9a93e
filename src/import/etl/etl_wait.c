/*
 * Off-CPU time of an ETW trace (docs/formats.md, "Windows ETW traces"):
 * a Thread/CSwitch event says which thread left a CPU (and why: its
 * state and wait reason) and which came on. A thread's time from its
 * switch-out to its next switch-in is one wait, split where a
 * Dispatcher/ReadyThread event readied the thread; the stack the kernel
 * walks at the switch-in (-stackwalk CSwitch) is the thread's where it
 * resumes, the call that waited. Each wait becomes time of the program's
 * innermost function on that stack, a frame "name (kind)" as perf's and
 * Thread Time's waits are (docs/statistics.md, "Waiting time").
 */
#include <stdlib.h>
#include <string.h>

#include "core/limits.h"
#include "core/xalloc.h"
#include "import/etl/etl_int.h"
#include "model/func.h"

static const char *const kind_names[ETL_WAIT_KINDS] = {
	"blocked",    "io",	    "ready",	 "disk read",
	"disk write", "hard fault", "file read", "file write",
};

/* KTHREAD_STATE values the old thread is left in */
#define STATE_READY 1
#define STATE_STANDBY 3
#define STATE_TERMINATED 4
#define STATE_DEFERRED_READY 7

/* KWAIT_REASON: a page read in from disk */
#define REASON_PAGE_IN 2
#define REASON_WR_PAGE_IN 9

/* Why the old thread of c left: -1 when it ended (no wait follows). */
static int switch_kind(const struct etl_cswitch *c)
{
	if (c->state == STATE_TERMINATED)
		return -1;
	if (c->state == STATE_READY || c->state == STATE_STANDBY ||
	    c->state == STATE_DEFERRED_READY)
		return ETL_WAIT_READY; /* preempted, runnable */
	if (c->reason == REASON_PAGE_IN || c->reason == REASON_WR_PAGE_IN)
		return ETL_WAIT_IO;
	return ETL_WAIT_BLOCKED;
}

/*
 * Threads switched out, by tid: open addressing, a power of two. rts is
 * when a pending wait's thread was readied, 0 while it was not.
 */
struct outs {
	uint32_t *key; /* tid + 1, 0 empty */
	uint64_t *ts, *rts;
	int *kind; /* -1: none pending */
	size_t cap, used;
};

static size_t slot(const struct outs *o, uint32_t tid)
{
	size_t i = (size_t)(tid * 2654435761u) & (o->cap - 1);

	while (o->key[i] && o->key[i] != tid + 1)
		i = (i + 1) & (o->cap - 1);
	return i;
}

static void grow(struct outs *o)
{
	struct outs n;
	size_t i;

	n.cap = o->cap ? o->cap * 2 : 256;
	n.used = o->used;
	n.key = pd_xcalloc(n.cap, sizeof(*n.key));
	n.ts = pd_xcalloc(n.cap, sizeof(*n.ts));
	n.rts = pd_xcalloc(n.cap, sizeof(*n.rts));
	n.kind = pd_xcalloc(n.cap, sizeof(*n.kind));
	for (i = 0; i < o->cap; i++)
		if (o->key[i]) {
			size_t j = slot(&n, o->key[i] - 1);

			n.key[j] = o->key[i];
			n.ts[j] = o->ts[i];
			n.rts[j] = o->rts[i];
			n.kind[j] = o->kind[i];
		}
	free(o->key);
	free(o->ts);
	free(o->rts);
	free(o->kind);
	*o = n;
}

static size_t find(struct outs *o, uint32_t tid)
{
	size_t i;

	if (2 * (o->used + 1) > o->cap)
		grow(o);
	i = slot(o, tid);
	if (!o->key[i]) {
		o->key[i] = tid + 1;
		o->kind[i] = -1;
		o->used++;
	}
	return i;
}

/*
 * A wait of tid (of process pid, -1: its thread's) of n ticks, as a
 * record in st->samples at time at, where the samples' join finds its
 * stack: a switch-in's, or a disk I/O's start (bytes: its size).
 */
static int push_wait(struct etl_state *st, uint32_t tid, int64_t pid,
		     uint64_t at, uint64_t n, int kind, int readied,
		     uint64_t bytes, struct pd_err *err)
{
	struct etl_sample s;

	memset(&s, 0, sizeof(s));
	s.ip = bytes;
	s.ts = at;
	s.tid = tid;
	s.pid = pid;
	s.bytes = n;
	s.wait = (uint32_t)kind + 1;
	s.readied = (uint32_t)readied;
	if (st->samples.total >= PD_LIMIT_ETL_RECORDS)
		return pd_err_set(
		    err, PD_ETOOBIG, "%s: more than %llu samples and waits",
		    st->path, (unsigned long long)PD_LIMIT_ETL_RECORDS);
	st->waits_paired++;
	return pd_etl_table_push(&st->samples, &s, st->path, err);
}

/*
 * A thread switched out waiting (not preempted) and readied before it
 * came back waited in two parts, as PerfView's Thread Time view has
 * them: its kind (blocked, io) until it was readied, ready (waiting for
 * a CPU) from then until its switch-in. The first readying counts.
 */
int pd_etl_pair_switches(struct etl_state *st, struct pd_err *err)
{
	struct outs o;
	struct etl_cursor c;
	const void *r;
	int rc;

	if (!st->cswitch.total)
		return 0;
	rc = pd_etl_table_sort(&st->cswitch, st->path, err);
	if (rc)
		return rc;
	memset(&o, 0, sizeof(o));
	pd_etl_cursor_open(&c, &st->cswitch);
	while ((rc = pd_etl_cursor_next(&c, &r, st->path, err)) > 0) {
		const struct etl_cswitch *cs = r;
		size_t i;

		if (cs->readied) {
			i = find(&o, cs->readied);
			if (o.kind[i] >= 0 && o.kind[i] != ETL_WAIT_READY &&
			    !o.rts[i] && cs->ts >= o.ts[i])
				o.rts[i] = cs->ts;
			continue;
		}
		/* the idle thread (0) waits for nothing */
		if (cs->new_tid) {
			i = find(&o, cs->new_tid);
			if (o.kind[i] >= 0 && cs->ts >= o.ts[i]) {
				uint64_t out = o.ts[i], in = cs->ts;
				uint64_t rdy = o.rts[i] ? o.rts[i] : in;

				/* until readied (all of it when never) */
				if (rdy > out || rdy == in)
					rc = push_wait(st, cs->new_tid, -1, in,
						       rdy - out, o.kind[i], 0,
						       0, err);
				/* then waiting for a CPU */
				if (rc == 0 && rdy < in)
					rc = push_wait(st, cs->new_tid, -1, in,
						       in - rdy, ETL_WAIT_READY,
						       rdy > out, 0, err);
				if (rc)
					break;
			}
			o.kind[i] = -1;
			o.rts[i] = 0;
		}
		if (cs->old_tid) {
			i = find(&o, cs->old_tid);
			o.ts[i] = cs->ts;
			o.rts[i] = 0;
			o.kind[i] = switch_kind(cs);
		}
	}
	pd_etl_cursor_close(&c);
	pd_etl_table_release(&st->cswitch);
	free(o.key);
	free(o.ts);
	free(o.rts);
	free(o.kind);
	return rc < 0 ? rc : 0;
}

/*
 * An IRP is used again once its I/O completed: each end pairs with the
 * start just before it of its IRP (the table is sorted by IRP, then
 * time); an end with none (the start was before the trace) is counted,
 * not weighed.
 */
int pd_etl_pair_disk(struct etl_state *st, struct pd_err *err)
{
	struct etl_cursor c;
	struct etl_disk s;
	const void *r;
	int rc, have = 0;

	if (!st->disk.total)
		return 0;
	memset(&s, 0, sizeof(s));
	rc = pd_etl_table_sort(&st->disk, st->path, err);
	if (rc)
		return rc;
	pd_etl_cursor_open(&c, &st->disk);
	while ((rc = pd_etl_cursor_next(&c, &r, st->path, err)) > 0) {
		const struct etl_disk *d = r;

		if (!d->done) {
			s = *d;
			have = 1;
			continue;
		}
		if (!have || s.irp != d->irp ||
		    (d->write >= 0 && s.write != d->write)) {
			/* a file's end may be of any other operation */
			st->disk_unpaired += !st->fileio;
			continue;
		}
		have = 0;	/* the start is taken */
		if (st->fileio) /* the request to its end, in the trace's clock
				 */
			rc = push_wait(st, s.tid, s.pid, s.ts, d->ts - s.ts,
				       s.write ? ETL_WAIT_FILE_WRITE
					       : ETL_WAIT_FILE_READ,
				       0, d->size ? d->size : s.size, err);
		else
			rc = push_wait(st, s.tid, s.pid, s.ts, d->ticks,
				       d->write ? ETL_WAIT_DISK_WRITE
						: ETL_WAIT_DISK_READ,
				       0, d->size, err);
		if (rc)
			break;
	}
	pd_etl_cursor_close(&c);
	pd_etl_table_release(&st->disk);
	return rc < 0 ? rc : 0;
}

void pd_etl_wait_keep(struct etl_state *st, const struct etl_sample *s,
		      uint32_t node, double sample_ns)
{
	struct etl_wait_at w;
	double freq = st->perf_freq ? (double)st->perf_freq : 1e7;

	w.node = node;
	w.kind = (int)s->wait - 1;
	w.readied = s->readied != 0;
	w.ns = (double)s->bytes * 1e9 / freq;
	w.count = sample_ns > 0 ? w.ns / sample_ns : w.ns / 1e6;
	PD_VEC_PUSH(&st->waits, w);
}

void pd_etl_add_waits(struct etl_state *st, struct pd_profile *p)
{
	size_t i;

	for (i = 0; i < st->waits.n; i++) {
		const struct etl_wait_at *w = &st->waits.v[i];
		uint32_t at = pd_profile_waiter(p, w->node), node;

		if (at == PD_ROOT)
			continue;
		node = pd_profile_wait_node(p, at, kind_names[w->kind]);
		pd_profile_add(p, node, w->ns, w->count);
		pd_profile_add_waits(p, p->nodes.v[node].frame, 1);
		if (w->readied)
			st->waits_readied++; /* the ready part of one */
		else
			st->waits_added++;
	}
	PD_VEC_FREE(&st->waits);
}
