/*
 * [MS-XCA] "plain LZ77" decompression (Microsoft's Xpress without
 * Huffman coding), section 2.4 of the specification: 32-bit flag words
 * whose bits, from the highest, say literal (0) or match (1); a match is
 * a 16-bit word of offset and length, with longer lengths in a shared
 * half byte, a byte, then 16 or 32 bits.
 */
#include <string.h>

#include "import/etl/etl.h"

static uint32_t rd16(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

static uint32_t rd32(const unsigned char *p)
{
	return rd16(p) | rd16(p + 2) << 16;
}

/*
 * The length of a match whose 3-bit length was 7, read from *in on; the
 * half byte is shared by two matches (*half remembers where). Returns
 * the full length, or 0 when the input ends or says less than it must.
 */
static size_t long_length(const unsigned char *src, size_t n, size_t *in,
			  size_t *half)
{
	size_t len;

	if (*half == 0) {
		if (*in >= n)
			return 0;
		len = src[*in] & 15;
		*half = *in + 1; /* +1: 0 means no half byte waiting */
		(*in)++;
	} else {
		len = src[*half - 1] >> 4;
		*half = 0;
	}
	if (len == 15) {
		if (*in >= n)
			return 0;
		len = src[(*in)++];
		if (len == 255) {
			if (*in + 2 > n)
				return 0;
			len = rd16(src + *in);
			*in += 2;
			if (len == 0) {
				if (*in + 4 > n)
					return 0;
				len = rd32(src + *in);
				*in += 4;
			}
			if (len < 15 + 7)
				return 0;
			len -= 15 + 7;
		}
		len += 15;
	}
	return len + 7 + 3;
}

long pd_xpress_lz77(const unsigned char *src, size_t n, unsigned char *dst,
		    size_t cap, size_t *bad)
{
	size_t in = 0, out = 0, half = 0, len, off;
	uint32_t flags = 0;
	int nflags = 0;

	for (;;) {
		if (nflags == 0) {
			if (in + 4 > n)
				break;
			flags = rd32(src + in);
			in += 4;
			nflags = 32;
		}
		nflags--;
		if (in >= n)
			break;
		if (!(flags >> nflags & 1)) {
			if (out >= cap)
				goto fail;
			dst[out++] = src[in++];
			continue;
		}
		if (in + 2 > n)
			goto fail;
		len = rd16(src + in);
		off = (len >> 3) + 1;
		len &= 7;
		in += 2;
		if (len == 7) {
			len = long_length(src, n, &in, &half);
			if (!len)
				goto fail;
		} else {
			len += 3;
		}
		if (off > out || len > cap - out)
			goto fail;
		/* overlapping copies repeat the bytes just written */
		for (; len; len--, out++)
			dst[out] = dst[out - off];
	}
	return (long)out;
fail:
	*bad = in;
	return -1;
}
