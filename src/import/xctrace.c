/*
 * Instruments traces exported by xctrace (docs/formats.md, "Instruments"):
 *   xcrun xctrace export --input run.trace --xpath
 *     '/trace-toc/run[@number="1"]/data/table[@schema="time-profile"]'
 * writes the Time Profiler's samples as XML: one <row> a sample with its
 * thread, process, weight (ns) and backtrace (frames leaf first, each
 * with its binary). An element that repeats is written once with an id
 * and later as <x ref="id"/>, so the reader keeps what a ref can name
 * (frames, binaries, backtraces, weights, threads, processes) in a table
 * by id: memory grows with the distinct stacks, not the rows. Read with
 * expat, as a stream.
 */
#include <expat.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/limits.h"
#include "core/buf.h"
#include "core/vec.h"
#include "import/formats.h"

#define XC_NONE UINT32_MAX
#define XC_MAX_DEPTH PD_LIMIT_JSON_DEPTH

enum xc_kind {
	E_FRAME = 1,
	E_BINARY,
	E_BACKTRACE,
	E_WEIGHT,
	E_THREAD,
	E_PROCESS
};

struct xc_ent {
	unsigned char kind;
	uint32_t name; /* string id: frame or binary name, thread/process fmt */
	uint32_t binary; /* frame: its binary's entity, XC_NONE */
	uint32_t pframe; /* frame: the profile's frame, XC_NONE until used */
	uint32_t off, n; /* backtrace: frames in pool */
	uint32_t node;	 /* backtrace: its tree node, XC_NONE until a row */
	uint64_t addr;	 /* frame: address; binary: load address */
	double weight;	 /* weight: ns */
};

struct xc {
	struct pd_profile *p;
	const struct pd_import_opts *o;
	struct pd_err *err;
	const char *path;
	XML_Parser xp;
	int failed, saw_schema, depth;
	/* id -> entity, open addressing */
	uint64_t *keys;
	uint32_t *vals;
	size_t nslots, nkeys;
	PD_VEC(struct xc_ent) ent;
	PD_VEC(uint32_t) pool; /* backtraces' frames, leaf first */
	PD_VEC(uint32_t) cur_bt;
	/* elements being read */
	int row_depth;	     /* depth of the open <row>, 0 when none */
	uint32_t bt_ent;     /* the backtrace being defined */
	uint32_t frame_ent;  /* the frame being defined */
	uint32_t weight_ent; /* the weight whose text is being read */
	struct pd_buf text;
	/* the row */
	uint32_t row_bt, row_thread, row_process;
	double row_weight;
	int row_has_weight;
	uint64_t rows, kept;
	double sum;
};

static int xc_fail(struct xc *x, const char *fmt, ...) PD_PRINTF(2, 3);

static int xc_fail(struct xc *x, const char *fmt, ...)
{
	if (!x->failed) {
		struct pd_buf b = PD_BUF_INIT;
		va_list ap;

		pd_buf_addf(&b, "%s:%lu: ", x->path,
			    (unsigned long)XML_GetCurrentLineNumber(x->xp));
		va_start(ap, fmt);
		pd_buf_vaddf(&b, fmt, ap);
		va_end(ap);
		pd_err_set(x->err, PD_EPARSE, "%s", b.buf);
		pd_buf_release(&b);
	}
	x->failed = 1;
	XML_StopParser(x->xp, XML_FALSE);
	return -1;
}

static size_t slot_of(const struct xc *x, uint64_t id)
{
	return (size_t)((id * 0x9e3779b97f4a7c15ull) >> 20) & (x->nslots - 1);
}

static uint32_t lookup(const struct xc *x, uint64_t id)
{
	size_t i;

	if (!x->nslots)
		return XC_NONE;
	for (i = slot_of(x, id); x->keys[i]; i = (i + 1) & (x->nslots - 1))
		if (x->keys[i] == id)
			return x->vals[i];
	return XC_NONE;
}

