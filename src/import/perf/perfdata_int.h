/*
 * perf.data read directly (docs/formats.md, "perf.data read directly"):
 * what the file reader (perfdata_file.c), the sample passes (perfdata.c)
 * and the symbol side (perfdata_sym.c) share. A DSO is one file a process
 * mapped, or the kernel; an address is a place in one DSO (a file offset, or a
 * kernel address), named once whatever the number of samples that hit it.
 */
#ifndef PD_PERFDATA_INT_H
#define PD_PERFDATA_INT_H

#include <stdint.h>
#include <string.h>

#include "core/buf.h"
#include "core/err.h"
#include "core/intern.h"
#include "core/vec.h"
#include "import/formats.h"

/* DSO 0 stands for addresses no mapping covers. */
#define PDD_NO_DSO 0

struct pdd_dso {
	char *name;   /* the mapped path, "[kernel.kallsyms]", "[vdso]" */
	char bid[41]; /* build id in lowercase hex, "" when not recorded */
	int kernel;   /* kernel or kernel module: addresses are absolute */
	int jit;      /* a JIT's code, /tmp/perf-PID.map: absolute too */
	int has_ino;  /* MMAP2 recorded the file's device and inode */
	uint32_t maj, min;
	uint64_t ino;
};

struct pdd_addr {
	uint32_t dso;
	uint64_t key; /* file offset; the address itself for the kernel */
	char *name;   /* NULL until named (owned) */
	char *module; /* kernel module name ("[kvm]"), else NULL (owned) */
};

/* What the symbol side needs of the recording. */
struct pdd_syms {
	PD_VEC(struct pdd_dso) dsos;
	PD_VEC(struct pdd_addr) addrs;
	char *hostname, *osrelease; /* from the header, NULL when absent */
	char kernel_bid[41];
};

/* Record types (linux/perf_event.h, tools/perf/util/event.h). */
enum {
	R_MMAP = 1,
	R_COMM = 3,
	R_FORK = 7,
	R_SAMPLE = 9,
	R_MMAP2 = 10,
	R_SWITCH = 14,
	R_SWITCH_CPU_WIDE = 15,
	R_HEADER_ATTR = 64,
	R_AUXTRACE = 71,
	R_COMPRESSED = 81,
};

/* sample_type bits */
#define S_IP (1u << 0)
#define S_TID (1u << 1)
#define S_TIME (1u << 2)
#define S_ADDR (1u << 3)
#define S_READ (1u << 4)
#define S_CALLCHAIN (1u << 5)
#define S_ID (1u << 6)
#define S_CPU (1u << 7)
#define S_PERIOD (1u << 8)
#define S_STREAM_ID (1u << 9)
#define S_RAW (1u << 10)
#define S_BRANCH_STACK (1u << 11)
#define S_REGS_USER (1u << 12)
#define S_STACK_USER (1u << 13)
#define S_IDENTIFIER (1u << 16)

#define CTX_MAX ((uint64_t)-4095)
#define CTX_KERNEL ((uint64_t)-128)
#define CTX_USER ((uint64_t)-512)
#define CTX_GUEST ((uint64_t)-2048)

#define MISC_CPUMODE 7u
#define MISC_KERNEL 1u
#define MISC_COMM_EXEC (1u << 13)
#define MISC_MMAP_BUILD_ID (1u << 14)
#define MISC_MMAP_DATA (1u << 13)  /* in MMAP: a data mapping */
#define MISC_SWITCH_OUT (1u << 13) /* in SWITCH: out, not in */

#define FEAT_TRACING_DATA 1
#define FEAT_BUILD_ID 2
#define FEAT_HOSTNAME 3
#define FEAT_OSRELEASE 4
#define FEAT_EVENT_DESC 12

#define HEADER_SIZE 104
#define BUF_SIZE (1u << 20)
#define MAX_META ((uint64_t)64 << 20) /* attrs, ids, one feature */

struct pdd_attr {
	uint64_t type, config, sample_type, read_format, period, flags;
	uint64_t branch_type;
	uint32_t stack_user;
	char *name;
};

/* perf_event_attr.flags: sample_period holds a frequency (record -F). */
#define A_FREQ (1u << 10)

/*
 * Whether a sample's period is its weight: read from each sample, or
 * fixed for the event (perf record -c N: attr.sample_period, and no
 * period in the samples).
 */
static inline int pdd_fixed_or_sampled_period(const struct pdd_attr *a)
{
	return (a->sample_type & S_PERIOD) ||
	       (!(a->flags & A_FREQ) && a->period > 0);
}

struct pdd_idmap {
	uint64_t id;
	size_t attr;
};

struct pdd_map {
	uint64_t start, len, pgoff, time;
	uint32_t pid, dso;
};

struct pdd_comm {
	uint32_t tid, name;
	uint64_t time;
	int exec;
};

struct pdd_fork {
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
};

/* One slot of the address table: (dso, key) -> address id + 1. */
struct pdd_slot {
	uint64_t key;
	uint32_t dso, id1;
};

