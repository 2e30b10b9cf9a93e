/*
 * Doubles as the JSON reports print them (docs/cli.md, "JSON"): the
 * correctly rounded decimal of 15, 16 or 17 significant
 * digits, the first of the three that reads back as exactly the same
 * double, without trailing zeros, laid out as printf's %g lays it out.
 * Fifteen digits stripped of trailing zeros are the shortest form
 * whenever a form of fifteen digits or fewer exists, so this is the
 * shortest round-trip form but in one corner (a power of two, whose lower
 * neighbour is nearer, may have a 16-digit form that is not the nearest
 * 16-digit decimal; it then gets 17).
 *
 * The reference is printf and strtod (pd_fmt_double_ref). They cost
 * about a microsecond a number, most of a large report's writing time,
 * so numbers from 1e-11 to 1e15 are done here with exact integer
 * arithmetic instead: d = m * 2^e2, and d * 10^s = m * 5^s * 2^(e2 + s)
 * fits in 128 bits for s <= 27, which gives the digits, the rounding and
 * the read-back test exactly. A unit test checks that both give the same
 * bytes on millions of doubles.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/numfmt.h"

size_t pd_fmt_double_ref(char *out, double d)
{
	double back;
	int p;

	for (p = 15; p < 17; p++) {
		snprintf(out, PD_FMT_DOUBLE_MAX, "%1.*g", p, d);
		back = strtod(out, NULL);
		if (!(back < d) && !(back > d))
			return strlen(out);
	}
	snprintf(out, PD_FMT_DOUBLE_MAX, "%1.17g", d);
	return strlen(out);
}

/* Writes the integer digits of u ending at end; returns the first. */
static char *put_uint(char *end, uint64_t u)
{
	do
		*--end = (char)('0' + u % 10);
	while (u /= 10);
	return end;
}

/*
 * Lays out the significant digits dig[0..k) (no trailing zero) with the
 * decimal exponent x of the first, as %.<p>g does.
 */
static size_t layout(char *out, int neg, const char *dig, int k, int x, int p)
{
	char *o = out;
	int i;

	if (neg)
		*o++ = '-';
	if (x < -4 || x >= p) {
		*o++ = dig[0];
		if (k > 1) {
			*o++ = '.';
			memcpy(o, dig + 1, (size_t)k - 1);
			o += k - 1;
		}
		*o++ = 'e';
		*o++ = x < 0 ? '-' : '+';
		if (x < 0)
			x = -x;
		if (x < 10)
			*o++ = '0';
		{
			char t[8], *e = t + sizeof(t),
				   *q = put_uint(e, (uint64_t)x);

			memcpy(o, q, (size_t)(e - q));
			o += e - q;
		}
	} else if (x >= 0) {
		for (i = 0; i <= x; i++)
			*o++ = i < k ? dig[i] : '0';
		if (k > x + 1) {
			*o++ = '.';
			memcpy(o, dig + x + 1, (size_t)(k - x - 1));
			o += k - x - 1;
		}
	} else {
		*o++ = '0';
		*o++ = '.';
		for (i = -1; i > x; i--)
			*o++ = '0';
		memcpy(o, dig, (size_t)k);
		o += k;
	}
	*o = '\0';
	return (size_t)(o - out);
}

#if defined(__SIZEOF_INT128__)
__extension__ typedef unsigned __int128 u128;

/* 5^0 .. 5^27: the largest power of five below 2^63 is 5^27. */
static const uint64_t pow5_tab[28] = { 1ULL,
				       5ULL,
				       25ULL,
				       125ULL,
				       625ULL,
				       3125ULL,
				       15625ULL,
				       78125ULL,
				       390625ULL,
				       1953125ULL,
				       9765625ULL,
				       48828125ULL,
				       244140625ULL,
				       1220703125ULL,
				       6103515625ULL,
				       30517578125ULL,
				       152587890625ULL,
				       762939453125ULL,
				       3814697265625ULL,
				       19073486328125ULL,
				       95367431640625ULL,
				       476837158203125ULL,
				       2384185791015625ULL,
				       11920928955078125ULL,
				       59604644775390625ULL,
				       298023223876953125ULL,
				       1490116119384765625ULL,
				       7450580596923828125ULL };

static const uint64_t pow10_tab[18] = { 1ULL,
					10ULL,
					100ULL,
					1000ULL,
					10000ULL,
					100000ULL,
					1000000ULL,
					10000000ULL,
					100000000ULL,
					1000000000ULL,
					10000000000ULL,
					100000000000ULL,
					1000000000000ULL,
					10000000000000ULL,
					100000000000000ULL,
					1000000000000000ULL,
					10000000000000000ULL,
					100000000000000000ULL };

