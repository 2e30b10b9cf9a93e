/*
 * Typed growable arrays. A PD_VEC owns its storage; release it with
 * PD_VEC_FREE. Elements move when the array grows: keep indices, not pointers.
 */
#ifndef PD_VEC_H
#define PD_VEC_H

#include <assert.h>
#include <stddef.h>
#include "core/xalloc.h"

#define PD_VEC(T)                                                              \
	struct {                                                               \
		T *v;                                                          \
		size_t n, cap;                                                 \
	}

#define PD_VEC_INIT                                                            \
	{                                                                      \
		NULL, 0, 0                                                     \
	}

/*
 * Makes room for at least `want` elements, doubling. A vector that is not
 * one (never initialised, or its count past its room) would be written
 * out of bounds: that is checked first.
 */
#define PD_VEC_RESERVE(vec, want)                                              \
	do {                                                                   \
		assert((vec)->n <= (vec)->cap && ((vec)->v || !(vec)->cap));   \
		if ((want) > (vec)->cap) {                                     \
			size_t pd_nc_ = (vec)->cap ? (vec)->cap : 8;           \
			while (pd_nc_ < (want))                                \
				pd_nc_ *= 2;                                   \
			(vec)->v = pd_xreallocarray((vec)->v, pd_nc_,          \
						    sizeof(*(vec)->v));        \
			(vec)->cap = pd_nc_;                                   \
		}                                                              \
	} while (0)

#define PD_VEC_PUSH(vec, x)                                                    \
	do {                                                                   \
		PD_VEC_RESERVE((vec), (vec)->n + 1);                           \
		(vec)->v[(vec)->n++] = (x);                                    \
	} while (0)

#define PD_VEC_FREE(vec)                                                       \
	do {                                                                   \
		free((vec)->v);                                                \
		(vec)->v = NULL;                                               \
		(vec)->n = (vec)->cap = 0;                                     \
	} while (0)

#define PD_VEC_FOREACH(it, vec)                                                \
	for ((it) = (vec)->v; (it) && (it) < (vec)->v + (vec)->n; (it)++)

#endif
