/*
 * pprof profile.proto (docs/formats.md, "pprof"), gzipped or not (pd_input
 * inflates).
 *
 * The top-level fields are read one at a time from the input, so memory
 * holds one field's bytes, the dictionaries (strings, functions,
 * locations, mappings) and one row of values per distinct stack: samples
 * are summed by their location-id sequence as they arrive, because the
 * tables they refer to usually come after them. The stacks are resolved
 * into the profile tree at the end.
 *
 * As pprof does: the value is the default_sample_type's, else the last
 * one (--sample-type picks another, by name or index); locations are
 * leaf first and a location's lines innermost first, so both are walked
 * backwards; values are already unsampled and are not multiplied by the
 * period. A location without lines becomes its address in its mapping.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/limits.h"
#include "core/buf.h"
#include "core/xalloc.h"
#include "import/formats.h"
#include "import/pprof/pprof_int.h"

#define MAX_FIELD PD_LIMIT_PPROF_FIELD
#define CHUNK (256u * 1024u)

static const char *const top_names[] = {
	"?",
	"sample_type",
	"sample",
	"mapping",
	"location",
	"function",
	"string_table",
	"drop_frames",
	"keep_frames",
	"time_nanos",
	"duration_nanos",
	"period_type",
	"period",
	"comment",
	"default_sample_type",
	"doc_url",
};

static int bad_wire(struct pprof_state *s, const char *msg,
		    const struct pd_pb_field *f, const char *name, int want)
{
	return pd_pprof_fail(
	    s, f->off, "%s.%s (field %u) has wire type %s, expected %s", msg,
	    name, f->num, pd_pb_wire_name(f->wt), pd_pb_wire_name(want));
}

static int bad_msg(struct pprof_state *s, const char *msg,
		   const struct pd_pb *r, const char *why)
{
	return pd_pprof_fail(s, r->base + (uint64_t)(r->p - r->start),
			     "in %s: %s", msg, why);
}

/* --- messages ---------------------------------------------------------- */

static int read_value_type(struct pprof_state *s, const struct pd_pb_field *top,
			   struct pprof_type *t)
{
	struct pd_pb r;
	struct pd_pb_field f;
	const char *why;
	int rc;

	t->type = t->unit = 0;
	t->off = top->off;
	pd_pb_init(&r, top->data, top->len, top->off);
	while ((rc = pd_pb_next(&r, &f, &why)) > 0) {
		if (f.num != 1 && f.num != 2)
			continue;
		if (f.wt != PD_PB_VARINT)
			return bad_wire(s, "ValueType", &f,
					f.num == 1 ? "type" : "unit",
					PD_PB_VARINT);
		if (f.num == 1)
			t->type = (int64_t)f.v;
		else
			t->unit = (int64_t)f.v;
	}
	return rc < 0 ? bad_msg(s, "ValueType", &r, why) : 0;
}

static int read_sample(struct pprof_state *s, const struct pd_pb_field *top)
{
	struct pd_pb r;
	struct pd_pb_field f;
	const char *why;
	uint32_t id;
	size_t i;
	int rc;

	s->tmp_locs.n = s->tmp_vals.n = 0;
	pd_pb_init(&r, top->data, top->len, top->off);
	while ((rc = pd_pb_next(&r, &f, &why)) > 0) {
		if (f.num == 1 || f.num == 2) {
			struct pd_u64s *out =
			    f.num == 1 ? &s->tmp_locs : &s->tmp_vals;

			if (f.wt != PD_PB_VARINT && f.wt != PD_PB_LEN)
				return bad_wire(s, "Sample", &f,
						f.num == 1 ? "location_id"
							   : "value",
						PD_PB_LEN);
			if (pd_pb_repeated(&f, out))
				return pd_pprof_fail(
				    s, f.off,
				    "Sample.%s: malformed packed"
				    " varints",
				    f.num == 1 ? "location_id" : "value");
		} else if (f.num == 3 && f.wt != PD_PB_LEN) {
			return bad_wire(s, "Sample", &f, "label", PD_PB_LEN);
		}
	}
	if (rc < 0)
		return bad_msg(s, "Sample", &r, why);
	s->nsample_msgs++;
	if (!s->nv && s->tmp_vals.n) {
		s->nv = s->tmp_vals.n;
		PD_VEC_RESERVE(&s->vals, s->nv);
		memset(s->vals.v, 0, s->nv * sizeof(double)); /* stack 0 */
		s->vals.n = s->nv;
		PD_VEC_PUSH(&s->stack_at, top->off);
	}
	/*
	 * A stack with nothing to weigh it: every stack needs its row of
	 * values (the first sample with values sets the row's width).
	 */
	if (!s->nv && s->tmp_locs.n)
		return pd_pprof_fail(s, top->off,
				     "Sample has locations but no values");
	if (s->tmp_vals.n != s->nv)
		return pd_pprof_fail(
		    s, top->off,
		    "Sample has %zu values, the first sample had %zu",
		    s->tmp_vals.n, s->nv);
	if (!s->tmp_locs.n) {
		s->nempty++;
		return 0;
	}
	if (s->tmp_locs.n > UINT32_MAX / 8)
		return pd_pprof_fail(s, top->off,
				     "Sample has too many locations");
	id = pd_intern(&s->stacks, (const char *)s->tmp_locs.v,
		       s->tmp_locs.n * sizeof(uint64_t));
	if ((size_t)id * s->nv >= s->vals.n) {
		PD_VEC_RESERVE(&s->vals, ((size_t)id + 1) * s->nv);
		memset(s->vals.v + s->vals.n, 0, s->nv * sizeof(double));
		s->vals.n += s->nv;
		PD_VEC_PUSH(&s->stack_at, top->off);
	}
	for (i = 0; i < s->nv; i++) {
		int64_t v = (int64_t)s->tmp_vals.v[i];

		if (v < 0 && !s->nnegative++)
			s->negative_at = top->off;
		s->vals.v[(size_t)id * s->nv + i] += (double)v;
	}
	return 0;
}

