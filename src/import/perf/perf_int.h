/*
 * What the perf readers share (docs/formats.md, "Linux perf"): perf
 * script's text (perf.c) and perf.data read directly (perfdata.c) turn
 * samples into a profile the same way, here (perf_sample.c), so that the
 * two paths give the same functions and numbers for one recording.
 */
#ifndef PD_PERF_INT_H
#define PD_PERF_INT_H

#include <stdint.h>
#include <string.h>

#include "core/buf.h"
#include "core/intern.h"
#include "core/vec.h"
#include "import/formats.h"

struct perf_hdr {
	const char *comm;
	size_t comm_len;
	const char *pid, *tid;
	size_t pid_len, tid_len;
	double period;
	int has_period;
	const char *event;
	size_t event_len;
	const char *rest; /* text after the event, may hold a frame */
	double time;	  /* the sample's time, NAN when not given */
};

/*
 * The last header parsed in full, as its bytes before the time token and
 * after it to the event's end, with its fields' places in them (perf.c:
 * a header that differs only in its time is not tokenized again).
 */
struct perf_memo {
	struct pd_buf bytes; /* pre bytes, then post bytes */
	size_t pre, post;
	size_t comm_off, comm_len, pid_off, pid_len, tid_off, tid_len; /* pre */
	size_t event_off, event_len; /* in post */
	double period;
	int has_period, ok;
};

/* A kept sample's node and time, for time blocks added later. */
struct perf_tlog {
	uint32_t node;
	double time;
};

/*
 * A scheduler record of one thread (perf_wait.c): a switch-out with the
 * node its wait goes to, a switch-in (node PERF_SW_IN) or a wakeup
 * (PERF_SW_WAKE: sched:sched_wakeup named it, runnable from then).
 */
#define PERF_SW_IN UINT32_MAX
#define PERF_SW_WAKE (UINT32_MAX - 1)
struct perf_switch {
	double time;
	uint32_t tid;
	uint32_t node;
	uint32_t thread; /* string id of the thread's comm */
	uint32_t kind;	 /* a switch-out's: why (perf_wait.c) */
};

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
	double weight, time;
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
	/* text only: frame lines seen, and frame << 1 | inlined (perf.c) */
	struct pd_intern lines;
	PD_VEC(uint32_t) line_frame;
	struct perf_memo memo;
	/*
	 * A piece after the first of a file read on threads (perf_split.c)
	 * logs its samples' times instead of adding them to time blocks,
	 * whose span depends on every sample before.
	 */
	int log_times;
	PD_VEC(struct perf_tlog) tlog;
	/*
	 * Off-CPU time (docs/formats.md, "Off-CPU time"): the current sample
	 * is a switch-out of thread sw_tid (in_switch), its wait's kind
	 * sw_kind; every switch-out and switch-in in file order.
	 */
	int in_switch, sw_kind;
	uint32_t sw_tid;
	double time_ns; /* ns a time unit: 1e9 in perf script, 1 in perf.data */
	PD_VEC(struct perf_switch) sw;
	/*
	 * At most sw_cap of them (PD_LIMIT_PERF_SWITCHES); sw_over when one
	 * more came, at time sw_over_time (the file's unit)
	 */
	uint64_t sw_cap;
	int sw_over;
	double sw_over_time;
	uint64_t sw_out, sw_in, sw_wake;
	/* sched_switch samples, and "PERF_RECORD_SWITCH OUT" lines, seen */
	uint64_t sw_seen, sw_outrec;
	uint32_t sw_event;   /* event id of sched:sched_switch, once used */
	uint32_t wake_event; /* of sched:sched_wakeup, once used */
	enum {
		PERF_SW_NONE,	 /* no switch-out */
		PERF_SW_COUNTED, /* no time and no CPU: one sample each */
		PERF_SW_NOTED,	 /* beside CPU samples, not turned into time */
		PERF_SW_WAITS,	 /* waits beside the CPU samples */
		PERF_SW_WAITS_ONLY /* waits, no CPU samples: weights in ns */
	} sw_mode;
	/*
	 * The chosen event a read or write call's tracepoint (perf_io.c):
	 * its calls, the bytes they said, those that said none, and whether
	 * a sample weighs its bytes (--metric bytes) or 1.
	 */
	enum { PERF_IO_NONE, PERF_IO_ENTER, PERF_IO_EXIT } io_kind;
	int io_by_bytes;
	uint64_t io_calls, io_unsaid;
	double io_bytes;
};

void pd_perf_state_init(struct perf_state *st, struct pd_profile *p,
			const struct pd_import_opts *o);
/*
 * Read and write calls (perf_io.c): whether event e (n bytes) is one
 * whose bytes its text says, on entry or on exit (PERF_IO_*); a sample's
 * bytes from the text after its event's name, -1 when it says none; and
 * a kept sample of such an event counted, its weight set.
 */
int pd_perf_io_event(const char *e, size_t n);
double pd_perf_io_bytes(int kind, const char *rest);
void pd_perf_io_sample(struct perf_state *st, const struct perf_hdr *h);
/* --metric against such an event: 0, or the error set. */
int pd_perf_io_check(const struct perf_state *st, const char *path,
		     struct pd_err *err);
