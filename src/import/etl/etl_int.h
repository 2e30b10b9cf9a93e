/*
 * Shared by the parts of the ETW reader: the event as the buffer walk
 * hands it out (etl_read.c), the trace's state the events fill
 * (etl_events.c) and the profile made of it (pd_etl_build.c).
 */
#ifndef PD_ETL_INT_H
#define PD_ETL_INT_H

#include <stdint.h>
#include <stdio.h>

#include "core/buf.h"
#include "core/err.h"
#include "core/input.h"
#include "core/intern.h"
#include "core/vec.h"
#include "import/formats.h"
#include "import/etl/etl.h"
#include "model/profile.h"

/* Kernel event groups of the system headers (the hook id's high byte). */
enum {
	ETL_G_HEADER = 0x00,
	ETL_G_DISKIO = 0x01,
	ETL_G_MEMORY = 0x02,
	ETL_G_PROCESS = 0x03,
	ETL_G_FILEIO = 0x04,
	ETL_G_THREAD = 0x05,
	ETL_G_PERFINFO = 0x0f,
	ETL_G_IMAGE = 0x14,
	ETL_G_STACKWALK = 0x18,
};

/* One event of the trace, pointing into the buffer being walked. */
struct etl_event {
	int classic;	  /* a kernel event: group and type name it */
	int group;	  /* classic: kernel group */
	int opcode;	  /* classic: type; others: the descriptor's opcode */
	int id;		  /* manifest events: the descriptor's id */
	int version;	  /* the event's version */
	uint8_t guid[16]; /* provider (manifest) or class (full header) */
	int has_guid;
	int64_t pid, tid; /* -1 when the header has none */
	uint64_t ts;
	int ptr; /* pointer size of the writer: 4 or 8 */
	const unsigned char *data;
	size_t len;
	uint64_t offset; /* of the event in the .etl stream */
};

/*
 * A sampled instruction pointer (PerfInfo/SampledProfile), or with
 * --event virtualalloc a VirtualAlloc commit of bytes (ip 0).
 */
struct etl_sample {
	uint64_t ts, ip, bytes;
	uint32_t tid;
	int64_t pid;		 /* from the header, -1 when it has none */
	uint32_t kstack, ustack; /* stack ids, 0 for none */
	/*
	 * 0 a CPU sample; else a wait (etl_wait.c) of kind wait - 1 ending
	 * at ts, bytes its length in the trace's clock (a disk I/O's: at
	 * its start, ip its bytes transferred); readied: the part
	 * of a wait after its thread was readied (ReadyThread), not a
	 * context switch of its own
	 */
	uint32_t wait;
	uint32_t readied;
};

/*
 * A context switch (Thread/CSwitch): who left the CPU, who came on; or,
 * with both 0, a thread made ready to run (Dispatcher/ReadyThread).
 */
struct etl_cswitch {
	uint64_t ts;
	uint32_t new_tid, old_tid;
	int reason, state; /* the old thread's wait reason and state */
	uint32_t readied;  /* ReadyThread: the thread readied */
};

/*
 * A disk I/O's start (DiskIo/ReadInit, WriteInit: its IRP, in the
 * thread that issued it) or its end (DiskIo/Read, Write: the IRP, the
 * bytes and the service time), with --event diskio; or a file read's or
 * write's request (FileIo/Read, Write) or an operation's end
 * (FileIo/OperationEnd, write -1: of any operation), with --event
 * fileio (etl_wait.c).
 */
struct etl_disk {
	uint64_t ts, irp, ticks, size;
	int64_t pid;
	uint32_t tid;
	int done, write;
};

/*
 * A stack event: frames given (stack) or by key (resolved later). ts is
 * the time of the sample it belongs to; kts the event's own, when the
 * kernel referred to the key (keys are used again once deleted, so a
 * reference takes the definition in force after kts, not after ts).
 */
struct etl_sref {
	uint64_t ts, kts, key;
	uint32_t tid;
	uint32_t stack; /* frames' id, 0 while only a key */
	int user;	/* the user half (else the kernel's) */
};

/* A stack key's definition (KeyDelete, KeyRundown) and its time. */
struct etl_kdef {
	uint64_t key, ts;
	uint32_t stack;
};

/* A code range: an image mapped in a process, or a JIT-compiled method. */
struct etl_range {
	uint64_t start, size, ts;
	int64_t pid;
	uint32_t name;	 /* in the trace's strings */
	uint32_t module; /* string id, 0 none */
	int jit;
	/* PDB identity (ImageID/DbgID_RSDS), pdb 0 when none */
	uint8_t pdb_guid[16];
	uint32_t pdb_age, pdb, timestamp, image_size;
};

/* An image address named module!+0xOFFSET, for the symbol search. */
struct etl_pend {
	size_t range; /* index in the sorted ranges */
	uint64_t rel; /* from the image's start */
	uint32_t frame;
};

struct etl_thread {
	uint32_t tid;
	int64_t pid;
	uint64_t ts;
};

struct etl_process {
	int64_t pid;
	uint32_t name;
	uint64_t samples;
};

