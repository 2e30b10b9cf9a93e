/* The streaming JSON read loop with byte-and-path error messages. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/limits.h"
#include "core/xalloc.h"
#include "import/json.h"

#define CHUNK (1u << 20)

void pd_json_path_step(struct pd_buf *b, int is_map, const char *key, long idx)
{
	if (is_map && key[0])
		pd_buf_addf(b, ".%s", key);
	else if (!is_map && idx >= 0)
		pd_buf_addf(b, "[%ld]", idx);
}

int pd_json_fail(struct pd_err *err, const char *file,
		 void (*path)(void *arg, struct pd_buf *b), void *arg,
		 int *failed, const char *what)
{
	struct pd_buf b = PD_BUF_INIT;

	path(arg, &b);
	if (b.len > 240) {
		/*
		 * A path thousands of levels deep (an old .cpuprofile's
		 * tree) would push the reason out of the one-line message:
		 * its middle goes.
		 */
		struct pd_buf s = PD_BUF_INIT;

		pd_buf_add(&s, b.buf, 100);
		pd_buf_addf(&s, "...(%zu bytes)...", b.len - 200);
		pd_buf_add(&s, b.buf + b.len - 100, 100);
		pd_buf_release(&b);
		b = s;
	}
	pd_err_set(err, PD_EPARSE, "%s: %s: %s", file, b.len ? b.buf : "$",
		   what);
	pd_buf_release(&b);
	*failed = 1;
	return 0;
}

/* n: whether a piece of input was being parsed (not the end of it) */
int pd_json_fail_depth(struct pd_err *err, const char *file,
		       void (*path)(void *arg, struct pd_buf *b), void *arg,
		       int *failed, unsigned long long n, const char *name)
{
	char t[160];

	pd_json_fail(err, file, path, arg, failed,
		     pd_limit_text(t, sizeof(t), n, "nesting levels", name));
	err->code = PD_ETOOBIG;
	return 0;
}

/* "FILE: byte AT at PATH: what1what2", the shape of every syntax error. */
static void fail_at(struct pd_err *err, const char *file,
		    struct pd_json_walk *w, uint64_t at, const char *what1,
		    const char *what2)
{
	struct pd_buf path = PD_BUF_INIT;

	pd_json_walk_path(w, &path);
	pd_err_set(err, PD_EPARSE, "%s: byte %llu%s%s: %s%s", file,
		   (unsigned long long)at, path.len ? " at " : "", path.buf,
		   what1, what2);
	pd_buf_release(&path);
}

static void syntax_error(struct pd_json_stream *js, struct pd_input *in, int n,
			 struct pd_err *err)
{
	unsigned char *m = yajl_get_error(js->h, 0, NULL, 0);
	char *nl = strchr((char *)m, '\n');

	if (nl)
		*nl = '\0';
	fail_at(
	    err, in->path, js->walk,
	    js->chunk_off + (n ? yajl_get_bytes_consumed(js->h) : 0),
	    n ? "JSON syntax error: " : "truncated JSON: ", (const char *)m);
	yajl_free_error(js->h, m);
}

/*
 * Where buf[0..len) may be cut so that no token runs past the cut, given
 * the scan state in *sc. yajl re-reads a token split between two calls
 * from its start on every later call, so a 200 MB string fed in 1 MiB
 * pieces cost 200 re-reads of up to 200 MB: feeding only whole tokens
 * keeps the parse linear. Strings are found with memchr; the bytes of a
 * token not yet closed stay for the next call.
 */
struct cut_scan {
	size_t pos;	  /* scanned up to here */
	int in_str;	  /* pos is inside a string... */
	size_t str_start; /* ...that opened here */
	size_t bare_from; /* buf[0..bare_from) is part of a number/literal */
};

static int bare_char(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
	       (c >= 'A' && c <= 'Z') || c == '.' || c == '+' || c == '-';
}

