/* Shape b, finely interleaved: every item passes through eight functions
 * of different weights (rounds per item: 60 50 40 35 30 25 12 8, of 260),
 * so all of them are sampled all the time. Planted: transform (PLANT_FN 1,
 * 50 of 260 rounds, about 19 % of the run).
 * usage: interleaved [ITEMS] */
#include <stdio.h>
#include <stdlib.h>

#include "plant.h"

SHAPES_SINK;

#define STAGE(name, rounds, key)                                         \
	__attribute__((noinline)) static uint64_t name(uint64_t h)        \
	{                                                                 \
		for (int r = 0; r < (rounds); r++)                        \
			h = mix64(h, (key) + (uint64_t)r);                \
		return h;                                                 \
	}

STAGE(decode, 60, 0x1111111111111111ULL)
STAGE(transform, PLANTED(1, 50), 0x2222222222222222ULL)
STAGE(hash_key, 40, 0x3333333333333333ULL)
STAGE(compress, 35, 0x4444444444444444ULL)
STAGE(validate, 30, 0x5555555555555555ULL)
STAGE(lookup, 25, 0x6666666666666666ULL)
STAGE(emit, 12, 0x7777777777777777ULL)
STAGE(log_stat, 8, 0x8888888888888888ULL)

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 300000;
	uint64_t h = 1;
	for (long i = 0; i < n; i++) {
		h = decode(h + (uint64_t)i);
		h = validate(h);
		h = transform(h);
		h = lookup(h);
		h = hash_key(h);
		h = compress(h);
		h = emit(h);
		h = log_stat(h);
	}
	shapes_sink = h;
	printf("%llu\n", (unsigned long long)h);
	return 0;
}
