/* The read-and-parse loop the streaming JSON importers share (yajl). */
#ifndef PD_IMPORT_JSON_H
#define PD_IMPORT_JSON_H

#include <yajl_parse.h>

#include "core/buf.h"
#include "core/input.h"

struct pd_json_stream {
	yajl_handle h;
	const int *failed; /* the callbacks recorded an error already */
	/* appends the JSON path being read ("$.a[3]"); may be NULL */
	void (*path)(void *arg, struct pd_buf *b);
	void *arg;
	int yaml_header;    /* skip a leading "---" ... "---" block */
	uint64_t chunk_off; /* input offset of what yajl is parsing */
	const struct pd_json_events *ev; /* see pd_json_stream_events */
};

/*
 * The document's events for importers that take every number as a double
 * (.cpuprofile, DHAT), each called with the stream's arg.
 */
struct pd_json_events {
	int (*number)(void *arg, double v, int integral);
	/* a string (s), or null or a boolean (s NULL) */
	int (*scalar)(void *arg, const unsigned char *s, size_t n);
	int (*key)(void *arg, const unsigned char *k, size_t n);
	int (*open)(void *arg, int is_map);
	int (*close)(void *arg);
};

/*
 * Makes js->h a yajl parser that calls ev with arg (also js->arg, for the
 * path). js must stay where it is while parsing; yajl_free(js->h) after.
 */
void pd_json_stream_events(struct pd_json_stream *js,
			   const struct pd_json_events *ev, void *arg);

/*
 * Feeds the whole input to js->h in 1 MiB chunks. A syntax error the
 * callbacks did not report becomes "FILE: byte N at PATH: JSON syntax
 * error: ..." (or "truncated JSON"). Returns 0 or the error code.
 */
int pd_json_stream_run(struct pd_json_stream *js, struct pd_input *in,
		       struct pd_err *err);

/* Appends one step of a JSON path: ".key" in an object, "[i]" in an array. */
void pd_json_path_step(struct pd_buf *b, int is_map, const char *key, long idx);
/*
 * Records "FILE: PATH: what" (the path from path(arg), "$" when empty),
 * sets *failed and returns 0, which stops yajl.
 */
int pd_json_fail(struct pd_err *err, const char *file,
		 void (*path)(void *arg, struct pd_buf *b), void *arg,
		 int *failed, const char *what);

/*
 * Reads the whole JSON document at path and writes its keys to out, one
 * "key": a line, those of the first element of every array only, to five
 * levels, at most 512, with short top-level strings as "key":"value". For
 * sniffing a document whose telling keys lie past the head (a DevTools
 * recording's "profile" after megabytes of markers). 0 or the error code;
 * out holds the keys read up to an error.
 */
int pd_json_keys(const char *path, struct pd_buf *out, struct pd_err *err);

/* pd_json_fail for nesting past a limit of core/limits.h (PD_ETOOBIG). */
int pd_json_fail_depth(struct pd_err *err, const char *file,
		       void (*path)(void *arg, struct pd_buf *b), void *arg,
		       int *failed, unsigned long long n, const char *name);

#endif