static size_t safe_cut(const char *buf, size_t len, struct cut_scan *sc)
{
	size_t i = sc->pos, cut;

	while (i < len) {
		const char *q = memchr(buf + i, '"', len - i);
		size_t k;

		if (!q) {
			i = len;
			break;
		}
		i = (size_t)(q - buf) + 1;
		if (!sc->in_str) {
			sc->in_str = 1;
			sc->str_start = i - 1;
			continue;
		}
		/* closing unless escaped by an odd run of backslashes */
		for (k = i - 1; k > sc->str_start + 1 && buf[k - 1] == '\\';
		     k--)
			;
		if ((i - 1 - k) % 2 == 0)
			sc->in_str = 0;
	}
	sc->pos = len;
	if (sc->in_str)
		return sc->str_start;
	/* a number or literal at the end may go on in the next piece */
	for (cut = len;
	     cut > sc->bare_from && bare_char((unsigned char)buf[cut - 1]);
	     cut--)
		;
	return cut == sc->bare_from ? 0 : cut;
}

/*
 * The input buffer of pd_json_stream_run: bytes [off, len) of v are not
 * yet parsed; positions (the cut scan's too) count from v + off. Parsed
 * bytes are dropped by moving off, and moved out only before a read:
 * a piece holding thousands of small arrays (yajl stops after each "[")
 * would otherwise be moved once per array.
 */
struct sbuf {
	char *v;
	size_t off, len, cap;
	uint64_t base; /* input offset of v + off */
	struct cut_scan sc;
};

static char *sb_at(const struct sbuf *b)
{
	return b->v + b->off;
}

static size_t sb_n(const struct sbuf *b)
{
	return b->len - b->off;
}

/* Reads the next piece; 0 at the end, -1 on an error. */
static int sbuf_read(struct sbuf *b, struct pd_json_stream *js,
		     struct pd_input *in, int first, struct pd_err *err)
{
	ssize_t n;

	if (b->off) {
		memmove(b->v, b->v + b->off, b->len - b->off);
		b->len -= b->off;
		b->off = 0;
		if (b->cap > 4 * CHUNK && b->len < CHUNK / 2) {
			b->cap = CHUNK;
			b->v = pd_xrealloc(b->v, b->cap);
		}
	}
	if (b->cap - b->len < CHUNK / 2) {
		b->cap = b->cap + b->cap / 2 + CHUNK;
		b->v = pd_xrealloc(b->v, b->cap);
	}
	n = pd_input_read(in, b->v + b->len, b->cap - b->len, err);
	if (n < 0)
		return (int)n;
	b->len += (size_t)n;
	if (first && js->yaml_header && b->len > 4 &&
	    !memcmp(b->v, "---\n", 4)) {
		/* a header before the JSON (samply's .snap files) */
		size_t i, skip = 0;

		for (i = 3; i + 5 <= b->len; i++)
			if (!memcmp(b->v + i, "\n---\n", 5)) {
				skip = i + 5;
				break;
			}
		b->off = skip;
		b->base += skip;
	}
	return n > 0;
}

/*
 * Drops the first n bytes, parsed or scanned: always outside a string.
 * What the cut scan knows of the rest stays known.
 */
static void sbuf_drop(struct sbuf *b, size_t n)
{
	b->off += n;
	b->base += n;
	if (n >= b->sc.pos) {
		b->sc.pos = 0;
		b->sc.in_str = 0;
	} else {
		b->sc.pos -= n;
		if (b->sc.in_str)
			b->sc.str_start -= n;
	}
}

/*
 * The end of the string whose opening quote is at q (the position of its
 * closing quote), or NULL when it runs past end.
 */
static const char *string_end(const char *q, const char *end)
{
	const char *c = q + 1, *k;

	for (;;) {
		c = memchr(c, '"', (size_t)(end - c));
		if (!c)
			return NULL;
		for (k = c; k > q + 1 && k[-1] == '\\'; k--)
			;
		if ((c - k) % 2 == 0)
			return c;
		c++;
	}
}

size_t pd_json_scan_cut(const char *buf, size_t cut)
{
	const char *p = buf, *end = buf + cut, *q;

	/* buf[0] is outside any string: the stream cuts nowhere else */
	for (;;) {
		q = memchr(p, '"', (size_t)(end - p));
		if (!q)
			return 0;
		q = string_end(q, end);
		if (!q)
			return 0;
		p = pd_json_skip_space(q + 1, end);
		if (p >= end || *p != ':')
			continue;
		p = pd_json_skip_space(p + 1, end);
		if (p < end && *p == '[')
			return (size_t)(p - buf) + 1;
	}
}

