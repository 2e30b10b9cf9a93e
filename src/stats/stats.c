/*
 * Statistics primitives.
 *
 * Algorithm note: the incomplete beta function uses the continued fraction
 * of Numerical Recipes section 6.4, evaluated with the modified Lentz
 * method, switching to the symmetric form when x > (a+1)/(a+b+2) so that
 * the fraction converges quickly. Binomial tails follow from
 * P(X >= k) = I_p(k, n-k+1), which also holds for fractional k and n.
 */
#include <assert.h>
#include <math.h>
#include <stdint.h>
#include "core/compat.h"
#include <stdlib.h>
#include <string.h>

#include "core/intern.h"
#include "core/sort.h"
#include "core/xalloc.h"
#include "stats/stats.h"

double pd_norm_sf(double x)
{
	return 0.5 * erfc(x / sqrt(2.0));
}

double pd_norm_quantile(double p)
{
	/*
	 * Abramowitz and Stegun 26.2.23 (error below 5e-4) for the start,
	 * then Newton's method on the upper tail, which converges in two
	 * or three steps from there.
	 */
	double tail = p < 0.5 ? p : 1 - p, r, z;
	int i;

	if (!(p > 0))
		return -HUGE_VAL;
	if (!(p < 1))
		return HUGE_VAL;
	r = sqrt(-2 * log(tail));
	z = r -
	    (2.515517 + 0.802853 * r + 0.010328 * r * r) /
		(1 + 1.432788 * r + 0.189269 * r * r + 0.001308 * r * r * r);
	for (i = 0; i < 8; i++) {
		double step = (pd_norm_sf(z) - tail) /
			      (exp(-0.5 * z * z) / 2.5066282746310002);

		z += step;
		if (fabs(step) <= 1e-15 * fmax(fabs(z), 1))
			break;
	}
	return p < 0.5 ? -z : z;
}

/* Keeps a Lentz term away from zero. */
static double nonzero(double v)
{
	return fabs(v) < 1e-300 ? 1e-300 : v;
}

/*
 * One step of the modified Lentz method with partial numerator aa:
 * updates the running c and d and returns the factor for the fraction.
 */
static double lentz_step(double aa, double *c, double *d)
{
	*d = 1 / nonzero(1 + aa * *d);
	*c = nonzero(1 + aa / *c);
	return *d * *c;
}

static double betacf(double a, double b, double x)
{
	const double eps = 1e-15;
	double qab = a + b, qap = a + 1, qam = a - 1;
	double c = 1, d = 1 / nonzero(1 - qab * x / qap), h = d;
	int m;

	for (m = 1; m <= 10000; m++) {
		int m2 = 2 * m;
		double del;

		/* the even and the odd term of the fraction */
		h *= lentz_step(m * (b - m) * x / ((qam + m2) * (a + m2)), &c,
				&d);
		del = lentz_step(
		    -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2)), &c, &d);
		h *= del;
		if (fabs(del - 1) < eps)
			break;
	}
	return h;
}

double pd_betai(double a, double b, double x)
{
	double bt;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	bt = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) +
		 b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return bt * betacf(a, b, x) / a;
	return 1 - bt * betacf(b, a, 1 - x) / b;
}

double pd_binom_two_sided(double k, double n, double p0)
{
	double upper, lower, p;

	assert(p0 >= 0 && p0 <= 1);
	if (n <= 0)
		return 1;
	if (k < 0)
		k = 0;
	if (k > n)
		k = n;
	/* P(X >= k) and P(X <= k), continuous in k. */
	upper = k <= 0 ? 1 : pd_betai(k, n - k + 1, p0);
	lower = k >= n ? 1 : 1 - pd_betai(k + 1, n - k, p0);
	p = 2 * (upper < lower ? upper : lower);
	return p > 1 ? 1 : p;
}

/*
 * Polygamma functions by recurrence up to x >= 16, then their asymptotic
 * series (Abramowitz & Stegun 6.3.18, 6.4.12): ample for the prior's
 * degrees of freedom (statistics.md).
 */
