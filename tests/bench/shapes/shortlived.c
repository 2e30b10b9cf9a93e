/* Shape e, short-lived: about 0.15 s with a start-up cost (build_table)
 * and a collector (gc_collect) that runs in bursts of several
 * milliseconds every GC_EVERY allocations, between steady per-item work
 * (alloc_step, process_item). Planted: process_item (PLANT_FN 1) or
 * gc_collect (PLANT_FN 2).
 * usage: shortlived [ITEMS] */
#include <stdio.h>
#include <stdlib.h>

#include "plant.h"

SHAPES_SINK;

#define TABLE (1L << 16)
#define GC_EVERY 20000

static uint64_t table[TABLE];

__attribute__((noinline)) static void build_table(void)
{
	for (long i = 0; i < TABLE; i++) {
		uint64_t h = (uint64_t)i;
		for (int r = 0; r < 60; r++)
			h = mix64(h, 0x60bee2bee120fc15ULL);
		table[i] = h;
	}
}

__attribute__((noinline)) static uint64_t alloc_step(uint64_t h)
{
	for (int r = 0; r < 20; r++)
		h = mix64(h, table[h & (TABLE - 1)]);
	return h;
}

__attribute__((noinline)) static uint64_t process_item(uint64_t h)
{
	for (int r = 0; r < PLANTED(1, 60); r++)
		h = mix64(h, 0xe7037ed1a0b428dbULL);
	return h;
}

__attribute__((noinline)) static uint64_t gc_collect(uint64_t h)
{
	/* one burst: 40 rounds for every allocation since the last */
	for (long r = 0; r < PLANTED(2, 40L) * GC_EVERY; r++)
		h = mix64(h, table[r & (TABLE - 1)]);
	return h;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 250000;
	uint64_t h = 5;
	build_table();
	for (long i = 1; i <= n; i++) {
		h = process_item(alloc_step(h + (uint64_t)i));
		if (i % GC_EVERY == 0)
			h = gc_collect(h);
	}
	shapes_sink = h;
	printf("%llu\n", (unsigned long long)h);
	return 0;
}
