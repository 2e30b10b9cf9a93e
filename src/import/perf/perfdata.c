/*
 * perf.data read directly (docs/formats.md, "perf.data read directly").
 * The file is a header, the attributes of each event, a data section of
 * records and feature sections after it (build ids, host, event names).
 * Three passes over the data section, each streaming it in bounded
 * memory: the first keeps what is not a sample (mappings, thread names,
 * forks), so that a sample finds the mapping it ran in whatever the
 * order per-CPU buffers were written in; the second collects the
 * distinct addresses the samples hit, which are then named once
 * (perfdata_sym.c); the third adds the samples to the profile through
 * the assembly the perf script reader uses (perf_sample.c).
 *
 * What this reader does not unwind (DWARF call graphs, LBR call stacks,
 * compressed or piped recordings, AUX traces) is left to perf script:
 * pd_perfdata_import answers PDD_USE_PERF with the reason.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/sort.h"
#include "core/xalloc.h"
#include "import/perf/perf_int.h"
#include "import/perf/perfdata.h"
#include "import/perf/perfdata_int.h"

/* ---- samples ---- */

struct sample {
	size_t attr;
	uint64_t ip, time, period;
	uint32_t pid, tid;
	unsigned cpumode;
	const unsigned char *chain; /* nr u64 entries, or NULL */
	uint64_t nchain;
	const unsigned char *raw; /* PERF_SAMPLE_RAW's bytes, or NULL */
	uint32_t nraw;
};

/* Skips a PERF_SAMPLE_READ value; 0 when it does not fit. */
static size_t read_value_size(uint64_t fmt, const unsigned char *p, size_t left)
{
	size_t one = 8 + (fmt & 4 ? 8 : 0) + (fmt & 16 ? 8 : 0);
	size_t head = (fmt & 1 ? 8 : 0) + (fmt & 2 ? 8 : 0), nr;

	if (!(fmt & 8))
		return head + one;
	if (left < 8)
		return 0;
	nr = (size_t)u64at(p);
	if (nr > left / one)
		return 0;
	return 8 + head + nr * one;
}

/* Parses a sample record up to its raw data; 0, or -1 when damaged. */
static int parse_sample(const struct pdd *d, const unsigned char *r,
			size_t size, struct sample *x)
{
	const unsigned char *p = r + 8, *e = r + size;
	uint64_t t = d->attrs.v[0].sample_type, id = 0;
	const struct pdd_attr *a;

#define NEED(n)                                                                \
	do {                                                                   \
		if ((size_t)(e - p) < (size_t)(n))                             \
			return -1;                                             \
	} while (0)
	memset(x, 0, sizeof(*x));
	x->cpumode = u16at(r + 4) & MISC_CPUMODE;
	if (t & S_IDENTIFIER) {
		NEED(8);
		id = u64at(p);
		p += 8;
	}
	if (t & S_IP) {
		NEED(8);
		x->ip = u64at(p);
		p += 8;
	}
	if (t & S_TID) {
		NEED(8);
		x->pid = u32at(p);
		x->tid = u32at(p + 4);
		p += 8;
	}
	if (t & S_TIME) {
		NEED(8);
		x->time = u64at(p);
		p += 8;
	}
	p += t & S_ADDR ? 8 : 0;
	if (t & S_ID) {
		NEED(8);
		id = u64at(p);
		p += 8;
	}
	x->attr = d->attrs.n == 1 ? 0 : pd_pdd_attr_of(d, id);
	if (x->attr == SIZE_MAX)
		return -1;
	a = &d->attrs.v[x->attr];
	t = a->sample_type;
	p += (t & S_STREAM_ID ? 8 : 0) + (t & S_CPU ? 8 : 0);
	x->period = a->period;
	if (t & S_PERIOD) {
		NEED(8);
		x->period = u64at(p);
		p += 8;
	}
	if (t & S_READ) {
		size_t n = read_value_size(a->read_format, p,
					   e < p ? 0 : (size_t)(e - p));

		NEED(n ? n : 1);
		p += n;
	}
	if (t & S_CALLCHAIN) {
		NEED(8);
		x->nchain = u64at(p);
		p += 8;
		if (x->nchain > (size_t)(e - p) / 8)
			return -1;
		x->chain = p;
		p += 8 * x->nchain;
	}
	if (t & S_RAW) {
		NEED(4);
		x->nraw = u32at(p);
		p += 4;
		NEED(x->nraw);
		x->raw = p;
	}
#undef NEED
	return 0;
}