double pd_digamma(double x)
{
	double r = 0, x2;

	for (; x < 16; x += 1)
		r -= 1 / x;
	x2 = 1 / (x * x);
	return r + log(x) - 0.5 / x -
	       x2 * (1.0 / 12 -
		     x2 * (1.0 / 120 -
			   x2 * (1.0 / 252 - x2 * (1.0 / 240 - x2 / 132))));
}

double pd_trigamma(double x)
{
	double r = 0, x2;

	for (; x < 16; x += 1)
		r += 1 / (x * x);
	x2 = 1 / (x * x);
	return r + 1 / x + x2 / 2 +
	       x2 / x * (1.0 / 6 - x2 * (1.0 / 30 - x2 * (1.0 / 42 - x2 / 30)));
}

double pd_tetragamma(double x)
{
	double r = 0, x2;

	for (; x < 16; x += 1)
		r -= 2 / (x * x * x);
	x2 = 1 / (x * x);
	return r - x2 - x2 / x -
	       x2 * x2 * (0.5 - x2 * (1.0 / 6 - x2 * (1.0 / 6 - x2 * 0.3)));
}

double pd_trigamma_inv(double x)
{
	double y;
	int i;

	if (x > 1e7)
		return 1 / sqrt(x);
	if (x < 1e-6)
		return 1 / x;
	/* trigamma is convex and decreasing: Newton from below converges */
	y = 0.5 + 1 / x;
	for (i = 0; i < 50; i++) {
		double tri = pd_trigamma(y);
		double dif = tri * (1 - tri / x) / pd_tetragamma(y);

		y += dif;
		if (-dif / y < 1e-10)
			break;
	}
	return y;
}

double pd_f_sf(double x, double d1, double d2)
{
	if (!(x > 0))
		return 1;
	/* P(F <= x) = I_{d1 x / (d1 x + d2)}(d1/2, d2/2) */
	return 1 - pd_betai(d1 / 2, d2 / 2, d1 * x / (d1 * x + d2));
}

/*
 * The regularised upper incomplete gamma Q(a, x): by its power series
 * for P = 1 - Q below x = a + 1, by its continued fraction (modified
 * Lentz) above, where each converges fast.
 */
static double gamma_q(double a, double x)
{
	double lead, sum, term, b, c, dd, h, del;
	int n;

	if (!(x > 0))
		return 1;
	lead = exp(-x + a * log(x) - lgamma(a));
	if (x < a + 1) {
		term = sum = 1 / a;
		for (n = 1; n < 1000; n++) {
			term *= x / (a + n);
			sum += term;
			if (fabs(term) < fabs(sum) * 1e-15)
				break;
		}
		return fmax(0, 1 - sum * lead);
	}
	b = x + 1 - a;
	c = 1 / 1e-300;
	dd = 1 / b;
	h = dd;
	for (n = 1; n < 1000; n++) {
		double an = -n * (n - a);

		b += 2;
		dd = 1 / nonzero(an * dd + b);
		c = nonzero(b + an / c);
		del = dd * c;
		h *= del;
		if (fabs(del - 1) < 1e-15)
			break;
	}
	return lead * h;
}

double pd_chi2_sf(double x, double df)
{
	return gamma_q(df / 2, x / 2);
}

/* P(X >= k) for X ~ Binomial(n, p0), continuous in k. */
static double binom_ge(double k, double n, double p0)
{
	if (k <= 0)
		return 1;
	if (k > n)
		return 0;
	return pd_betai(k, n - k + 1, p0);
}

