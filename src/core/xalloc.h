/*
 * Allocation wrappers. Running out of memory is not an error path: these
 * print one line and exit 2, so callers never check for NULL.
 */
#ifndef PD_XALLOC_H
#define PD_XALLOC_H

#include <stddef.h>
#include "core/compat.h"

void *pd_xmalloc(size_t n);
void *pd_xcalloc(size_t nmemb, size_t size);
void *pd_xrealloc(void *p, size_t n);
/* Grows an array of nmemb elements of size bytes; exits on overflow. */
void *pd_xreallocarray(void *p, size_t nmemb, size_t size);
char *pd_xstrdup(const char *s);
char *pd_xstrndup(const char *s, size_t n);
PD_NORETURN void pd_die_oom(size_t n);

#endif