/* Such a profile's unit, weights and the note of its calls and bytes. */
void pd_perf_io_weigh(const struct perf_state *st, struct pd_profile *p,
		      const char *path);
void pd_perf_state_release(struct perf_state *st);
/*
 * The switch log's cap from PERFDIFF_LIMIT_PERF_SWITCHES, when set; an
 * error when it is not a whole number.
 */
int pd_perf_limits(struct perf_state *st, struct pd_err *err);
/*
 * Starts a sample: counts its event, decides whether it is kept (the
 * event chosen, --process, --thread) and its weight.
 */
int pd_perf_sample_start(struct perf_state *st, const struct perf_hdr *h);
/* A kept sample's period: the first one, and whether all are equal. */
void pd_perf_period_seen(struct perf_state *st, double period);
/* Adds the sample's frames (pushed leaf first) to the profile. */
void pd_perf_sample_end(struct perf_state *st);
/* The frame "sym (dso)" names, "[unknown]" named after its module. */
uint32_t pd_perf_frame_id(struct perf_state *st, const char *sym, size_t sn,
			  const char *dso, size_t dn);
void pd_perf_frame_push(struct perf_state *st, uint32_t frame, int inlined);
/* pd_perf_frame_id and push; a JIT map's a->b->c becomes three frames. */
PD_NODISCARD int pd_perf_frame_add(struct perf_state *st, const char *sym,
				   size_t sn, const char *dso, size_t dn,
				   int inlined);
/*
 * A sched:sched_switch sample (when --event does not ask for it) is a
 * switch-out: 1 when h is one, its thread and kind kept for the sample's
 * end, its next_pid logged as a switch-in (perf_wait.c).
 */
int pd_perf_switch_start(struct perf_state *st, const struct perf_hdr *h);
/* The switch-out's stack, pushed leaf first, as its wait's node. */
void pd_perf_switch_end(struct perf_state *st);
/*
 * Where a "PERF_RECORD_SWITCH" line (perf script --show-switch-events)
 * names its record, or NULL when line is not one.
 */
static inline const char *pd_perf_switch_mark(const char *line)
{
	return strstr(line, ": PERF_RECORD_SWITCH");
}
/*
 * That line, m its mark: a switch-in logged. The caller ends the sample
 * before it first (pd_perf_sample_end), so that its switch-out is logged
 * before this switch-in.
 */
void pd_perf_switch_line(struct perf_state *st, const char *line,
			 const char *m);
/*
 * A switch record of thread tid at time (PERF_RECORD_SWITCH or
 * _CPU_WIDE): a switch-in ends the thread's wait, a switch-out is
 * counted against the sched_switch samples that carry the stacks.
 */
void pd_perf_switch_record(struct perf_state *st, double time, long long tid,
			   int out);
/* Whether h's event is sched:sched_switch. */
int pd_perf_is_switch(const char *event, size_t len);
/*
 * After the samples, before the profile is weighed: each switch-out
 * paired with its thread's next switch-in as waited time beside the CPU
 * samples of a time event, or counted once where the file has neither
 * switch-ins nor other samples, or else named in a note (sw_mode).
 */
void pd_perf_waits(struct perf_state *st, const char *path);

/* Strips modifiers (cycles:u -> cycles) but keeps tracepoint names. */
size_t pd_perf_event_name_len(const char *s, size_t n);
/*
 * After the last sample: an error when none was kept, else the profile
 * finished, weighed (periods or samples) and its notes written.
 */
PD_NODISCARD int pd_perf_finish(struct perf_state *st, const char *path,
				struct pd_err *err);

/* perf script text (perf.c): every line of lines into st's samples. */
PD_NODISCARD int pd_perf_read_lines(struct perf_state *st,
				    struct pd_lines *lines, struct pd_err *err);
/*
 * Whether the NUL-terminated line is a sample header in any state of the
 * reader, so that a piece of the file may start there (with first, in the
 * state before the first sample). When it is, *event and *event_len name
 * its event as pd_perf_sample_start sees it.
 */
int pd_perf_piece_start(const char *line, int first, const char **event,
			size_t *event_len);
/*
 * Pieces of perf script text read on threads (perf_split.c): the smallest
 * worth a thread, and the largest (the pieces held at once, one a
 * thread, keep their sample times until merged).
 */
#define PERF_PIECE_MIN ((uint64_t)8 << 20)
#define PERF_PIECE_MAX ((uint64_t)256 << 20)
/*
 * Reads in (opened, not read yet) into st (initialised) in pieces of
 * min_bytes to max_bytes (where the file allows; 0: no bound) on up to
 * nthreads threads (0: as many as the machine has cores, at most 8, or
 * PERFDIFF_THREADS), st left as one reader of the whole file leaves it.
 * 1 when read so, 0 when the file is not one that can be cut (nothing
 * read), or the error code.
 */
PD_NODISCARD int pd_perf_import_split(struct pd_input *in,
				      struct perf_state *st, unsigned nthreads,
				      uint64_t min_bytes, uint64_t max_bytes,
				      struct pd_err *err);

#endif