double pd_binom_mid_p(double k, double n, double p0)
{
	double upper, lower, p;

	assert(p0 >= 0 && p0 <= 1);
	if (n <= 0)
		return 1;
	k = k < 0 ? 0 : k > n ? n : k;
	/* P(X > k) + P(X = k)/2, and P(X < k) + P(X = k)/2 */
	upper = 0.5 * (binom_ge(k, n, p0) + binom_ge(k + 1, n, p0));
	lower = 1 - upper;
	p = 2 * (upper < lower ? upper : lower);
	return p > 1 ? 1 : p;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double pd_sum_sq(const double *y, size_t n)
{
	double m = 0, ss = 0;
	size_t i;

	for (i = 0; i < n; i++)
		m += y[i] / (double)n;
	for (i = 0; i < n; i++)
		ss += (y[i] - m) * (y[i] - m);
	return ss;
}

double pd_median(double *v, size_t n)
{
	if (!n)
		return PD_NAN;
	if (n <= 32) { /* small: insertion sort beats qsort's overhead */
		size_t i, j;

		for (i = 1; i < n; i++) {
			double x = v[i];

			for (j = i; j > 0 && v[j - 1] > x; j--)
				v[j] = v[j - 1];
			v[j] = x;
		}
	} else {
		pd_sort(v, n, sizeof(*v), cmp_double);
	}
	if (n % 2)
		return v[n / 2];
	return 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

struct pidx {
	double p;
	size_t i;
};

static int cmp_pidx(const void *a, const void *b)
{
	const struct pidx *x = a, *y = b;

	if (x->p < y->p)
		return -1;
	if (x->p > y->p)
		return 1;
	return (x->i > y->i) - (x->i < y->i);
}

void pd_bh(const double *p, size_t n, double *q)
{
	struct pidx *s;
	double run = 1;
	size_t k;

	if (!n)
		return;
	s = pd_xmalloc(n * sizeof(*s));
	for (k = 0; k < n; k++) {
		/* a NaN would sort anywhere and take another p's q */
		assert(p[k] >= 0 && p[k] <= 1);
		s[k].p = p[k];
		s[k].i = k;
	}
	pd_sort(s, n, sizeof(*s), cmp_pidx);
	/* q_(k) = min over j >= k of p_(j) * n / j, walking down. */
	for (k = n; k-- > 0;) {
		double v = s[k].p * (double)n / (double)(k + 1);

		/* p * n / n may round one unit below p: q is never below p */
		if (v < s[k].p)
			v = s[k].p;
		if (v < run)
			run = v;
		q[s[k].i] = run;
	}
	free(s);
}

double pd_t_sf2(double t, double df)
{
	if (!(df > 0))
		return PD_NAN;
	if (isinf(t))
		return 0;
	return pd_betai(df / 2, 0.5, df / (df + t * t));
}

/* Student's t density at t with df degrees of freedom. */
static double t_pdf(double t, double df)
{
	return exp(lgamma((df + 1) / 2) - lgamma(df / 2) -
		   0.5 * log(df * 3.14159265358979323846) -
		   (df + 1) / 2 * log1p(t * t / df));
}

/*
 * A start for the t quantile: the normal quantile (Abramowitz and Stegun
 * 26.2.23, error below 5e-4) with the first two Cornish-Fisher terms
 * for df.
 */
static double t_quantile_start(double p, double df)
{
	double r = sqrt(-2 * log(1 - p));
	double z = r - (2.515517 + 0.802853 * r + 0.010328 * r * r) /
			   (1 + 1.432788 * r + 0.189269 * r * r +
			    0.001308 * r * r * r);

	return z + (z * z * z + z) / (4 * df) +
	       (5 * pow(z, 5) + 16 * z * z * z + 3 * z) / (96 * df * df);
}

static double t_quantile(double p, double df);

/*
 * The same few (p, df) come back for thousands of functions (the same
 * confidence level, degrees of freedom from the same number of runs or
 * commits): the last answers are remembered, per thread.
 */
double pd_t_quantile(double p, double df)
{
	static _Thread_local struct {
		double p, df, q;
	} memo[64];
	uint64_t a, b, h;
	size_t i;

	memcpy(&a, &p, sizeof(a));
	memcpy(&b, &df, sizeof(b));
	h = pd_hash_u64(a * 0x9e3779b97f4a7c15ULL ^ b);
	i = (size_t)(h & 63);
	if (memcmp(&memo[i].p, &p, sizeof(p)) ||
	    memcmp(&memo[i].df, &df, sizeof(df)) || !(memo[i].df > 0)) {
		memo[i].q = t_quantile(p, df);
		memo[i].p = p;
		memo[i].df = df;
	}
	return memo[i].q;
}

static double t_quantile(double p, double df)
{
	/*
	 * Newton's method on the two-sided tail, P(|T| > q) = 2 (1 - p),
	 * kept inside a bracket [lo, hi] that every step narrows: a step
	 * that would leave it bisects instead (the bracket grows until it
	 * holds the root). About five tail evaluations where bisection
	 * took forty.
	 */
	double want = 2 * (1 - p), lo = 0, hi = HUGE_VAL, q;
	int i;

	if (!(df > 0) || p <= 0.5)
		return 0;
	if (!(p < 1))
		return HUGE_VAL;
	q = t_quantile_start(p, df);
	if (!(q > 0) || !isfinite(q))
		q = 1;
	for (i = 0; i < 200; i++) {
		double f = pd_t_sf2(q, df) - want, next;

		if (f > 0)
			lo = q;
		else
			hi = q;
		next = q + f / (2 * t_pdf(q, df));
		if (!(next > lo && next < hi))
			next = isfinite(hi) ? 0.5 * (lo + hi) : 2 * q;
		if (fabs(next - q) <= 1e-14 * q)
			return next;
		q = next;
	}
	return q;
}

/*
 * Exact null distribution of U for small samples without ties: the number
 * of arrangements giving each U, by the recurrence
 * N(u; m, n) = N(u - n; m - 1, n) + N(u; m, n - 1).
 */
static double mw_exact(double u, size_t m, size_t n)
{
	size_t umax = m * n, i, j, k;
	double *prev, *cur, total = 0, tail = 0, lo;
	double *tab;

	/* tab[j][u] for the current i, rows j = 0..n */
	tab = pd_xcalloc((n + 1) * (umax + 1), sizeof(double));
	for (j = 0; j <= n; j++)
		tab[j * (umax + 1)] = 1; /* i = 0: only U = 0 */
	for (i = 1; i <= m; i++) {
		double *next = pd_xcalloc((n + 1) * (umax + 1), sizeof(double));

		next[0] = 1; /* j = 0 */
		for (j = 1; j <= n; j++) {
			prev = tab + j * (umax + 1);
			cur = next + j * (umax + 1);
			for (k = 0; k <= umax; k++) {
				double v = next[(j - 1) * (umax + 1) + k];

				if (k >= j)
					v += prev[k - j];
				cur[k] = v;
			}
		}
		free(tab);
		tab = next;
	}
	cur = tab + n * (umax + 1);
	for (k = 0; k <= umax; k++)
		total += cur[k];
	/* two-sided: double the smaller tail at u */
	lo = 0;
	for (k = 0; k <= umax; k++) {
		if ((double)k <= u + 1e-9)
			lo += cur[k];
		if ((double)k >= u - 1e-9)
			tail += cur[k];
	}
	free(tab);
	lo /= total;
	tail /= total;
	return fmin(1, 2 * fmin(lo, tail));
}

double pd_mann_whitney(const double *x, size_t nx, const double *y, size_t ny,
		       double *u_out)
{
	size_t i, j, ties = 0;
	double u = 0, mu, var, z, tie_sum = 0;
	double *all;
	size_t n = nx + ny;

	if (!nx || !ny)
		return PD_NAN;
	for (i = 0; i < nx; i++)
		for (j = 0; j < ny; j++) {
			if (y[j] > x[i])
				u += 1;
			else if (!(y[j] < x[i])) {
				u += 0.5;
				ties++;
			}
		}
	if (u_out)
		*u_out = u;
	if (!ties && nx * ny <= 400)
		return mw_exact(u, nx, ny);
	/* Normal approximation with the tie correction. */
	all = pd_xmalloc(n * sizeof(*all));
	memcpy(all, x, nx * sizeof(*x));
	memcpy(all + nx, y, ny * sizeof(*y));
	pd_median(all, n); /* sorts */
	for (i = 0; i < n;) {
		size_t k = i;

		while (k < n && !(all[k] > all[i]))
			k++;
		tie_sum += pow((double)(k - i), 3) - (double)(k - i);
		i = k;
	}
	free(all);
	mu = (double)nx * (double)ny / 2;
	var = (double)nx * (double)ny / 12 *
	      ((double)n + 1 - tie_sum / ((double)n * ((double)n - 1)));
	if (var <= 0)
		return 1;
	z = (fabs(u - mu) - 0.5) / sqrt(var);
	return z <= 0 ? 1 : fmin(1, 2 * pd_norm_sf(z));
}

/*
 * The mean-variance trend of log weights (statistics.md, "several runs
 * per side"): var(ln w) = A/c + B fitted by iteratively reweighted least
 * squares (weights d/f^2), then the prior's degrees of freedom from the
 * rows' scatter around it beyond their own chi-square's (limma's
 * fitFDist, Smyth 2004). Fewer than 8 rows: A0/c + B0, the model
 * without history, with d0 = 4; no scatter beyond chance: d0 = 100.
 */
void pd_vtrend_fit(const struct pd_vrow *r, size_t n, double A0, double B0,
		   struct pd_vtrend *pr)
{
	double A = A0, B = B0, e = 0, ve = 0, tri = 0;
	size_t i;
	int it;

	pr->scale = 1;
	pr->d0 = 4;
	pr->A = A0;
	pr->B = B0;
	pr->fitted = n >= 8;
	/*
	 * Fewer than 8 rows: the model without history. A trend fitted to
	 * a handful of functions is their noisiest one's: a memory-bound
	 * function or the total of a loaded run lifted every quiet
	 * function's prior, and 3 runs a side found half of what Welch's
	 * test finds (statistics.md, "Several runs per side").
	 */
	if (!pr->fitted)
		return;
	for (it = 0; it < 20; it++) {
		/* weighted normal equations of s2 = A u + B, u = 1/c */
		double s00 = 0, s01 = 0, s11 = 0, t0 = 0, t1 = 0, det, nA, nB;

		for (i = 0; i < n; i++) {
			double u = 1 / r[i].c, f = A * u + B;
			double w = r[i].d / (f * f > 1e-300 ? f * f : 1e-300);

			/* the logs and the digamma below need all three > 0 */
			assert(r[i].c > 0 && r[i].s2 > 0 && r[i].d > 0);

			s00 += w * u * u;
			s01 += w * u;
			s11 += w;
			t0 += w * u * r[i].s2;
			t1 += w * r[i].s2;
		}
		det = s00 * s11 - s01 * s01;
		if (!(fabs(det) > 1e-300))
			break;
		nA = (t0 * s11 - t1 * s01) / det;
		nB = (s00 * t1 - s01 * t0) / det;
		if (nA < 0) { /* keep both parts non-negative */
			nA = 0;
			nB = t1 / s11;
		}
		if (nB < 0) {
			nB = 0;
			nA = t0 / s00;
		}
		nA = fmax(nA, 1e-6);
		if (fabs(nA - A) < 1e-9 * A &&
		    fabs(nB - B) <= 1e-9 * (B + 1e-12))
			break;
		A = nA;
		B = nB;
	}
	pr->A = A;
	pr->B = B;
	for (i = 0; i < n; i++)
		e += (log(r[i].s2 / (A / r[i].c + B)) - pd_digamma(r[i].d / 2) +
		      log(r[i].d / 2)) /
		     (double)n;
	for (i = 0; i < n; i++) {
		double ei = log(r[i].s2 / (A / r[i].c + B)) -
			    pd_digamma(r[i].d / 2) + log(r[i].d / 2);

		ve += (ei - e) * (ei - e) / (double)(n - 1);
		tri += pd_trigamma(r[i].d / 2) / (double)n;
	}
	if (ve - tri > 1e-6)
		pr->d0 = fmin(2 * pd_trigamma_inv(ve - tri), 100);
	else
		pr->d0 = 100;
	pr->scale = exp(e + pd_digamma(pr->d0 / 2) - log(pr->d0 / 2));
}

double pd_vtrend_at(const struct pd_vtrend *pr, double c)
{
	return pr->scale * (pr->A / fmax(c, 0.5) + pr->B);
}
