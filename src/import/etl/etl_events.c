/*
 * The events a CPU profile needs, read into the trace's state: samples,
 * stacks (given or by key), processes, threads, images with their PDB
 * identities, and the CLR's JIT-compiled methods. Layouts as the kernel
 * and the CLR write them (docs/formats.md, "Windows ETW traces").
 */
#include <stdlib.h>
#include <string.h>

#include "core/limits.h"
#include "import/etl/etl_int.h"

/* KernelTraceControl's ImageID class, as stored (little-endian GUID). */
static const uint8_t guid_imageid[16] = { 0xd7, 0x75, 0xe6, 0xb3, 0x54, 0x25,
					  0x18, 0x4f, 0x83, 0x0b, 0x27, 0x62,
					  0x73, 0x25, 0x60, 0xde };
/* Microsoft-Windows-DotNETRuntime and its rundown provider. */
static const uint8_t guid_clr[16] = { 0x23, 0x0d, 0x3c, 0xe1, 0xbc, 0xcc,
				      0x12, 0x4e, 0x93, 0x1b, 0xd9, 0xcc,
				      0x2e, 0xee, 0x27, 0xe4 };
static const uint8_t guid_rundown[16] = { 0x1c, 0x02, 0x69, 0xa6, 0x50, 0xc4,
					  0x09, 0x46, 0xa0, 0x35, 0x5a, 0xf5,
					  0x9a, 0xf4, 0xdf, 0x18 };

