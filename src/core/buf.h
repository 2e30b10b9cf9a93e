/*
 * Growable NUL-terminated byte buffer. `buf` is never NULL (it points at a
 * static "" until the first write); the owner calls pd_buf_release().
 */
#ifndef PD_BUF_H
#define PD_BUF_H

#include <stdarg.h>
#include <stddef.h>
#include "core/compat.h"

struct pd_buf {
	char *buf;
	size_t len, cap;
};

extern char pd_buf_empty[];
#define PD_BUF_INIT                                                            \
	{                                                                      \
		pd_buf_empty, 0, 0                                             \
	}

void pd_buf_init(struct pd_buf *b);
void pd_buf_release(struct pd_buf *b);
void pd_buf_grow(struct pd_buf *b, size_t extra);
void pd_buf_add(struct pd_buf *b, const void *data, size_t n);
void pd_buf_adds(struct pd_buf *b, const char *s);
void pd_buf_addch(struct pd_buf *b, int c);
void pd_buf_addf(struct pd_buf *b, const char *fmt, ...) PD_PRINTF(2, 3);
void pd_buf_vaddf(struct pd_buf *b, const char *fmt, va_list ap)
    PD_PRINTF(2, 0);
void pd_buf_reset(struct pd_buf *b);
void pd_buf_setlen(struct pd_buf *b, size_t len);
/* A new string formatted as vprintf would (the caller frees it). */
char *pd_vstrf(const char *fmt, va_list ap) PD_PRINTF(1, 0);
/* Returns the string and leaves b empty; the caller frees the result. */
char *pd_buf_detach(struct pd_buf *b);

/*
 * Edits (insert, delete, replace) between two short strings, for "did you
 * mean" hints; 99 when either has 64 bytes or more.
 */
size_t pd_edit_distance(const char *a, const char *b);

#endif
