/* Growable buffer after git's strbuf: always terminated, never NULL. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/xalloc.h"

char pd_buf_empty[1];

void pd_buf_init(struct pd_buf *b)
{
	b->buf = pd_buf_empty;
	b->len = b->cap = 0;
}

void pd_buf_release(struct pd_buf *b)
{
	if (b->cap)
		free(b->buf);
	pd_buf_init(b);
}

void pd_buf_grow(struct pd_buf *b, size_t extra)
{
	size_t want = b->len + extra + 1;
	size_t cap;

	if (want < b->len)
		pd_die_oom((size_t)-1);
	if (want <= b->cap)
		return;
	cap = b->cap ? b->cap : 64;
	while (cap < want)
		cap = cap * 2 > cap ? cap * 2 : want;
	if (!b->cap) {
		b->buf = pd_xmalloc(cap);
		b->buf[0] = '\0';
	} else {
		b->buf = pd_xrealloc(b->buf, cap);
	}
	b->cap = cap;
}

void pd_buf_add(struct pd_buf *b, const void *data, size_t n)
{
	pd_buf_grow(b, n);
	if (n) /* memcpy from NULL is undefined even for no bytes */
		memcpy(b->buf + b->len, data, n);
	b->len += n;
	b->buf[b->len] = '\0';
}

void pd_buf_adds(struct pd_buf *b, const char *s)
{
	pd_buf_add(b, s, strlen(s));
}

void pd_buf_addch(struct pd_buf *b, int c)
{
	pd_buf_grow(b, 1);
	b->buf[b->len++] = (char)c;
	b->buf[b->len] = '\0';
}

void pd_buf_vaddf(struct pd_buf *b, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	va_copy(cp, ap);
	n = vsnprintf(b->buf + b->len, b->cap ? b->cap - b->len : 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		return;
	if ((size_t)n >= (b->cap ? b->cap - b->len : 0)) {
		pd_buf_grow(b, (size_t)n);
		n = vsnprintf(b->buf + b->len, b->cap - b->len, fmt, ap);
		if (n < 0)
			return;
	}
	b->len += (size_t)n;
}

void pd_buf_addf(struct pd_buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pd_buf_vaddf(b, fmt, ap);
	va_end(ap);
}

void pd_buf_reset(struct pd_buf *b)
{
	pd_buf_setlen(b, 0);
}

void pd_buf_setlen(struct pd_buf *b, size_t len)
{
	if (!b->cap)
		return;
	b->len = len;
	b->buf[len] = '\0';
}

char *pd_buf_detach(struct pd_buf *b)
{
	char *s = b->cap ? b->buf : pd_xstrdup("");

	pd_buf_init(b);
	return s;
}

char *pd_vstrf(const char *fmt, va_list ap)
{
	struct pd_buf b = PD_BUF_INIT;

	pd_buf_vaddf(&b, fmt, ap);
	return pd_buf_detach(&b);
}

size_t pd_edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	size_t row[64], prev, tmp;

	if (lb >= 64 || la >= 64)
		return 99;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = i;
		for (j = 1; j <= lb; j++) {
			size_t best = prev + (a[i - 1] != b[j - 1]);

			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			tmp = row[j];
			row[j] = best;
			prev = tmp;
		}
	}
	return row[lb];
}
