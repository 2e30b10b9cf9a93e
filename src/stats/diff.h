/*
 * A comparison of two profiles: per-function self and total evidence and a
 * verdict (docs/statistics.md, "The test"). The diff owns its arrays
 * and warning strings; it borrows the function table, which must outlive it.
 */
#ifndef PD_DIFF_H
#define PD_DIFF_H

#include <stddef.h>
#include <stdint.h>

#include "core/vec.h"
#include "model/func.h"
#include "model/profile.h"

enum pd_status {
	PD_SAME,
	PD_INCONCLUSIVE,
	PD_REGRESSED,
	PD_IMPROVED,
	PD_ADDED,
	PD_REMOVED,
	/*
	 * Real (significant) and beyond the threshold, but below the
	 * minimum impact: too small a part of the whole to matter.
	 */
	PD_NEGLIGIBLE,
	PD_STATUS_COUNT,
};

struct pd_metric {
	double base, cand; /* weights, in the profile unit (means over runs) */
	double base_n, cand_n; /* sample counts behind them */
	double delta, delta_pct;
	double ratio, ci_low, ci_high; /* NAN when undefined */
	double ci90_low, ci90_high;    /* for the "same" decision */
	double p, q;		       /* NAN when not tested */
	/*
	 * p_tau: the p value against the threshold (|true log ratio| at
	 * most ln(1 + tau)); q is Benjamini-Hochberg over these.
	 * ci_adj_*: a selected metric's interval at the selection-adjusted
	 * level 1 - R alpha / m (statistics.md, "The test"); NAN when the
	 * metric was not selected.
	 */
	double p_tau, ci_adj_low, ci_adj_high;
	/*
	 * What the threshold test is computed from: the log ratio, its
	 * standard error and degrees of freedom (0: the normal tail), and
	 * for the exact test on small counts the binomial probability of a
	 * sample being the candidate's at ratio 1 (else NAN).
	 */
	double lr, se, df, theta0;
	/* the standard error at equal counts the MDE is computed from */
	double mde_se;
	double mde_pct;
	double impact_pct; /* |delta| as % of the baseline total */
	/*
	 * ln of the shift the metric was judged beyond (its reference: the
	 * others' shift, statistics.md "Machine-wide shifts"), 0 for none;
	 * delta, delta_pct and impact_pct are then beyond it
	 */
	double ref_shift;
	double tau_pct; /* threshold used: the default or a learned one */
	int tau_points; /* history points behind a learned threshold */
	double mw_p;	/* Mann-Whitney, several runs per side; else NAN */
	double suggested_runs; /* runs per side to resolve it; NAN if n/a */
	enum pd_status status;
	int tested, unstable;
	/*
	 * A change worth a row of the short tables: regressed or improved,
	 * or added/removed with the impact and p of a real change.
	 */
	int notable;
	int64_t shift; /* cost shift: function the work moved from/to, or -1 */
};

/*
 * Noise learned from history, indexed by function id of the diff's
 * function table; [0] self, [1] total. Zero entries mean "nothing learned".
 */
struct pd_noise {
	size_t n;
	double *s0[2], *d0[2]; /* a run's variance of ln(weight), its df */
	double *tau[2];	       /* learned threshold, a fraction (0.075) */
	/* the mean sample count of a run behind s0 (statistics.md) */
	double *cbar[2];

	int *tau_points[2];
	/*
	 * How a function follows its run's level (statistics.md, "How a
	 * function follows the machine"): the slope of its log weight on the
	 * level, the slope's variance, and a run's variance beyond the slope
	 * with its df (0: none learned).
	 */
	double *beta[2], *bvar[2], *s0b[2], *d0b[2];
	size_t runs, shas; /* history behind it */
	size_t repeats;	   /* its runs beyond the first of their commit */
};

/* Zeroed tables for nfuncs functions (stats/noise.c learns them). */
void pd_noise_init(struct pd_noise *n, size_t nfuncs);
void pd_noise_release(struct pd_noise *n);

struct pd_fdiff {
	uint32_t func;
	struct pd_metric self, total;
	/*
	 * A system frame set apart (kernel, interrupts, drivers): reported
	 * in its own section, never in the verdict, unless --system include.
	 */
	int system;
};

