/*
 * The profile of a trace's samples: each sample's process from its
 * thread, its stack from the stack events of its time and thread (the
 * kernel's and the user's halves, given or by key), its frames named by
 * the image or JIT-compiled method that holds them (docs/formats.md,
 * "Windows ETW traces").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/sort.h"
#include "import/etl/etl_int.h"

int pd_etl_cmp_sref(const void *a, const void *b)
{
	const struct etl_sref *x = a, *y = b;

	return pd_etl_cmp2(x->tid, x->ts, y->tid, y->ts);
}

/* Frames of one stack kept at most (the kernel walks at most 192). */
#define MAX_FRAMES 1024

static int cmp_thread(const void *a, const void *b)
{
	const struct etl_thread *x = a, *y = b;

	return pd_etl_cmp2(x->tid, x->ts, y->tid, y->ts);
}

static int cmp_proc(const void *a, const void *b)
{
	const struct etl_process *x = a, *y = b;

	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/* The process of thread tid at ts: its latest start by then, else its
 * first; -1 when no event names it. */
static int64_t thread_pid(const struct etl_state *st, uint32_t tid, uint64_t ts)
{
	size_t lo;
	int64_t pid = -1;

	PD_LOWER_BOUND(lo, st->threads.v, st->threads.n, tid, tid);
	for (; lo < st->threads.n && st->threads.v[lo].tid == tid; lo++) {
		if (pid >= 0 && st->threads.v[lo].ts > ts)
			break;
		pid = st->threads.v[lo].pid;
	}
	return pid;
}

struct etl_process *pd_etl_process_find(struct etl_state *st, int64_t pid)
{
	struct etl_process key;

	key.pid = pid;
	return pd_bsearch(&key, st->procs.v, st->procs.n, sizeof(key),
			  cmp_proc);
}

/* Processes sorted by pid, one each (its latest name). */
static void unique_processes(struct etl_state *st)
{
	size_t i, n = 0;

	/* a stable order: the later event of a pid comes later */
	for (i = 0; i < st->procs.n; i++)
		st->procs.v[i].samples = i;
	pd_sort(st->procs.v, st->procs.n, sizeof(*st->procs.v), cmp_proc);
	for (i = 0; i < st->procs.n; i++) {
		if (n && st->procs.v[n - 1].pid == st->procs.v[i].pid) {
			if (st->procs.v[i].samples > st->procs.v[n - 1].samples)
				st->procs.v[n - 1] = st->procs.v[i];
			continue;
		}
		st->procs.v[n++] = st->procs.v[i];
	}
	st->procs.n = n;
	for (i = 0; i < n; i++)
		st->procs.v[i].samples = 0;
}

/*
 * Gives each stack reference by key the frames of the key's definition:
 * the first one made at or after the reference event (its own time, not
 * its sample's, which can be earlier than a definition of the key's
 * previous use; the kernel defines a key when it drops it from its cache,
 * and at the trace's end for those left), else the key's last. Both tables are
 * in key and time order, so one pass over each serves; the references,
 * resolved, join the stack events given whole. Counts the keys never defined
 * into *unresolved.
 */
static int resolve_keys(struct etl_state *st, uint64_t *unresolved,
			struct pd_err *err)
{
	struct etl_cursor refs, dc;
	const void *r, *d = NULL;
	struct etl_kdef last; /* the last definition passed */
	int more = 0, rc = 0, dmore;

	memset(&last, 0, sizeof(last));
	pd_etl_cursor_open(&refs, &st->krefs);
	pd_etl_cursor_open(&dc, &st->kdefs);
	dmore = pd_etl_cursor_next(&dc, &d, st->path, err);
	while (dmore >= 0 &&
	       (more = pd_etl_cursor_next(&refs, &r, st->path, err)) > 0) {
		struct etl_sref ref = *(const struct etl_sref *)r;
		const struct etl_kdef *k;

		while (dmore > 0 &&
		       (k = d, k->key < ref.key ||
				   (k->key == ref.key && k->ts < ref.kts))) {
			last = *k;
			dmore = pd_etl_cursor_next(&dc, &d, st->path, err);
		}
		if (dmore < 0)
			break;
		if (dmore > 0 && ((const struct etl_kdef *)d)->key == ref.key)
			ref.stack = ((const struct etl_kdef *)d)->stack;
		else if (last.stack && last.key == ref.key)
			ref.stack = last.stack;
		if (!ref.stack) {
			(*unresolved)++;
			continue;
		}
		rc = pd_etl_table_push(&st->srefs, &ref, st->path, err);
		if (rc)
			break;
	}
	if (dmore < 0)
		rc = dmore;
	else if (!rc && more < 0)
		rc = more;
	pd_etl_cursor_close(&refs);
	pd_etl_cursor_close(&dc);
	return rc;
}

/*
 * The stack events in thread and time order, read beside the samples: for
 * each sample, the halves of its thread and time (given, or by key).
 */
struct join {
	struct etl_cursor c;
	const struct etl_sref *next; /* the first event not used yet */
	struct etl_sref at;	     /* the thread and time of the halves */
	uint32_t kstack, ustack;
	int have; /* at holds a time */
};

/* Passes to the next stack event; 0, or an error. */
static int join_step(struct etl_state *st, struct join *j, struct pd_err *err)
{
	const void *r;
	int rc = pd_etl_cursor_next(&j->c, &r, st->path, err);

	if (rc < 0)
		return rc;
	j->next = rc ? r : NULL;
	return 0;
}

/* Sets s's halves from the stack events of its thread and time. */
static int join_sample(struct etl_state *st, struct join *j,
		       struct etl_sample *s, struct pd_err *err)
{
	struct etl_sref key;
	int rc = 0;

	key.tid = s->tid;
	key.ts = s->ts;
	if (!j->have || pd_etl_cmp_sref(&j->at, &key)) {
		j->kstack = j->ustack = 0;
		j->at = key;
		j->have = 1;
		while (rc == 0 && j->next && pd_etl_cmp_sref(j->next, &key) < 0)
			rc = join_step(st, j, err);
		while (rc == 0 && j->next && !pd_etl_cmp_sref(j->next, &key)) {
			if (j->next->user && !j->ustack)
				j->ustack = j->next->stack;
			else if (!j->next->user && !j->kstack)
				j->kstack = j->next->stack;
			rc = join_step(st, j, err);
		}
	}
	s->kstack = j->kstack;
	s->ustack = j->ustack;
	return rc;
}

/* Whether pr was asked for by the comma-separated list want. */
static int wanted(const struct etl_state *st, const struct etl_process *pr,
		  const char *want)
{
	const char *name = pd_intern_str(&st->strs, pr->name), *t = want;
	size_t nl = strlen(name);

	while (*t) {
		size_t k = strcspn(t, ",");
		char *end;
		long long v = strtoll(t, &end, 10);

		if (k && end == t + k && v == pr->pid)
			return 1;
		if (k &&
		    ((k == nl && !strncasecmp(t, name, k)) ||
		     (nl > 4 && k == nl - 4 && !strcasecmp(name + k, ".exe") &&
		      !strncasecmp(t, name, k))))
			return 1;
		t += k + (t[k] == ',');
	}
	return 0;
}

static const char *proc_name(const struct etl_state *st,
			     const struct etl_process *pr)
{
	const char *s = pr ? pd_intern_str(&st->strs, pr->name) : "";

	return *s ? s : "?";
}

static int cmp_samples_desc(const void *a, const void *b)
{
	const struct etl_process *x = *(const struct etl_process *const *)a,
				 *y = *(const struct etl_process *const *)b;

	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/* What the records are: CPU samples, or VirtualAlloc commits. */
static const char *what(const struct etl_state *st)
{
	return st->valloc      ? "VirtualAlloc commits"
	       : st->diskio    ? "disk I/Os"
	       : st->hardfault ? "hard faults"
	       : st->fileio    ? "file reads and writes"
			       : "samples";
}

/* Notes the processes by samples; marks the chosen ones in *pick. */
static int choose(struct etl_state *st, struct pd_profile *p,
		  unsigned char *pick, struct pd_err *err)
{
	struct etl_process **by = pd_xmalloc((st->procs.n + 1) * sizeof(*by));
	struct pd_buf b = PD_BUF_INIT;
	size_t i, any = 0;

	for (i = 0; i < st->procs.n; i++)
		by[i] = &st->procs.v[i];
	pd_sort(by, st->procs.n, sizeof(*by), cmp_samples_desc);
	pd_buf_addf(&b, "%s: processes by %s:", st->path, what(st));
	for (i = 0; i < st->procs.n && by[i]->samples; i++)
		pd_buf_addf(&b, "%s %s (%lld) %llu", i ? "," : "",
			    proc_name(st, by[i]), (long long)by[i]->pid,
			    (unsigned long long)by[i]->samples);
	pd_buf_adds(&b, " (--process NAME|PID, several separated by commas)");
	pd_profile_note(p, "%s", b.buf);
	for (i = 0; i < st->procs.n; i++) {
		pick[i] = st->o->process
			      ? wanted(st, &st->procs.v[i], st->o->process)
			      : by[0] == &st->procs.v[i];
		any += pick[i];
	}
	if (!st->o->process && st->procs.n && by[0]->samples)
		pd_profile_note(
		    p,
		    "%s: read process %s (%lld), the one with the"
		    " most %s (%llu of %llu)",
		    st->path, proc_name(st, by[0]), (long long)by[0]->pid,
		    what(st), (unsigned long long)by[0]->samples,
		    (unsigned long long)(st->samples.total -
					 (st->io ? 0 : st->waits_paired)));
	free(by);
	pd_buf_release(&b);
	if (!any && st->o->process)
		return pd_err_set(err, PD_EEMPTY,
				  "%s: no process is named or numbered '%s'"
				  " (perfdiff show lists them)",
				  st->path, st->o->process);
	return 0;
}

/* The process of sample s (from its thread when its event has none). */
static int64_t sample_pid(const struct etl_state *st,
			  const struct etl_sample *s)
{
	return s->pid >= 0 ? s->pid : thread_pid(st, s->tid, s->ts);
}

/* Counts samples per process (adding processes only threads name). */
static int count_processes(struct etl_state *st, struct pd_err *err)
{
	struct etl_cursor c;
	const void *r;
	int rc;

	pd_sort(st->threads.v, st->threads.n, sizeof(*st->threads.v),
		cmp_thread);
	unique_processes(st);
	pd_etl_cursor_open(&c, &st->samples);
	while ((rc = pd_etl_cursor_next(&c, &r, st->path, err)) > 0) {
		int64_t pid = sample_pid(st, r);
		struct etl_process *pr;

		if (((const struct etl_sample *)r)->wait && !st->io)
			continue; /* processes are chosen by their CPU */
		pr = pd_etl_process_find(st, pid);

		if (!pr) {
			struct etl_process add;

			add.pid = pid;
			add.name = 0;
			add.samples = 0;
			PD_VEC_PUSH(&st->procs, add);
			pd_sort(st->procs.v, st->procs.n, sizeof(*st->procs.v),
				cmp_proc);
			pr = pd_etl_process_find(st, pid);
		}
		pr->samples++;
	}
	pd_etl_cursor_close(&c);
	return rc;
}

/* The addresses of sample s, root first, into f (at most MAX_FRAMES). */
static size_t sample_frames(const struct etl_state *st,
			    const struct etl_sample *s, uint64_t *f)
{
	size_t n = 0, k, i;
	uint32_t halves[2];
	int h;

	halves[0] = s->ustack;
	halves[1] = s->kstack;
	for (h = 0; h < 2; h++) {
		const uint64_t *a;

		if (!halves[h])
			continue;
		a = (const uint64_t *)(const void *)pd_intern_str(&st->stacks,
								  halves[h]);
		k = pd_intern_len(&st->stacks, halves[h]) / sizeof(*a);
		for (i = k; i > 0 && n < MAX_FRAMES; i--)
			memcpy(&f[n++], (const char *)a + (i - 1) * sizeof(*a),
			       sizeof(*a));
	}
	if (!n && !st->valloc)
		f[n++] = s->ip;
	return n;
}

/* Adds sample s (of a chosen process) to p. */
static void add_sample(struct etl_state *st, struct pd_profile *p,
		       const struct etl_sample *s, uint64_t *f, double w)
{
	size_t n = sample_frames(st, s, f), i;
	uint32_t node = PD_ROOT;

	if (st->o->thread_roots) {
		char name[48];

		snprintf(name, sizeof(name), "thread %u", s->tid);
		node = pd_profile_thread_root(p, name, strlen(name));
	}
	for (i = 0; i < n; i++)
		node = pd_profile_child(p, node,
					pd_etl_frame(st, p, s->pid, f[i]));
	if (!n) /* a commit without a stack has no address to name */
		node = pd_profile_child(
		    p, node,
		    pd_profile_frame(p, pd_intern_cstr(&p->strs, "[no stack]"),
				     0));
	if (s->wait) {
		pd_etl_wait_keep(st, s, node, w);
		return;
	}
	if (st->valloc) {
		/* every commit is logged: exact bytes, no time blocks */
		pd_profile_add(p, node, (double)s->bytes, 1);
		p->nsamples++;
		return;
	}
	pd_profile_add(p, node, w, 1);
	/* time stamps in the trace's clock: blocks take any unit */
	pd_blocks_add(&p->blk, node, (double)s->ts, 1);
	p->nsamples++;
}

/* Whether tid is in the comma-separated list of --thread. */
static int thread_wanted(const char *want, uint32_t tid)
{
	while (want && *want) {
		size_t k = strcspn(want, ",");
		char *end;
		unsigned long long v = strtoull(want, &end, 10);

		if (k && end == want + k && v == tid)
			return 1;
		want += k + (want[k] == ',');
	}
	return !want;
}

/* Adds the samples of the chosen processes and threads, with their
 * stacks, to p; counts those without a stack into *stackless. */
static int add_samples(struct etl_state *st, struct pd_profile *p,
		       const unsigned char *pick, double w, uint64_t *stackless,
		       struct pd_err *err)
{
	uint64_t *f = pd_xmalloc(MAX_FRAMES * sizeof(*f));
	struct etl_cursor c;
	struct join j;
	const void *r;
	int rc, more = 0;

	memset(&j, 0, sizeof(j));
	pd_etl_cursor_open(&j.c, &st->srefs);
	pd_etl_cursor_open(&c, &st->samples);
	rc = join_step(st, &j, err);
	while (rc == 0 &&
	       (more = pd_etl_cursor_next(&c, &r, st->path, err)) > 0) {
		struct etl_sample s = *(const struct etl_sample *)r;
		struct etl_process *pr;

		s.pid = sample_pid(st, &s);
		pr = pd_etl_process_find(st, s.pid);
		if (!pr || !pick[pr - st->procs.v] ||
		    !thread_wanted(st->o->thread, s.tid))
			continue;
		rc = join_sample(st, &j, &s, err);
		if (rc == 0 && st->io) {
			int wr = s.wait == ETL_WAIT_DISK_WRITE + 1 ||
				 s.wait == ETL_WAIT_FILE_WRITE + 1;
			double freq =
			    st->perf_freq ? (double)st->perf_freq : 1e7;

			st->disk_ops[wr]++;
			st->disk_bytes[wr] += s.ip;
			st->disk_ns[wr] += (double)s.bytes * 1e9 / freq;
		}
		if (rc == 0 && s.wait && !s.kstack && !s.ustack) {
			/* no stack: whose wait? (one a switch) */
			st->waits_stackless += !s.readied;
			continue;
		}
		if (rc == 0 && !s.kstack && !s.ustack)
			(*stackless)++;
		if (rc == 0)
			add_sample(st, p, &s, f, w);
	}
	if (more < 0)
		rc = more;
	pd_etl_cursor_close(&j.c);
	pd_etl_cursor_close(&c);
	free(f);
	return rc;
}

/*
 * What the trace holds that the profile does not use yet, in one line
 * (docs/formats.md, "Windows ETW traces"): disk and file operations,
 * hard faults, context switches and the CLR's allocation ticks.
 */
static void unused_note(const struct etl_state *st, struct pd_profile *p)
{
	static const struct {
		enum pd_etl_kind k;
		const char *what;
	} kinds[] = {
		{ PD_ETL_DISK_READ, "disk reads" },
		{ PD_ETL_DISK_WRITE, "disk writes" },
		{ PD_ETL_FILE_CREATE, "file creates" },
		{ PD_ETL_FILE_READ, "file reads" },
		{ PD_ETL_FILE_WRITE, "file writes" },
		{ PD_ETL_HARD_FAULT, "hard faults" },
		{ PD_ETL_CSWITCH, "context switches" },
		{ PD_ETL_READY_THREAD, "thread readyings" },
		{ PD_ETL_ALLOC_TICK, "CLR allocation ticks" },
	};
	struct pd_buf b = PD_BUF_INIT;
	size_t i;

	for (i = 0; i < PD_ARRAY_SIZE(kinds); i++)
		if (st->counts[kinds[i].k] &&
		    !((kinds[i].k == PD_ETL_CSWITCH ||
		       kinds[i].k == PD_ETL_READY_THREAD) &&
		      st->waits_added && !st->io) &&
		    !(kinds[i].k == PD_ETL_HARD_FAULT && st->hardfault) &&
		    !((kinds[i].k == PD_ETL_FILE_READ ||
		       kinds[i].k == PD_ETL_FILE_WRITE) &&
		      st->fileio) &&
		    !((kinds[i].k == PD_ETL_DISK_READ ||
		       kinds[i].k == PD_ETL_DISK_WRITE) &&
		      st->diskio))
			pd_buf_addf(&b, "%s%llu %s", b.len ? ", " : "",
				    (unsigned long long)st->counts[kinds[i].k],
				    kinds[i].what);
	if (b.len)
		pd_profile_note(p,
				"%s: the trace also holds %s, which perfdiff"
				" does not compare yet%s: the profile is its"
				" %s",
				st->path, b.buf,
				!st->io && (st->counts[PD_ETL_DISK_READ] ||
					    st->counts[PD_ETL_DISK_WRITE] ||
					    st->counts[PD_ETL_FILE_READ] ||
					    st->counts[PD_ETL_FILE_WRITE] ||
					    st->counts[PD_ETL_HARD_FAULT])
				    ? " (--event diskio, fileio or hardfault"
				      " compares them)"
				    : "",
				st->valloc	? "VirtualAlloc commits"
				: st->diskio	? "disk I/O"
				: st->hardfault ? "hard faults"
				: st->fileio	? "file I/O"
						: "CPU samples");
	pd_buf_release(&b);
}

/*
 * What the disk I/O profile holds (docs/formats.md, "Windows ETW
 * traces"): the reads and writes of the processes read, their bytes and
 * service time, and the ends whose start the trace does not hold.
 */
static void disk_note(const struct etl_state *st, struct pd_profile *p)
{
	if (st->hardfault) {
		pd_profile_note(p,
				"%s: %llu hard faults (%.1f MB read in, %.1f"
				" ms), each the time the thread that faulted"
				" waited for its page, of the function on its"
				" stack",
				st->path, (unsigned long long)st->disk_ops[0],
				(double)st->disk_bytes[0] / 1e6,
				st->disk_ns[0] / 1e6);
		return;
	}
	pd_profile_note(p,
			st->fileio
			    ? "%s: file I/O: %llu reads (%.1f MB, %.1f ms) and"
			      " %llu writes (%.1f MB, %.1f ms), each the time"
			      " from its request to its end, of the function"
			      " whose FileIo Read/Write stack asked for it"
			    : "%s: disk I/O: %llu reads (%.1f MB, %.1f ms) and"
			      " %llu writes (%.1f MB, %.1f ms), each the"
			      " service time of the function whose"
			      " ReadInit/WriteInit stack issued it",
			st->path, (unsigned long long)st->disk_ops[0],
			(double)st->disk_bytes[0] / 1e6, st->disk_ns[0] / 1e6,
			(unsigned long long)st->disk_ops[1],
			(double)st->disk_bytes[1] / 1e6, st->disk_ns[1] / 1e6);
	if (st->disk_unpaired)
		pd_profile_note(p,
				"%s: %llu disk I/Os whose start the trace does"
				" not hold were left out",
				st->path,
				(unsigned long long)st->disk_unpaired);
}

/* The profile's unit: ns of CPU a sample (w each), or bytes committed. */
static void units(const struct etl_state *st, struct pd_profile *p, double w)
{
	free(p->event);
	if (st->io) {
		p->unit = PD_UNIT_NS;
		p->interval = w;
		p->event = pd_xstrdup(st->diskio   ? "disk I/O"
				      : st->fileio ? "file I/O"
						   : "hard faults");
		free(p->count_rule);
		p->count_rule = pd_xstrdup(
		    st->diskio	 ? "weights = ns of disk service time;"
				   " sample counts = ms"
		    : st->fileio ? "weights = ns from each file read's or"
				   " write's request to its end; sample"
				   " counts = ms"
				 : "weights = ns waited for pages read in;"
				   " sample counts = ms");
		return;
	}
	if (st->valloc) {
		p->unit = PD_UNIT_BYTES;
		p->interval = 1;
		p->exact = 1;
		p->event = pd_xstrdup("VirtualAlloc commits");
		free(p->count_rule);
		p->count_rule =
		    pd_xstrdup("exact (ETW logs every VirtualAlloc); one"
			       " count per commit");
		return;
	}
	p->unit = PD_UNIT_NS;
	p->interval = w;
	p->event = pd_xstrdup("cpu samples");
}

/* What the profile's waits are made of, and what was left out. */
static void wait_notes(const struct etl_state *st, struct pd_profile *p)
{
	if (st->io)
		disk_note(st, p);
	if (st->waits_added && !st->io)
		pd_profile_note(p,
				"%s: off-CPU time from %llu context switches"
				" (Thread/CSwitch), each to the thread's next"
				" switch-in",
				st->path, (unsigned long long)st->waits_added);
	if (st->waits_readied)
		pd_profile_note(p,
				"%s: %llu of the waits were split where"
				" Dispatcher/ReadyThread readied the thread:"
				" its kind until then, ready (waiting for a"
				" CPU) after",
				st->path,
				(unsigned long long)st->waits_readied);
	if (st->waits_stackless)
		pd_profile_note(
		    p,
		    st->diskio	    ? "%s: %llu disk I/Os have no stack and"
				      " were left out (record with -stackwalk"
				      " DiskReadInit+DiskWriteInit)"
		    : st->hardfault ? "%s: %llu hard faults have no stack and"
				      " were left out (record with -stackwalk"
				      " HardFault)"
		    : st->fileio    ? "%s: %llu file reads and writes have no"
				      " stack and were left out (record with"
				      " -stackwalk FileRead+FileWrite)"
				    : "%s: %llu waits between context switches"
				      " have no stack and were left out"
				      " (record with -stackwalk CSwitch)",
		    st->path, (unsigned long long)st->waits_stackless);
}

int pd_etl_build(struct etl_state *st, struct pd_profile *p, struct pd_err *err)
{
	uint64_t unresolved = 0, stackless = 0;
	unsigned char *pick;
	double w = (st->interval_100ns ? st->interval_100ns : 10000) * 100.0;
	int rc;

	if (st->fileio && !st->disk.total)
		return pd_err_set(err, PD_EEMPTY,
				  "%s: the trace holds no file reads or writes"
				  " (FileIo events: record with xperf -on"
				  " PROC_THREAD+LOADER+FILE_IO+FILE_IO_INIT"
				  " -stackwalk FileRead+FileWrite, or WPR's"
				  " file I/O profile)",
				  st->path);
	if (st->diskio && !st->disk.total)
		return pd_err_set(err, PD_EEMPTY,
				  "%s: the trace holds no disk I/O (DiskIo"
				  " events: record with xperf -on"
				  " PROC_THREAD+LOADER+DISK_IO+DISK_IO_INIT"
				  " -stackwalk DiskReadInit+DiskWriteInit,"
				  " or WPR's disk I/O profile)",
				  st->path);
	if (!st->samples.total && st->valloc)
		return pd_err_set(err, PD_EEMPTY,
				  "%s: the trace holds no VirtualAlloc commits"
				  " (PageFault/VirtualAlloc events: record with"
				  " xperf -on PROC_THREAD+LOADER+VIRT_ALLOC"
				  " -stackwalk VirtualAlloc, or WPR's"
				  " VirtualAlloc profile)",
				  st->path);
	if (st->hardfault && !st->samples.total)
		return pd_err_set(err, PD_EEMPTY,
				  "%s: the trace holds no hard faults"
				  " (PageFault/HardFault events: record with"
				  " xperf -on PROC_THREAD+LOADER+HARD_FAULTS"
				  " -stackwalk HardFault)",
				  st->path);
	if (!st->samples.total && !st->io)
		return pd_err_set(err, PD_EEMPTY,
				  "%s: the trace holds no CPU samples"
				  " (PerfInfo/Sample events: record with"
				  " xperf -on PROC_THREAD+LOADER+PROFILE"
				  " -stackwalk Profile, or PerfView's"
				  " defaults)",
				  st->path);
	rc = pd_etl_table_sort(&st->krefs, st->path, err);
	if (rc == 0)
		rc = pd_etl_table_sort(&st->kdefs, st->path, err);
	if (rc == 0)
		rc = resolve_keys(st, &unresolved, err);
	pd_etl_table_release(&st->krefs);
	pd_etl_table_release(&st->kdefs);
	if (rc == 0)
		rc = pd_etl_table_sort(&st->srefs, st->path, err);
	if (rc == 0)
		rc = pd_etl_pair_switches(st, err);
	if (rc == 0 && (st->diskio || st->fileio))
		rc = pd_etl_pair_disk(st, err);
	if (rc == 0)
		rc = pd_etl_table_sort(&st->samples, st->path, err);
	if (rc == 0)
		rc = count_processes(st, err);
	if (rc)
		return rc;
	pd_etl_ranges_sort(st);
	pick = pd_xcalloc(st->procs.n + 1, 1);
	rc = choose(st, p, pick, err);
	if (rc == 0)
		rc = add_samples(st, p, pick, w, &stackless, err);
	if (rc == 0)
		pd_etl_symbolicate(st, p);
	if (rc == 0)
		pd_etl_add_waits(st, p);
	units(st, p, w);
	if (rc == 0)
		wait_notes(st, p);
	if (rc == 0 && stackless)
		pd_profile_note(p,
				"%s: %llu of %llu %s have no stack (the"
				" trace was recorded without stacks for"
				" them: xperf -stackwalk %s); %s",
				st->path, (unsigned long long)stackless,
				(unsigned long long)p->nsamples, what(st),
				st->valloc ? "VirtualAlloc"
					   : "Profile, PerfView's default",
				st->valloc ? "they are [no stack]"
					   : "their frame is the sampled"
					     " address");
	if (rc == 0 && unresolved)
		pd_profile_note(p,
				"%s: %llu stack references name a key the"
				" trace never defines; their half of the"
				" stack is left out",
				st->path, (unsigned long long)unresolved);
	if (rc == 0 && st->ranges.n && !st->counts[PD_ETL_DBGID_RSDS])
		pd_profile_note(p,
				"%s: no PDB identities (ImageID/DbgID_RSDS"
				" events): the trace was not merged, so its"
				" images cannot be matched to their symbols;"
				" merge it where it was recorded (xperf -merge"
				" IN.etl OUT.etl, or PerfView's merge or zip)",
				st->path);
	if (rc == 0)
		unused_note(st, p);
	free(pick);
	return rc;
}
