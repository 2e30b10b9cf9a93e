/* Allocation wrappers: the one place that decides what OOM does. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/xalloc.h"

void pd_die_oom(size_t n)
{
	fprintf(stderr,
		"perfdiff: error: out of memory (allocating %zu bytes)\n", n);
	exit(2);
}

void *pd_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		pd_die_oom(n);
	return p;
}

void *pd_xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);

	if (!p)
		pd_die_oom(nmemb * size);
	return p;
}

void *pd_xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (!q)
		pd_die_oom(n);
	return q;
}

void *pd_xreallocarray(void *p, size_t nmemb, size_t size)
{
	if (size && nmemb > SIZE_MAX / size)
		pd_die_oom(SIZE_MAX);
	return pd_xrealloc(p, nmemb * size);
}

char *pd_xstrdup(const char *s)
{
	return pd_xstrndup(s, strlen(s));
}

char *pd_xstrndup(const char *s, size_t n)
{
	char *p = pd_xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}