/* A named (process, address): the frame it became. */
struct etl_fslot {
	int64_t pid;
	uint64_t addr;
	uint32_t frame;
	int used;
};

/*
 * Records of one size, sorted when read back (etl_table.c): in memory up
 * to cap records, then in sorted runs in temporary files.
 */
/*
 * The bytes a trace's tables hold in temporary files, shared by its
 * tables, and their caps (core/limits.h, PD_LIMIT_ETL_SPILL): ratio times
 * the bytes read so far (*read), and half the space free in the folder
 * when the first run was written (cap).
 */
struct etl_spill {
	uint64_t bytes, cap;
	const uint64_t *read; /* the input's bytes read from its file */
	unsigned long long ratio;
	uint64_t floor; /* PD_LIMIT_ETL_SPILL_FLOOR */
	int capped;	/* cap set */
};

struct etl_table {
	size_t size, cap, n;	 /* record size; records held at most; held */
	struct etl_spill *spill; /* NULL: no cap */
	int (*cmp)(const void *, const void *);
	unsigned char *mem;
	struct etl_run {
		FILE *f;
		size_t n;
		unsigned level; /* merged from FANIN^level batches */
	} * runs;
	size_t nruns;
	uint64_t total; /* records pushed */
};

/* Reads a sorted table in order (the runs merged). */
struct etl_cursor {
	struct etl_table *t;
	size_t i;	     /* next record in memory */
	size_t first, count; /* the runs read, when there are runs */
	struct etl_reader {
		unsigned char *buf;
		size_t pos, n, left;
	} * runs;
	unsigned char rec[64];
};

void pd_etl_table_init(struct etl_table *t, size_t size,
		       int (*cmp)(const void *, const void *), size_t cap);
void pd_etl_table_release(struct etl_table *t);
/* Adds a record; a full batch is sorted into a run (errors name path). */
PD_NODISCARD int pd_etl_table_push(struct etl_table *t, const void *rec,
				   const char *path, struct pd_err *err);
/* Sorts what is held (after the last push, before reading). */
PD_NODISCARD int pd_etl_table_sort(struct etl_table *t, const char *path,
				   struct pd_err *err);
/* A cursor at the table's first record; close it after. */
void pd_etl_cursor_open(struct etl_cursor *c, struct etl_table *t);
/* A cursor over count runs from first only (the merges use it). */
void pd_etl_cursor_open_runs(struct etl_cursor *c, struct etl_table *t,
			     size_t first, size_t count);
void pd_etl_cursor_close(struct etl_cursor *c);
/* The next record in *rec: 1, 0 at the end, or an error. */
PD_NODISCARD int pd_etl_cursor_next(struct etl_cursor *c, const void **rec,
				    const char *path, struct pd_err *err);

/* Why a wait record waited (etl_sample.wait is the kind + 1). */
enum etl_wait_kind {
	ETL_WAIT_BLOCKED,
	ETL_WAIT_IO,
	ETL_WAIT_READY,
	ETL_WAIT_DISK_READ,
	ETL_WAIT_DISK_WRITE,
	ETL_WAIT_HARD_FAULT,
	ETL_WAIT_FILE_READ,
	ETL_WAIT_FILE_WRITE,
	ETL_WAIT_KINDS
};

/* A wait to place once the frames have their names (etl_wait.c). */
struct etl_wait_at {
	uint32_t node; /* the stack's leaf node */
	int kind;
	int readied; /* the ready part of a readied wait */
	double ns, count;
};

struct etl_state {
	const char *path;
	const struct pd_import_opts *o;
	struct pd_intern strs;	  /* process, image and method names */
	struct pd_intern stacks;  /* frame arrays (uint64_t each) */
	struct etl_table samples; /* by thread and time */
	struct etl_table srefs; /* stacks given or resolved: by thread, time */
	struct etl_table krefs; /* stacks by key: by key, then time */
	struct etl_table kdefs; /* key definitions: by key, then time */
	PD_VEC(struct etl_range) ranges;
	PD_VEC(struct etl_thread) threads;
	PD_VEC(struct etl_process) procs;
	struct etl_range dbg; /* the PDB identity for the next image */
	uint64_t idle_samples;
	uint32_t interval_100ns; /* sampling interval, 0 unknown */
	int valloc;		 /* the profile: VirtualAlloc commits */
	int diskio;		 /* the profile: disk I/O's service time */
	int hardfault;		 /* the profile: hard faults' time */
	int fileio;		 /* the profile: file reads' and writes' time */
	int io;			 /* either: waits of I/O, no CPU samples */
	struct etl_table disk;	 /* by IRP, then time (etl_wait.c) */
	/*
	 * I/O of the processes read: disk reads, writes; hard faults in [0]
	 * (etl_build.c)
	 */
	uint64_t disk_ops[2], disk_bytes[2], disk_unpaired;
	double disk_ns[2];
	int count_only; /* counting events: no record kept */
	int ptr;	/* pointer size of the trace */
	uint64_t events, buffers, compressed;
	uint64_t expanded; /* events' bytes, compressed buffers expanded */
	unsigned long long inflate; /* PD_LIMIT_ETL_INFLATE, or raised */
	struct etl_spill spill;
	/*
	 * What the trace's header event says was written: its buffers (0
	 * when unknown) and its logging mode (a circular or split file
	 * holds fewer buffers than were written).
	 */
	uint32_t buffers_written, log_mode;
	int header_seen;
	uint64_t counts[PD_ETL_KINDS];
	/* context switches, their waits' pending frames (etl_wait.c) */
	struct etl_table cswitch;
	uint64_t perf_freq; /* the clock's ticks a second, 0 unknown */
	PD_VEC(struct etl_wait_at) waits;
	uint64_t waits_paired, waits_added, waits_stackless;
	uint64_t waits_readied; /* waits split where ReadyThread readied */
	PD_VEC(struct etl_pend) pend;
	struct etl_fslot *fslots; /* open addressing, a power of two */
	size_t nfslots, nfused;
};

