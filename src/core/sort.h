/*
 * Sorting and searching arrays that may be empty. The C library's qsort
 * and bsearch want a valid pointer even for no elements, and an empty
 * PD_VEC has none: these take (NULL, 0) as the empty array it is.
 */
#ifndef PD_SORT_H
#define PD_SORT_H

#include <stddef.h>

typedef int (*pd_cmp_fn)(const void *, const void *);

/* qsort of n elements; nothing to do for n < 2. */
void pd_sort(void *base, size_t n, size_t size, pd_cmp_fn cmp);
/* bsearch of a sorted array; NULL for n == 0. */
void *pd_bsearch(const void *key, const void *base, size_t n, size_t size,
		 pd_cmp_fn cmp);
/*
 * The index of the first element of the sorted array that does not
 * compare below key (n when every one does).
 */
size_t pd_lower_bound(const void *key, const void *base, size_t n, size_t size,
		      pd_cmp_fn cmp);
/*
 * The same search inline, for a search in a reader's inner loop: at
 * becomes the index of the first of the n elements of array v, sorted by
 * their member m, whose m is not below key (n when every one is).
 */
#define PD_LOWER_BOUND(at, v, n, m, key)                                       \
	do {                                                                   \
		size_t lb_lo_ = 0, lb_hi_ = (n);                               \
		while (lb_lo_ < lb_hi_) {                                      \
			size_t lb_mid_ = lb_lo_ + (lb_hi_ - lb_lo_) / 2;       \
			if ((v)[lb_mid_].m < (key))                            \
				lb_lo_ = lb_mid_ + 1;                          \
			else                                                   \
				lb_hi_ = lb_mid_;                              \
		}                                                              \
		(at) = lb_lo_;                                                 \
	} while (0)

#endif
