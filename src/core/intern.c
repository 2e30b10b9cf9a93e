/*
 * String interning with open addressing (linear probing). Strings live in
 * large chunks that never move, so the returned pointers stay valid.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "core/limits.h"
#include "core/intern.h"
#include "core/xalloc.h"

#define CHUNK (256u * 1024u)

/* One lane's step: FNV-1a's multiply over a word, its high bits folded. */
static inline uint64_t lane(uint64_t x, const unsigned char *s, int r)
{
	uint64_t w;

	memcpy(&w, s, 8);
	x = (x ^ w) * 0x100000001b3ULL;
	return x ^ x >> r;
}

uint32_t pd_hash_bytes(const void *p, size_t n)
{
	/*
	 * Four lanes of 8-byte words (32 bytes a step: the four
	 * multiplications run side by side, so a 90-byte perf frame line is
	 * three steps of latency, not six), the tail's words spread over the
	 * lanes, the last one read so that it ends at the string's end, then
	 * a 64-bit mix. Only hashed in memory, never stored: free to change.
	 */
	const unsigned char *s = p;
	uint64_t a = 0xcbf29ce484222325ULL ^ n, b = 0x84222325cbf29ce4ULL,
		 c = 0x9e3779b97f4a7c15ULL, d = 0xc2b2ae3d27d4eb4fULL, w = 0;

	if (n < 8) {
		memcpy(&w, s, n);
		a = (a ^ w) * 0x100000001b3ULL;
		return (uint32_t)pd_hash_u64(a ^ a >> 29);
	}
	while (n > 32) {
		a = lane(a, s, 29);
		b = lane(b, s + 8, 31);
		c = lane(c, s + 16, 27);
		d = lane(d, s + 24, 33);
		s += 32;
		n -= 32;
	}
	/* 8 to 32 bytes left: whole words from the front, one per lane */
	if (n > 8)
		c = lane(c, s, 27);
	if (n > 16)
		b = lane(b, s + 8, 31);
	if (n > 24)
		a = lane(a, s + 16, 29);
	d = lane(d, s + n - 8, 33);
	a += (b << 17 | b >> 47) + (c << 31 | c >> 33) + (d << 47 | d >> 17);
	return (uint32_t)pd_hash_u64(a);
}

void pd_intern_init(struct pd_intern *t)
{
	memset(t, 0, sizeof(*t));
	pd_intern(t, "", 0);
}

void pd_intern_release(struct pd_intern *t)
{
	size_t i;

	for (i = 0; i < t->nchunks; i++)
		free(t->chunks[i]);
	free(t->chunks);
	free(t->str);
	free(t->len);
	free(t->hashv);
	free(t->slots);
	memset(t, 0, sizeof(*t));
}