/* Orders records by a1 then a2 against b1 then b2: -1, 0 or 1. */
static inline int pd_etl_cmp2(uint64_t a1, uint64_t a2, uint64_t b1,
			      uint64_t b2)
{
	if (a1 != b1)
		return a1 < b1 ? -1 : 1;
	return a2 < b2 ? -1 : a2 > b2;
}

/* Stack events by thread, then time (as the samples are). */
int pd_etl_cmp_sref(const void *a, const void *b);
/* Reads every event of the trace in `in`, calling pd_etl_event_take. */
PD_NODISCARD int pd_etl_walk(struct pd_input *in, struct etl_state *st,
			     struct pd_err *err);
/* One event into st; errors name the event's offset. */
PD_NODISCARD int pd_etl_event_take(struct etl_state *st,
				   const struct etl_event *ev,
				   struct pd_err *err);
/* The profile of st's samples (after the walk). */
PD_NODISCARD int pd_etl_build(struct etl_state *st, struct pd_profile *p,
			      struct pd_err *err);
/* A Thread/CSwitch event kept for pairing (etl_wait.c). */
PD_NODISCARD int pd_etl_take_cswitch(struct etl_state *st,
				     const struct etl_event *ev,
				     struct pd_err *err);
/* A DiskIo event kept with --event diskio (etl_events.c). */
PD_NODISCARD int pd_etl_take_disk(struct etl_state *st,
				  const struct etl_event *ev,
				  struct pd_err *err);
/* A FileIo event kept with --event fileio (etl_events.c). */
PD_NODISCARD int pd_etl_take_file(struct etl_state *st,
				  const struct etl_event *ev,
				  struct pd_err *err);
/*
 * After the walk: each disk I/O's end paired with its start by IRP, a
 * wait record of the issuing thread at the start's time (whose stack it
 * takes) and its service time (etl_wait.c).
 */
PD_NODISCARD int pd_etl_pair_disk(struct etl_state *st, struct pd_err *err);
/* A Dispatcher/ReadyThread event kept with them, to split a wait. */
PD_NODISCARD int pd_etl_take_ready(struct etl_state *st,
				   const struct etl_event *ev,
				   struct pd_err *err);
/*
 * After the walk, before the samples are sorted: each thread's time off
 * the CPU, from a switch-out to its next switch-in, as a wait record in
 * st->samples at the switch-in, whose stack (the thread's where it
 * resumes) the samples' join gives it.
 */
PD_NODISCARD int pd_etl_pair_switches(struct etl_state *st, struct pd_err *err);
/*
 * A wait record whose stack ends at node: kept, to be placed by
 * pd_etl_add_waits once the frames are named.
 */
void pd_etl_wait_keep(struct etl_state *st, const struct etl_sample *s,
		      uint32_t node, double sample_ns);
/* The kept waits as frames "name (kind)" of the program's functions. */
void pd_etl_add_waits(struct etl_state *st, struct pd_profile *p);

/* Sorts the ranges for pd_etl_range_find (once, after the walk). */
void pd_etl_ranges_sort(struct etl_state *st);
/* The range of process pid holding addr, or NULL. */
const struct etl_range *pd_etl_range_find(const struct etl_state *st,
					  int64_t pid, uint64_t addr);
/* The frame of p naming addr in process pid (named once, then cached). */
uint32_t pd_etl_frame(struct etl_state *st, struct pd_profile *p, int64_t pid,
		      uint64_t addr);
/* Names the frames of st->pend from the symbol path, where it can. */
void pd_etl_symbolicate(struct etl_state *st, struct pd_profile *p);
/* Whether addr is in the kernel's half of the address space. */
int pd_etl_is_kernel(const struct etl_state *st, uint64_t addr);
/* The process pid, or NULL (processes sorted by pid). */
struct etl_process *pd_etl_process_find(struct etl_state *st, int64_t pid);
/* records: how many samples or stack events are held in memory at once
 * (0: PD_LIMIT_ETL_MEMORY's worth) */
void pd_etl_state_init(struct etl_state *st, const char *path,
		       const struct pd_import_opts *o, size_t records);
void pd_etl_state_release(struct etl_state *st);

#endif
