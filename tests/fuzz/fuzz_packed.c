/*
 * libFuzzer target for run_packed blobs (store/packed.c; docs/history.md,
 * "Tables"): any bytes as a blob (the first byte a row count) are read
 * row by row without a read outside them, and what decodes re-encodes to
 * rows that decode the same.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "store/packed.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int same(double a, double b)
{
	return (isnan(a) && isnan(b)) || !memcmp(&a, &b, sizeof(a));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pd_packed_row rows[256], got;
	struct pd_packed_it it;
	struct pd_buf b = PD_BUF_INIT;
	size_t n = 0, want, i;
	int rc, k;

	if (!size)
		return 0;
	want = data[0];
	pd_packed_start(&it, data + 1, size - 1, want);
	while ((rc = pd_packed_next(&it, &rows[n])) == 1) {
		if (it.p > it.end || n >= want || rows[n].fid <= 0 ||
		    (n && rows[n].fid <= rows[n - 1].fid))
			__builtin_trap();
		n++;
	}
	if (rc == 0 && n != want)
		__builtin_trap();
	/* -0 and integral doubles below 9e15 come back as integers */
	for (i = 0; i < n; i++)
		for (k = 0; k < 4; k++)
			rows[i].v[k] += 0.0;
	pd_packed_encode(&b, rows, n);
	pd_packed_start(&it, b.buf, b.len, n);
	for (i = 0; i < n; i++) {
		if (pd_packed_next(&it, &got) != 1 || got.fid != rows[i].fid)
			__builtin_trap();
		for (k = 0; k < 4; k++)
			if (!same(got.v[k], rows[i].v[k]))
				__builtin_trap();
	}
	if (pd_packed_next(&it, &got) != 0)
		__builtin_trap();
	pd_buf_release(&b);
	return 0;
}
