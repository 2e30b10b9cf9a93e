/*
 * A protobuf wire-format reader, enough for pprof's profile.proto: fields
 * are read one at a time from a message held in memory; nothing is
 * generated from the schema (docs/architecture.md says why).
 */
#ifndef PD_PROTOBUF_H
#define PD_PROTOBUF_H

#include <stddef.h>
#include <stdint.h>

#include "core/compat.h"

enum pd_pb_wire {
	PD_PB_VARINT = 0,
	PD_PB_FIXED64 = 1,
	PD_PB_LEN = 2,
	PD_PB_FIXED32 = 5,
};

struct pd_pb {
	const uint8_t *p, *end;
	const uint8_t *start;
	uint64_t base; /* input offset of start, for messages */
};

struct pd_pb_field {
	uint32_t num;
	enum pd_pb_wire wt;
	uint64_t v;	     /* varint and fixed values */
	const uint8_t *data; /* PD_PB_LEN: the payload */
	size_t len;
	uint64_t off; /* input offset of the field's tag */
};

/* A list of uint64 (works with the PD_VEC macros). */
struct pd_u64s {
	uint64_t *v;
	size_t n, cap;
};

void pd_pb_init(struct pd_pb *r, const void *data, size_t len, uint64_t base);
/* Reads a varint at *p (< end), advancing *p; 0, or -1 when malformed. */
PD_NODISCARD int pd_pb_varint(const uint8_t **p, const uint8_t *end,
			      uint64_t *v);
/*
 * The next field of the message: 1 with *f filled, 0 at the end, -1 when
 * malformed, with *why saying how and r->p left at the bad field.
 */
PD_NODISCARD int pd_pb_next(struct pd_pb *r, struct pd_pb_field *f,
			    const char **why);
/*
 * Appends the values of a repeated integer field, packed (PD_PB_LEN) or
 * one per field (PD_PB_VARINT): both occur, even within one file.
 * Returns 0, or -1 for a bad wire type or a malformed packed run.
 */
PD_NODISCARD int pd_pb_repeated(const struct pd_pb_field *f,
				struct pd_u64s *out);
/* The name of a wire type, for messages. */
const char *pd_pb_wire_name(int wt);

#endif
