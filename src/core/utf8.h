/* UTF-8 checks for output writers; the caller owns the buffers. */
#ifndef PD_UTF8_H
#define PD_UTF8_H

#include <stddef.h>

#include "core/buf.h"

/* Appends s to out with each invalid sequence replaced by U+FFFD. */
void pd_utf8_sanitize(const char *s, size_t n, struct pd_buf *out);
/* Length of the valid UTF-8 sequence at s (1 for an invalid byte). */
size_t pd_utf8_seq(const unsigned char *s, size_t n, int *valid);

#endif