/*
 * The importer's scanner takes what it can of b; 1 when it wants more
 * input to go on, 0 when yajl goes on, -1 on an error it reported.
 */
static int scan_some(struct pd_json_stream *js, struct sbuf *b, int eof)
{
	int more = 0;
	size_t took = js->ev->scan(js->arg, sb_at(b), sb_n(b), b->base, &more);

	if (js->walk->failed)
		return -1;
	sbuf_drop(b, took);
	b->sc.bare_from = 0;
	if (more && !eof)
		return 1;
	js->scanning = 0;
	return 0;
}

static int token_too_long(const struct pd_input *in, const char *at,
			  struct pd_err *err)
{
	struct pd_buf where = PD_BUF_INIT;
	int rc;

	pd_buf_addf(&where, "%s: %s: a JSON string or number", in->path, at);
	rc = pd_err_limit(err, where.buf, PD_LIMIT_NAME, "bytes in one name",
			  "PD_LIMIT_NAME");
	pd_buf_release(&where);
	return rc;
}

int pd_json_stream_run(struct pd_json_stream *js, struct pd_input *in,
		       struct pd_err *err)
{
	struct sbuf b;
	int rc = 0, first = 1, eof = 0, want_input = 1;

	memset(&b, 0, sizeof(b));
	b.cap = CHUNK;
	b.v = pd_xmalloc(b.cap);
	for (;;) {
		size_t cut, early = 0;
		yajl_status st;
		int last = 0;

		if (want_input && !eof) {
			rc = sbuf_read(&b, js, in, first, err);
			if (rc < 0)
				break;
			eof = !rc;
			rc = 0;
			first = 0;
		}
		want_input = 1;
		if (js->scanning) {
			rc = scan_some(js, &b, eof);
			if (rc < 0) {
				rc = PD_EPARSE;
				break;
			}
			if (rc > 0) {
				rc = 0;
				continue;
			}
		}
		cut = eof ? sb_n(&b) : safe_cut(sb_at(&b), sb_n(&b), &b.sc);
		if (!eof && !cut && sb_n(&b) > PD_LIMIT_NAME) {
			/* one token, and too long to be a name or a number */
			char where[64];

			snprintf(where, sizeof(where), "byte %llu",
				 (unsigned long long)b.base);
			rc = token_too_long(in, where, err);
			break;
		}
		if (!eof && !cut) {
			/* one token so far: read on before parsing it */
			if (!b.sc.in_str)
				b.sc.bare_from = sb_n(&b);
			continue;
		}
		if (js->ev->scan) {
			early = pd_json_scan_cut(sb_at(&b), cut);
			if (early)
				cut = early;
		}
		js->walk->scan_here = 0;
		js->chunk_off = b.base;
		st = cut ? yajl_parse(js->h, (unsigned char *)sb_at(&b), cut)
			 : yajl_status_ok;
		if (st == yajl_status_ok && eof && !early) {
			js->chunk_off = b.base + cut;
			st = yajl_complete_parse(js->h);
			last = 1; /* for the message: the end came too early */
		}
		if (st != yajl_status_ok) {
			if (!js->walk->failed)
				syntax_error(js, in, !last, err);
			rc = PD_EPARSE;
			break;
		}
		if (last)
			break;
		sbuf_drop(&b, cut);
		if (early) {
			/* the rest is parsed (or scanned) before reading on */
			js->scanning = js->walk->scan_here;
			want_input = 0;
			b.sc.bare_from = 0;
		} else {
			b.sc.bare_from = b.sc.in_str ? 0 : sb_n(&b);
		}
	}
	free(b.v);
	return rc;
}

/* yajl's callbacks for pd_json_events: ctx is the stream. */
static int ev_null(void *ctx)
{
	struct pd_json_stream *js = ctx;

	js->walk->scan_here = 0; /* set only by the open just made */
	if (js->ev->literal)
		return js->ev->literal(js->arg, -1);
	return js->ev->scalar(js->arg, NULL, 0);
}

