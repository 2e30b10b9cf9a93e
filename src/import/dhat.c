/*
 * DHAT heap profiles (docs/formats.md, "DHAT"): valgrind --tool=dhat's
 * dhat.out.* and dhat-rs's dhat-heap.json / dhat-ad-hoc.json, streamed with
 * yajl.
 *
 * Each program point (pps[]) is one allocation stack with exact totals;
 * its weight is the chosen measure (--metric, default total bytes). Its
 * frames (fs, leaf first, indices into ftbl) come before or after ftbl,
 * so a program point keeps its value and raw frame indices until the end.
 * The allocator's own frames (--alloc-frames, a default list for libc,
 * Rust's alloc crate, zig and dhat itself) are cut from the leaf end, so
 * self lands on the first frame outside the allocator. The numbers are
 * counts, not samples: the profile is marked exact and verdicts use the
 * practical threshold alone.
 */
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl_parse.h>

#include "core/limits.h"
#include "core/buf.h"
#include "core/xalloc.h"
#include "import/formats.h"
#include "import/json.h"

#define MAX_DEPTH PD_LIMIT_JSON_DEPTH

/*
 * Matched against a frame's text without its address, "FUNCTION (FILE:LINE)"
 * or "FUNCTION (in OBJECT)": libc and C++ allocation calls, Rust's alloc
 * crate (its own paths and its trait impls, "<T as alloc::...>") and
 * global allocator hooks, dhat-rs itself, zig's Allocator.
 */
const char pd_dhat_alloc_default[] =
    "^((malloc|calloc|realloc|memalign|posix_memalign|aligned_alloc|valloc|"
    "_Zn[wa][jmy]|__rust_(alloc|realloc|alloc_zeroed)|rawAlloc|"
    "allocAdvancedWithRetAddr)( \\(.*)?|"
    "(operator new|<?alloc::|core::alloc::|std::alloc::|<?dhat::|"
    "<.* as (alloc|core::alloc|std::alloc)::|"
    "hashbrown::raw::alloc::|mem\\.Allocator\\.|heap\\.|__libc_|__rdl_|"
    "__rg_).*)$";

static const struct metric {
	const char *name, *key;
	int bytes; /* in the file's byte unit (else blocks or time) */
	int time;
} metrics[] = {
	{ "bytes", "tb", 1, 0 },	{ "blocks", "tbk", 0, 0 },
	{ "lifetimes", "tl", 0, 1 },	{ "max-bytes", "mb", 1, 0 },
	{ "max-blocks", "mbk", 0, 0 },	{ "peak-bytes", "gb", 1, 0 },
	{ "peak-blocks", "gbk", 0, 0 }, { "end-bytes", "eb", 1, 0 },
	{ "end-blocks", "ebk", 0, 0 },	{ "reads", "rb", 1, 0 },
	{ "writes", "wb", 1, 0 },
};

struct ftbl {
	uint32_t name, module;
	uint32_t frame; /* PD_NO_FRAME until a stack uses it */
	int is_alloc;
};

struct dh {
	struct pd_profile *p;
	struct pd_input *in;
	struct pd_err *err;
	struct pd_json_walk w;
	struct pd_json_step lv[MAX_DEPTH];
	const struct metric *m;
	regex_t alloc;

	/* program points: value, and fs[fs_at[i] .. fs_at[i + 1]) */
	PD_VEC(double) val;
	PD_VEC(size_t) fs_at;
	PD_VEC(uint32_t) fs;
	int has_value; /* the program point being read has the measure */
	double cur;

	/* ftbl: name and module ids, the frame once used, the allocator's? */
	PD_VEC(struct ftbl) ftbl;

	long long version;
	int seen_version, seen_pps, seen_ftbl;
	char mode[32], bu[16], tu[16];
};

static int fail(struct dh *s, const char *what)
{
	return pd_json_walk_fail(&s->w, what);
}

/* Where a value is: "top", "pps" (in a program point), "fs", "ftbl". */
enum where { W_OTHER, W_TOP, W_PP, W_FS, W_FTBL };

