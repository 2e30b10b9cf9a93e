/*
 * Writing JSON as cJSON_Print lays it out (tabs, ":\t" after a key, ", "
 * between array elements), numbers in the shortest form that reads back
 * exactly (core/numfmt.c), streamed to the file: the report of a large
 * history is tens of megabytes and a million numbers, which cJSON built
 * as one string after printing each number with printf and reading it
 * back. The rows of such a report are written by the streaming calls,
 * without a tree at all (docs/performance.md, "History store").
 */
#include <assert.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <cJSON.h>

#include "core/buf.h"
#include "core/err.h"
#include "core/numfmt.h"
#include "core/utf8.h"
#include "report/jsonw.h"

#define JW_NEST 64 /* streamed containers open at once */

struct pd_jw {
	FILE *f;	 /* NULL: a half of pd_jw_rows, kept in b */
	struct pd_buf b; /* not kept terminated; only its length matters */
	int err;	 /* a half written to a temporary file was lost */
	int depth;	 /* containers open, tree and streamed: the indent */
	const struct pd_jw_gen *gens;
	size_t ngens;
	int nest; /* streamed containers open */
	char kind[JW_NEST];
	char first[JW_NEST];
};

/* The appends: a large report makes tens of millions of them. */
static void put(struct pd_jw *w, const char *s, size_t n)
{
	if (w->b.cap - w->b.len <= n)
		pd_buf_grow(&w->b, n);
	memcpy(w->b.buf + w->b.len, s, n);
	w->b.len += n;
}

static void putch(struct pd_jw *w, char c)
{
	if (w->b.cap - w->b.len <= 1)
		pd_buf_grow(&w->b, 1);
	w->b.buf[w->b.len++] = c;
}

#define PUT_LIT(w, lit) put(w, lit, sizeof(lit) - 1)

static void flush(struct pd_jw *w, int all)
{
	if (w->f && w->b.len >= (all ? 1 : 1 << 16)) {
		fwrite(w->b.buf, 1, w->b.len, w->f);
		w->b.len = 0;
	}
}

void pd_jw_num(struct pd_jw *w, double d)
{
	if (isnan(d) || isinf(d)) {
		PUT_LIT(w, "null");
		return;
	}
	pd_buf_grow(&w->b, PD_FMT_DOUBLE_MAX);
	w->b.len += pd_fmt_double(w->b.buf + w->b.len, d);
}

void pd_json_string(struct pd_buf *b, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + n;
	/* \b \t \n, none for 11, \f \r */
	static const char short_esc[6] = { 'b', 't', 'n', 0, 'f', 'r' };

	/* room for the text and the quotes; each escape grows it again */
	pd_buf_grow(b, n + 2);
	b->buf[b->len++] = '"';
	while (p < end) {
		const unsigned char *run = p;

		while (p<end && * p> 31 && *p != '"' && *p != '\\')
			p++;
		memcpy(b->buf + b->len, run, (size_t)(p - run));
		b->len += (size_t)(p - run);
		if (p == end)
			break;
		pd_buf_grow(b, 6 + (size_t)(end - p) + 1);
		b->buf[b->len++] = '\\';
		if (*p == '"' || *p == '\\')
			b->buf[b->len++] = (char)*p;
		else if (*p >= 8 && *p <= 13 && *p != 11)
			b->buf[b->len++] = short_esc[*p - 8];
		else
			b->len +=
			    (size_t)snprintf(b->buf + b->len, 6, "u%04x", *p);
		p++;
	}
	b->buf[b->len++] = '"';
	b->buf[b->len] = '\0';
}

/* A JSON string of s, which is valid UTF-8 (NULL: ""). */
static void string(struct pd_jw *w, const char *s)
{
	s = s ? s : "";
	pd_json_string(&w->b, s, strlen(s));
}

void pd_jw_text(struct pd_jw *w, const char *s)
{
	struct pd_buf b = PD_BUF_INIT;

	if (!s) {
		PUT_LIT(w, "null");
		return;
	}
	string(w, pd_utf8_valid(s, &b));
	pd_buf_release(&b);
}

void pd_jw_bool(struct pd_jw *w, int b)
{
	if (b)
		PUT_LIT(w, "true");
	else
		PUT_LIT(w, "false");
}

void pd_jw_null(struct pd_jw *w)
{
	PUT_LIT(w, "null");
}

static void tabs(struct pd_jw *w, int n)
{
	while (n-- > 0)
		putch(w, '\t');
}

/*
 * Streamed containers: an object is "{", each member "\n" (",\n" after
 * the first), its indent, its key and ":\t", then "\n", the outer indent
 * and "}"; an array is "[", elements separated by ", ", "]". So an empty
 * object is "{\n}" at its indent, as cJSON prints it.
 */
void pd_jw_open(struct pd_jw *w, char kind)
{
	if (w->nest >= JW_NEST)
		abort(); /* the reports nest a few levels */
	w->kind[w->nest] = kind;
	w->first[w->nest] = 1;
	w->nest++;
	w->depth++;
	putch(w, kind);
}

void pd_jw_close(struct pd_jw *w)
{
	assert(w->nest > 0 && w->depth > 0); /* closes what was opened */
	w->nest--;
	if (w->kind[w->nest] == '{') {
		putch(w, '\n');
		tabs(w, w->depth - 1);
		putch(w, '}');
	} else {
		putch(w, ']');
	}
	w->depth--;
}