/* The mapping of pid that holds ip at time t, or NULL. */
static const struct pdd_map *find_in(const struct pdd *d, uint32_t pid,
				     uint64_t ip, uint64_t t)
{
	const struct pdd_map *m = d->maps.v, *best = NULL;
	size_t lo = 0, hi = d->maps.n, i;

	while (lo < hi) { /* the first map after (pid, ip) */
		size_t mid = (lo + hi) / 2;

		if (m[mid].pid < pid ||
		    (m[mid].pid == pid && m[mid].start <= ip))
			lo = mid + 1;
		else
			hi = mid;
	}
	/*
	 * Mappings that hold ip start at or before it; a remapped range
	 * has several, the one in force at t is the latest before it
	 * (else the earliest: the mapping was recorded after the sample).
	 */
	for (i = lo; i-- > 0 && m[i].pid == pid;) {
		if (ip - m[i].start >= m[i].len)
			continue;
		if (!best ||
		    (m[i].time <= t &&
		     (best->time > t || m[i].time > best->time)) ||
		    (best->time > t && m[i].time < best->time))
			best = &m[i];
		if (lo - i > 64)
			break;
	}
	return best;
}

/* The fork record that made tid, or NULL (a thread of the recording). */
static const struct pdd_fork *fork_of(const struct pdd *d, uint32_t tid)
{
	size_t lo;

	PD_LOWER_BOUND(lo, d->forks.v, d->forks.n, tid, tid);
	if (lo == d->forks.n || d->forks.v[lo].tid != tid)
		return NULL;
	return &d->forks.v[lo];
}

/* pid's mapping of ip, through the process it was forked from. */
static const struct pdd_map *find_map(const struct pdd *d, uint32_t pid,
				      uint64_t ip, uint64_t t, int kernel)
{
	int hops;

	if (kernel)
		return find_in(d, UINT32_MAX, ip, t);
	for (hops = 0; hops < 16; hops++) {
		const struct pdd_map *m = find_in(d, pid, ip, t);
		const struct pdd_fork *f;

		if (m)
			return m;
		f = fork_of(d, pid);
		if (!f || f->ppid == pid)
			return NULL;
		t = f->time;
		pid = f->ppid;
	}
	return NULL;
}

/* The address id of (dso, key), made on first sight. */
static uint32_t addr_id(struct pdd *d, uint32_t dso, uint64_t key)
{
	size_t i, mask;

	if (d->syms.addrs.n * 2 >= d->nslots) {
		struct pdd_slot *old = d->slots;
		size_t n = d->nslots, k;

		d->nslots = n ? 2 * n : 1024;
		d->slots = pd_xcalloc(d->nslots, sizeof(*d->slots));
		for (k = 0; k < n; k++) {
			if (!old[k].id1)
				continue;
			mask = d->nslots - 1;
			i = pd_hash_u64(old[k].key ^ (uint64_t)old[k].dso
							 << 47) &
			    mask;
			while (d->slots[i].id1)
				i = (i + 1) & mask;
			d->slots[i] = old[k];
		}
		free(old);
	}
	mask = d->nslots - 1;
	i = pd_hash_u64(key ^ (uint64_t)dso << 47) & mask;
	while (d->slots[i].id1) {
		if (d->slots[i].key == key && d->slots[i].dso == dso)
			return d->slots[i].id1 - 1;
		i = (i + 1) & mask;
	}
	{
		struct pdd_addr a = { dso, key, NULL, NULL };

		d->slots[i].key = key;
		d->slots[i].dso = dso;
		d->slots[i].id1 = (uint32_t)d->syms.addrs.n + 1;
		PD_VEC_PUSH(&d->syms.addrs, a);
	}
	return (uint32_t)d->syms.addrs.n - 1;
}

