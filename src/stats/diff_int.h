/*
 * What the parts of the diff share inside stats/ (not for other layers):
 * exposures, the per-metric test and decision (decide.c), and starting a
 * diff (diff.c).
 */
#ifndef PD_STATS_DIFF_INT_H
#define PD_STATS_DIFF_INT_H

#include "stats/diff.h"

struct pd_expo {
	double ea, eb;	/* exposures */
	double ta, tb;	/* total weights */
	double ca, cb;	/* total counts */
	double tau_pct; /* the threshold, for the MDE */
};

/* A fresh diff over fn with the settings. */
void pd_diff_begin(struct pd_diff *d, struct pd_funcs *fn,
		   const struct pd_settings *set);

/*
 * Labels cost shifts (shifts.c): each regressed function whose work moved
 * to or from a sibling gets the sibling's id in shift, and the sibling
 * its.
 */
void pd_label_cost_shifts(struct pd_diff *d, const struct pd_profile *pa,
			  const struct pd_agg *aa, const struct pd_profile *pb,
			  const struct pd_agg *ab);
/*
 * Renamed binaries among per-run aggregates (stored runs have no
 * profiles): candidate functions of a candidate-only module move to the
 * baseline-only module that shares most of their names (profiles.c).
 */
void pd_diff_pair_modules(struct pd_diff *d, struct pd_agg *a, size_t na,
			  struct pd_agg *b, size_t nb);

/*
 * The minimum detectable effect, in %: the change found with 80 % power
 * by the decision rule, whose interval (quantile z, standard error se)
 * must clear the threshold: exp(ln(1 + tau) + (z + 0.84) se) - 1.
 */
double pd_mde_pct(double se, double z, double tau_pct);

/*
 * Log ratio *L and its standard error *se for counts a, b: sampling
 * variance phi (1/(a+1/2) + 1/(b+1/2)) plus 2 sig2 between runs.
 */
void pd_diff_log_ratio(const struct pd_expo *x, double a, double b, double phi,
		       double sig2, double *L, double *se);

/* Exposures of the two sides from their total weights and counts. */
struct pd_expo pd_diff_exposure(const struct pd_diff *d, double ta, double ca,
				double tb, double cb);

/* Fields every method fills the same way. */
void pd_diff_measure_common(struct pd_metric *m, const struct pd_expo *x,
			    double wa, double wb, double a, double b,
			    int share);

/* One profile per side: quasi-Poisson counts. Fills all but q and status. */
void pd_diff_measure(struct pd_metric *m, const struct pd_expo *x, double wa,
		     double wb, double a, double b, double phi, int share);
/*
 * The same with a between-run variance sig2 of each side's ln(weight);
 * df > 0 when sig2 was estimated (a t tail), 0 when it is fixed.
 */
void pd_diff_measure_v(struct pd_metric *m, const struct pd_expo *x, double wa,
		       double wb, double a, double b, double phi, double sig2,
		       double df, int share);

/* The threshold for function f, metric k (0 self, 1 total): learned
 * when history has one, else --threshold. */
void pd_diff_set_tau(struct pd_metric *m, const struct pd_settings *set,
		     const struct pd_noise *noise, uint32_t f, int k);

/* The log ratio L, its standard error and df the threshold test uses. */
void pd_diff_set_test(struct pd_metric *m, double L, double se, double df);
/* The metric's p value against its threshold (statistics.md). */
double pd_diff_p_tau(const struct pd_metric *m);
/*
 * One family of n tested metrics: their p values against the threshold
 * (computed here unless a method set them), BH over the p values the
 * settings test, and the selected ones' intervals at the adjusted level.
 */
void pd_diff_family(struct pd_metric **ms, size_t n,
		    const struct pd_settings *set);

/* The metric's MDE in a family of n tested metrics. */
void pd_diff_mde(struct pd_metric *m, size_t n, const struct pd_settings *set);

/* BH over the tested metrics, then the decision for every metric. */
void pd_diff_test_all(struct pd_diff *d, const struct pd_expo *x);

/* One profile per side (pair.c): the count test. */
void pd_diff_counts(struct pd_diff *d, const struct pd_agg *aa,
		    const struct pd_agg *ab, const struct pd_noise *noise);

/*
 * The program-wide shift of one pair (scale.c): ln of the ratio most of
 * the program's functions moved by together, 0 when there is none or too
 * few functions to tell; *var is its variance, *alike and *voters the
 * functions that moved with it and those well sampled enough to vote,
 * *steady the voters alike with no shift at all and sampled well enough
 * to have seen one of the whole program's size; *beyond the shift most
 * functions moved by when it is more than a machine gives (not taken
 * out), else 0.
 */
double pd_diff_program_shift(const struct pd_diff *d, const struct pd_agg *aa,
			     const struct pd_agg *ab, const struct pd_expo *x,
			     double *var, size_t *alike, size_t *voters,
			     size_t *steady, double *beyond);

/* Several runs per side (runs.c): the moderated t-test. */
void pd_diff_runs(struct pd_diff *d, struct pd_agg *a, size_t na,
		  struct pd_agg *b, size_t nb, const struct pd_noise *noise);

/*
 * A system frame set apart from the verdict (statistics.md, "System
 * frames"; pd_fdiff.system is set after the tests).
 */
int pd_diff_set_apart(const struct pd_diff *d, const struct pd_fdiff *f);

/* The decision rule of statistics.md, after BH. */
void pd_diff_decide(struct pd_metric *m, const struct pd_expo *x,
		    const struct pd_settings *set);

/*
 * Metric tables (WPA Disk Usage, File I/O, ...): rows matched by key. A
 * count-like measure gets the count test (BH within the table); other
 * measures are judged by the practical threshold alone and marked untested.
 */
void pd_diff_tables(struct pd_diff *d, const struct pd_profile *a,
		    const struct pd_profile *b);

#endif
