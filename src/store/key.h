/*
 * The history's key (docs/history.md, "Keys"): every run is stored under
 * a commit, a scenario, a cache state and the tool that recorded it. A
 * series is the runs of one scenario, cache state and tool over the
 * commits; a side of a comparison is one commit of a series. A query
 * gives the parts it knows; what a part of NULL means (any, or to be
 * settled) each function says.
 */
#ifndef PD_STORE_KEY_H
#define PD_STORE_KEY_H

struct pd_hkey {
	const char *sha; /* a stored sha (a series: NULL) */
	const char *scenario;
	const char *cache; /* "warm", "cold", "unspecified" */
	const char *tool;  /* "perf", "samply", ... */
};

/* How pd_store_load reads a commit's runs (bits; 0: from stack trees). */
enum pd_load_how {
	/* from function rows alone, whole totals (no system set apart) */
	PD_LOAD_WHOLE = 1u << 0,
	/* keep the side's mean run as a profile too (the HTML flame graph) */
	PD_LOAD_MEAN = 1u << 1,
};

#endif
