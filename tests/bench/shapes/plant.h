/* The planted change of the shape programs: PLANT_PCT (+10, +20, +35,
 * -25, default 0) more or less work in the function numbered PLANT_FN
 * (default 1), as a rebuild of changed source would do. Work counts are
 * multiples of 20, so the change is exact: +20 % is 1.2 times the steps. */
#ifndef SHAPES_PLANT_H
#define SHAPES_PLANT_H
#include <stdint.h>

#ifndef PLANT_PCT
#define PLANT_PCT 0
#endif
#ifndef PLANT_FN
#define PLANT_FN 1
#endif

#define PLANTED(fn, n) ((PLANT_FN) == (fn) ? (n) * (100 + (PLANT_PCT)) / 100 : (n))

/* The deterministic kernel: one round of a 64-bit mixer. A chain of
 * rounds cannot be vectorised or shortened by the compiler. */
static inline uint64_t mix64(uint64_t x, uint64_t k)
{
	x ^= k;
	x ^= x >> 31;
	x *= 0x7fb5d329728ea185ULL;
	x ^= x >> 27;
	x *= 0x81dadef4bc2dd44dULL;
	x ^= x >> 33;
	return x;
}

/* A sink the compiler must write. */
extern volatile uint64_t shapes_sink;
#define SHAPES_SINK volatile uint64_t shapes_sink

#endif