/*
 * sched:sched_switch as the recording's tracing data lays it out
 * (perfdata_sched.c): its event id (the tracepoint's attr.config), the
 * offset and size of the fields read, prev_state's letters; and
 * sched:sched_wakeup's id and the place of its pid.
 */
enum { PDD_SCHED_PREV_PID, PDD_SCHED_PREV_STATE, PDD_SCHED_NEXT_PID };
#define PDD_SCHED_NFIELDS 3
#define PDD_SCHED_NFLAGS 16

struct pdd_sched {
	int ok;
	uint64_t id;
	uint32_t off[PDD_SCHED_NFIELDS], size[PDD_SCHED_NFIELDS];
	uint64_t flag[PDD_SCHED_NFLAGS];
	char letter[PDD_SCHED_NFLAGS];
	unsigned nflags;
	int wake_ok;
	uint64_t wake_id;
	uint32_t wake_off, wake_size;
};

struct pdd {
	const char *path;
	int fd;
	uint64_t data_off, data_size;
	int unfinished; /* no sizes written: the data runs to the end */
	PD_VEC(struct pdd_attr) attrs;
	PD_VEC(struct pdd_idmap) ids;
	uint64_t trailer_type; /* the sample_type of non-sample records */
	/* the tracing data feature as the header gave it, until it is read */
	unsigned char *tracing;
	uint64_t tracing_n;
	struct pdd_sched sched;
	PD_VEC(struct pdd_map) maps; /* sorted by pid, start after pass 1 */
	PD_VEC(struct pdd_comm) comms;
	PD_VEC(struct pdd_fork) forks;
	struct pd_intern strs; /* thread names, dso names */
	struct pdd_syms syms;
	struct pdd_slot *slots;
	size_t nslots;
	PD_VEC(uint32_t) dso_of;   /* name string id -> DSO */
	PD_VEC(uint32_t) frame_of; /* address id -> profile frame */
	/* the record reader */
	unsigned char *buf;
	size_t len, pos;
	uint64_t buf_off;  /* file offset of buf[0] */
	struct pd_buf why; /* PDD_USE_PERF: the reason */
};

static inline uint16_t u16at(const unsigned char *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return v;
}

static inline uint32_t u32at(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static inline uint64_t u64at(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/* perfdata_file.c */
int pd_pdd_bad(struct pdd *d, struct pd_err *err, uint64_t off,
	       const char *what);
int pd_pdd_use_perf(struct pdd *d, const char *why);
/* Header, attributes and features; PDD_USE_PERF when perf must read it. */
PD_NODISCARD int pd_pdd_read_header(struct pdd *d, struct pd_err *err);
void pd_pdd_rewind_data(struct pdd *d);
/*
 * The next record: 1 with *rec and *size set, 0 at the end, or an error;
 * *rec and *size are NULL and 0 whenever it returns other than 1.
 */
PD_NODISCARD int pd_pdd_next_record(struct pdd *d, const unsigned char **rec,
				    size_t *size, struct pd_err *err);
/* Pass 1: mappings, thread names and forks, sorted for look-ups. */
PD_NODISCARD int pd_pdd_pass_events(struct pdd *d, struct pd_err *err);

/*
 * Names the addresses it can from files whose build id is the recorded
 * one (or, without a recorded id, the very file mapped on this machine),
 * and kernel addresses from the recorded kernel's symbol list; writes
 * one note per DSO left unnamed, with why.
 */
void pd_pdd_symbolize(struct pdd_syms *s, struct pd_profile *p,
		      const struct pd_import_opts *o, const char *path);

/* Whether this machine made the recording (the host name it recorded). */
int pd_pdd_same_host(const struct pdd_syms *s);

/*
 * Names the n addresses of a JIT's DSO (perfdata_jit.c) from its
 * /tmp/perf-PID.map; returns how many, why set when none.
 */
size_t pd_pdd_name_jit(const struct pdd_syms *s, const struct pdd_dso *x,
		       struct pdd_addr **as, size_t n, const char *data_path,
		       const char *const *dirs, struct pd_buf *why);

/* The attribute of sample id id (d->ids sorted), SIZE_MAX: none. */
size_t pd_pdd_attr_of(const struct pdd *d, uint64_t id);

struct perf_state;
/*
 * perfdata_sched.c: the sched_switch format of the tracing data feature
 * (b, n bytes) kept in d->sched when there.
 */
void pd_pdd_tracing_data(struct pdd *d, const unsigned char *b, uint64_t n);
/*
 * A sched_switch sample's raw bytes (of attribute a) as the fields perf
 * script prints ("prev_pid=... prev_state=... ==> next_pid=..."), or a
 * sched_wakeup's ("pid=..."), into b: 1, or 0 when a is neither
 * tracepoint or its fields cannot be read.
 */
int pd_pdd_sched_text(const struct pdd *d, const struct pdd_attr *a,
		      const unsigned char *raw, uint32_t nraw,
		      struct pd_buf *b);
/* A PERF_RECORD_SWITCH(_CPU_WIDE) record given to st as a switch. */
void pd_pdd_switch_record(const struct pdd *d, struct perf_state *st,
			  const unsigned char *r, size_t size);

#endif