/* One row of a compared metric table: a key and one metric per measure. */
struct pd_trow {
	char *key;	     /* key values joined with '\t' (owned) */
	struct pd_metric *m; /* one per measure (owned) */
	double impact;	     /* the largest impact over the measures */
};

struct pd_tdiff {
	const struct pd_mtable *base, *cand; /* borrowed */
	PD_VEC(struct pd_trow) rows;	     /* largest impact first */
	size_t nmeasures;
};

struct pd_settings {
	double threshold_pct;  /* --threshold, default 5 */
	double min_impact_pct; /* --min-impact, default 0.5 */
	double alpha;	       /* --alpha, default 0.05 */
	double dispersion;     /* phi0, --dispersion: the sampling floor */
	/*
	 * --run-cv: the smallest run-to-run coefficient of variation a
	 * function is assumed to have without history (a fraction)
	 */
	double run_cv;
	int share; /* --share */
	/*
	 * The aggregates' totals include system time (stored runs keep
	 * whole totals): a total that a change of the system frames' own
	 * time could account for is not judged (statistics.md).
	 */
	int whole_totals;
	/*
	 * --paired: run i of the baseline and run i of the candidate were
	 * recorded one after the other (A B A B): the paired t-test.
	 */
	int paired;
	/*
	 * --treat: test each change against the threshold rather than
	 * against no change, so that Benjamini-Hochberg bounds the share of
	 * false "beyond the threshold" claims (statistics.md, "The test").
	 */
	int treat;
};

struct pd_side {
	const char *source, *format, *exporter, *event, *count_rule;
	enum pd_unit unit;
	double total, samples, interval;
	int runs;
	int exact;     /* exact counts (DHAT): no sampling noise */
	int self_only; /* self weights only (cachegrind): totals unknown */
	double system; /* system time set apart from total (mean over runs) */
	const struct pd_profile *profile; /* borrowed */
	/*
	 * What the side is, as history keys it ("commit …, scenario …,
	 * cache …") and every run behind it; NULL when unknown (owned by the
	 * diff, set with pd_diff_provenance).
	 */
	const char *provenance;
};

/* How the rows were tested (docs/statistics.md). */
enum pd_method {
	PD_METHOD_QUASI_POISSON, /* one run a side: counts */
	PD_METHOD_MODERATED_T,	 /* several runs a side */
	PD_METHOD_PAIRED_T,	 /* several runs a side, paired A B A B */
	PD_METHOD_EXACT		 /* exact counts: the threshold alone */
};

/*
 * A program-wide shift is named when it moved the program this much and
 * PD_SHIFT_NAMED_ALIKE functions or more moved with it: with two, each
 * is judged against the other, not against the shift.
 */
#define PD_SHIFT_NAMED 0.05
#define PD_SHIFT_NAMED_ALIKE 3

struct pd_diff {
	struct pd_settings set;
	struct pd_side base, cand;
	/*
	 * phi: the dispersion every function was given (its counts'
	 * variance over Poisson's); lambda: the pair's own, from how its
	 * lambda_n well-sampled functions scatter about the shift (NAN when
	 * not estimated), which phi is moderated with.
	 */
	double phi, lambda;
	size_t lambda_n;
	const char *phi_source;
	/*
	 * One profile a side: ln of the ratio most functions moved by
	 * together (statistics.md, "Machine-wide shifts"), 0 when none was
	 * taken out; its variance; the functions alike and those that voted.
	 */
	double shift, shift_var;
	size_t shift_alike, shift_voters;
	/*
	 * The shift is the program's, not one function's: it stands
	 * without the function that weighs most in it (pair.c)
	 */
	int shift_broad;
	double whole_cv; /* the total's run-to-run variation assumed */
	enum pd_method method;
	/* moderated-t: "history", "functions" or the model (too few) */
	const char *prior_source;
	/* functions judged beyond their learned slope on the run's level */
	size_t level_slopes;
	/*
	 * Several runs judged with a history whose window holds too few
	 * repeats to learn a slope (noise.h, PD_SLOPE_MIN_DF): 1, and its
	 * repeats; 0 otherwise.
	 */
	int slopes_short;
	size_t window_repeats;
	PD_VEC(char *) warnings;
	enum pd_status verdict;
	struct pd_metric total;
	PD_VEC(struct pd_fdiff)
	funcs; /* sorted: largest self regression first */
	const struct pd_funcs *fn;
	size_t nstatus[PD_STATUS_COUNT]; /* functions by self status */
	int name_only; /* matched on names because a side lacks modules */
	int self_only; /* a side has self weights only: totals are empty */
	PD_VEC(struct pd_tdiff) tables; /* metric tables (WPA), when present */
	/* counters of several runs per side, merged (the tables borrow them) */
	struct pd_profile *merged[2];
	char *provenance[2]; /* base, cand: what pd_side.provenance shows */
	size_t nsystem;	     /* system frames that changed, set apart */
	/*
	 * Why the sides cannot be judged (weights of different kinds), or
	 * NULL: rows are still shown, the verdict is inconclusive.
	 */
	const char *no_verdict;
	/* the smallest MDE of a function on both sides (%), or NaN */
	double best_mde_pct;
	/* one profile a side, alike in every function's weights */
	int identical;
};

