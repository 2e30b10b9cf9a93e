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
/* Regularised incomplete beta I_x(a, b), a, b > 0, 0 <= x <= 1. */
double pd_betai(double a, double b, double x);
/*
 * Two-sided exact test of k successes in n trials against probability p0,
 * doubling the smaller tail. k and n may be fractional (counts divided by
 * an overdispersion factor); the tails then come from the beta function.
 */
double pd_binom_two_sided(double k, double n, double p0);
/* Median of n values; reorders v. Returns NAN for n == 0. */
double pd_median(double *v, size_t n);
/* Benjamini-Hochberg q values for n p values (q[i] matches p[i]). */
void pd_bh(const double *p, size_t n, double *q);

#endif
