#include <stdlib.h>

#include "core/sort.h"

void pd_sort(void *base, size_t n, size_t size, pd_cmp_fn cmp)
{
	if (n > 1)
		qsort(base, n, size, cmp);
}

void *pd_bsearch(const void *key, const void *base, size_t n, size_t size,
		 pd_cmp_fn cmp)
{
	return n ? bsearch(key, base, n, size, cmp) : NULL;
}

size_t pd_lower_bound(const void *key, const void *base, size_t n, size_t size,
		      pd_cmp_fn cmp)
{
	const char *b = base;
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cmp(b + mid * size, key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}