/* The address id of one frame of a sample. */
static uint32_t frame_addr(struct pdd *d, const struct sample *x, uint64_t ip,
			   int kernel)
{
	const struct pdd_map *m = find_map(d, x->pid, ip, x->time, kernel);

	if (!m)
		return addr_id(d, PDD_NO_DSO, 0);
	if (d->syms.dsos.v[m->dso].kernel || d->syms.dsos.v[m->dso].jit)
		return addr_id(d, m->dso, ip);
	return addr_id(d, m->dso, ip - m->start + m->pgoff);
}

/*
 * Calls fn for each frame of x, leaf first, with whether it is a kernel
 * address: the call chain without its context markers, else the ip.
 */
static void each_frame(struct pdd *d, const struct sample *x,
		       void (*fn)(struct pdd *, const struct sample *, uint32_t,
				  void *),
		       void *arg)
{
	uint64_t i;
	int kernel = x->cpumode == MISC_KERNEL;

	if (!x->chain) {
		fn(d, x, frame_addr(d, x, x->ip, kernel), arg);
		return;
	}
	for (i = 0; i < x->nchain; i++) {
		uint64_t ip = u64at(x->chain + 8 * i);

		if (ip >= CTX_MAX) {
			kernel = ip == CTX_KERNEL;
			if (ip <= CTX_GUEST)
				kernel = -1; /* guest frames: not ours */
			continue;
		}
		if (kernel >= 0)
			fn(d, x, frame_addr(d, x, ip, kernel), arg);
	}
}

/* Pass 2: frame_addr has made each address known; nothing more. */
static void seen_addr(struct pdd *d, const struct sample *x, uint32_t a,
		      void *arg)
{
	(void)d;
	(void)x;
	(void)a;
	(void)arg;
}

static void push_frame(struct pdd *d, const struct sample *x, uint32_t a,
		       void *arg)
{
	(void)x;
	pd_perf_frame_push(arg, d->frame_of.v[a], 0);
}

/*
 * tid's name at time t, as perf tells it: its latest name by then; before
 * its first, the name of the thread it was forked from at the fork (a
 * child is "sh" until it executes "ls"); else its first name.
 */
static void comm_at(const struct pdd *d, uint32_t tid, uint64_t t,
		    struct pd_buf *out)
{
	int hops;

	for (hops = 0; hops < 16; hops++) {
		size_t lo, i, pick = SIZE_MAX;
		const struct pdd_fork *f;

		PD_LOWER_BOUND(lo, d->comms.v, d->comms.n, tid, tid);
		for (i = lo; i < d->comms.n && d->comms.v[i].tid == tid; i++)
			if (d->comms.v[i].time <= t)
				pick = i;
		f = fork_of(d, tid);
		if (pick == SIZE_MAX && (!f || f->ptid == tid) &&
		    lo < d->comms.n && d->comms.v[lo].tid == tid)
			pick = lo;
		if (pick != SIZE_MAX) {
			pd_buf_adds(out, pd_intern_str(&d->strs,
						       d->comms.v[pick].name));
			return;
		}
		if (!f || f->ptid == tid)
			break;
		t = f->time;
		tid = f->ptid;
	}
	/* the idle task has no COMM record; perf calls it swapper */
	if (tid == 0)
		pd_buf_adds(out, "swapper");
	else
		pd_buf_addf(out, ":%u", (unsigned)tid);
}

/*
 * Passes 2 and 3 over the samples: with st NULL only the addresses are
 * collected, else each sample goes to the profile.
 */
static int pass_samples(struct pdd *d, struct perf_state *st,
			struct pd_err *err)
{
	struct pd_buf comm = PD_BUF_INIT, rest = PD_BUF_INIT;
	const unsigned char *r;
	size_t size;
	int rc;