static enum where where(const struct dh *s)
{
	if (s->w.depth == 0 && s->lv[0].is_map)
		return W_TOP;
	if (s->w.depth == 1 && !s->lv[1].is_map &&
	    !strcmp(s->lv[0].key, "ftbl"))
		return W_FTBL;
	if (s->w.depth == 2 && s->lv[2].is_map && !strcmp(s->lv[0].key, "pps"))
		return W_PP;
	if (s->w.depth == 3 && !s->lv[3].is_map &&
	    !strcmp(s->lv[0].key, "pps") && !strcmp(s->lv[2].key, "fs"))
		return W_FS;
	return W_OTHER;
}

static int on_number(void *arg, double v, int integral)
{
	struct dh *s = arg;
	struct pd_json_step *l;

	pd_json_walk_value(&s->w);
	if (s->w.depth < 0)
		return fail(s, "not a DHAT profile: a number, not an object");
	l = &s->lv[s->w.depth];
	switch (where(s)) {
	case W_TOP:
		if (!strcmp(l->key, "dhatFileVersion")) {
			if (!integral)
				return fail(s, "dhatFileVersion is not an"
					       " integer");
			s->version = (long long)v;
			s->seen_version = 1;
		}
		return 1;
	case W_PP:
		if (!strcmp(l->key, s->m->key)) {
			if (!(v >= 0) || !isfinite(v))
				return fail(s, "a negative or invalid count");
			s->cur = v;
			s->has_value = 1;
		}
		return 1;
	case W_FS:
		if (!integral || v < 0 || v > 4e9)
			return fail(s, "a frame index must be a non-negative"
				       " integer");
		PD_VEC_PUSH(&s->fs, (uint32_t)v);
		return 1;
	case W_FTBL:
		return fail(s, "a frame must be a string");
	default:
		return 1;
	}
}

/*
 * A frame string: "0xADDR: FUNCTION (FILE:LINE[:COL])" or
 * "0xADDR: FUNCTION (in OBJECT)". Function names hold spaces, "<>" and
 * parentheses, so the location is the last parenthesised group.
 */
static void add_frame(struct dh *s, const char *v, size_t n)
{
	const char *name = v, *end = v + n, *obj = NULL;
	size_t obj_len = 0;
	struct ftbl f = { 0, 0, PD_NO_FRAME, 0 };
	char buf[1024];
	size_t k;

	if (n > 2 && v[0] == '0' && v[1] == 'x') {
		const char *c = memchr(v, ':', n);

		if (c && c + 1 < end && c[1] == ' ')
			name = c + 2;
	}
	if (end > name && end[-1] == ')') {
		int d = 0;
		const char *q = end - 1;

		for (; q > name; q--) {
			d += *q == ')';
			d -= *q == '(';
			if (!d)
				break;
		}
		if (!d && q > name && q[-1] == ' ') {
			if (end - q > 4 && !memcmp(q, "(in ", 4)) {
				obj = q + 4;
				obj_len = (size_t)(end - 1 - obj);
			}
			end = q - 1;
		}
	}
	if (obj)
		f.module = pd_intern(&s->p->strs, obj, obj_len);
	f.name = pd_intern(&s->p->strs, name, (size_t)(end - name));
	/* the allocator test sees the text after the address */
	k = (size_t)(v + n - name);
	if (k >= sizeof(buf))
		k = sizeof(buf) - 1;
	memcpy(buf, name, k);
	buf[k] = '\0';
	f.is_alloc = !regexec(&s->alloc, buf, 0, NULL, 0);
	PD_VEC_PUSH(&s->ftbl, f);
}

static void keep_word(char *dst, size_t cap, const unsigned char *v, size_t n)
{
	if (n >= cap)
		n = cap - 1;
	memcpy(dst, v, n);
	dst[n] = '\0';
}

/* A string (v), or null or a boolean (v NULL). */
static int other_scalar(void *arg, const unsigned char *v, size_t n)
{
	struct dh *s = arg;
	pd_json_walk_value(&s->w);
	if (s->w.depth < 0)
		return fail(s, "not a DHAT profile: a scalar, not an object");
	switch (where(s)) {
	case W_FTBL:
		if (!v)
			return fail(s, "a frame must be a string");
		add_frame(s, (const char *)v, n);
		return 1;
	case W_FS:
		return fail(s, "a frame index must be a non-negative integer");
	case W_TOP:
		if (!v)
			return 1;
		if (!strcmp(s->lv[0].key, "mode"))
			keep_word(s->mode, sizeof(s->mode), v, n);
		else if (!strcmp(s->lv[0].key, "bu"))
			keep_word(s->bu, sizeof(s->bu), v, n);
		else if (!strcmp(s->lv[0].key, "tu"))
			keep_word(s->tu, sizeof(s->tu), v, n);
		else if (!strcmp(s->lv[0].key, "dhatFileVersion"))
			return fail(s, "dhatFileVersion is not an integer");
		return 1;
	case W_PP:
		if (!strcmp(s->lv[2].key, s->m->key))
			return fail(s, "a count must be a number");
		return 1;
	default:
		return 1;
	}
}

