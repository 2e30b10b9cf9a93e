/*
 * String interning: each distinct byte string gets a dense uint32 id, so names
 * compare with ==. The table owns every string; ids stay valid until
 * pd_intern_release(). Id 0 is always the empty string.
 */
#ifndef PD_INTERN_H
#define PD_INTERN_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>

/* Bytes of a refused string's start kept for its message. */
#define PD_INTERN_OVER_START 32

struct pd_intern {
	char **chunks; /* string storage, never moves */
	size_t nchunks, chunk_used, chunk_cap;
	const char **str; /* id -> string */
	uint32_t *len;	  /* id -> length */
	uint32_t *hashv;  /* id -> hash */
	size_t n, cap;
	uint32_t *slots; /* open addressing: id + 1, 0 = empty */
	size_t nslots;
	/*
	 * With max_len set (0: no cap), a longer string is not stored: it
	 * gets id 0 and the first one's length and start are kept here for
	 * the owner's error message (pd_import checks them).
	 */
	size_t max_len, over_len;
	char over_start[PD_INTERN_OVER_START + 1];
	/*
	 * A table of names (a profile's): a NUL byte inside a string is
	 * stored as the four characters \x00, so that the name stays whole
	 * wherever it is printed as a C string, and two names that differ
	 * after a NUL stay two.
	 */
	int text;
};

void pd_intern_init(struct pd_intern *t);
void pd_intern_release(struct pd_intern *t);
/* The id of s; id 0 for a string past max_len (see over_len). */
uint32_t pd_intern(struct pd_intern *t, const char *s, size_t len);
uint32_t pd_intern_cstr(struct pd_intern *t, const char *s);
/* Returns the id of s, or UINT32_MAX when s was never interned. */
uint32_t pd_intern_find(const struct pd_intern *t, const char *s, size_t len);
static inline const char *pd_intern_str(const struct pd_intern *t, uint32_t id)
{
	assert(id < t->n);
	return t->str[id];
}
static inline size_t pd_intern_len(const struct pd_intern *t, uint32_t id)
{
	assert(id < t->n);
	return t->len[id];
}
uint32_t pd_hash_bytes(const void *p, size_t n);
static inline uint64_t pd_hash_u64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

#endif
