/*
 * The speedscope importer's parts: speedscope.c streams the JSON into a
 * provisional tree, speedscope_remap.c maps it onto real frames and units.
 */
#ifndef PD_IMPORT_SPEEDSCOPE_INT_H
#define PD_IMPORT_SPEEDSCOPE_INT_H

#include "core/compat.h"
#include "core/limits.h"
#include "import/formats.h"
#include "import/json.h"

#define SS_PROFILE_ROOT 0x80000000u
#define SS_MAX_DEPTH PD_LIMIT_JSON_DEPTH

enum ss_st {
	S_TOP,
	S_SHARED,
	S_FRAMES,
	S_FRAME,
	S_PROFILES,
	S_PROFILE,
	S_EVENTS,
	S_EVENT,
	S_SAMPLES,
	S_SAMPLE,
	S_WEIGHTS,
	S_COUNTS, /* perfdiffCounts, written by perfdiff convert */
	S_EXT,	  /* the top-level "perfdiff" object, the same */
	S_SKIP,
};

enum ss_key {
	K_OTHER,
	K_SHARED,
	K_FRAMES,
	K_PROFILES,
	K_SCHEMA,
	K_EXPORTER,
	K_NAME,
	K_FILE,
	K_TYPE,
	K_UNIT,
	K_EVENTS,
	K_SAMPLES,
	K_WEIGHTS,
	K_AT,
	K_FRAME,
	K_COUNTS,
	K_EXT,
	K_EXACT,
	K_EVENT,
	K_COUNT_RULE,
	K_INTERVAL,
};

/*
 * What a frame is; KIND_WAIT + j is time waited of the j-th kind of
 * TraceEvent's Thread Time (speedscope_remap.c, wait_kinds).
 */
enum ss_kind {
	KIND_REAL,
	KIND_PROCESS,
	KIND_THREAD,
	KIND_SKIP,
	KIND_CPU,
	KIND_WAIT
};

struct ss_level {
	struct pd_json_step j; /* first: the walk reads it */
	enum ss_st st;
	enum ss_key key;
};

struct ss_run_u32 {
	uint32_t v, n;
};

struct ss_run_f64 {
	double v;
	uint32_t n;
};

struct ss_profile {
	uint32_t name; /* in p->strs */
	int type;      /* 0 unknown, 1 evented, 2 sampled */
	char unit[16];
	uint32_t root; /* provisional node */
	PD_VEC(struct ss_run_u32) samples;
	PD_VEC(struct ss_run_f64) weights;
	PD_VEC(struct ss_run_f64) counts; /* each row's samples, when given */
	uint64_t nsamples, nweights, ncounts;
	uint64_t nevents, unbalanced, out_of_order;
};

struct ss_frame {
	uint32_t name, file; /* in p->strs */
};

struct ss_open {
	uint32_t frame, node;
};

struct ss_state {
	struct pd_profile *p;
	const struct pd_import_opts *o;
	struct pd_input *in;
	struct pd_err *err;
	struct pd_profile prov; /* provisional tree; frame = raw index */
	struct ss_level lv[SS_MAX_DEPTH];
	struct pd_json_walk w;
	int saw_schema, saw_profiles, schema_other;
	PD_VEC(struct ss_frame) frames;
	struct ss_frame cur_frame;
	PD_VEC(struct ss_profile) profs;
	/* current event */
	int ev_type; /* 'O', 'C', or 0 */
	double ev_at;
	long long ev_frame;
	int ev_has_at, ev_has_frame;
	double t_prev;
	int t_started;
	PD_VEC(struct ss_open) open;
	PD_VEC(uint32_t) cur_sample;
	/*
	 * What perfdiff convert keeps beyond the format (docs/formats.md,
	 * "speedscope"): the unit, exactness, event and count rule.
	 */
	char ext_unit[16];
	int ext_exact;
	char *ext_event, *ext_rule;
	double ext_interval;
};

/*
 * The provisional tree onto the profile: names and modules, PerfView
 * pseudo-frames (process, thread, CPU_TIME), units, sampled weights.
 * Returns 1, or 0 with s->err set.
 */
PD_NODISCARD int pd_speedscope_remap(struct ss_state *s);

/* The event just read (s->ev_*) into the tree; 0 with s->err set. */
PD_NODISCARD int pd_ss_close_event(struct ss_state *s);

/*
 * The elements of an "events", "weights" or "perfdiffCounts" array
 * (pd_json_events.scan), the rest of the reader being pd_ss_events.
 */
size_t pd_ss_scan(void *arg, const char *buf, size_t n, uint64_t off,
		  int *more);
extern const struct pd_json_events pd_ss_events;

#endif
