/* The read-and-parse loop the streaming JSON importers share (yajl). */
#ifndef PD_IMPORT_JSON_H
#define PD_IMPORT_JSON_H

#include <string.h>
#include <yajl_parse.h>

#include "core/buf.h"
#include "core/compat.h"
#include "core/input.h"

/*
 * One level of the JSON path a streaming importer is reading. Each
 * importer's own level struct begins with one, so that the walk below can
 * name the path and count elements without knowing the rest.
 */
struct pd_json_step {
	long idx; /* in an array: the element being read, -1 before one */
	int is_map;
	char key[48]; /* in an object: the last key, cut to fit */
};

/*
 * Where an importer is in its document: the open containers (levels[0 ..
 * depth], each `stride` bytes and beginning with a pd_json_step), the
 * values being skipped whole, and whether an error was recorded. The
 * path it names is the one every message of the importer carries.
 */
struct pd_json_walk {
	char *levels;
	size_t stride;
	int max;	   /* levels available */
	int depth;	   /* the innermost open container, -1 outside */
	long skip;	   /* containers open inside a value skipped whole */
	int failed;	   /* an error is recorded */
	int scan_here;	   /* the importer just opened an array it scans */
	int scan_comma;	   /* its scanner took a comma last */
	const char *limit; /* the limit's name in core/limits.h, for max */
	const char *top;   /* what the document is ("a speedscope object") */
	const char *file;
	struct pd_err *err;
};

/*
 * Starts a walk over levels (an array of max entries of stride bytes).
 * limit names max's macro in core/limits.h for the "too deep" message.
 */
void pd_json_walk_init(struct pd_json_walk *w, void *levels, size_t stride,
		       int max, const char *limit, const char *file,
		       struct pd_err *err);

static inline void *pd_json_walk_level(const struct pd_json_walk *w, int depth)
{
	return w->levels + (size_t)depth * w->stride;
}

static inline struct pd_json_step *
pd_json_walk_top(const struct pd_json_walk *w)
{
	return (struct pd_json_step *)pd_json_walk_level(w, w->depth);
}

/* A value starts: an array's element count moves on. */
static inline void pd_json_walk_value(struct pd_json_walk *w)
{
	if (w->depth >= 0 && !pd_json_walk_top(w)->is_map)
		pd_json_walk_top(w)->idx++;
}

/* Records "JSON of an unknown shape (the top level is an array, not TOP)"; 0.
 */
int pd_json_walk_top_array(struct pd_json_walk *w);

/* Records that the document nests past max; NULL. */
void *pd_json_walk_too_deep(struct pd_json_walk *w);

/*
 * Opens a container one level deeper and returns its level, the step set
 * (is_map, idx -1, no key) and the rest the caller's to set; NULL (and
 * the "too deep" error recorded) past max. The caller counts the
 * container as a value of its parent (pd_json_walk_value) first.
 */
static inline void *pd_json_walk_push(struct pd_json_walk *w, int is_map)
{
	struct pd_json_step *t;

	if (w->depth + 1 >= w->max)
		return pd_json_walk_too_deep(w);
	w->depth++;
	t = pd_json_walk_top(w);
	t->is_map = is_map;
	t->idx = -1;
	t->key[0] = '\0';
	return t;
}

/* Records key as the open object's current key. */
static inline void pd_json_walk_key(struct pd_json_walk *w,
				    const unsigned char *k, size_t n)
{
	struct pd_json_step *t = pd_json_walk_top(w);

	if (n >= sizeof(t->key))
		n = sizeof(t->key) - 1;
	memcpy(t->key, k, n);
	t->key[n] = '\0';
}

/*
 * For a container's start and end event: 1 when it lies inside a value
 * skipped whole (the caller returns at once), else 0.
 */
static inline int pd_json_walk_skip_open(struct pd_json_walk *w)
{
	return w->skip ? (w->skip++, 1) : 0;
}

static inline int pd_json_walk_skip_close(struct pd_json_walk *w)
{
	return w->skip ? (w->skip--, 1) : 0;
}

/* The value just begun is skipped whole, its containers counted; 1. */
static inline int pd_json_walk_skip(struct pd_json_walk *w)
{
	w->skip = 1;
	return 1;
}

/* Closes the innermost container; 1. */
static inline int pd_json_walk_pop(struct pd_json_walk *w)
{
	w->depth--;
	return 1;
}

/*
 * The start of a container, before the importer decides what it is: it
 * is counted as a value of the open one. Returns 1 when the caller is to
 * return *rc at once: inside a value skipped whole (*rc 1), or an array
 * at the top level (*rc 0, the error recorded).
 */
static inline int pd_json_walk_enter(struct pd_json_walk *w, int is_map,
				     int *rc)
{
	*rc = 1;
	if (pd_json_walk_skip_open(w))
		return 1;
	pd_json_walk_value(w);
	if (w->depth >= 0 || is_map)
		return 0;
	*rc = pd_json_walk_top_array(w);
	return 1;
}

/* Appends the path ("$.a[3]"; nothing outside the document). */
void pd_json_walk_path(void *w, struct pd_buf *b);

/* pd_json_fail at the walk's path. */
int pd_json_walk_fail(struct pd_json_walk *w, const char *what);
/* The same as "FILE: byte AT at PATH: what", as syntax errors are. */
int pd_json_walk_fail_at(struct pd_json_walk *w, uint64_t at, const char *what);

