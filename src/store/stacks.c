/*
 * The stack tree of a stored run (history.md, run_stacks): per node after
 * the root, little-endian u32 parent, u32 function, f64 weight, f64 count
 * (24 bytes), parents before children; zlib-compressed in the database.
 */
#include <assert.h>
#include <stdint.h>
#include <string.h>
#include <zlib.h>

#include "core/limits.h"
#include "core/xalloc.h"
#include "store/store.h"

#define RECORD 24

static void put_u32(unsigned char *c, uint32_t v)
{
	c[0] = (unsigned char)v;
	c[1] = (unsigned char)(v >> 8);
	c[2] = (unsigned char)(v >> 16);
	c[3] = (unsigned char)(v >> 24);
}

static uint32_t get_u32(const unsigned char *c)
{
	return (uint32_t)c[0] | (uint32_t)c[1] << 8 | (uint32_t)c[2] << 16 |
	       (uint32_t)c[3] << 24;
}

static void put_f64(unsigned char *c, double d)
{
	uint64_t v;
	int i;

	memcpy(&v, &d, 8);
	for (i = 0; i < 8; i++)
		c[i] = (unsigned char)(v >> (8 * i));
}

static double get_f64(const unsigned char *c)
{
	uint64_t v = 0;
	double d;
	int i;

	for (i = 7; i >= 0; i--)
		v = v << 8 | c[i];
	memcpy(&d, &v, 8);
	return d;
}

void pd_stacks_records(const struct pd_profile *p, const uint32_t *node_func,
		       struct pd_buf *raw)
{
	size_t i;

	for (i = 1; i < p->nodes.n; i++) {
		unsigned char c[RECORD];

		/* parents first: readers take a later parent for corruption */
		assert(p->nodes.v[i].parent < i);
		put_u32(c, p->nodes.v[i].parent);
		put_u32(c + 4, node_func[i]);
		put_f64(c + 8, p->nodes.v[i].weight);
		put_f64(c + 16, p->nodes.v[i].count);
		pd_buf_add(raw, c, RECORD);
	}
}

void pd_stacks_compress(const struct pd_buf *raw, struct pd_buf *out)
{
	uLongf n = compressBound((uLong)raw->len);

	pd_buf_grow(out, n);
	if (compress2((Bytef *)out->buf + out->len, &n, (const Bytef *)raw->buf,
		      (uLong)raw->len, 6) != Z_OK)
		pd_die_oom(n);
	out->len += n;
}

void pd_stacks_encode(const struct pd_profile *p, const uint32_t *node_func,
		      struct pd_buf *out)
{
	struct pd_buf raw = PD_BUF_INIT;

	pd_stacks_records(p, node_func, &raw);
	pd_stacks_compress(&raw, out);
	pd_buf_release(&raw);
}

/*
 * Deflate gives at most 1032 bytes for one (a run of one byte value), so
 * a node count whose records could not come out of the blob is a damaged
 * row: refused before room for them is allocated, and before the count
 * times RECORD can wrap (a negative count read as a size) or outgrow
 * zlib's uLong, 32 bits on 64-bit Windows.
 */
#define MAX_INFLATE 1032

int pd_stacks_decode(const void *blob, size_t n, size_t nodes,
		     struct pd_buf *raw, struct pd_err *err)
{
	uint64_t bytes = (uint64_t)nodes * RECORD;
	uLongf want;

	if (nodes > PD_LIMIT_IDS || bytes / MAX_INFLATE > n ||
	    bytes > (uLongf)-1)
		return pd_err_set(err, PD_EPARSE, "corrupt stack tree blob");
	want = (uLongf)bytes;
	pd_buf_reset(raw);
	pd_buf_grow(raw, want);
	if (uncompress((Bytef *)raw->buf, &want, blob, (uLong)n) != Z_OK ||
	    want != nodes * RECORD)
		return pd_err_set(err, PD_EPARSE, "corrupt stack tree blob");
	raw->len = want;
	return 0;
}

void pd_stacks_node(const struct pd_buf *raw, size_t i,
		    struct pd_stack_node *nd)
{
	const unsigned char *c = (const unsigned char *)raw->buf + i * RECORD;

	assert((i + 1) * RECORD <= raw->len);
	nd->parent = get_u32(c);
	nd->func = get_u32(c + 4);
	nd->weight = get_f64(c + 8);
	nd->count = get_f64(c + 16);
}

void pd_stacks_set_func(struct pd_buf *raw, size_t i, uint32_t func)
{
	assert((i + 1) * RECORD <= raw->len);
	put_u32((unsigned char *)raw->buf + i * RECORD + 4, func);
}