static void insert(struct xc *x, uint64_t id, uint32_t v)
{
	size_t i;

	if (2 * (x->nkeys + 1) > x->nslots) {
		uint64_t *ok = x->keys;
		uint32_t *ov = x->vals;
		size_t on = x->nslots;

		x->nslots = on ? on * 2 : 1024;
		x->keys = pd_xcalloc(x->nslots, sizeof(*x->keys));
		x->vals = pd_xcalloc(x->nslots, sizeof(*x->vals));
		x->nkeys = 0;
		for (i = 0; i < on; i++)
			if (ok[i])
				insert(x, ok[i], ov[i]);
		free(ok);
		free(ov);
	}
	for (i = slot_of(x, id); x->keys[i] && x->keys[i] != id;
	     i = (i + 1) & (x->nslots - 1))
		;
	if (!x->keys[i])
		x->nkeys++;
	x->keys[i] = id;
	x->vals[i] = v;
}

static const char *attr(const XML_Char **a, const char *name)
{
	for (; a && a[0]; a += 2)
		if (!strcmp(a[0], name))
			return a[1];
	return NULL;
}

static uint64_t parse_u64(const char *s)
{
	return s ? strtoull(s, NULL, 0) : 0;
}

/* A new entity of kind for the element's id (ids start at 1). */
static uint32_t define(struct xc *x, const char *id, enum xc_kind kind)
{
	struct xc_ent e;
	uint64_t k = parse_u64(id);

	if (!k) {
		xc_fail(x, "id=\"%s\" is not a positive number", id);
		return XC_NONE;
	}
	memset(&e, 0, sizeof(e));
	e.kind = (unsigned char)kind;
	e.binary = e.pframe = e.node = XC_NONE;
	PD_VEC_PUSH(&x->ent, e);
	insert(x, k, (uint32_t)(x->ent.n - 1));
	return (uint32_t)(x->ent.n - 1);
}

/* The entity a ref names, of kind; XC_NONE after the error. */
static uint32_t resolve(struct xc *x, const char *ref, enum xc_kind kind)
{
	uint32_t e = lookup(x, parse_u64(ref));

	if (e == XC_NONE || x->ent.v[e].kind != kind) {
		xc_fail(x, "ref=\"%s\" names no earlier element of its kind",
			ref);
		return XC_NONE;
	}
	return e;
}

static enum xc_kind kind_of(const char *el)
{
	if (!strcmp(el, "frame"))
		return E_FRAME;
	if (!strcmp(el, "binary"))
		return E_BINARY;
	if (!strcmp(el, "backtrace"))
		return E_BACKTRACE;
	if (!strcmp(el, "weight"))
		return E_WEIGHT;
	if (!strcmp(el, "thread"))
		return E_THREAD;
	if (!strcmp(el, "process"))
		return E_PROCESS;
	return 0;
}

static void XMLCALL on_start(void *ud, const XML_Char *el, const XML_Char **a)
{
	struct xc *x = ud;
	const char *id = attr(a, "id"), *ref = attr(a, "ref");
	enum xc_kind kind = kind_of(el);
	uint32_t e = XC_NONE;
	struct pd_profile *p = x->p;

	if (x->failed)
		return;
	if (++x->depth > XC_MAX_DEPTH) {
		char t[160];

		xc_fail(x, "%s",
			pd_limit_text(t, sizeof(t), PD_LIMIT_JSON_DEPTH,
				      "nesting levels", "PD_LIMIT_JSON_DEPTH"));
		x->err->code = PD_ETOOBIG;
		return;
	}
	if (!strcmp(el, "schema")) {
		const char *name = attr(a, "name");

		x->saw_schema = 1;
		if (!name || strcmp(name, "time-profile"))
			xc_fail(x,
				"an xctrace table of schema \"%s\": perfdiff"
				" reads the Time Profiler's (export --xpath"
				" '/trace-toc/run[@number=\"1\"]/data/"
				"table[@schema=\"time-profile\"]')",
				name ? name : "");
		return;
	}
	if (!strcmp(el, "row")) {
		x->row_depth = x->depth;
		x->row_bt = x->row_thread = x->row_process = XC_NONE;
		x->row_has_weight = 0;
		x->row_weight = 0;
		return;
	}
	if (!kind || !x->row_depth)
		return;
	if (ref)
		e = resolve(x, ref, kind);
	else if (id)
		e = define(x, id, kind);
	if (e == XC_NONE)
		return;
	switch (kind) {
	case E_FRAME:
		if (id) {
			const char *nm = attr(a, "name");

			x->ent.v[e].name =
			    pd_intern_cstr(&p->strs, nm ? nm : "");
			x->ent.v[e].addr = parse_u64(attr(a, "addr"));
			x->frame_ent = e;
		}
		if (x->bt_ent != XC_NONE)
			PD_VEC_PUSH(&x->cur_bt, e);
		break;
	case E_BINARY:
		if (id) {
			const char *nm = attr(a, "name");

			x->ent.v[e].name =
			    pd_intern_cstr(&p->strs, nm ? nm : "");
			x->ent.v[e].addr = parse_u64(attr(a, "load-addr"));
		}
		if (x->frame_ent != XC_NONE)
			x->ent.v[x->frame_ent].binary = e;
		break;
	case E_BACKTRACE:
		if (id) {
			x->bt_ent = e;
			x->cur_bt.n = 0;
		}
		if (x->row_bt == XC_NONE)
			x->row_bt = e;
		break;
	case E_WEIGHT:
		if (id) {
			x->weight_ent = e;
			pd_buf_reset(&x->text);
		}
		if (x->depth == x->row_depth + 1) {
			x->row_weight = x->ent.v[e].weight; /* ref: known */
			x->row_has_weight = 1;
		}
		break;
	case E_THREAD:
	case E_PROCESS:
		if (id) {
			const char *fmt = attr(a, "fmt");

			x->ent.v[e].name =
			    pd_intern_cstr(&p->strs, fmt ? fmt : "");
		}
		if (kind == E_THREAD && x->row_thread == XC_NONE)
			x->row_thread = e;
		if (kind == E_PROCESS && x->row_process == XC_NONE)
			x->row_process = e;
		break;
	}
}