/* Sets the provenance line of the baseline (cand 0) or candidate side. */
void pd_diff_provenance(struct pd_diff *d, int cand, const char *fmt, ...)
    PD_PRINTF(3, 4);

void pd_settings_default(struct pd_settings *s);
/* Several runs per side: the moderated t-test, paired or not. */
int pd_diff_several_runs(const struct pd_diff *d);
/*
 * Whether one pair's program shift is named (warned of, in the
 * headline): PD_SHIFT_NAMED_ALIKE functions alike, at least
 * PD_SHIFT_NAMED, and told from no shift (twice its standard error),
 * and so without the function that weighs most in it.
 */
int pd_diff_shift_named(const struct pd_diff *d);
const char *pd_status_name(enum pd_status s);
/* "quasi-poisson", "moderated-t", "paired-t", "exact" */
const char *pd_method_name(enum pd_method m);
/*
 * Adds the metric tables of a and b (na, nb runs: counters of several runs
 * are merged, their spread giving the standard error) and lets their
 * verdicts count. pd_diff_profiles does this; compare calls it with
 * tables loaded from the history.
 */
void pd_diff_add_tables(struct pd_diff *d, const struct pd_profile *const *a,
			size_t na, const struct pd_profile *const *b,
			size_t nb);

/*
 * Compares a (baseline) with b (candidate). The function table must be
 * fresh; its flags decide normalisation. Returns 0.
 */
int pd_diff_compute(struct pd_diff *d, const struct pd_profile *a,
		    const struct pd_profile *b, struct pd_funcs *fn,
		    const struct pd_settings *set);
/*
 * Several runs per side (files or stored runs), as per-run aggregates
 * over fn. The sides' descriptions are copied. One run per side uses the
 * count test; more use the moderated t-test. noise may be NULL.
 */
int pd_diff_aggs(struct pd_diff *d, const struct pd_side *sa, struct pd_agg *a,
		 size_t na, const struct pd_side *sb, struct pd_agg *b,
		 size_t nb, struct pd_funcs *fn, const struct pd_settings *set,
		 const struct pd_noise *noise);
/*
 * stackcollapse-perf and inferno start each folded stack with the process
 * name ("noploop;main;..."), which perf script gives as the sample's
 * command, not as a frame. When every root frame of a folded profile
 * names a process of the other, non-folded profiles ("comm", "comm-PID",
 * "comm-PID/TID"), those roots are dropped, with a note: otherwise a
 * capture and its folded form differ by one function holding all the
 * time. Returns how many profiles changed.
 */
size_t pd_align_process_roots(struct pd_profile *const *ps, size_t n);
/* Several profiles per side: imports are the caller's, matching is ours. */
int pd_diff_profiles(struct pd_diff *d, const struct pd_profile *const *a,
		     size_t na, const struct pd_profile *const *b, size_t nb,
		     struct pd_funcs *fn, const struct pd_settings *set);
/* A side made of n profiles (runs): means of their totals. */
void pd_side_of_profiles(struct pd_side *s, const struct pd_profile *const *p,
			 size_t n);
void pd_diff_release(struct pd_diff *d);
void pd_diff_warn(struct pd_diff *d, const char *fmt, ...) PD_PRINTF(2, 3);

#endif
