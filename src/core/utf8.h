/* UTF-8 checks for output writers; the caller owns the buffers. */
#ifndef PD_UTF8_H
#define PD_UTF8_H

#include <stddef.h>

#include "core/buf.h"

/* Appends s to out with each invalid sequence replaced by U+FFFD. */
void pd_utf8_sanitize(const char *s, size_t n, struct pd_buf *out);
/*
 * s (NUL-terminated) as valid UTF-8: s itself when it is, without a copy
 * (most names are ASCII), else tmp's text, s with each invalid sequence
 * as U+FFFD (tmp is reset first).
 */
const char *pd_utf8_valid(const char *s, struct pd_buf *tmp);
/* Length of the valid UTF-8 sequence at s (1 for an invalid byte). */
size_t pd_utf8_seq(const unsigned char *s, size_t n, int *valid);

/*
 * Appends s (n bytes) for a terminal, what it would obey made visible:
 * C0 controls (but newline and tab) and DEL as \x1b, the C1 controls
 * (U+0080..U+009F: U+009B starts a command on some terminals), bidi
 * overrides and isolates, zero-width characters and the line and
 * paragraph separators U+2028/U+2029 as \u202e, invalid UTF-8 bytes as
 * \xff. Names come from profiles, and profiles come from
 * anywhere (docs/architecture.md, "Untrusted text").
 */
void pd_buf_add_term(struct pd_buf *b, const char *s, size_t n);
/* The same for a C string, newlines and tabs made visible too. */
void pd_buf_add_term_line(struct pd_buf *b, const char *s);
/*
 * Whether code point cp is one a reader cannot see but that changes what
 * is shown: bidi controls, zero-width characters, and U+2028/U+2029,
 * which end a line where a terminal or an editor shows none.
 */
int pd_utf8_invisible(unsigned cp);
/* The code point of a valid sequence of len bytes at s. */
unsigned pd_utf8_cp(const unsigned char *s, size_t len);

/*
 * A JSON string of s, invalid UTF-8 replaced (JSON text is UTF-8: a raw
 * byte 0xff makes the whole document unreadable); null for NULL. Every
 * JSON writer takes its text through it: reports, build_meta.json.
 */
struct cJSON;
struct cJSON *pd_json_text(const char *s);

#endif