static int read_mapping(struct pprof_state *s, const struct pd_pb_field *top)
{
	struct pd_pb r;
	struct pd_pb_field f;
	struct pprof_map m = { 0, 0, 0, 0, top->off };
	const char *why;
	int rc;

	pd_pb_init(&r, top->data, top->len, top->off);
	while ((rc = pd_pb_next(&r, &f, &why)) > 0) {
		if (f.num > 10)
			continue;
		if (f.wt != PD_PB_VARINT)
			return bad_wire(s, "Mapping", &f, "field",
					PD_PB_VARINT);
		switch (f.num) {
		case 1:
			m.id = f.v;
			break;
		case 2:
			m.start = f.v;
			break;
		case 4:
			m.offset = f.v;
			break;
		case 5:
			m.file = (int64_t)f.v;
			break;
		}
	}
	if (rc < 0)
		return bad_msg(s, "Mapping", &r, why);
	PD_VEC_PUSH(&s->maps, m);
	return 0;
}

static int read_line(struct pprof_state *s, const struct pd_pb_field *top)
{
	struct pd_pb r;
	struct pd_pb_field f;
	uint64_t fn = 0;
	const char *why;
	int rc;

	pd_pb_init(&r, top->data, top->len, top->off);
	while ((rc = pd_pb_next(&r, &f, &why)) > 0) {
		if (f.num > 3)
			continue;
		if (f.wt != PD_PB_VARINT)
			return bad_wire(s, "Line", &f, "field", PD_PB_VARINT);
		if (f.num == 1)
			fn = f.v;
	}
	if (rc < 0)
		return bad_msg(s, "Line", &r, why);
	PD_VEC_PUSH(&s->lines, fn);
	return 0;
}

static int read_location(struct pprof_state *s, const struct pd_pb_field *top)
{
	struct pd_pb r;
	struct pd_pb_field f;
	struct pprof_loc l;
	const char *why;
	int rc;

	memset(&l, 0, sizeof(l));
	l.off = top->off;
	l.line0 = s->lines.n;
	pd_pb_init(&r, top->data, top->len, top->off);
	while ((rc = pd_pb_next(&r, &f, &why)) > 0) {
		if (f.num == 4) {
			if (f.wt != PD_PB_LEN)
				return bad_wire(s, "Location", &f, "line",
						PD_PB_LEN);
			{
				struct pd_pb_field g = f;

				/* a Line's offset is where its bytes start */
				g.off = r.base + (uint64_t)(f.data - r.start);
				if (read_line(s, &g))
					return -1;
			}
			continue;
		}
		if (f.num > 5)
			continue;
		if (f.wt != PD_PB_VARINT)
			return bad_wire(s, "Location", &f, "field",
					PD_PB_VARINT);
		if (f.num == 1)
			l.id = f.v;
		else if (f.num == 2)
			l.mapping = f.v;
		else if (f.num == 3)
			l.address = f.v;
	}
	if (rc < 0)
		return bad_msg(s, "Location", &r, why);
	l.nlines = s->lines.n - l.line0;
	if (!l.id)
		return pd_pprof_fail(s, top->off, "Location has id 0");
	PD_VEC_PUSH(&s->locs, l);
	return 0;
}

