/*
 * Numerical building blocks for the verdicts: normal and binomial tails,
 * medians and Benjamini-Hochberg. Pure functions; nothing is allocated that
 * outlives a call.
 */
#ifndef PD_STATS_H
#define PD_STATS_H

#include <stddef.h>

/* Standard normal upper tail P(Z > x). */
double pd_norm_sf(double x);
/* The p quantile of the standard normal, 0 < p < 1. */
double pd_norm_quantile(double p);
/* Regularised incomplete beta I_x(a, b), a, b > 0, 0 <= x <= 1. */
double pd_betai(double a, double b, double x);
/* P(X > x) for a chi-square X with df degrees of freedom. */
double pd_chi2_sf(double x, double df);
/* P(F > x) for Snedecor's F with d1 and d2 degrees of freedom. */
double pd_f_sf(double x, double d1, double d2);
/*
 * Two-sided exact test of k successes in n trials against probability p0,
 * doubling the smaller tail. k and n may be fractional (counts divided by
 * an overdispersion factor); the tails then come from the beta function.
 */
double pd_binom_two_sided(double k, double n, double p0);
/*
 * The same with mid-p: each tail counts half the probability of k
 * itself, so the test's size is near its nominal level instead of below
 * it (the exact test's p is conservative on small counts).
 */
double pd_binom_mid_p(double k, double n, double p0);
/* The digamma, trigamma and tetragamma functions, x > 0. */
double pd_digamma(double x);
double pd_trigamma(double x);
double pd_tetragamma(double x);
/* The y > 0 with trigamma(y) = x, x > 0 (Newton's method). */
double pd_trigamma_inv(double x);
/*
 * A mean-variance trend of log weights: rows of mean count c with a
 * variance s2 on d degrees of freedom; the fit var = scale (A/c + B) and
 * the prior's degrees of freedom d0 (statistics.md).
 */
struct pd_vrow {
	double c, s2, d;
};

struct pd_vtrend {
	double A, B, scale, d0;
	int fitted; /* 0: too few rows, the model without data */
};

/* Fits rows r[0..n) starting from A0, B0 (the model without data). */
void pd_vtrend_fit(const struct pd_vrow *r, size_t n, double A0, double B0,
		   struct pd_vtrend *pr);
/* The trend's variance at mean count c. */
double pd_vtrend_at(const struct pd_vtrend *pr, double c);
/* Median of n values; reorders v. Returns NAN for n == 0. */
double pd_median(double *v, size_t n);
/* Sum of the squared distances of y[0..n) from their mean. */
double pd_sum_sq(const double *y, size_t n);
/* Benjamini-Hochberg q values for n p values (q[i] matches p[i]). */
void pd_bh(const double *p, size_t n, double *q);

/* Two-sided tail of Student's t: P(|T| > t) with df degrees of freedom. */
double pd_t_sf2(double t, double df);
/* The p quantile of Student's t (p > 0.5), e.g. 0.975 for a 95 % CI. */
double pd_t_quantile(double p, double df);
/*
 * Two-sided Mann-Whitney test of y against x: exact without ties for small
 * samples, else the normal approximation with tie correction. *u gets the
 * number of (x, y) pairs with y > x (ties count 1/2).
 */
double pd_mann_whitney(const double *x, size_t nx, const double *y, size_t ny,
		       double *u);

#endif