static char *store(struct pd_intern *t, const char *s, size_t len)
{
	char *p;

	if (len + 1 > CHUNK) {
		/* A long string gets a chunk of its own. */
		p = pd_xmalloc(len + 1);
		t->chunks = pd_xreallocarray(t->chunks, t->nchunks + 1,
					     sizeof(*t->chunks));
		if (t->nchunks) {
			t->chunks[t->nchunks] = t->chunks[t->nchunks - 1];
			t->chunks[t->nchunks - 1] = p;
		} else {
			t->chunks[0] = p;
			t->chunk_used = t->chunk_cap = 0;
		}
		t->nchunks++;
	} else {
		if (!t->nchunks || t->chunk_used + len + 1 > t->chunk_cap) {
			t->chunks = pd_xreallocarray(t->chunks, t->nchunks + 1,
						     sizeof(*t->chunks));
			t->chunks[t->nchunks++] = pd_xmalloc(CHUNK);
			t->chunk_used = 0;
			t->chunk_cap = CHUNK;
		}
		p = t->chunks[t->nchunks - 1] + t->chunk_used;
		t->chunk_used += len + 1;
	}
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

static void rehash(struct pd_intern *t)
{
	size_t ns = t->nslots ? t->nslots * 2 : 1024;
	uint32_t *slots = pd_xcalloc(ns, sizeof(*slots));
	size_t i;

	for (i = 0; i < t->n; i++) {
		size_t j = t->hashv[i] & (ns - 1);

		while (slots[j])
			j = (j + 1) & (ns - 1);
		slots[j] = (uint32_t)i + 1;
	}
	free(t->slots);
	t->slots = slots;
	t->nslots = ns;
}

/* Slot of s: the one holding it, or the empty one where it would go. */
static size_t probe(const struct pd_intern *t, const char *s, size_t len,
		    uint32_t h)
{
	size_t j;

	/* the mask below finds every slot only in a power-of-two table */
	assert(t->nslots && !(t->nslots & (t->nslots - 1)));
	for (j = h & (t->nslots - 1); t->slots[j];
	     j = (j + 1) & (t->nslots - 1)) {
		uint32_t id = t->slots[j] - 1;

		if (t->hashv[id] == h && t->len[id] == len &&
		    !memcmp(t->str[id], s, len))
			break;
	}
	return j;
}

/*
 * In a text table, s with each NUL byte written \x00 (owned, its length
 * in *out); NULL when s holds none or the table is not of text.
 */
static char *nul_escaped(const struct pd_intern *t, const char *s, size_t len,
			 size_t *out)
{
	size_t i, k = 0, nul = 0;
	char *e;

	if (!t->text || !len || !memchr(s, 0, len))
		return NULL;
	for (i = 0; i < len; i++)
		nul += !s[i];
	e = pd_xmalloc(len + 3 * nul + 1);
	for (i = 0; i < len; i++) {
		if (s[i]) {
			e[k++] = s[i];
			continue;
		}
		memcpy(e + k, "\\x00", 4);
		k += 4;
	}
	e[k] = '\0';
	*out = k;
	return e;
}

uint32_t pd_intern_find(const struct pd_intern *t, const char *s, size_t len)
{
	size_t j, n;
	char *e;

	if (!t->nslots)
		return UINT32_MAX;
	if ((e = nul_escaped(t, s, len, &n))) {
		uint32_t id = pd_intern_find(t, e, n);

		free(e);
		return id;
	}
	j = probe(t, s, len, pd_hash_bytes(s, len));
	return t->slots[j] ? t->slots[j] - 1 : UINT32_MAX;
}

/* Keeps the first refused string's length and printable start. */
static uint32_t refuse(struct pd_intern *t, const char *s, size_t len)
{
	size_t i;

	if (t->over_len)
		return 0;
	t->over_len = len;
	for (i = 0; i < PD_INTERN_OVER_START && i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		t->over_start[i] = c >= 0x20 && c < 0x7f ? (char)c : '?';
	}
	t->over_start[i] = '\0';
	return 0;
}

uint32_t pd_intern(struct pd_intern *t, const char *s, size_t len)
{
	uint32_t h;
	size_t j, n;
	char *e;

	if ((e = nul_escaped(t, s, len, &n))) {
		uint32_t id = pd_intern(t, e, n);

		free(e);
		return id;
	}

	/*
	 * Id 0 is the empty string only when the table was initialised
	 * (pd_intern_init interns it first): a name getting id 0 would read
	 * as "no name" everywhere.
	 */
	assert(s || !len);
	assert(t->n || !len);
	if (t->max_len && len > t->max_len)
		return refuse(t, s, len);
	h = pd_hash_bytes(s, len);

	if ((t->n + 1) * 2 > t->nslots)
		rehash(t);
	j = probe(t, s, len, h);
	if (t->slots[j])
		return t->slots[j] - 1;
	if (len > UINT32_MAX)
		pd_die_limit(UINT32_MAX, "bytes in one name", "PD_LIMIT_IDS");
	if (t->n >= PD_LIMIT_IDS)
		pd_die_limit(PD_LIMIT_IDS, "distinct names", "PD_LIMIT_IDS");
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 256;
		t->str = pd_xreallocarray(t->str, t->cap, sizeof(*t->str));
		t->len = pd_xreallocarray(t->len, t->cap, sizeof(*t->len));
		t->hashv =
		    pd_xreallocarray(t->hashv, t->cap, sizeof(*t->hashv));
	}
	t->str[t->n] = store(t, s, len);
	t->len[t->n] = (uint32_t)len;
	t->hashv[t->n] = h;
	t->slots[j] = (uint32_t)t->n + 1;
	return (uint32_t)t->n++;
}

uint32_t pd_intern_cstr(struct pd_intern *t, const char *s)
{
	return pd_intern(t, s, strlen(s));
}