void pd_jw_key(struct pd_jw *w, const char *key)
{
	/* a key belongs in an object, never in an array or at the top */
	assert(w->nest > 0 && w->kind[w->nest - 1] == '{');
	flush(w, 0);
	if (w->first[w->nest - 1])
		putch(w, '\n');
	else
		PUT_LIT(w, ",\n");
	w->first[w->nest - 1] = 0;
	tabs(w, w->depth);
	/* keys are the report's own names: nothing to escape */
	putch(w, '"');
	put(w, key, strlen(key));
	PUT_LIT(w, "\":\t");
}

void pd_jw_item(struct pd_jw *w)
{
	assert(w->nest > 0 && w->kind[w->nest - 1] == '['); /* in an array */
	flush(w, 0);
	if (!w->first[w->nest - 1])
		PUT_LIT(w, ", ");
	w->first[w->nest - 1] = 0;
}

/* Arrays shorter than this are written on one thread. */
#define JW_SPLIT 4096

struct jw_half {
	struct pd_jw w;
	size_t lo, hi;
	void (*row)(struct pd_jw *w, size_t i, void *ctx);
	void *ctx;
};

static void *rows_half(void *arg)
{
	struct jw_half *h = arg;
	size_t i;

	for (i = h->lo; i < h->hi; i++) {
		pd_jw_item(&h->w);
		h->row(&h->w, i, h->ctx);
	}
	return NULL;
}

static void half_release(struct pd_jw *h)
{
	if (h->f)
		fclose(h->f);
	pd_buf_release(&h->b);
}

/* Appends the second half, written to its temporary file, to w's file. */
static void half_copy(struct pd_jw *w, struct pd_jw *h)
{
	char chunk[1 << 16];
	size_t got;

	flush(h, 1);
	w->err |= h->err || fflush(h->f) || ferror(h->f);
	rewind(h->f);
	while ((got = fread(chunk, 1, sizeof(chunk), h->f)) > 0)
		if (fwrite(chunk, 1, got, w->f) != got)
			break;
	w->err |= ferror(h->f);
}

void pd_jw_rows(struct pd_jw *w, size_t n,
		void (*row)(struct pd_jw *w, size_t i, void *ctx), void *ctx)
{
	struct jw_half h;
	pthread_t th;
	int threaded = 0;
	size_t i, end = n;

	pd_jw_open(w, '[');
	if (n >= JW_SPLIT) {
		/* the second half: same nesting, past the first element */
		memset(&h, 0, sizeof(h));
		h.w.depth = w->depth;
		h.w.nest = w->nest;
		memcpy(h.w.kind, w->kind, sizeof(w->kind));
		memcpy(h.w.first, w->first, sizeof(w->first));
		h.w.first[w->nest - 1] = 0;
		pd_buf_init(&h.w.b);
		/*
		 * Written to a file, the second half goes to an unnamed
		 * temporary file as it is made: in memory, a report of
		 * millions of functions held half its size (docs/
		 * reliability.md, "Caps").
		 */
		h.w.f = w->f ? tmpfile() : NULL;
		h.lo = n / 2;
		h.hi = n;
		h.row = row;
		h.ctx = ctx;
		if (!w->f || h.w.f)
			threaded = !pthread_create(&th, NULL, rows_half, &h);
		if (threaded)
			end = h.lo;
		else
			half_release(&h.w);
	}
	for (i = 0; i < end; i++) {
		pd_jw_item(w);
		row(w, i, ctx);
	}
	if (threaded) {
		pthread_join(th, NULL);
		flush(w, 1);
		if (w->f)
			half_copy(w, &h.w);
		else
			put(w, h.w.b.buf, h.w.b.len);
		w->first[w->nest - 1] = 0;
		half_release(&h.w);
	}
	pd_jw_close(w);
}

static const struct pd_jw_gen *gen_at(const struct pd_jw *w, const cJSON *v)
{
	size_t i;

	for (i = 0; i < w->ngens; i++)
		if (w->gens[i].at == v)
			return &w->gens[i];
	return NULL;
}

static void value(struct pd_jw *w, const cJSON *v)
{
	const struct pd_jw_gen *g = gen_at(w, v);
	const cJSON *c;

	flush(w, 0);
	if (g) {
		g->write(w, g->ctx);
	} else if (cJSON_IsNull(v)) {
		PUT_LIT(w, "null");
	} else if (cJSON_IsFalse(v)) {
		PUT_LIT(w, "false");
	} else if (cJSON_IsTrue(v)) {
		PUT_LIT(w, "true");
	} else if (cJSON_IsNumber(v)) {
		pd_jw_num(w, v->valuedouble);
	} else if (cJSON_IsString(v)) {
		string(w, v->valuestring);
	} else if (cJSON_IsArray(v)) {
		putch(w, '[');
		w->depth++;
		for (c = v->child; c; c = c->next) {
			value(w, c);
			if (c->next)
				PUT_LIT(w, ", ");
		}
		putch(w, ']');
		w->depth--;
	} else if (cJSON_IsObject(v)) {
		PUT_LIT(w, "{\n");
		w->depth++;
		for (c = v->child; c; c = c->next) {
			tabs(w, w->depth);
			string(w, c->string);
			PUT_LIT(w, ":\t");
			value(w, c);
			if (c->next)
				PUT_LIT(w, ",\n");
			else
				PUT_LIT(w, "\n");
		}
		tabs(w, w->depth - 1);
		putch(w, '}');
		w->depth--;
	}
}

int pd_jw_tree(FILE *f, const cJSON *root, const struct pd_jw_gen *gens,
	       size_t n)
{
	struct pd_jw w;

	memset(&w, 0, sizeof(w));
	w.f = f;
	w.gens = gens;
	w.ngens = n;
	pd_buf_init(&w.b);
	value(&w, root);
	putch(&w, '\n');
	flush(&w, 1);
	pd_buf_release(&w.b);
	return w.err || ferror(f) ? PD_EIO : 0;
}
