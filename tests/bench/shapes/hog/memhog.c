/* Background load for tests/bench/record_shapes.sh: dependent random
 * reads over 64 MiB, forever, competing for the memory bus and the
 * last-level cache. */
#include <stdint.h>
#include <stdlib.h>

int main(void)
{
	size_t n = (size_t)8 << 20;
	uint64_t *a = malloc(n * sizeof *a), h = 1;
	if (!a)
		return 1;
	for (size_t i = 0; i < n; i++)
		a[i] = i * 0x9e3779b97f4a7c15ULL;
	for (;;) {
		h = a[h & (n - 1)] ^ (h >> 7);
		a[(h >> 3) & (n - 1)] = h;
	}
}