static void XMLCALL on_text(void *ud, const XML_Char *s, int len)
{
	struct xc *x = ud;

	if (x->weight_ent != XC_NONE && len > 0 && x->text.len < 64)
		pd_buf_add(&x->text, s, (size_t)len);
}

/* The profile's frame for a frame entity, made once. */
static uint32_t frame_of(struct xc *x, uint32_t fe)
{
	struct xc_ent *f = &x->ent.v[fe];
	struct pd_profile *p = x->p;

	if (f->pframe == XC_NONE) {
		const char *nm = pd_intern_str(&p->strs, f->name);
		uint32_t mod = 0, name = f->name;

		if (f->binary != XC_NONE) {
			const struct xc_ent *b = &x->ent.v[f->binary];

			mod = b->name;
			/* unsymbolicated: "0x1a3f8c"; name it binary+0xRVA */
			if ((!*nm || !strncmp(nm, "0x", 2)) &&
			    f->addr >= b->addr && b->addr) {
				struct pd_buf t = PD_BUF_INIT;

				pd_buf_addf(
				    &t, "%s+0x%llx",
				    pd_intern_str(&p->strs, b->name),
				    (unsigned long long)(f->addr - b->addr));
				name = pd_intern(&p->strs, t.buf, t.len);
				pd_buf_release(&t);
			}
		}
		f = &x->ent.v[fe];
		f->pframe = pd_profile_frame(p, name, mod);
	}
	return f->pframe;
}

static void end_row(struct xc *x)
{
	struct pd_profile *p = x->p;
	const struct xc_ent *bt;
	uint32_t node = PD_ROOT, i;

	x->rows++;
	if (x->row_bt == XC_NONE || !x->row_has_weight || !(x->row_weight > 0))
		return;
	if (x->row_thread != XC_NONE && x->o->thread) {
		const char *t =
		    pd_intern_str(&p->strs, x->ent.v[x->row_thread].name);

		if (!pd_filter_match(x->o->thread, t, strlen(t)))
			return;
	}
	if (x->row_process != XC_NONE && x->o->process) {
		const char *t =
		    pd_intern_str(&p->strs, x->ent.v[x->row_process].name);

		if (!pd_filter_match(x->o->process, t, strlen(t)))
			return;
	}
	/* rows repeat backtraces by ref: a backtrace's node is made once */
	bt = &x->ent.v[x->row_bt];
	if (bt->node == XC_NONE) {
		for (i = bt->n; i-- > 0;) /* leaf first in the file */
			node = pd_profile_child(
			    p, node, frame_of(x, x->pool.v[bt->off + i]));
		x->ent.v[x->row_bt].node = node;
	}
	pd_profile_add(p, x->ent.v[x->row_bt].node, x->row_weight, 1);
	x->kept++;
	x->sum += x->row_weight;
	if (x->row_thread != XC_NONE) {
		const char *t =
		    pd_intern_str(&p->strs, x->ent.v[x->row_thread].name);

		pd_profile_thread(p, t, strlen(t), x->row_weight);
	}
}

