/* Noise learned from a window of stored runs (stats/noise.c). */
#ifndef PD_STATS_NOISE_H
#define PD_STATS_NOISE_H

#include "model/func.h"
#include "stats/diff.h"

/* Commits of history behind learned noise and thresholds. */
#define PD_NOISE_WINDOW 30

/*
 * Degrees of freedom within commits, beyond the slope's own, that
 * learning how a function follows its run's level needs (statistics.md,
 * "How a function follows the machine"): a window's repeats (runs
 * beyond the first of their commit) must number one more.
 */
#define PD_SLOPE_MIN_DF 6

/*
 * Learns each function's (0 .. nfun-1) and the total's (nfun) noise into
 * noise, made by pd_noise_init for nfun functions: runs[i] is run i's
 * aggregate (resized to nfun), commit[i] its commit's number, runs of one
 * commit adjacent and commits oldest first.
 */
void pd_noise_learn(struct pd_noise *noise, const struct pd_agg *const *runs,
		    const size_t *commit, size_t n, size_t nfun);

#endif
