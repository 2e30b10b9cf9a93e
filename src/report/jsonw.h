/*
 * The JSON writer of the reports (docs/cli.md, "JSON"): a cJSON tree laid
 * out as cJSON_Print lays it out, streamed to the file, with members that
 * are written by functions while the tree is written (the rows of a large
 * report: no tree is built for them).
 */
#ifndef PD_JSONW_H
#define PD_JSONW_H

#include <stdio.h>

#include "core/compat.h"

struct cJSON;
struct pd_jw;

/* A member of the tree that a function writes in its place. */
struct pd_jw_gen {
	const struct cJSON *at; /* the placeholder in the tree */
	void (*write)(struct pd_jw *w, void *ctx);
	void *ctx;
};

/*
 * Writes root and a newline to f, each of gens[0..n) written by its
 * function; 0 or PD_EIO.
 */
PD_NODISCARD int pd_jw_tree(FILE *f, const struct cJSON *root,
			    const struct pd_jw_gen *gens, size_t n);

/* Opens an object ('{') or an array ('['); pd_jw_close closes it. */
void pd_jw_open(struct pd_jw *w, char kind);
void pd_jw_close(struct pd_jw *w);
/*
 * Starts the next member of the open object (key: printable ASCII without
 * quotes or backslashes, written as it is), or element of the array.
 */
void pd_jw_key(struct pd_jw *w, const char *key);
void pd_jw_item(struct pd_jw *w);
/*
 * An array of n elements, element i written by row(w, i, ctx) after its
 * separator: the same bytes as pd_jw_open, pd_jw_item and row for each i,
 * pd_jw_close, but a large array's second half is written on a second
 * thread (row must then only read shared data).
 */
void pd_jw_rows(struct pd_jw *w, size_t n,
		void (*row)(struct pd_jw *w, size_t i, void *ctx), void *ctx);
/*
 * s (n bytes, UTF-8: pd_utf8_sanitize makes it so) as a JSON string with
 * its quotes, as cJSON writes one: '"' and '\\' escaped, control
 * characters as \b \t \n \f \r or \u00XX, every other byte as it is.
 */
struct pd_buf;
void pd_json_string(struct pd_buf *b, const char *s, size_t n);
/* Values: null for a number that is not finite or a NULL string. */
void pd_jw_num(struct pd_jw *w, double d);
void pd_jw_text(struct pd_jw *w, const char *s);
void pd_jw_bool(struct pd_jw *w, int b);
void pd_jw_null(struct pd_jw *w);

#endif