static int ev_boolean(void *ctx, int b)
{
	struct pd_json_stream *js = ctx;

	js->walk->scan_here = 0; /* set only by the open just made */
	if (js->ev->literal)
		return js->ev->literal(js->arg, b != 0);
	return js->ev->scalar(js->arg, NULL, 0);
}

static int ev_number_text(void *ctx, const char *v, size_t n)
{
	struct pd_json_stream *js = ctx;

	js->walk->scan_here = 0; /* set only by the open just made */
	return js->ev->number_text(js->arg, v, n);
}

static int ev_integer(void *ctx, long long v)
{
	struct pd_json_stream *js = ctx;

	js->walk->scan_here = 0; /* set only by the open just made */
	return js->ev->number(js->arg, (double)v, 1);
}

static int ev_double(void *ctx, double v)
{
	struct pd_json_stream *js = ctx;

	js->walk->scan_here = 0; /* set only by the open just made */
	return js->ev->number(js->arg, v,
			      isfinite(v) && !(fabs(v - floor(v)) > 0));
}

static int ev_string(void *ctx, const unsigned char *v, size_t n)
{
	struct pd_json_stream *js = ctx;

	js->walk->scan_here = 0; /* set only by the open just made */
	return js->ev->scalar(js->arg, v, n);
}

static int ev_key(void *ctx, const unsigned char *k, size_t n)
{
	struct pd_json_stream *js = ctx;

	js->walk->scan_here = 0; /* set only by the open just made */
	return js->ev->key(js->arg, k, n);
}

static int ev_start_map(void *ctx)
{
	struct pd_json_stream *js = ctx;

	js->walk->scan_here = 0; /* set only by the open just made */
	return js->ev->open(js->arg, 1);
}

static int ev_start_array(void *ctx)
{
	struct pd_json_stream *js = ctx;

	js->walk->scan_here = 0; /* set only by the open just made */
	return js->ev->open(js->arg, 0);
}

static int ev_end(void *ctx)
{
	struct pd_json_stream *js = ctx;

	js->walk->scan_here = 0; /* set only by the open just made */
	return js->ev->close(js->arg);
}

static const yajl_callbacks ev_callbacks = {
	ev_null,      ev_boolean, ev_integer, ev_double,      NULL,   ev_string,
	ev_start_map, ev_key,	  ev_end,     ev_start_array, ev_end,
};

static const yajl_callbacks ev_text_callbacks = {
	ev_null,	ev_boolean,	NULL,	      NULL,
	ev_number_text, ev_string,	ev_start_map, ev_key,
	ev_end,		ev_start_array, ev_end,
};

void pd_json_stream_events(struct pd_json_stream *js,
			   const struct pd_json_events *ev, void *arg,
			   struct pd_json_walk *walk)
{
	memset(js, 0, sizeof(*js));
	js->walk = walk;
	js->ev = ev;
	js->arg = arg;
	js->h = yajl_alloc(ev->number_text ? &ev_text_callbacks : &ev_callbacks,
			   NULL, js);
	if (!js->h)
		pd_die_oom(0);
}

/* ---- the keys of a whole document, for sniffing ---- */

#define KEYS_DEPTH 5
#define KEYS_MAX 512

struct keys_scan {
	struct pd_buf *out;
	int depth;
	/* per open container: is it an array, and is this its first element */
	unsigned char is_arr[KEYS_DEPTH + 1];
	long idx[KEYS_DEPTH + 1];
	size_t nkeys;
	char last_key[64];
	int last_top; /* last_key is a top-level key */
};

/* Whether the value now starting is in every container's first element. */
static int keys_first(const struct keys_scan *k)
{
	int i;

	for (i = 0; i < k->depth && i <= KEYS_DEPTH; i++)
		if (k->is_arr[i] && k->idx[i] > 0)
			return 0;
	return k->depth <= KEYS_DEPTH;
}

static void keys_value(struct keys_scan *k)
{
	if (k->depth && k->depth <= KEYS_DEPTH + 1 && k->is_arr[k->depth - 1])
		k->idx[k->depth - 1]++;
}

static int keys_number(void *arg, double v, int integral)
{
	(void)v;
	(void)integral;
	keys_value(arg);
	return 1;
}