static void XMLCALL on_end(void *ud, const XML_Char *el)
{
	struct xc *x = ud;
	enum xc_kind kind = kind_of(el);

	if (x->failed)
		return;
	if (x->row_depth && x->depth == x->row_depth && !strcmp(el, "row")) {
		end_row(x);
		x->row_depth = 0;
	} else if (kind == E_BACKTRACE && x->bt_ent != XC_NONE) {
		struct xc_ent *b = &x->ent.v[x->bt_ent];
		size_t i;

		b->off = (uint32_t)x->pool.n;
		b->n = (uint32_t)x->cur_bt.n;
		for (i = 0; i < x->cur_bt.n; i++)
			PD_VEC_PUSH(&x->pool, x->cur_bt.v[i]);
		x->bt_ent = XC_NONE;
	} else if (kind == E_FRAME) {
		x->frame_ent = XC_NONE;
	} else if (kind == E_WEIGHT && x->weight_ent != XC_NONE) {
		char *end;
		double v = strtod(x->text.len ? x->text.buf : "", &end);

		if (!x->text.len || *end || !(v >= 0) || v > 1e18) {
			xc_fail(x, "weight \"%s\" is not a number of ns",
				x->text.buf);
			return;
		}
		x->ent.v[x->weight_ent].weight = v;
		if (x->row_depth) {
			x->row_weight = v;
			x->row_has_weight = 1;
		}
		x->weight_ent = XC_NONE;
	}
	x->depth--;
}

int pd_xctrace_sniff(const char *head, size_t len)
{
	return pd_filter_match("<trace-query-result", head, len);
}

int pd_xctrace_import(struct pd_input *in, struct pd_profile *p,
		      const struct pd_import_opts *o, struct pd_err *err)
{
	struct xc x;
	char *buf = pd_xmalloc(1u << 20);
	int rc = 0;

	memset(&x, 0, sizeof(x));
	x.p = p;
	x.o = o;
	x.err = err;
	x.path = in->path;
	x.bt_ent = x.frame_ent = x.weight_ent = XC_NONE;
	x.xp = XML_ParserCreate("UTF-8");
	if (!x.xp)
		pd_die_oom(0);
	XML_SetUserData(x.xp, &x);
	XML_SetElementHandler(x.xp, on_start, on_end);
	XML_SetCharacterDataHandler(x.xp, on_text);
	for (;;) {
		ssize_t n = pd_input_read(in, buf, 1u << 20, err);

		if (n < 0) {
			rc = (int)n;
			break;
		}
		if (XML_Parse(x.xp, buf, (int)n, n == 0) == XML_STATUS_ERROR) {
			if (!x.failed)
				pd_err_set(
				    err, PD_EPARSE, "%s:%lu: XML error: %s",
				    in->path,
				    (unsigned long)XML_GetCurrentLineNumber(
					x.xp),
				    XML_ErrorString(XML_GetErrorCode(x.xp)));
			rc = PD_EPARSE;
			break;
		}
		if (!n)
			break;
	}
	if (!rc && !x.saw_schema)
		rc = pd_err_set(err, PD_EFORMAT,
				"%s: an xctrace export without a table schema"
				" (export one table with --xpath; see"
				" docs/formats.md, \"Instruments\")",
				in->path);
	if (!rc) {
		p->unit = PD_UNIT_NS;
		p->nsamples = x.kept;
		p->count_rule = pd_xstrdup(
		    "sample counts = rows (one a sample); weights = each"
		    " sample's Weight");
		if (x.kept) /* Time Profiler: 1 ms a sample by default */
			p->interval = x.sum / (double)x.kept;
	}
	XML_ParserFree(x.xp);
	free(buf);
	free(x.keys);
	free(x.vals);
	PD_VEC_FREE(&x.ent);
	PD_VEC_FREE(&x.pool);
	PD_VEC_FREE(&x.cur_bt);
	pd_buf_release(&x.text);
	return rc;
}
