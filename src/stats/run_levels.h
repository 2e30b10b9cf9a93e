/*
 * Each run's level, for several runs per side (statistics.md, "Several
 * runs per side"): what the machine did in that run, from the functions
 * alike in it, so that a function's runs can be taken beyond it.
 */
#ifndef PD_STATS_RUN_LEVELS_H
#define PD_STATS_RUN_LEVELS_H

#include <stddef.h>

#include "model/func.h"
#include "stats/diff.h"

/*
 * Each run's level (statistics.md, "Several runs per side"): over the
 * program's well-sampled functions, the biweight location of how far
 * each one's log weight lies from its mean over all runs; and the sums
 * that give it without one function (leave one out).
 */
struct pd_levels {
	size_t nruns, nf;
	double *ybar;	      /* per function: mean log weight over all runs */
	double *w;	      /* per function: weight of a voter (0: none) */
	double *m;	      /* per run: the level */
	double *sw, *swe;     /* per run: sums over its alike voters */
	unsigned char *alike; /* per run and function (run-major) */
	size_t *nalike;	      /* per run */
	double *wtop;	      /* per run: the two largest alike weights */
	size_t *ftop;	      /* per run: the function of the largest */
	int off;	      /* the levels do not explain the runs' scatter */
};

/* Half a sample's weight of run r: keeps ln() finite for an absent function. */
double pd_run_eps(const struct pd_agg *r);
/* Run i of the na baseline runs a and the candidate runs b after them. */
const struct pd_agg *pd_run_of(const struct pd_agg *a, size_t na,
			       const struct pd_agg *b, size_t i);
/*
 * The levels of all runs; none (nf 0) in share mode or for exact counts,
 * which have no machine behind them.
 */
void pd_levels_compute(struct pd_levels *lv, const struct pd_diff *d,
		       const struct pd_agg *a, size_t na,
		       const struct pd_agg *b, size_t nb);
void pd_levels_release(struct pd_levels *lv);
/*
 * Every run's level for function f (each without f's own vote), in lvl;
 * 0 when some run has too few other functions to show one, or when the
 * levels explain none of the runs' scatter (off). *single: in
 * some run one other function holds most of the level's weight.
 */
int pd_levels_for(const struct pd_levels *lv, const struct pd_agg *a, size_t na,
		  const struct pd_agg *b, size_t f, double *lvl, int *single);

#endif