	pd_pdd_rewind_data(d);
	while ((rc = pd_pdd_next_record(d, &r, &size, err)) == 1) {
		struct sample x;
		struct perf_hdr h;
		char pid[16], tid[16];
		uint32_t type = u32at(r);

		if (st && (type == R_SWITCH || type == R_SWITCH_CPU_WIDE)) {
			pd_pdd_switch_record(d, st, r, size);
			continue;
		}
		if (type != R_SAMPLE)
			continue;
		if (parse_sample(d, r, size, &x)) {
			rc = pd_pdd_bad(d, err, d->buf_off + d->pos - size,
					"a sample record is cut short");
			break;
		}
		if (!st) {
			each_frame(d, &x, seen_addr, NULL);
			continue;
		}
		memset(&h, 0, sizeof(h));
		pd_buf_reset(&comm);
		comm_at(d, x.tid, x.time, &comm);
		snprintf(pid, sizeof(pid), "%u", (unsigned)x.pid);
		snprintf(tid, sizeof(tid), "%u", (unsigned)x.tid);
		h.comm = comm.buf;
		h.comm_len = comm.len;
		h.pid = pid;
		h.pid_len = strlen(pid);
		h.tid = tid;
		h.tid_len = strlen(tid);
		h.event = d->attrs.v[x.attr].name;
		h.event_len = pd_perf_event_name_len(h.event, strlen(h.event));
		h.has_period = pdd_fixed_or_sampled_period(&d->attrs.v[x.attr]);
		h.time = d->attrs.v[x.attr].sample_type & S_TIME
			     ? (double)x.time
			     : PD_NAN;
		h.period = (double)x.period;
		if (pd_pdd_sched_text(d, &d->attrs.v[x.attr], x.raw, x.nraw,
				      &rest))
			h.rest = rest.buf;
		pd_perf_sample_end(st);
		pd_perf_sample_start(st, &h);
		if (st->keep)
			each_frame(d, &x, push_frame, st);
	}
	pd_buf_release(&comm);
	pd_buf_release(&rest);
	return rc < 0 || rc > 1 ? rc : 0;
}

/*
 * A kernel module's file (/lib/modules/.../nf_conntrack.ko, or .ko.xz,
 * .ko.zst, .ko.gz, or perf 3.x's "[nf_conntrack.ko]") named as perf
 * script names it, "[nf_conntrack]",
 * dashes made underscores as the kernel does, into b; 0 for any other.
 */
static int kmod_name(const char *path, struct pd_buf *b)
{
	const char *base = strrchr(path, '/'), *ko;
	size_t i, n;

	base = base ? base + 1 : path;
	/* perf 3.x maps a module by its name in brackets: "[mac80211.ko]" */
	if (*base == '[')
		base++;
	ko = strstr(base, ".ko");
	if (!ko || ko == base ||
	    (ko[3] && strcmp(ko + 3, ".xz") && strcmp(ko + 3, ".zst") &&
	     strcmp(ko + 3, ".gz") && (base == path || strcmp(ko + 3, "]"))))
		return 0;
	n = (size_t)(ko - base);
	pd_buf_reset(b);
	pd_buf_add(b, "[", 1);
	for (i = 0; i < n; i++)
		pd_buf_add(b, base[i] == '-' ? "_" : base + i, 1);
	pd_buf_add(b, "]", 1);
	return 1;
}

/* Each address's frame: its name (or its module's) and its DSO. */
static void make_frames(struct pdd *d, struct perf_state *st)
{
	struct pd_buf km = PD_BUF_INIT;
	size_t i;

	PD_VEC_RESERVE(&d->frame_of, d->syms.addrs.n);
	d->frame_of.n = d->syms.addrs.n;
	for (i = 0; i < d->syms.addrs.n; i++) {
		const struct pdd_addr *a = &d->syms.addrs.v[i];
		const char *dso = a->dso == PDD_NO_DSO
				      ? "[unknown]"
				      : d->syms.dsos.v[a->dso].name;
		const char *name = a->name ? a->name : "[unknown]";

		if (a->module)
			dso = a->module;
		else if (a->dso != PDD_NO_DSO &&
			 d->syms.dsos.v[a->dso].kernel && kmod_name(dso, &km))
			dso = km.buf;
		d->frame_of.v[i] =
		    pd_perf_frame_id(st, name, strlen(name), dso, strlen(dso));
	}
	pd_buf_release(&km);
}

