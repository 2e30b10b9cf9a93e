/* The streaming JSON read loop with byte-and-path error messages. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

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
	pd_err_set(err, PD_EPARSE, "%s: %s: %s", file, b.len ? b.buf : "$",
		   what);
	pd_buf_release(&b);
	*failed = 1;
	return 0;
}

static void syntax_error(struct pd_json_stream *js, struct pd_input *in,
			 ssize_t n, struct pd_err *err)
{
	unsigned char *m = yajl_get_error(js->h, 0, NULL, 0);
	struct pd_buf path = PD_BUF_INIT;
	char *nl = strchr((char *)m, '\n');
	unsigned long long at =
	    js->chunk_off + (n ? yajl_get_bytes_consumed(js->h) : 0);

	if (nl)
		*nl = '\0';
	if (js->path)
		js->path(js->arg, &path);
	pd_err_set(
	    err, PD_EPARSE, "%s: byte %llu%s%s: %s%s", in->path, at,
	    path.len ? " at " : "", path.buf,
	    n ? "JSON syntax error: " : "truncated JSON: ", (const char *)m);
	pd_buf_release(&path);
	yajl_free_error(js->h, m);
}

int pd_json_stream_run(struct pd_json_stream *js, struct pd_input *in,
		       struct pd_err *err)
{
	char *buf = pd_xmalloc(CHUNK);
	int rc = 0;

	for (;;) {
		ssize_t n = pd_input_read(in, buf, CHUNK, err);
		size_t skip = 0;
		yajl_status st;

		if (n < 0) {
			rc = (int)n;
			break;
		}
		if (js->yaml_header && in->offset == (uint64_t)n && n > 4 &&
		    !memcmp(buf, "---\n", 4)) {
			/* a header before the JSON (samply's .snap files) */
			size_t i;

			for (i = 3; i + 5 <= (size_t)n; i++)
				if (!memcmp(buf + i, "\n---\n", 5)) {
					skip = i + 5;
					break;
				}
		}
		js->chunk_off = in->offset - (uint64_t)n + skip;
		st = n ? yajl_parse(js->h, (unsigned char *)buf + skip,
				    (size_t)n - skip)
		       : yajl_complete_parse(js->h);
		if (st != yajl_status_ok) {
			if (!*js->failed)
				syntax_error(js, in, n, err);
			rc = PD_EPARSE;
			break;
		}
		if (!n)
			break;
	}
	free(buf);
	return rc;
}

/* yajl's callbacks for pd_json_events: ctx is the stream. */
static int ev_null(void *ctx)
{
	struct pd_json_stream *js = ctx;

	return js->ev->scalar(js->arg, NULL, 0);
}

static int ev_boolean(void *ctx, int b)
{
	struct pd_json_stream *js = ctx;

	(void)b;
	return js->ev->scalar(js->arg, NULL, 0);
}

static int ev_integer(void *ctx, long long v)
{
	struct pd_json_stream *js = ctx;

	return js->ev->number(js->arg, (double)v, 1);
}

static int ev_double(void *ctx, double v)
{
	struct pd_json_stream *js = ctx;

	return js->ev->number(js->arg, v,
			      isfinite(v) && !(fabs(v - floor(v)) > 0));
}

static int ev_string(void *ctx, const unsigned char *v, size_t n)
{
	struct pd_json_stream *js = ctx;

	return js->ev->scalar(js->arg, v, n);
}

static int ev_key(void *ctx, const unsigned char *k, size_t n)
{
	struct pd_json_stream *js = ctx;

	return js->ev->key(js->arg, k, n);
}

static int ev_start_map(void *ctx)
{
	struct pd_json_stream *js = ctx;

	return js->ev->open(js->arg, 1);
}

static int ev_start_array(void *ctx)
{
	struct pd_json_stream *js = ctx;

	return js->ev->open(js->arg, 0);
}

static int ev_end(void *ctx)
{
	struct pd_json_stream *js = ctx;

	return js->ev->close(js->arg);
}

static const yajl_callbacks ev_callbacks = {
	ev_null,      ev_boolean, ev_integer, ev_double,      NULL,   ev_string,
	ev_start_map, ev_key,	  ev_end,     ev_start_array, ev_end,
};

void pd_json_stream_events(struct pd_json_stream *js,
			   const struct pd_json_events *ev, void *arg)
{
	js->ev = ev;
	js->arg = arg;
	js->h = yajl_alloc(&ev_callbacks, NULL, js);
	if (!js->h)
		pd_die_oom(0);
}