struct pd_json_stream {
	yajl_handle h;
	void *arg;
	int yaml_header;    /* skip a leading "---" ... "---" block */
	uint64_t chunk_off; /* input offset of what yajl is parsing */
	int scanning;	    /* the importer's scan has the input */
	const struct pd_json_events *ev; /* see pd_json_stream_events */
	/* where the importer is: its messages' path, whether one was made */
	struct pd_json_walk *walk;
};

/*
 * The document's events, each called with the stream's arg. A number
 * comes as a double (number) or, for importers that parse their own
 * (number_text set), as its text; null and booleans come to literal when
 * it is set (-1 null, 0 false, 1 true), else to scalar with s NULL.
 */
struct pd_json_events {
	int (*number)(void *arg, double v, int integral);
	/* a string (s), or null or a boolean (s NULL) */
	int (*scalar)(void *arg, const unsigned char *s, size_t n);
	int (*key)(void *arg, const unsigned char *k, size_t n);
	int (*open)(void *arg, int is_map);
	int (*close)(void *arg);
	int (*number_text)(void *arg, const char *v, size_t n);
	int (*literal)(void *arg, int v);
	/*
	 * Optional: the importer's own scanner for the elements of a large
	 * array that is a key's value (import/json_scan.c). When the
	 * importer's open callback for such an array sets walk->scan_here
	 * (every other callback clears it), the stream hands it the bytes
	 * after "[":
	 * scan reads whole elements, each with the comma after it, and
	 * returns how many bytes it took (p is at input offset off, for
	 * messages); *more says it stopped only for
	 * want of input. What it leaves (the "]", or an element it does not
	 * know) goes to yajl, which then sees "[" followed by that.
	 */
	size_t (*scan)(void *arg, const char *p, size_t n, uint64_t off,
		       int *more);
};

/*
 * Sets js up from scratch: js->h a yajl parser that calls ev with arg,
 * walk the importer's (errors are made at its path). js must stay where
 * it is while parsing; yajl_free(js->h) after.
 */
void pd_json_stream_events(struct pd_json_stream *js,
			   const struct pd_json_events *ev, void *arg,
			   struct pd_json_walk *walk);

/*
 * Feeds the whole input to js->h in 1 MiB chunks. A syntax error the
 * callbacks did not report becomes "FILE: byte N at PATH: JSON syntax
 * error: ..." (or "truncated JSON"). Returns 0 or the error code.
 */
PD_NODISCARD int pd_json_stream_run(struct pd_json_stream *js,
				    struct pd_input *in, struct pd_err *err);

/*
 * In buf[0..cut), which begins outside any string, the position just
 * after the "[" of the first `"key" : [`, or 0 (json.c: where the
 * stream may hand a large array to a scanner).
 */
size_t pd_json_scan_cut(const char *buf, size_t cut);

/* ---- the scanners' parts (import/json_scan.c) ---- */

/* The first byte at or after p that is not JSON white space. */
static inline const char *pd_json_skip_space(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

/*
 * The JSON number at p (RFC 8259) and its value as strtod rounds it
 * (exact fast path for at most 15 digits, as pd_json_number; v may be
 * NULL): its length, or 0 when none is there (*open: it may go on past
 * end).
 */
size_t pd_json_number_scan(const char *p, const char *end, double *v,
			   int *open);

/* How a scanner reads one element of its array (pd_json_scan_array). */
struct pd_json_elem {
	/*
	 * Reads the element at p into arg's state, without effect: the
	 * position after it, p when it is not one this scanner reads (yajl
	 * reads it), NULL when the input ends inside it.
	 */
	const char *(*read)(void *arg, const char *p, const char *end);
	/* Takes the element read; 0 on an error it reported. */
	int (*take)(void *arg);
};

/*
 * A pd_json_events.scan over an array's elements with e: each element is
 * taken once the "," or "]" after it is seen; a comma before "]" is
 * reported at its byte.
 */
size_t pd_json_scan_array(struct pd_json_walk *w, const char *buf, size_t n,
			  uint64_t off, int *more, const struct pd_json_elem *e,
			  void *arg);

/* What an array of scalars holds, for pd_json_scan_scalars. */
struct pd_json_scalars {
	/* a number: its text and value (infinite when out of range) */
	int (*number)(void *arg, const char *s, size_t n, double v);
	int (*literal)(void *arg, int v); /* -1 null, 0 false, 1 true */
};

/*
 * A pd_json_events.scan for an array of numbers, nulls and booleans: each
 * goes to cb with arg where yajl would have called the importer's own
 * callbacks, but inside a value skipped whole (walk->skip), where the
 * importers ignore values: there they are only checked. Anything else
 * ends the scan.
 */
size_t pd_json_scan_scalars(struct pd_json_walk *w, const char *buf, size_t n,
			    uint64_t off, int *more,
			    const struct pd_json_scalars *cb, void *arg);

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
PD_NODISCARD int pd_json_keys(const char *path, struct pd_buf *out,
			      struct pd_err *err);

/* pd_json_fail for nesting past a limit of core/limits.h (PD_ETOOBIG). */
int pd_json_fail_depth(struct pd_err *err, const char *file,
		       void (*path)(void *arg, struct pd_buf *b), void *arg,
		       int *failed, unsigned long long n, const char *name);

/*
 * A JSON number's text to a double, exactly as strtod rounds it, with a
 * fast path for plain decimals of at most 15 digits; 0 when the text is
 * not a finite number.
 */
int pd_json_number(const char *v, size_t n, double *out);

#endif