static int read_function(struct pprof_state *s, const struct pd_pb_field *top)
{
	struct pd_pb r;
	struct pd_pb_field f;
	struct pprof_func fn = { 0, 0, 0, top->off };
	const char *why;
	int rc;

	pd_pb_init(&r, top->data, top->len, top->off);
	while ((rc = pd_pb_next(&r, &f, &why)) > 0) {
		if (f.num > 5)
			continue;
		if (f.wt != PD_PB_VARINT)
			return bad_wire(s, "Function", &f, "field",
					PD_PB_VARINT);
		if (f.num == 1)
			fn.id = f.v;
		else if (f.num == 2)
			fn.name = (int64_t)f.v;
		else if (f.num == 3)
			fn.sysname = (int64_t)f.v;
	}
	if (rc < 0)
		return bad_msg(s, "Function", &r, why);
	if (!fn.id)
		return pd_pprof_fail(s, top->off, "Function has id 0");
	PD_VEC_PUSH(&s->funcs, fn);
	return 0;
}

/* The payload of a length-delimited field starts after tag and length. */
static void payload_at(struct pd_pb_field *f, const uint8_t *tag_at)
{
	f->off += (uint64_t)(f->data - tag_at);
}

static int top_field(struct pprof_state *s, struct pd_pb_field *f,
		     const uint8_t *tag_at)
{
	static const unsigned char want[16] = {
		0,
		PD_PB_LEN,
		PD_PB_LEN,
		PD_PB_LEN,
		PD_PB_LEN,
		PD_PB_LEN,
		PD_PB_LEN,
		PD_PB_VARINT,
		PD_PB_VARINT,
		PD_PB_VARINT,
		PD_PB_VARINT,
		PD_PB_LEN,
		PD_PB_VARINT,
		PD_PB_VARINT,
		PD_PB_VARINT,
		PD_PB_VARINT,
	};

	if (f->num >= 16)
		return 0; /* unknown: skipped */
	if (f->wt != want[f->num] &&
	    !((f->num == 13 || f->num == 7 || f->num == 8) &&
	      f->wt == PD_PB_LEN))
		return bad_wire(s, "Profile", f, top_names[f->num],
				want[f->num]);
	if (f->wt == PD_PB_LEN)
		payload_at(f, tag_at);
	switch (f->num) {
	case 1: {
		struct pprof_type t;

		if (read_value_type(s, f, &t))
			return -1;
		PD_VEC_PUSH(&s->types, t);
		return 0;
	}
	case 2:
		return read_sample(s, f);
	case 3:
		return read_mapping(s, f);
	case 4:
		return read_location(s, f);
	case 5:
		return read_function(s, f);
	case 6:
		if (!s->stroff.n)
			PD_VEC_PUSH(&s->stroff, 0);
		PD_VEC_RESERVE(&s->strs, s->strs.n + f->len + 1);
		memcpy(s->strs.v + s->strs.n, f->data, f->len);
		s->strs.n += f->len;
		PD_VEC_PUSH(&s->stroff, s->strs.n);
		if (s->stroff.n == 2 && f->len)
			return pd_pprof_fail(
			    s, f->off,
			    "string_table[0] must be empty, it is"
			    " %zu bytes",
			    f->len);
		return 0;
	case 7:
		s->ndrop++;
		return 0;
	case 9:
		if (s->seen_time++)
			return pd_pprof_fail(
			    s, f->off,
			    "a second time_nanos: concatenated"
			    " profiles are not one profile (pprof"
			    " refuses them too)");
		return 0;
	case 11:
		return read_value_type(s, f, &s->period_type);
	case 12:
		s->period = (int64_t)f->v;
		return 0;
	case 14:
		s->default_type = (int64_t)f->v;
		return 0;
	}
	return 0;
}

/* --- reading the input ------------------------------------------------- */

/* Makes at least want bytes available at buf + pos, unless the input ends. */
static int fill(struct pprof_state *s, size_t want)
{
	while (s->len - s->pos < want && !s->eof) {
		ssize_t n;

		if (s->pos) {
			memmove(s->buf, s->buf + s->pos, s->len - s->pos);
			s->off += s->pos;
			s->len -= s->pos;
			s->pos = 0;
		}
		if (s->cap < want || s->cap - s->len < CHUNK / 4) {
			size_t nc = s->cap ? s->cap : CHUNK;

			while (nc < want || nc - s->len < CHUNK / 4)
				nc *= 2;
			s->buf = pd_xrealloc(s->buf, nc);
			s->cap = nc;
		}
		n = pd_input_read(s->in, (char *)s->buf + s->len,
				  s->cap - s->len, s->err);
		if (n < 0)
			return (int)n;
		if (n == 0)
			s->eof = 1;
		s->len += (size_t)n;
	}
	return 0;
}

