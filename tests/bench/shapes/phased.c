/* Shape a, phased: generate all input, then parse every record, then
 * build an index, then checksum. Each function's samples fall in its own
 * phase of the run. Planted: parse_record (PLANT_FN 1).
 * usage: phased [RECORDS] */
#include <stdio.h>
#include <stdlib.h>

#include "plant.h"

SHAPES_SINK;

#define WORDS 8

__attribute__((noinline)) static void read_input(uint64_t *buf, long n)
{
	for (long i = 0; i < n * WORDS; i++) {
		uint64_t h = (uint64_t)i;
		for (int r = 0; r < 20; r++)
			h = mix64(h, 0x9e3779b97f4a7c15ULL);
		buf[i] = h;
	}
}

__attribute__((noinline)) static uint64_t parse_record(const uint64_t *rec)
{
	uint64_t h = 0;
	for (int r = 0; r < PLANTED(1, 400); r++)
		h = mix64(h, rec[r & (WORDS - 1)]);
	return h;
}

__attribute__((noinline)) static void build_index(const uint64_t *dig, long n,
						  uint64_t *table, long mask)
{
	for (long i = 0; i < n; i++) {
		uint64_t h = dig[i];
		for (int r = 0; r < 160; r++)
			h = mix64(h, 0x2545f4914f6cdd1dULL);
		table[h & (uint64_t)mask] += h;
	}
}

__attribute__((noinline)) static uint64_t checksum(const uint64_t *buf, long n)
{
	uint64_t h = 0;
	for (int pass = 0; pass < 3; pass++)
		for (long i = 0; i < n * WORDS; i++)
			h = mix64(h, buf[i]) + (uint64_t)pass;
	return h;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 120000;
	uint64_t *buf = malloc((size_t)n * WORDS * sizeof *buf);
	uint64_t *dig = malloc((size_t)n * sizeof *dig);
	long mask = (1L << 16) - 1;
	uint64_t *table = calloc((size_t)mask + 1, sizeof *table);
	if (!buf || !dig || !table)
		return 1;
	read_input(buf, n);
	for (long i = 0; i < n; i++)
		dig[i] = parse_record(buf + i * WORDS);
	build_index(dig, n, table, mask);
	shapes_sink = checksum(buf, n) + table[7];
	printf("%llu\n", (unsigned long long)shapes_sink);
	free(buf);
	free(dig);
	free(table);
	return 0;
}