static uint64_t rd(const unsigned char *p, int n)
{
	uint64_t v = 0;
	int i;

	for (i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static int bad(struct etl_state *st, const struct etl_event *ev,
	       struct pd_err *err, const char *what)
{
	return pd_err_set(err, PD_EPARSE,
			  "%s: byte %llu of the .etl: %s shorter than its"
			  " fields",
			  st->path, (unsigned long long)ev->offset, what);
}

static int too_many(struct etl_state *st, const struct etl_event *ev,
		    struct pd_err *err)
{
	struct pd_buf where = PD_BUF_INIT;
	int rc;

	pd_buf_addf(&where, "%s: byte %llu of the .etl", st->path,
		    (unsigned long long)ev->offset);
	rc = pd_err_limit(err, where.buf, PD_LIMIT_ETL_RECORDS,
			  "samples and stack events", "PD_LIMIT_ETL_RECORDS");
	pd_buf_release(&where);
	return rc;
}

/* Keeps rec in table t until the trace ends (not when only counting). */
static int keep(struct etl_state *st, struct etl_table *t, const void *rec,
		const struct etl_event *ev, struct pd_err *err)
{
	if (st->count_only)
		return 0;
	if (t->total >= PD_LIMIT_ETL_RECORDS)
		return too_many(st, ev, err);
	return pd_etl_table_push(t, rec, st->path, err);
}

/* UTF-16LE text from off (to its NUL or len) as UTF-8 into b. */
static void utf16z(const unsigned char *d, size_t len, size_t *off,
		   struct pd_buf *b)
{
	size_t i = *off;

	pd_buf_reset(b);
	while (i + 2 <= len) {
		uint32_t c = (uint32_t)rd(d + i, 2);

		i += 2;
		if (!c)
			break;
		if (c >= 0xd800 && c < 0xdc00 && i + 2 <= len) {
			uint32_t lo = (uint32_t)rd(d + i, 2);

			if (lo >= 0xdc00 && lo < 0xe000) {
				c = 0x10000 + ((c - 0xd800) << 10) +
				    (lo - 0xdc00);
				i += 2;
			}
		}
		if (c < 0x80) {
			pd_buf_addch(b, (char)c);
		} else if (c < 0x800) {
			pd_buf_addch(b, (char)(0xc0 | c >> 6));
			pd_buf_addch(b, (char)(0x80 | (c & 0x3f)));
		} else if (c < 0x10000) {
			pd_buf_addch(b, (char)(0xe0 | c >> 12));
			pd_buf_addch(b, (char)(0x80 | (c >> 6 & 0x3f)));
			pd_buf_addch(b, (char)(0x80 | (c & 0x3f)));
		} else {
			pd_buf_addch(b, (char)(0xf0 | c >> 18));
			pd_buf_addch(b, (char)(0x80 | (c >> 12 & 0x3f)));
			pd_buf_addch(b, (char)(0x80 | (c >> 6 & 0x3f)));
			pd_buf_addch(b, (char)(0x80 | (c & 0x3f)));
		}
	}
	*off = i;
}

/* The last path component of s (after '\\' or '/'). */
static const char *base_name(const char *s)
{
	const char *b = s;

	for (; *s; s++)
		if (*s == '\\' || *s == '/')
			b = s + 1;
	return b;
}

static int take_sample(struct etl_state *st, const struct etl_event *ev,
		       struct pd_err *err)
{
	struct etl_sample s;
	int p = ev->ptr;

	if (ev->len < (size_t)p + 7)
		return bad(st, ev, err, "a sample");
	memset(&s, 0, sizeof(s));
	s.ip = rd(ev->data, p);
	s.tid = (uint32_t)rd(ev->data + p, 4);
	s.ts = ev->ts;
	s.pid = ev->pid;
	/* the idle loop: thread 0 outside a DPC or an interrupt */
	if (s.tid == 0 && !(ev->data[p + 6] & 3)) {
		st->counts[PD_ETL_SAMPLE_IDLE]++;
		return 0;
	}
	st->counts[PD_ETL_SAMPLE]++;
	return st->valloc || st->io ? 0 : keep(st, &st->samples, &s, ev, err);
}

/* The id of the frames at d (n addresses of p bytes), interned. */
static uint32_t intern_frames(struct etl_state *st, const unsigned char *d,
			      size_t n, int p)
{
	uint64_t *f = pd_xmalloc((n ? n : 1) * sizeof(*f));
	uint32_t id;
	size_t i;

	for (i = 0; i < n; i++)
		f[i] = rd(d + i * (size_t)p, p);
	id = pd_intern(&st->stacks, (const char *)f, n * sizeof(*f));
	free(f);
	return id;
}

int pd_etl_is_kernel(const struct etl_state *st, uint64_t a)
{
	return st->ptr == 4 ? a >= 0x80000000u : a >> 63;
}

static int take_stack(struct etl_state *st, const struct etl_event *ev,
		      struct pd_err *err)
{
	int p = ev->ptr;
	struct etl_sref r;

	memset(&r, 0, sizeof(r));
	if (ev->opcode == 35 || ev->opcode == 36) {
		struct etl_kdef k;

		if (ev->len < (size_t)p)
			return bad(st, ev, err, "a stack key");
		memset(&k, 0, sizeof(k)); /* its padding goes to a file too */
		k.key = rd(ev->data, p);
		k.ts = ev->ts;
		k.stack = intern_frames(st, ev->data + p,
					(ev->len - (size_t)p) / (size_t)p, p);
		st->counts[PD_ETL_STACK_KEYDEF]++;
		return keep(st, &st->kdefs, &k, ev, err);
	}
	if (ev->len < 16 + (ev->opcode == 32 ? 0 : (size_t)p))
		return bad(st, ev, err, "a stack");
	r.ts = rd(ev->data, 8);
	r.tid = (uint32_t)rd(ev->data + 12, 4);
	if (ev->opcode == 32) {
		size_t n = (ev->len - 16) / (size_t)p;

		if (!n)
			return 0;
		r.stack = intern_frames(st, ev->data + 16, n, p);
		r.user = !pd_etl_is_kernel(st, rd(ev->data + 16, p));
		st->counts[PD_ETL_STACKWALK]++;
	} else {
		r.key = rd(ev->data + 16, p);
		r.kts = ev->ts;
		r.user = ev->opcode == 38;
		st->counts[PD_ETL_STACK_KEY]++;
	}
	return keep(st, r.stack ? &st->srefs : &st->krefs, &r, ev, err);
}

static int take_image(struct etl_state *st, const struct etl_event *ev,
		      struct pd_err *err)
{
	static const int kinds[] = { [2] = PD_ETL_IMAGE_UNLOAD,
				     [3] = PD_ETL_IMAGE_DCSTART,
				     [4] = PD_ETL_IMAGE_DCSTOP,
				     [10] = PD_ETL_IMAGE_LOAD };
	int p = ev->ptr;
	size_t off = ev->version >= 2 ? 3 * (size_t)p + 32 : 2 * (size_t)p + 4;
	struct pd_buf name = PD_BUF_INIT;
	struct etl_range r;

	st->counts[kinds[ev->opcode]]++;
	if (ev->opcode == 2 || ev->opcode == 4)
		return 0;
	if (ev->len < off)
		return bad(st, ev, err, "an image event");
	memset(&r, 0, sizeof(r));
	r.start = rd(ev->data, p);
	r.size = rd(ev->data + p, p);
	r.pid = (int64_t)rd(ev->data + 2 * p, 4);
	if (ev->version >= 2)
		r.timestamp = (uint32_t)rd(ev->data + 2 * p + 8, 4);
	r.image_size = (uint32_t)r.size;
	r.ts = ev->ts;
	utf16z(ev->data, ev->len, &off, &name);
	r.name = pd_intern_cstr(&st->strs, name.buf);
	r.module = pd_intern_cstr(&st->strs, base_name(name.buf));
	if (st->dbg.pdb && st->dbg.start == r.start) {
		memcpy(r.pdb_guid, st->dbg.pdb_guid, 16);
		r.pdb_age = st->dbg.pdb_age;
		r.pdb = st->dbg.pdb;
	}
	st->dbg.pdb = 0;
	PD_VEC_PUSH(&st->ranges, r);
	pd_buf_release(&name);
	return 0;
}

/* A PDB identity, for the image event that follows it. */
static int take_dbgid(struct etl_state *st, const struct etl_event *ev,
		      struct pd_err *err)
{
	int p = ev->ptr;
	size_t i = (size_t)p + 24, n;

	if (ev->opcode != 36)
		return 0;
	st->counts[PD_ETL_DBGID_RSDS]++;
	if (ev->len < i)
		return bad(st, ev, err, "a DbgID_RSDS event");
	st->dbg.start = rd(ev->data, p);
	memcpy(st->dbg.pdb_guid, ev->data + p + 4, 16);
	st->dbg.pdb_age = (uint32_t)rd(ev->data + p + 20, 4);
	for (n = 0; i + n < ev->len && ev->data[i + n]; n++)
		;
	st->dbg.pdb = pd_intern(&st->strs, (const char *)ev->data + i, n);
	if (!st->dbg.pdb)
		st->dbg.pdb = pd_intern_cstr(&st->strs, "?");
	return 0;
}

static int take_process(struct etl_state *st, const struct etl_event *ev,
			struct pd_err *err)
{
	int p = ev->ptr;
	size_t off, n;
	struct etl_process pr;

	switch (ev->opcode) {
	case 1:
		st->counts[PD_ETL_PROCESS_START]++;
		break;
	case 2:
		st->counts[PD_ETL_PROCESS_STOP]++;
		break;
	case 3:
		st->counts[PD_ETL_PROCESS_DCSTART]++;
		break;
	case 4:
		st->counts[PD_ETL_PROCESS_DCSTOP]++;
		break;
	case 39:
		st->counts[PD_ETL_PROCESS_DEFUNCT]++;
		break;
	default:
		return 0;
	}
	if (ev->version < 3)
		return 0; /* before Vista: no layout read here */
	off = (ev->version >= 4 ? 28 : 24) + 2 * ((size_t)p - 4);
	if (ev->len < off + 4)
		return bad(st, ev, err, "a process event");
	/* the user's SID: none (4 bytes), or TOKEN_USER and the SID */
	if (rd(ev->data + off, 4) == 0)
		off += 4;
	else if (off + 2 * (size_t)p + 2 <= ev->len)
		off += 2 * (size_t)p + 8 + 4 * ev->data[off + 2 * p + 1];
	else
		return bad(st, ev, err, "a process event");
	if (off > ev->len)
		return bad(st, ev, err, "a process event");
	for (n = 0; off + n < ev->len && ev->data[off + n]; n++)
		;
	pr.pid = (int64_t)rd(ev->data + p, 4);
	pr.name = pd_intern(&st->strs, (const char *)ev->data + off, n);
	pr.samples = 0;
	PD_VEC_PUSH(&st->procs, pr);
	return 0;
}

static int take_thread(struct etl_state *st, const struct etl_event *ev,
		       struct pd_err *err)
{
	static const int kinds[] = { 0, PD_ETL_THREAD_START, PD_ETL_THREAD_STOP,
				     PD_ETL_THREAD_DCSTART,
				     PD_ETL_THREAD_DCSTOP };
	struct etl_thread t;

	if (ev->opcode < 1 || ev->opcode > 4)
		return 0;
	st->counts[kinds[ev->opcode]]++;
	if (ev->len < 8)
		return bad(st, ev, err, "a thread event");
	t.pid = (int64_t)rd(ev->data + (ev->version >= 1 ? 0 : 4), 4);
	t.tid = (uint32_t)rd(ev->data + (ev->version >= 1 ? 4 : 0), 4);
	t.ts = ev->ts;
	PD_VEC_PUSH(&st->threads, t);
	return 0;
}

/* MethodLoadVerbose and its rundown forms: a JIT-compiled method. */
static int take_method(struct etl_state *st, const struct etl_event *ev,
		       struct pd_err *err)
{
	struct pd_buf ns = PD_BUF_INIT, name = PD_BUF_INIT;
	struct etl_range r;
	size_t off = 36;

	if (ev->len < off)
		return bad(st, ev, err, "a method event");
	memset(&r, 0, sizeof(r));
	r.start = rd(ev->data + 16, 8);
	r.size = rd(ev->data + 24, 4);
	r.pid = ev->pid;
	r.ts = ev->ts;
	r.jit = 1;
	utf16z(ev->data, ev->len, &off, &ns);
	if (ns.len)
		pd_buf_addch(&ns, '.');
	utf16z(ev->data, ev->len, &off, &name);
	pd_buf_add(&ns, name.buf, name.len);
	r.name = pd_intern(&st->strs, ns.buf, ns.len);
	PD_VEC_PUSH(&st->ranges, r);
	pd_buf_release(&ns);
	pd_buf_release(&name);
	return 0;
}

static int take_manifest(struct etl_state *st, const struct etl_event *ev,
			 struct pd_err *err)
{
	int clr = !memcmp(ev->guid, guid_clr, 16),
	    rundown = !memcmp(ev->guid, guid_rundown, 16);

	if (clr && ev->id == 10)
		st->counts[PD_ETL_ALLOC_TICK]++;
	if ((!clr && !rundown) || (ev->id != 143 && ev->id != 144))
		return 0;
	st->counts[clr ? (ev->id == 143 ? PD_ETL_METHOD_LOAD
					: PD_ETL_METHOD_UNLOAD)
		       : (ev->id == 143 ? PD_ETL_METHOD_DCSTART
					: PD_ETL_METHOD_DCSTOP)]++;
	/* unloads keep their range: samples before them still name it */
	return take_method(st, ev, err);
}

/* MEM_COMMIT among a VirtualAlloc's allocation types. */
#define MEM_COMMIT 0x1000

/*
 * PageFault/VirtualAlloc (98) and VirtualFree (99): base address and
 * region size (pointers), the process that owns the memory, the
 * allocation type. With --event virtualalloc each commit is a record of
 * its bytes in the calling process, by its thread's stack; frees and
 * reservations are counted.
 */
static int take_valloc(struct etl_state *st, const struct etl_event *ev,
		       struct pd_err *err)
{
	struct etl_sample s;
	int p = ev->ptr;

	if (ev->len < 2 * (size_t)p + 8)
		return bad(st, ev, err, "a VirtualAlloc event");
	st->counts[ev->opcode == 98 ? PD_ETL_VIRTUAL_ALLOC
				    : PD_ETL_VIRTUAL_FREE]++;
	if (!st->valloc || ev->opcode != 98 ||
	    !(rd(ev->data + 2 * p + 4, 4) & MEM_COMMIT))
		return 0;
	memset(&s, 0, sizeof(s));
	s.bytes = rd(ev->data + p, p);
	s.tid = ev->tid >= 0 ? (uint32_t)ev->tid : 0;
	/* the caller's process, whose stack this is; the memory's owner
	 * (the payload's process) differs for VirtualAllocEx into another */
	s.pid = ev->pid >= 0 ? ev->pid : (int64_t)rd(ev->data + 2 * p, 4);
	s.ts = ev->ts;
	return keep(st, &st->samples, &s, ev, err);
}

/*
 * Thread/CSwitch (V2+): NewThreadId and OldThreadId, then the priorities
 * and C-state (3 bytes and a spare), the old thread's wait reason (12),
 * wait mode (13) and state (14). Kept for pairing after the walk
 * (etl_wait.c); a VirtualAlloc profile has no use for them.
 */
int pd_etl_take_cswitch(struct etl_state *st, const struct etl_event *ev,
			struct pd_err *err)
{
	struct etl_cswitch c;

	if (st->valloc || st->io)
		return 0;
	if (ev->len < 16)
		return bad(st, ev, err, "a context switch");
	memset(&c, 0, sizeof(c));
	c.ts = ev->ts;
	c.new_tid = (uint32_t)rd(ev->data, 4);
	c.old_tid = (uint32_t)rd(ev->data + 4, 4);
	c.reason = (signed char)ev->data[12];
	c.state = (signed char)ev->data[14];
	return keep(st, &st->cswitch, &c, ev, err);
}

/*
 * DiskIo (docs/formats.md, "Windows ETW traces"): ReadInit and WriteInit
 * (12, 13) give the IRP of an I/O as its thread issues it, with that
 * thread's stack (-stackwalk DiskReadInit+DiskWriteInit); Read and Write
 * (10, 11), logged as it completes in whatever thread, give the disk,
 * the IRP flags, the bytes, a reserved word, the offset, the file
 * object, the IRP and the service time in the trace's clock.
 */
int pd_etl_take_disk(struct etl_state *st, const struct etl_event *ev,
		     struct pd_err *err)
{
	struct etl_disk d;
	size_t p = (size_t)ev->ptr;

	/* a CPU profile only counts them: their layout is not its business */
	if (st->count_only || !st->diskio)
		return 0;
	memset(&d, 0, sizeof(d));
	d.ts = ev->ts;
	d.write = ev->opcode == 11 || ev->opcode == 13;
	if (ev->opcode >= 12) {
		if (ev->len < p)
			return bad(st, ev, err, "a disk I/O's start");
		d.irp = rd(ev->data, (int)p);
		d.pid = ev->pid;
		/* the header's thread, whose stack it is; else the field's */
		if (ev->tid >= 0)
			d.tid = (uint32_t)ev->tid;
		else if (ev->len >= p + 4)
			d.tid = (uint32_t)rd(ev->data + p, 4);
	} else {
		if (ev->len < 24 + 2 * p + 8)
			return bad(st, ev, err, "a disk I/O");
		d.size = rd(ev->data + 8, 4);
		d.irp = rd(ev->data + 24 + p, (int)p);
		d.ticks = rd(ev->data + 24 + 2 * p, 8);
		d.done = 1;
	}
	return keep(st, &st->disk, &d, ev, err);
}

/*
 * FileIo (docs/formats.md, "Windows ETW traces"): Read and Write (67,
 * 68) are a request, logged by the thread that made it, with its stack
 * (-stackwalk FileRead+FileWrite): the offset, the IRP, the file object,
 * the file key and the thread (the thread before the file object up to
 * version 2), the bytes asked for and the flags; OperationEnd (76) ends
 * an operation of any kind: its IRP, the bytes done, the status.
 */
int pd_etl_take_file(struct etl_state *st, const struct etl_event *ev,
		     struct pd_err *err)
{
	struct etl_disk d;
	size_t p = (size_t)ev->ptr;

	if (st->count_only || !st->fileio)
		return 0;
	memset(&d, 0, sizeof(d));
	d.ts = ev->ts;
	if (ev->opcode == 76) {
		if (ev->len < 2 * p)
			return bad(st, ev, err, "a file operation's end");
		d.irp = rd(ev->data, (int)p);
		d.size = rd(ev->data + p, (int)p);
		d.done = 1;
		d.write = -1;
	} else {
		size_t tid = ev->version <= 2 ? 8 + p : 8 + 3 * p,
		       size = ev->version <= 2 ? 8 + 4 * p : 12 + 3 * p;

		if (ev->len < size + 4)
			return bad(st, ev, err, "a file read or write");
		d.irp = rd(ev->data + 8, (int)p);
		d.pid = ev->pid;
		d.tid = ev->tid >= 0 ? (uint32_t)ev->tid
				     : (uint32_t)rd(ev->data + tid, 4);
		d.write = ev->opcode == 68;
		d.size = rd(ev->data + size, 4); /* asked for */
	}
	return keep(st, &st->disk, &d, ev, err);
}

/*
 * PageFault/HardFault (V2: when the fault began, the file offset read,
 * the address, the file object, the thread that faulted, the bytes
 * read), logged when the page is in: with --event hardfault, a wait of
 * that thread from the start to the event, at the event's time, whose
 * stack (-stackwalk HardFault) it takes.
 */
static int take_hardfault(struct etl_state *st, const struct etl_event *ev,
			  struct pd_err *err)
{
	struct etl_sample s;
	size_t p = (size_t)ev->ptr;
	uint64_t t0;

	if (st->count_only || !st->hardfault)
		return 0;
	if (ev->len < 16 + 2 * p + 8)
		return bad(st, ev, err, "a hard fault");
	memset(&s, 0, sizeof(s));
	t0 = rd(ev->data, 8);
	s.ts = ev->ts;
	s.tid = (uint32_t)rd(ev->data + 16 + 2 * p, 4);
	s.pid = -1; /* the thread's */
	s.bytes = t0 <= ev->ts ? ev->ts - t0 : 0;
	s.ip = rd(ev->data + 20 + 2 * p, 4);
	s.wait = ETL_WAIT_HARD_FAULT + 1;
	st->waits_paired++;
	return keep(st, &st->samples, &s, ev, err);
}

/*
 * Dispatcher/ReadyThread (V2: the readied thread's id, then the priority
 * adjustment's reason, increment and flags): the thread that waited may
 * run again. Kept beside the switches, both thread ids 0.
 */
int pd_etl_take_ready(struct etl_state *st, const struct etl_event *ev,
		      struct pd_err *err)
{
	struct etl_cswitch c;

	if (st->valloc || st->io)
		return 0;
	if (ev->len < 4)
		return bad(st, ev, err, "a thread readying");
	memset(&c, 0, sizeof(c));
	c.ts = ev->ts;
	c.readied = (uint32_t)rd(ev->data, 4);
	if (!c.readied)
		return 0;
	return keep(st, &st->cswitch, &c, ev, err);
}

static void take_interval(struct etl_state *st, const struct etl_event *ev)
{
	/* source 0 is the timer; intervals are in 100 ns */
	if (ev->len >= 8 && rd(ev->data, 4) == 0 && rd(ev->data + 4, 4))
		st->interval_100ns = (uint32_t)rd(ev->data + 4, 4);
}

/*
 * The trace's header event (EventTrace/Header, TRACE_LOGFILE_HEADER): its
 * logging mode at byte 32, the buffers written at 36. The first one
 * counts (a merged trace repeats it, with the same numbers).
 */
static void take_header(struct etl_state *st, const struct etl_event *ev)
{
	if (st->header_seen || ev->len < 40)
		return;
	st->header_seen = 1;
	st->log_mode = (uint32_t)rd(ev->data + 32, 4);
	st->buffers_written = (uint32_t)rd(ev->data + 36, 4);
	/* PerfFreq: after two pointers and the time zone (172 bytes) */
	if (ev->len >= (ev->ptr == 8 ? 264u : 256u))
		st->perf_freq = rd(ev->data + (ev->ptr == 8 ? 256 : 248), 8);
}

int pd_etl_event_take(struct etl_state *st, const struct etl_event *ev,
		      struct pd_err *err)
{
	if (!ev->classic) {
		if (ev->has_guid && !memcmp(ev->guid, guid_imageid, 16))
			return take_dbgid(st, ev, err);
		if (ev->has_guid && ev->id)
			return take_manifest(st, ev, err);
		return 0;
	}
	switch (ev->group) {
	case ETL_G_HEADER:
		if (ev->opcode == 0)
			take_header(st, ev);
		return 0;
	case ETL_G_PERFINFO:
		if (ev->opcode == 46)
			return take_sample(st, ev, err);
		if (ev->opcode == 73 || ev->opcode == 74)
			take_interval(st, ev);
		return 0;
	case ETL_G_MEMORY:
		if (ev->opcode == 98 || ev->opcode == 99)
			return take_valloc(st, ev, err);
		if (ev->opcode == 32) {
			st->counts[PD_ETL_HARD_FAULT]++;
			return take_hardfault(st, ev, err);
		}
		return 0;
	case ETL_G_DISKIO:
		if (ev->opcode == 10 || ev->opcode == 11)
			st->counts[ev->opcode == 10 ? PD_ETL_DISK_READ
						    : PD_ETL_DISK_WRITE]++;
		if (ev->opcode >= 10 && ev->opcode <= 13)
			return pd_etl_take_disk(st, ev, err);
		return 0;
	case ETL_G_FILEIO:
		if (ev->opcode == 64)
			st->counts[PD_ETL_FILE_CREATE]++;
		else if (ev->opcode == 67 || ev->opcode == 68)
			st->counts[ev->opcode == 67 ? PD_ETL_FILE_READ
						    : PD_ETL_FILE_WRITE]++;
		if (ev->opcode == 67 || ev->opcode == 68 || ev->opcode == 76)
			return pd_etl_take_file(st, ev, err);
		return 0;
	case ETL_G_STACKWALK:
		if (ev->opcode >= 32 && ev->opcode <= 38 && ev->opcode != 33 &&
		    ev->opcode != 34)
			return take_stack(st, ev, err);
		return 0;
	case ETL_G_IMAGE:
		if (ev->opcode == 2 || ev->opcode == 3 || ev->opcode == 4 ||
		    ev->opcode == 10)
			return take_image(st, ev, err);
		return 0;
	case ETL_G_PROCESS:
		/* image loads were process events before Windows 8 */
		if (ev->opcode == 10)
			return take_image(st, ev, err);
		return take_process(st, ev, err);
	case ETL_G_THREAD:
		if (ev->opcode == 36) {
			st->counts[PD_ETL_CSWITCH]++;
			return pd_etl_take_cswitch(st, ev, err);
		}
		if (ev->opcode == 50) {
			st->counts[PD_ETL_READY_THREAD]++;
			return pd_etl_take_ready(st, ev, err);
		}
		return take_thread(st, ev, err);
	default:
		return 0;
	}
}
