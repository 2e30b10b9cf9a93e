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
 * baseline-only module that shares most of their names (modules.c).
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
 * The program-wide shift of one pair (scale.c, statistics.md,
 * "Machine-wide shifts"). Voters: the program's functions with
 * PD_SHIFT_MIN_COUNT self samples or more on the two sides together.
 * A function is judged against the shift of the others when at least
 * PD_SHIFT_MIN_OTHERS of them moved alike; the pair's own dispersion is
 * measured when PD_SHIFT_OWN_MIN voters or more tell it (fewer cannot
 * tell a change from scatter) and counts as its voters' worth against
 * PD_SHIFT_PRIOR_DF of the prior's.
 */
#define PD_SHIFT_MIN_COUNT 40
#define PD_SHIFT_MIN_OTHERS 1
#define PD_SHIFT_OWN_MIN 6
#define PD_SHIFT_PRIOR_DF 8.0
/*
 * The location's weights: a voter's variance plus this, the spread of
 * functions about a shift that more samples do not shrink (5 %).
 */
#define PD_SHIFT_TAU2 0.0025
/* Up to this many voters, each function's reference is found without it. */
#define PD_SHIFT_EXACT 64
/* The pair's own dispersion is never taken below this. */
#define PD_SHIFT_LAM_MIN 0.25
/*
 * One pair's test is Student's t on this many degrees of freedom, plus
 * its voters': a function's own dispersion is not the pair's, and the
 * tails of real programs' functions are heavier than normal.
 */
#define PD_PAIR_TAIL_DF 6.0
/*
 * A reference is one function when one of the others holds more than this
 * part of their weight: then a function's change beyond it is a change
 * against that one function, and counts only where the function's own
 * time moved the same way (pair.c).
 */
#define PD_SHIFT_SINGLE 0.5
/*
 * The most a machine moves a whole run: past x2 (or /2) the functions
 * moved together by the program's own work (a loop count, a larger
 * input), and each is judged as it is. Measured here: up to +70 %.
 */
#define PD_SHIFT_MAX 2.0

struct pd_shift_voter;

struct pd_shift {
	double s, var;	/* ln of the shift of all alike, its variance */
	double beyond;	/* ln of a shift past PD_SHIFT_MAX, not taken */
	double sw, swl; /* over the alike: sum of weights, of weight * L */
	double *w, *L;	/* per function: its weight when alike (else 0), L */
	size_t alike, voters;
	/*
	 * The pair's dispersion every function is given (its counts'
	 * variance over Poisson's): the prior's moderated with the pair's
	 * own (own_lam from own_n voters; NAN when too few to tell); and
	 * the between-run variance per side (log scale) added to it.
	 */
	double lam, own_lam, t2;
	size_t own_n;
	/* the two largest weights among the alike, and whose is the first */
	double wtop[2];
	size_t ftop;
	/* a small program's voters, for each function's own reference */
	struct pd_shift_voter *v;
	size_t nv;
};

/*
 * The shift and the pair's dispersion; prior_lam: --dispersion, t2: the
 * --run-cv floor squared.
 */
void pd_shift_estimate(struct pd_shift *sh, const struct pd_diff *d,
		       const struct pd_agg *aa, const struct pd_agg *ab,
		       const struct pd_expo *x, double prior_lam, double t2);
/*
 * The shift without function f's own vote, and its variance: 1, or 0 when
 * too few others moved alike to show one. *single: one of the others
 * holds most of their weight (PD_SHIFT_SINGLE); *top: that one's id
 * (SIZE_MAX when not known).
 */
int pd_shift_without(const struct pd_shift *sh, size_t f, double *s,
		     double *var, int *single, size_t *top);
void pd_shift_release(struct pd_shift *sh);

/*
 * The whole program's run-to-run variation without history: the work of
 * a run of one build took this much more or less CPU from run to run, all
 * functions together, on the benchmark's real programs (statistics.md,
 * "Machine-wide shifts"; --run-cv when that is larger). One run a side
 * cannot see it, so a total is judged against it; several runs a side
 * moderate their own spread toward it as PD_WHOLE_PRIOR_DF runs' worth.
 */
#define PD_WHOLE_RUN_CV 0.20
#define PD_WHOLE_PRIOR_DF 2.0
/*
 * A metric is the whole program's when it holds at least PD_WHOLE_SHARE
 * of each side's samples: main's or a start routine's total (the rest is
 * the kernel's or the loader's). Its variation is the program's.
 */
#define PD_WHOLE_SHARE 0.95
/*
 * Several runs a side: a function's prior spread comes from the trend
 * of spread against count over all functions of these runs; it weighs
 * as PD_RUNS_PRIOR_DF runs at most and is PD_RUNS_PRIOR_SCALE times the
 * trend, which the tune half of the real programs needed to keep
 * identical builds quiet in 3-run comparisons (statistics.md, "Runs a
 * side").
 */
#define PD_RUNS_PRIOR_DF 4.0
#define PD_RUNS_PRIOR_SCALE 2.0

/* Counts a and b are the whole program's (mean counts of runs). */
int pd_diff_whole(double a, double b, const struct pd_expo *x);
/*
 * Time a thread waited for a CPU once it could run (a "name (ready)"
 * wait: preempted, or woken and not yet on a CPU) is the machine's load
 * more than the program's: between runs of one build it moved by
 * factors of 2 to 7 on a loaded 2-core machine (statistics.md, "Waiting
 * time"). Without history such a function's between-run variance, per
 * side, is PD_READY_VAR (of its log: a factor of e is one standard
 * deviation), not the whole program's; a total holding a share r of such
 * waits, r^2 PD_READY_VAR.
 */
#define PD_READY_VAR 1.0
/*
 * The share of function i's self (k 0) or total (k 1) that is such
 * waits, over the runs of both sides.
 */
double pd_diff_ready_share(const struct pd_diff *d, const struct pd_agg *a,
			   size_t na, const struct pd_agg *b, size_t nb,
			   size_t i, int k);
/*
 * A metric judged against the program's shift (ln, 0 for none): its
 * change (in weight and per cent) and impact become what it moved beyond
 * the shift, as its ratio is.
 */
void pd_diff_beyond_shift(struct pd_metric *m, double shift, double ta);

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