static int cb_map_key(void *ctx, const unsigned char *k, size_t n)
{
	struct dh *s = ctx;

	pd_json_walk_key(&s->w, k, n);
	return 1;
}

static int open_container(void *arg, int is_map)
{
	struct dh *s = arg;
	int rc;

	if (pd_json_walk_enter(&s->w, is_map, &rc))
		return rc;
	if (where(s) == W_FS || where(s) == W_FTBL)
		return fail(s, is_map ? "an object where a frame was expected"
				      : "an array where a frame was expected");
	if (s->w.depth == 0 && !strcmp(s->lv[0].key, "pps")) {
		if (is_map)
			return fail(s, "pps must be an array");
		s->seen_pps = 1;
	}
	if (s->w.depth == 0 && !strcmp(s->lv[0].key, "ftbl")) {
		if (is_map)
			return fail(s, "ftbl must be an array");
		s->seen_ftbl = 1;
	}
	if (s->w.depth == 1 && is_map && !strcmp(s->lv[0].key, "pps")) {
		/* a program point begins */
		s->has_value = 0;
		s->cur = 0;
		PD_VEC_PUSH(&s->fs_at, s->fs.n);
	}
	return pd_json_walk_push(&s->w, is_map) != NULL;
}

static int close_container(void *arg)
{
	struct dh *s = arg;
	if (where(s) == W_PP) {
		if (!s->has_value) {
			char what[160];

			snprintf(what, sizeof(what),
				 "this program point has no \"%s\" (%s)%s",
				 s->m->key, s->m->name,
				 strstr(s->mode, "ad-hoc")
				     ? ": ad-hoc profiles have bytes and"
				       " blocks only"
				     : "; --metric picks another measure");
			s->lv[s->w.depth].key[0] =
			    '\0'; /* the path ends at the point */
			return fail(s, what);
		}
		PD_VEC_PUSH(&s->val, s->cur);
	}
	return pd_json_walk_pop(&s->w);
}

static const struct pd_json_events events = {
	on_number,	 other_scalar, cb_map_key, open_container,
	close_container, NULL,	       NULL,	   NULL,
};

int pd_dhat_sniff(const char *head, size_t len)
{
	return pd_filter_match("\"dhatFileVersion\"", head, len);
}

const char *pd_dhat_metric_names(void)
{
	return "bytes, blocks, lifetimes, max-bytes, max-blocks, peak-bytes,"
	       " peak-blocks, end-bytes, end-blocks, reads, writes";
}

static const struct metric *find_metric(const char *name)
{
	size_t i;

	if (!name)
		return &metrics[0];
	for (i = 0; i < PD_ARRAY_SIZE(metrics); i++)
		if (!strcmp(name, metrics[i].name) ||
		    !strcmp(name, metrics[i].key))
			return &metrics[i];
	return NULL;
}

int pd_dhat_metric_ok(const char *name)
{
	return find_metric(name) != NULL;
}

