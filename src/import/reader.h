/*
 * What every reader gets and shares: the options of a profile's reading
 * (--from, --event, --process, --symbols, ...), the name filter and the
 * counts derived from weights. A reader includes this and its format's
 * own headers; the format table (import.c) includes formats.h.
 */
#ifndef PD_IMPORT_READER_H
#define PD_IMPORT_READER_H

#include <stddef.h>

#include "model/profile.h"

struct pd_import_opts {
	const char *from; /* forced format name, NULL to sniff */
	/* perf script: event to keep, NULL = first; callgrind, cachegrind:
	 * the event to read, NULL = Ir */
	const char *event;
	const char *process;  /* keep samples whose process matches */
	const char *thread;   /* keep samples whose thread matches */
	double sample_weight; /* weight of one sample; 0 = derive */
	/* folded: ns in one unit of its numbers (1000: µs), 0 = samples */
	int folded_ns;
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

/* True when name contains needle (NULL needle matches everything). */
int pd_filter_match(const char *needle, const char *name, size_t len);

/* Derives per-node sample counts as weight / g, g the weights' common unit. */
void pd_counts_from_weights(struct pd_profile *p, double sample_weight,
			    const char *what);
/*
 * Comma-separated names of the supported formats, for messages (the
 * format table's names, import.c).
 */
const char *pd_format_list(void);

#endif
