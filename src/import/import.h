/*
 * Importers: turn a file into a pd_profile. The format is sniffed from the
 * content unless forced. On error the profile is left for the caller to
 * release and err names the file and the place (line, byte or JSON path).
 */
#ifndef PD_IMPORT_H
#define PD_IMPORT_H

#include "core/err.h"
#include "core/input.h"
#include "model/profile.h"

struct pd_import_opts {
	const char *from; /* forced format name, NULL to sniff */
	/* perf script: event to keep, NULL = first; callgrind, cachegrind:
	 * the event to read, NULL = Ir */
	const char *event;
	const char *process;  /* keep samples whose process matches */
	const char *thread;   /* keep samples whose thread matches */
	double sample_weight; /* weight of one sample; 0 = derive */
	double
	    interval_ms; /* sampling interval for evented data; 0 = default */
	/* Firefox: 0 CPU time when every sampled thread has it, else wall
	 * clock; 1 wall clock; 2 CPU time (an error where a thread has none) */
	int weight_mode;
	const char *const *symbol_dirs; /* --symbols paths, NULL-terminated */
	const char *symbolizer;		/* --symbolizer, NULL to search */
	char decimal; /* WPA CSV: forced decimal separator, 0 = detect */
	const char
	    *sample_type;   /* pprof: value by name or index, NULL = default */
	const char *metric; /* DHAT: measure name, NULL = total bytes */
	const char
	    *alloc_frames; /* DHAT: allocator frames (ERE), NULL = default */
	int thread_roots;  /* stacks start under a frame per thread (convert) */
	/* --focus, --ignore, --hide: POSIX extended regexes on frame names */
	const char *focus, *ignore, *hide;
	const char *perf; /* --perf: perf for raw perf.data, NULL = PATH */
};

struct pd_format {
	const char *name;
	const char *description;
	/* Returns nonzero when the decoded head looks like this format. */
	int (*sniff)(const char *head, size_t len);
	int (*import)(struct pd_input *in, struct pd_profile *p,
		      const struct pd_import_opts *o, struct pd_err *err);
};

PD_NODISCARD int pd_import(struct pd_profile *p, const char *path,
			   const struct pd_import_opts *o, struct pd_err *err);
const struct pd_format *pd_format_find(const char *name);
/* The format of path's content, or NULL with err saying why not. */
PD_NODISCARD const struct pd_format *
pd_import_sniff(const char *path, const struct pd_import_opts *o,
		struct pd_err *err);
/* Comma-separated names of the supported formats, for messages. */
const char *pd_format_list(void);
/*
 * What every profile of the format named is, so that a stored run, which
 * keeps its format's name, is judged as its file is: PD_FORMAT_EXACT,
 * exact counts, not samples (dhat, callgrind, cachegrind);
 * PD_FORMAT_SELF_ONLY, self weights only (cachegrind). What depends on
 * the file (a WPA memory table, Instruments Allocations, a flat WPA
 * table) is not said; a name that is no format gives 0.
 */
enum { PD_FORMAT_EXACT = 1, PD_FORMAT_SELF_ONLY = 2 };
unsigned pd_format_traits(const char *name);

/* True when name contains needle (NULL needle matches everything). */
int pd_filter_match(const char *needle, const char *name, size_t len);

int pd_perf_sniff(const char *head, size_t len);
PD_NODISCARD int pd_perf_import(struct pd_input *in, struct pd_profile *p,
				const struct pd_import_opts *o,
				struct pd_err *err);
int pd_folded_sniff(const char *head, size_t len);
PD_NODISCARD int pd_folded_import(struct pd_input *in, struct pd_profile *p,
				  const struct pd_import_opts *o,
				  struct pd_err *err);
int pd_firefox_sniff(const char *head, size_t len);
PD_NODISCARD int pd_firefox_import(struct pd_input *in, struct pd_profile *p,
				   const struct pd_import_opts *o,
				   struct pd_err *err);
int pd_wpa_sniff(const char *head, size_t len);
PD_NODISCARD int pd_wpa_import(struct pd_input *in, struct pd_profile *p,
			       const struct pd_import_opts *o,
			       struct pd_err *err);
int pd_cpuprofile_sniff(const char *head, size_t len);
PD_NODISCARD int pd_cpuprofile_import(struct pd_input *in, struct pd_profile *p,
				      const struct pd_import_opts *o,
				      struct pd_err *err);
int pd_xctrace_sniff(const char *head, size_t len);
PD_NODISCARD int pd_xctrace_import(struct pd_input *in, struct pd_profile *p,
				   const struct pd_import_opts *o,
				   struct pd_err *err);
int pd_instruments_sniff(const char *head, size_t len);
PD_NODISCARD int pd_instruments_import(struct pd_input *in,
				       struct pd_profile *p,
				       const struct pd_import_opts *o,
				       struct pd_err *err);
int pd_dhat_sniff(const char *head, size_t len);
PD_NODISCARD int pd_dhat_import(struct pd_input *in, struct pd_profile *p,
				const struct pd_import_opts *o,
				struct pd_err *err);
/* DHAT: whether name is a measure; the names, for messages. */
int pd_dhat_metric_ok(const char *name);
const char *pd_dhat_metric_names(void);
extern const char pd_dhat_alloc_default[];
int pd_callgrind_sniff(const char *head, size_t len);
PD_NODISCARD int pd_callgrind_import(struct pd_input *in, struct pd_profile *p,
				     const struct pd_import_opts *o,
				     struct pd_err *err);
int pd_cachegrind_sniff(const char *head, size_t len);
PD_NODISCARD int pd_cachegrind_import(struct pd_input *in, struct pd_profile *p,
				      const struct pd_import_opts *o,
				      struct pd_err *err);
int pd_perfstat_sniff(const char *head, size_t len);
PD_NODISCARD int pd_perfstat_import(struct pd_input *in, struct pd_profile *p,
				    const struct pd_import_opts *o,
				    struct pd_err *err);
int pd_pprof_sniff(const char *head, size_t len);
PD_NODISCARD int pd_pprof_import(struct pd_input *in, struct pd_profile *p,
				 const struct pd_import_opts *o,
				 struct pd_err *err);
int pd_speedscope_sniff(const char *head, size_t len);
PD_NODISCARD int pd_speedscope_import(struct pd_input *in, struct pd_profile *p,
				      const struct pd_import_opts *o,
				      struct pd_err *err);

/* Derives per-node sample counts as weight / g, g the weights' common unit. */
void pd_counts_from_weights(struct pd_profile *p, double sample_weight,
			    const char *what);

#endif