static int build(struct dh *s)
{
	struct pd_profile *p = s->p;
	struct pd_buf b = PD_BUF_INIT;
	size_t i, nf = s->ftbl.n;
	uint64_t cut = 0;

	if (!s->seen_version || !s->seen_pps || !s->seen_ftbl) {
		pd_err_set(s->err, PD_EPARSE,
			   "%s: $: not a DHAT profile: no %s", s->in->path,
			   !s->seen_version ? "dhatFileVersion"
			   : !s->seen_pps   ? "pps"
					    : "ftbl");
		return PD_EPARSE;
	}
	if (s->version != 2)
		pd_profile_note(p,
				"DHAT file version %lld (this reader knows"
				" version 2)",
				s->version);
	for (i = 0; i < s->val.n; i++) {
		size_t from = s->fs_at.v[i];
		size_t to = i + 1 < s->fs_at.n ? s->fs_at.v[i + 1] : s->fs.n;
		size_t j, keep = from;
		uint32_t node = PD_ROOT;

		for (j = from; j < to; j++)
			if (s->fs.v[j] >= nf) {
				pd_err_set(s->err, PD_EPARSE,
					   "%s: $.pps[%zu].fs[%zu]: frame index"
					   " %u out of range (ftbl has %zu"
					   " entries)",
					   s->in->path, i, j - from,
					   (unsigned)s->fs.v[j], nf);
				return PD_EPARSE;
			}
		/* leaf first: skip the allocator, but keep one frame */
		while (keep + 1 < to && s->ftbl.v[s->fs.v[keep]].is_alloc)
			keep++;
		cut += keep > from;
		if (!(s->val.v[i] > 0))
			continue; /* adds no weight, and no functions */
		for (j = to; j-- > keep;) {
			struct ftbl *f = &s->ftbl.v[s->fs.v[j]];

			if (s->fs.v[j] == 0) /* [root] is not a frame */
				continue;
			if (f->frame == PD_NO_FRAME) {
				f->frame =
				    pd_profile_frame(p, f->name, f->module);
				p->has_modules |= f->module != 0;
			}
			node = pd_profile_child(p, node, f->frame);
		}
		/* one count per allocation site: there is no sampling */
		pd_profile_add(p, node, s->val.v[i], 1);
	}
	p->nsamples = s->val.n;
	p->exact = 1;
	if (s->m->bytes && (!s->bu[0] || !strcmp(s->bu, "byte")))
		p->unit = PD_UNIT_BYTES;
	else if (s->m->time && !strcmp(s->tu, "\xc2\xb5s"))
		p->unit = PD_UNIT_NS;
	else
		p->unit = PD_UNIT_COUNT;
	if (p->unit == PD_UNIT_NS)
		for (i = 0; i < p->nodes.n; i++)
			p->nodes.v[i].weight *= 1000;
	p->interval = 0;
	free(p->event);
	p->event = pd_xstrdup(s->m->name);
	pd_buf_addf(&b, "%s (%s)",
		    !strncmp(s->mode, "rust-", 5) ? "dhat-rs" : "valgrind DHAT",
		    s->mode[0] ? s->mode : "heap");
	free(p->exporter);
	p->exporter = pd_buf_detach(&b);
	free(p->count_rule);
	p->count_rule = pd_xstrdup("exact (DHAT records every allocation);"
				   " one count per allocation site");
	if (s->val.n && !cut)
		pd_profile_note(p, "no allocator frame found in any stack:"
				   " self is the allocation's innermost frame"
				   " (see --alloc-frames)");
	return 0;
}

int pd_dhat_import(struct pd_input *in, struct pd_profile *p,
		   const struct pd_import_opts *o, struct pd_err *err)
{
	struct dh *s = pd_xcalloc(1, sizeof(*s));
	struct pd_json_stream js;
	const char *rx =
	    o->alloc_frames ? o->alloc_frames : pd_dhat_alloc_default;
	int rc;

	s->p = p;
	s->in = in;
	s->err = err;
	pd_json_walk_init(&s->w, s->lv, sizeof(s->lv[0]), MAX_DEPTH,
			  "PD_LIMIT_JSON_DEPTH", in->path, err);
	s->w.top = "a DHAT profile";
	s->m = find_metric(o->metric);
	if (!s->m) {
		rc = pd_err_set(err, PD_EUSAGE, "%s: no DHAT measure '%s' (%s)",
				in->path, o->metric, pd_dhat_metric_names());
		free(s);
		return rc;
	}
	if (regcomp(&s->alloc, rx, REG_EXTENDED | REG_NOSUB)) {
		rc = pd_err_set(err, PD_EUSAGE,
				"--alloc-frames: not a regular expression: %s",
				rx);
		free(s);
		return rc;
	}
	pd_json_stream_events(&js, &events, s, &s->w);
	rc = pd_json_stream_run(&js, in, err);
	if (!rc)
		rc = build(s);
	yajl_free(js.h);
	regfree(&s->alloc);
	PD_VEC_FREE(&s->val);
	PD_VEC_FREE(&s->fs_at);
	PD_VEC_FREE(&s->fs);
	PD_VEC_FREE(&s->ftbl);
	free(s);
	return rc;
}
