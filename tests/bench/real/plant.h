/*
 * The planted change of the real-program benchmark (tests/bench/real):
 * PD_PLANT(i) at the entry of a real function adds PD_Ki dependent
 * additions, which the compiler can neither drop nor fold (the asm
 * barrier keeps the running value in a register it must produce). The
 * count is read from a volatile, so the code is the same loop whatever
 * the count: the compiler cannot unroll a small one or inline the
 * function differently by it, and the cost grows in proportion. With
 * PD_Ki 0 (the default) nothing is left and the build is the original.
 * Forced inline, so the work is the function's own self time.
 */
#ifndef PD_BENCH_PLANT_H
#define PD_BENCH_PLANT_H

#ifndef PD_K0
#define PD_K0 0
#endif
#ifndef PD_K1
#define PD_K1 0
#endif

static inline __attribute__((always_inline)) void pd_plant_burn(unsigned long n)
{
	unsigned long x = 0, i;

	for (i = 0; i < n; i++) {
		x += i;
		__asm__ volatile("" : "+r"(x));
	}
}

#define PD_PLANT(i)                                                           \
	do {                                                                  \
		if (PD_K##i) {                                                \
			static volatile unsigned long pd_n_ = PD_K##i;        \
			pd_plant_burn(pd_n_);                                 \
		}                                                             \
	} while (0)

#endif
