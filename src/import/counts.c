/*
 * Sample counts for formats that give only weights (import/import.h,
 * pd_counts_from_weights): --sample-weight when given; else the greatest
 * common divisor of integral weights when chance cannot explain it, or
 * the smallest weight when every other is a multiple of it; and the
 * median stack's weight when those would make more samples than a
 * recording holds (docs/formats.md, "Folded stacks").
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/sort.h"
#include "import/formats.h"

static uint64_t gcd64(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/* Sample counts beyond any real recording's (docs/formats.md). */
#define PLAUSIBLE_SAMPLES 5e7

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The median of the stacks' own (self) weights, 0 for none. */
static double median_weight(const struct pd_profile *p)
{
	double *w = pd_xmalloc((p->nodes.n ? p->nodes.n : 1) * sizeof(*w)), m;
	size_t i, n = 0;

	for (i = 0; i < p->nodes.n; i++)
		if (p->nodes.v[i].weight > 0)
			w[n++] = p->nodes.v[i].weight;
	pd_sort(w, n, sizeof(*w), cmp_double);
	m = !n ? 0 : n % 2 ? w[n / 2] : (w[n / 2 - 1] + w[n / 2]) / 2;
	free(w);
	return m;
}

void pd_counts_from_weights(struct pd_profile *p, double sample_weight,
			    const char *what)
{
	double g = sample_weight, minw = 0, sum, least = 0;
	int integral = 1, multiples = 1;
	size_t stacks = 0;
	uint64_t ig = 0;
	struct pd_buf rule = PD_BUF_INIT;
	size_t i;

	if (!(g > 0)) {
		for (i = 0; i < p->nodes.n; i++) {
			double w = p->nodes.v[i].weight;

			if (w <= 0)
				continue;
			stacks++;
			if (w > 9e15 || w - floor(w) > 0)
				integral = 0;
			else
				ig = gcd64(ig, (uint64_t)w);
			if (minw <= 0 || w < minw)
				minw = w;
		}
		/*
		 * A common divisor is a sampling period only when chance
		 * cannot explain it: counts of a few stacks share a small
		 * one often (112 and 116 share 4), so it must be large or
		 * shared by many stacks (one in 65 536 for 2 and 16 stacks).
		 */
		if (ig > 1 && (stacks < 2 || (ig < 1000 && stacks < 16)))
			ig = 1;
		if (integral) {
			g = ig ? (double)ig : 1;
			if (g > 1)
				pd_buf_addf(&rule,
					    "sample counts = %s / %.17g, the"
					    " greatest common divisor of its"
					    " weights",
					    what, g);
			else
				pd_buf_addf(&rule,
					    "sample counts = %s (integers)",
					    what);
		} else {
			for (i = 0; i < p->nodes.n && multiples; i++) {
				double r = p->nodes.v[i].weight / minw;

				if (fabs(r - floor(r + 0.5)) > 1e-6 * (r + 1))
					multiples = 0;
			}
			if (multiples) {
				g = minw;
				pd_buf_addf(&rule,
					    "sample counts = %s / %.17g, the"
					    " smallest weight (all weights are"
					    " multiples of it)",
					    what, g);
			} else {
				g = 1;
				pd_buf_addf(&rule,
					    "sample counts = %s as written"
					    " (fractional; --sample-weight"
					    " gives the weight of one sample)",
					    what);
			}
		}
	} else {
		pd_buf_addf(&rule,
			    "sample counts = %s / %.17g (--sample-weight)",
			    what, g);
	}
	for (i = 0, sum = 0; i < p->nodes.n; i++) {
		p->nodes.v[i].count = p->nodes.v[i].weight / g;
		if (p->nodes.v[i].count > 0)
			sum += p->nodes.v[i].count;
	}
	/*
	 * More samples than a recording holds (50 M: 14 hours at 999 Hz)
	 * are weights summed per stack, not sample counts, and as counts
	 * they would make every change look certain (docs/formats.md,
	 * "Folded stacks"). Most stacks of a profile are seen a few times:
	 * the median stack's weight stands for a sample's, which errs
	 * towards too few samples, the cautious side.
	 */
	if (!(sample_weight > 0) && sum > PLAUSIBLE_SAMPLES &&
	    (least = median_weight(p)) > g) {
		pd_profile_note(p,
				"%s: %.3g samples if its numbers were sample"
				" counts, more than a recording holds: they"
				" are weights summed per stack (as"
				" stackcollapse-perf.pl sums perf's periods);"
				" read as samples of %.6g each, the median"
				" stack's weight; --sample-weight gives the"
				" real one",
				p->source ? p->source : "the profile", sum,
				least);
		g = least;
		for (i = 0; i < p->nodes.n; i++)
			p->nodes.v[i].count = p->nodes.v[i].weight / g;
		pd_buf_reset(&rule);
		pd_buf_addf(&rule,
			    "sample counts = %s / %.17g, the median stack's"
			    " weight (the %s add up to more samples than a"
			    " recording holds)",
			    what, g, what);
	}
	if (p->interval <= 0 && !(g > 1 - 1e-12 && g < 1 + 1e-12))
		p->interval = g;
	free(p->count_rule);
	p->count_rule = pd_buf_detach(&rule);
}