static int keys_scalar(void *arg, const unsigned char *s, size_t n)
{
	struct keys_scan *k = arg;

	keys_value(k);
	/* short top-level strings ("$schema") tell shapes apart too */
	if (s && k->depth == 1 && k->last_top && n < 256)
		pd_buf_addf(k->out, "\"%s\":\"%.*s\"\n", k->last_key, (int)n,
			    (const char *)s);
	return 1;
}

static int keys_key(void *arg, const unsigned char *s, size_t n)
{
	struct keys_scan *k = arg;
	char key[68];

	k->last_top = 0;
	if (!keys_first(k) || k->nkeys >= KEYS_MAX || n >= 64)
		return 1;
	snprintf(key, sizeof(key), "\"%.*s\":", (int)n, (const char *)s);
	snprintf(k->last_key, sizeof(k->last_key), "%.*s", (int)n,
		 (const char *)s);
	k->last_top = k->depth == 1;
	if (!k->out->len || !strstr(k->out->buf, key)) {
		pd_buf_addf(k->out, "%s\n", key);
		k->nkeys++;
	}
	return 1;
}

static int keys_open(void *arg, int is_map)
{
	struct keys_scan *k = arg;

	keys_value(k);
	if (k->depth <= KEYS_DEPTH) {
		k->is_arr[k->depth] = (unsigned char)!is_map;
		k->idx[k->depth] = 0;
	}
	k->depth++;
	if (is_map && k->depth == 1)
		pd_buf_adds(k->out, "{\n");
	return 1;
}

static int keys_close(void *arg)
{
	struct keys_scan *k = arg;

	k->depth--;
	return 1;
}

int pd_json_keys(const char *path, struct pd_buf *out, struct pd_err *err)
{
	static const struct pd_json_events ev = {
		keys_number, keys_scalar, keys_key, keys_open,
		keys_close,  NULL,	  NULL,	    NULL,
	};
	struct keys_scan k;
	struct pd_json_stream js;
	struct pd_input in;
	struct pd_json_walk w;
	int rc;

	memset(&k, 0, sizeof(k));
	k.out = out;
	rc = pd_input_open(&in, path, err);
	if (!rc) {
		/* no levels: the keys' path is not kept */
		pd_json_walk_init(&w, NULL, 0, 0, NULL, path, err);
		pd_json_stream_events(&js, &ev, &k, &w);
		js.yaml_header = 1;
		/* the keys up to a syntax error still say what it was meant to
		 * be */
		rc = pd_json_stream_run(&js, &in, err);
		yajl_free(js.h);
	}
	pd_input_close(&in);
	return rc;
}

void pd_json_walk_init(struct pd_json_walk *w, void *levels, size_t stride,
		       int max, const char *limit, const char *file,
		       struct pd_err *err)
{
	memset(w, 0, sizeof(*w));
	w->levels = levels;
	w->stride = stride;
	w->max = max;
	w->depth = -1;
	w->limit = limit;
	w->file = file;
	w->err = err;
}

int pd_json_walk_top_array(struct pd_json_walk *w)
{
	char what[128];

	snprintf(what, sizeof(what),
		 "JSON of an unknown shape (the top level is an array, not %s)",
		 w->top ? w->top : "an object");
	return pd_json_walk_fail(w, what);
}

void *pd_json_walk_too_deep(struct pd_json_walk *w)
{
	pd_json_fail_depth(w->err, w->file, pd_json_walk_path, w, &w->failed,
			   (unsigned long long)w->max, w->limit);
	return NULL;
}

void pd_json_walk_path(void *arg, struct pd_buf *b)
{
	const struct pd_json_walk *w = arg;
	int i;

	if (w->depth < 0)
		return;
	pd_buf_addch(b, '$');
	for (i = 0; i <= w->depth; i++) {
		const struct pd_json_step *t = pd_json_walk_level(w, i);

		pd_json_path_step(b, t->is_map, t->key, t->idx);
	}
}

int pd_json_walk_fail(struct pd_json_walk *w, const char *what)
{
	return pd_json_fail(w->err, w->file, pd_json_walk_path, w, &w->failed,
			    what);
}

int pd_json_walk_fail_at(struct pd_json_walk *w, uint64_t at, const char *what)
{
	fail_at(w->err, w->file, w, at, what, "");
	w->failed = 1;
	return 0;
}