static void release(struct pdd *d)
{
	size_t i;

	for (i = 0; i < d->attrs.n; i++)
		free(d->attrs.v[i].name);
	for (i = 0; i < d->syms.dsos.n; i++)
		free(d->syms.dsos.v[i].name);
	for (i = 0; i < d->syms.addrs.n; i++) {
		free(d->syms.addrs.v[i].name);
		free(d->syms.addrs.v[i].module);
	}
	PD_VEC_FREE(&d->attrs);
	PD_VEC_FREE(&d->ids);
	PD_VEC_FREE(&d->maps);
	PD_VEC_FREE(&d->comms);
	PD_VEC_FREE(&d->forks);
	PD_VEC_FREE(&d->syms.dsos);
	PD_VEC_FREE(&d->syms.addrs);
	PD_VEC_FREE(&d->dso_of);
	PD_VEC_FREE(&d->frame_of);
	free(d->syms.hostname);
	free(d->syms.osrelease);
	free(d->tracing);
	free(d->slots);
	free(d->buf);
	pd_intern_release(&d->strs);
	pd_buf_release(&d->why);
	if (d->fd >= 0)
		close(d->fd);
}

static int cmp_idmap(const void *a, const void *b)
{
	const struct pdd_idmap *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

static int read_all(struct pdd *d, struct pd_profile *p,
		    const struct pd_import_opts *o, struct pd_err *err)
{
	struct perf_state st;
	struct pdd_dso none;
	int rc;

	memset(&none, 0, sizeof(none));
	none.name = pd_xstrdup("[unknown]");
	PD_VEC_PUSH(&d->syms.dsos, none); /* PDD_NO_DSO */
	rc = pd_pdd_read_header(d, err);
	if (rc)
		return rc;
	if (d->tracing) {
		pd_pdd_tracing_data(d, d->tracing, d->tracing_n);
		free(d->tracing);
		d->tracing = NULL;
	}
	if (d->ids.n > 1)
		pd_sort(d->ids.v, d->ids.n, sizeof(*d->ids.v), cmp_idmap);
	d->buf = pd_xmalloc(BUF_SIZE);
	rc = pd_pdd_pass_events(d, err);
	if (!rc)
		rc = pass_samples(d, NULL, err);
	if (rc)
		return rc;
	if (d->unfinished)
		pd_profile_note(p,
				"%s: perf record did not finish writing it"
				" (killed?): read up to its end, without the"
				" build ids perf writes last",
				d->path);
	pd_pdd_symbolize(&d->syms, p, o, d->path);
	pd_perf_state_init(&st, p, o);
	st.time_ns = 1; /* sample times in ns, not perf script's seconds */
	make_frames(d, &st);
	rc = pd_perf_limits(&st, err);
	if (!rc)
		rc = pass_samples(d, &st, err);
	if (!rc)
		rc = pd_perf_finish(&st, d->path, err);
	pd_perf_state_release(&st);
	return rc;
}

int pd_perfdata_import(struct pd_profile *p, const char *path, int fd,
		       const struct pd_import_opts *o, struct pd_err *err,
		       struct pd_buf *why)
{
	struct pdd d;
	int rc;

	memset(&d, 0, sizeof(d));
	d.path = path;
	pd_intern_init(&d.strs);
	pd_buf_init(&d.why);
	d.fd = fd;
	rc = read_all(&d, p, o, err);
	if (rc == PDD_USE_PERF)
		pd_buf_adds(why, d.why.buf);
	if (rc == 0) {
		free(p->source);
		p->source = pd_xstrdup(path);
		p->format = "perf.data";
	}
	release(&d);
	return rc;
}