static int read_top(struct pprof_state *s)
{
	for (;;) {
		const uint8_t *q, *end;
		uint64_t tag, len = 0, at;
		struct pd_pb r;
		struct pd_pb_field f;
		const char *why;
		size_t hdr;

		if (fill(s, 24))
			return -1;
		if (s->pos == s->len)
			return 0;
		at = s->off + s->pos;
		q = s->buf + s->pos;
		end = s->buf + s->len;
		if (pd_pb_varint(&q, end, &tag))
			return pd_pprof_fail(s, at,
					     "truncated or overlong field tag");
		if ((tag & 7) == PD_PB_LEN) {
			if (pd_pb_varint(&q, end, &len))
				return pd_pprof_fail(
				    s, at, "truncated length of %s",
				    (tag >> 3) < 16 ? top_names[tag >> 3]
						    : "a field");
			if (len > MAX_FIELD)
				return pd_pprof_fail(
				    s, at,
				    "a field of %" PRIu64
				    " bytes (over 1 GiB): not a"
				    " profile, or corrupt",
				    len);
		}
		hdr = (size_t)(q - (s->buf + s->pos));
		if (fill(s, hdr + (size_t)len + 10))
			return -1;
		if (s->len - s->pos < hdr + (size_t)len)
			return pd_pprof_fail(
			    s, at,
			    "truncated: %s wants %" PRIu64
			    " bytes, the input ends after %zu",
			    (tag >> 3) < 16 ? top_names[tag >> 3] : "a field",
			    len, s->len - s->pos - hdr);
		/* one field: its bytes, or the 10 a varint may take */
		pd_pb_init(&r, s->buf + s->pos,
			   (tag & 7) == PD_PB_LEN ? hdr + (size_t)len
						  : s->len - s->pos,
			   at);
		if (pd_pb_next(&r, &f, &why) <= 0)
			return pd_pprof_fail(s, at, "%s", why);
		s->pos += (size_t)(r.p - r.start);
		if (top_field(s, &f, r.start))
			return -1;
	}
}

int pd_pprof_sniff(const char *head, size_t len)
{
	struct pd_pb r;
	struct pd_pb_field f;
	const char *why;
	int n = 0, rc;

	/* The first fields must be Profile fields of the right wire type. */
	pd_pb_init(&r, head, len, 0);
	while (n < 4 && (rc = pd_pb_next(&r, &f, &why)) > 0) {
		if (f.num < 1 || f.num > 15)
			return 0;
		/* comment (13) is repeated int64: packed or not */
		if (f.num == 13
			? f.wt != PD_PB_VARINT && f.wt != PD_PB_LEN
			: (f.num <= 6 || f.num == 11) != (f.wt == PD_PB_LEN))
			return 0;
		n++;
	}
	/* a head cut inside a long field still counts if it began well */
	return n >= 2 || (n == 1 && r.p < r.end);
}

int pd_pprof_import(struct pd_input *in, struct pd_profile *p,
		    const struct pd_import_opts *o, struct pd_err *err)
{
	struct pprof_state s;
	int rc;

	memset(&s, 0, sizeof(s));
	s.in = in;
	s.err = err;
	s.path = in->path;
	s.o = o;
	pd_intern_init(&s.stacks);
	rc = read_top(&s);
	if (!rc)
		rc = pd_pprof_build(&s, p);
	if (rc && !err->code)
		rc = pd_err_set(err, PD_EPARSE, "%s: pprof: malformed", s.path);
	free(s.buf);
	PD_VEC_FREE(&s.types);
	PD_VEC_FREE(&s.funcs);
	PD_VEC_FREE(&s.maps);
	PD_VEC_FREE(&s.locs);
	PD_VEC_FREE(&s.lines);
	PD_VEC_FREE(&s.frames);
	PD_VEC_FREE(&s.strs);
	PD_VEC_FREE(&s.stroff);
	PD_VEC_FREE(&s.vals);
	PD_VEC_FREE(&s.stack_at);
	PD_VEC_FREE(&s.tmp_locs);
	PD_VEC_FREE(&s.tmp_vals);
	pd_intern_release(&s.stacks);
	return rc ? (err->code ? err->code : PD_EPARSE) : 0;
}
