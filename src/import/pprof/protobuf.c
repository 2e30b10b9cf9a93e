/*
 * Protobuf wire format (varints, tags, length-delimited payloads). Every
 * read is bounds-checked against the message end, so a truncated or
 * corrupt input ends in -1 with a reason, never a read past the buffer.
 */
#include <string.h>

#include "core/vec.h"
#include "import/pprof/protobuf.h"

void pd_pb_init(struct pd_pb *r, const void *data, size_t len, uint64_t base)
{
	r->start = r->p = data;
	r->end = r->p + len;
	r->base = base;
}

int pd_pb_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	const uint8_t *q = *p;
	uint64_t x = 0;
	unsigned shift = 0;

	while (q < end && shift < 64) {
		uint8_t b = *q++;

		x |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			/* the tenth byte may only carry the top bit */
			if (shift == 63 && b > 1)
				return -1;
			*p = q;
			*v = x;
			return 0;
		}
		shift += 7;
	}
	return -1;
}

const char *pd_pb_wire_name(int wt)
{
	switch (wt) {
	case PD_PB_VARINT:
		return "varint";
	case PD_PB_FIXED64:
		return "fixed64";
	case PD_PB_LEN:
		return "length-delimited";
	case PD_PB_FIXED32:
		return "fixed32";
	case 3:
	case 4:
		return "group";
	}
	return "invalid";
}

static uint64_t fixed(const uint8_t *p, int n)
{
	uint64_t v = 0;
	int i;

	for (i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

int pd_pb_next(struct pd_pb *r, struct pd_pb_field *f, const char **why)
{
	const uint8_t *q = r->p;
	uint64_t tag;

	if (q >= r->end)
		return 0;
	f->off = r->base + (uint64_t)(q - r->start);
	if (pd_pb_varint(&q, r->end, &tag)) {
		*why = "truncated or overlong field tag";
		return -1;
	}
	f->num = (uint32_t)(tag >> 3);
	f->wt = (enum pd_pb_wire)(tag & 7);
	if (f->num == 0 || tag >> 3 > 0x1fffffff) {
		*why = "field number 0 or out of range";
		return -1;
	}
	f->data = NULL;
	f->len = 0;
	f->v = 0;
	switch ((int)f->wt) {
	case PD_PB_VARINT:
		if (pd_pb_varint(&q, r->end, &f->v)) {
			*why = "truncated varint";
			return -1;
		}
		break;
	case PD_PB_FIXED64:
	case PD_PB_FIXED32: {
		int n = f->wt == PD_PB_FIXED64 ? 8 : 4;

		if (r->end - q < n) {
			*why = "truncated fixed-width value";
			return -1;
		}
		f->v = fixed(q, n);
		q += n;
		break;
	}
	case PD_PB_LEN:
		if (pd_pb_varint(&q, r->end, &f->v)) {
			*why = "truncated length";
			return -1;
		}
		if (f->v > (uint64_t)(r->end - q)) {
			*why = "length runs past the end of the message";
			return -1;
		}
		f->data = q;
		f->len = (size_t)f->v;
		q += f->len;
		break;
	default:
		*why = "unsupported wire type (groups or invalid)";
		return -1;
	}
	r->p = q;
	return 1;
}

int pd_pb_repeated(const struct pd_pb_field *f, struct pd_u64s *out)
{
	const uint8_t *q, *end;
	uint64_t v;

	if (f->wt == PD_PB_VARINT) {
		PD_VEC_PUSH(out, f->v);
		return 0;
	}
	if (f->wt != PD_PB_LEN)
		return -1;
	q = f->data;
	end = q + f->len;
	while (q < end) {
		if (pd_pb_varint(&q, end, &v))
			return -1;
		PD_VEC_PUSH(out, v);
	}
	return 0;
}