struct dec {
	uint64_t m; /* the 53-bit significand of d, d = m * 2^e2 */
	int e2;
	int x; /* the decimal exponent of d's first digit */
};

/*
 * The correctly rounded p-digit decimal of d into *n (its exponent moves
 * to d->x + 1 if rounding carried to 10^p); returns 1 when it reads back
 * as d, 0 when not, -1 when out of this method's range.
 */
static int round_digits(struct dec *d, int p, uint64_t *n, int *x)
{
	int s, t = 0, sh = 0, tries;
	u128 a, f, rem = 0, half = 0, lhs, rhs, gap, diff;
	uint64_t r;
	int k;

	for (tries = 0;; tries++) {
		s = p - 1 - d->x;
		if (s < 0 || s > 27 || tries > 2)
			return -1;
		a = (u128)d->m * pow5_tab[s];
		t = d->e2 + s;
		if (t >= 0) {
			if (t > 8)
				return -1;
			f = a << t;
		} else {
			sh = -t;
			if (sh > 70)
				return -1;
			f = a >> sh;
			rem = a & (((u128)1 << sh) - 1);
			half = (u128)1 << (sh - 1);
		}
		if (f >= pow10_tab[p])
			d->x++;
		else if (f < pow10_tab[p - 1])
			d->x--;
		else
			break;
	}
	r = (uint64_t)f;
	if (t < 0 && (rem > half || (rem == half && (r & 1))))
		r++;
	/* does r * 10^(x - p + 1) read back as d? Compare r with
	 * d * 10^s in units of 2^t against half the gap to d's
	 * neighbours (a quarter below a power of two). */
	if (t < 0) {
		lhs = (u128)r << sh;
		rhs = a;
		gap = pow5_tab[s];
	} else {
		lhs = r;
		rhs = a << t;
		gap = (u128)pow5_tab[s] << t;
	}
	diff = lhs > rhs ? lhs - rhs : rhs - lhs;
	k = lhs < rhs && d->m == (1ULL << 52) ? 4 : 2;
	*x = d->x;
	if (r == pow10_tab[p]) {
		r = pow10_tab[p - 1];
		(*x)++;
	}
	*n = r;
	return diff * k < gap || (diff * k == gap && !(d->m & 1));
}

/* The fast form of pd_fmt_double; 0 when d is outside its range. */
static size_t fmt_fast(char *out, double v)
{
	uint64_t bits, n;
	int be, p, x, rc, k;
	struct dec d;
	char dig[24], *e = dig + sizeof(dig), *q;

	memcpy(&bits, &v, sizeof(bits));
	be = (int)((bits >> 52) & 0x7ff);
	if (be == 0 || be == 0x7ff)
		return 0;
	d.m = (bits & ((1ULL << 52) - 1)) | (1ULL << 52);
	d.e2 = be - 1075;
	/* an estimate; round_digits corrects it by one either way */
	d.x = (int)floor((double)(be - 1023) * 0.30102999566398120);
	if (d.x < -12 || d.x > 15)
		return 0;
	for (p = 15; p <= 17; p++) {
		rc = round_digits(&d, p, &n, &x);
		if (rc < 0)
			return 0;
		if (rc)
			break;
	}
	if (p > 17)
		return 0; /* cannot happen: 17 digits always read back */
	q = put_uint(e, n);
	k = (int)(e - q);
	while (k > 1 && q[k - 1] == '0')
		k--;
	return layout(out, (int)(bits >> 63), q, k, x, p);
}
#else
static size_t fmt_fast(char *out, double v)
{
	(void)out;
	(void)v;
	return 0;
}
#endif

size_t pd_fmt_double(char *out, double d)
{
	size_t n;

	if (!(d < 0) && !(d > 0)) {
		/* printf's forms of the two zeros */
		const char *z = signbit(d) ? "-0" : "0";

		n = strlen(z);
		memcpy(out, z, n + 1);
		return n;
	}
	if (fabs(d) < 1e15 && !(d - floor(d) > 0)) {
		/* an integer: its digits are its %.15g */
		char t[24], *e = t + sizeof(t),
			    *q = put_uint(e, (uint64_t)fabs(d));

		n = (size_t)(e - q) + (d < 0);
		out[0] = '-';
		memcpy(out + (d < 0), q, (size_t)(e - q));
		out[n] = '\0';
		return n;
	}
	n = fmt_fast(out, d);
	return n ? n : pd_fmt_double_ref(out, d);
}
