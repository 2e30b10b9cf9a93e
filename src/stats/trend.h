/*
 * Change points in a series (statistics.md, "Trends"): E-Divisive means
 * with a permutation test. Pure functions; results go to caller arrays.
 */
#ifndef PD_TREND_H
#define PD_TREND_H

#include <stddef.h>
#include <stdint.h>

#include "core/vec.h"

struct pd_buf;

/*
 * Finds change points in x[0..n) by hierarchical E-Divisive (energy
 * distance, alpha = 1): the best split of a segment is kept when a
 * permutation test (reps shuffles, seeded) gives p <= pmax, and the search
 * goes on in both halves. A change point is the index of the first value
 * after the change. Segments shorter than min_size are not split.
 * Returns how many were found (at most max); cps come out sorted, p_out
 * (optional) gets each one's p value.
 */
size_t pd_edivisive(const double *x, size_t n, double pmax, int reps,
		    size_t min_size, uint64_t seed, size_t *cps, double *p_out,
		    size_t max);

/* One commit of a series: the values of its repeat runs. */
struct pd_tpoint {
	char *sha, *date; /* owned */
	double *v;	  /* per run (owned) */
	size_t n;
	double mean, lo, hi;
};

/* A change point kept after the filters. */
struct pd_tchange {
	size_t at;     /* commit index of the first commit after the change */
	double change; /* mean after / mean before - 1 */
	double p;
};

struct pd_tseries {
	char *name; /* "total", the function's name [module], or the event */
	double tau; /* threshold (fraction) used for this series */
	double mde; /* the smallest rise its window shows (0: not known) */
	int tau_learned;
	/*
	 * A run-level counter (perf stat) rather than the total or a function:
	 * its own unit (owned, "" for a count), and up when higher is better
	 * (IPC). Counters come after the functions.
	 */
	int counter, up;
	char *unit;
	PD_VEC(struct pd_tpoint) pts;
	PD_VEC(struct pd_tchange) changes;
	/*
	 * A step in the newest commits that has not held long enough to be a
	 * change point yet (statistics.md, "Trends", the newest commits);
	 * watch.at is 0 when there is none.
	 */
	struct pd_tchange watch;
	/*
	 * A step on the newest commits that E-Divisive found but that has
	 * not held for persist commits yet, whether watched or not; its p
	 * is the permutation's. pending.at is 0 when there is none.
	 */
	struct pd_tchange pending;
};

/*
 * A stored alert's state, set by a team (docs/history.md, "Alerts").
 * Open states still ask for work; the others are settled.
 */
enum pd_alert_state {
	PD_ALERT_UNSTORED,     /* not in the history (trend without it) */
	PD_ALERT_NEW,	       /* stored, nobody looked yet */
	PD_ALERT_ACKNOWLEDGED, /* someone is on it */
	PD_ALERT_EXPECTED,     /* an intended shift: the new level is normal */
	PD_ALERT_INVALID,      /* not a real change: hidden */
	PD_ALERT_FIXED,	       /* a later change undid it */
	PD_ALERT_BACKED_OUT,   /* the commit was reverted */
	PD_ALERT_STATES
};

/* "new", "acknowledged", ... ("" for PD_ALERT_UNSTORED). */
const char *pd_alert_state_name(int state);
/* The state a name (or a unique prefix of one) says; -1 when none. */
int pd_alert_state_parse(const char *name);
/*
 * States named by a list joined by commas ("new,expected"), or "all", as
 * bits (1 << state) in *bits; -1 when a name is none of them.
 */
int pd_alert_states_parse(const char *list, unsigned *bits);
/* Whether an alert in this state still asks for work (unstored too). */
int pd_alert_state_open(int state);

struct pd_alert {
	size_t at; /* commit index */
	/*
	 * The history's alert for this change point of this series (0 when
	 * not stored) and its group's state; a change point another series
	 * of the scenario stored at the same commit has that group's state
	 * and id 0.
	 */
	int64_t id, group;
	int state;    /* enum pd_alert_state */
	int fresh;    /* stored just now, a regression nobody triaged yet */
	double total; /* the total's change there (NAN if none) */
	PD_VEC(size_t) series; /* series with a change point there */
	PD_VEC(double) moved;  /* their changes (fractions) */
	PD_VEC(double) delta;  /* in weight: mean after - mean before */
};

struct pd_trend {
	char *scenario, *cache, *tool;
	int unit;			  /* enum pd_unit */
	PD_VEC(struct pd_tseries) series; /* total, functions, counters */
	PD_VEC(struct pd_alert) alerts;	  /* oldest first */
	size_t ncommits;
	size_t persist; /* commits a change must hold for (pd_trend_analyse) */
	double pmax, threshold_pct;
	double min_impact; /* a function's move counts from this share of
			      the total (0.005 when 0) */
	/*
	 * Every run holds exact counts (callgrind, cachegrind, DHAT): change
	 * points of the total and the functions by each series' threshold
	 * alone, no test (pd_trend_analyse); counters are tested still
	 */
	int exact;
	PD_VEC(char *) notes; /* what the loading left out, one line each */
	/* how reports link a commit: {sha} replaced; NULL none; not owned */
	const char *commit_url;
	/*
	 * perfdiff site: appends to url the page comparing commit (an
	 * index) with its predecessor and returns 1, or 0 when it has none;
	 * NULL when there are no such pages
	 */
	int (*page_link)(const void *arg, size_t commit, struct pd_buf *url);
	const void *page_arg;
};

void pd_trend_release(struct pd_trend *t);
/*
 * Whether an alert is an improvement: the total went down, or, without a
 * total, every series that moved moved for the better (IPC up).
 */
int pd_alert_improves(const struct pd_trend *t, size_t alert);
/* What a history has, and what a change point would need of it. */
/* Commits a change point needs before it, back to the one before. */
#define PD_TREND_BEFORE 2

struct pd_trend_need {
	size_t runs, runs_need;	      /* the permutation test's values */
	size_t commits, commits_need; /* commits with runs; a change point's */
	size_t runs_a_commit;	      /* the history's, rounded up */
	size_t more_commits; /* of runs_a_commit runs, to have both needs */
};
/*
 * Whether the history is too short for any change point: the smallest p
 * the permutation test can give with the total's runs (2 / C(n, n/2)) is
 * above t->pmax, or there are fewer commits than a change point needs
 * (2 before it, t->persist from it on). Fills *nd either way.
 */
int pd_trend_blind(const struct pd_trend *t, struct pd_trend_need *nd);
/*
 * Change points of every series (E-Divisive on the log of each run's
 * value, runs in commit order), kept when the change is at least the
 * series' threshold and holds for persist commits (its own included:
 * persist - 1 later ones); change points
 * on one commit form one alert. Returns the number of alerts.
 */
size_t pd_trend_analyse(struct pd_trend *t, int reps, size_t persist);
/*
 * Trend analysis as `perfdiff trend` and the site run it: permutations
 * of the E-Divisive test, and commits a change must hold for
 * (docs/statistics.md, "Trends: change points over the history").
 */
#define PD_TREND_REPS 1999
#define PD_TREND_PERSIST 3
/*
 * A series of exact counts (pd_trend.exact): a change point is a commit
 * whose value is off the level before it by the series' threshold (tau)
 * and stays off for persist commits with runs; p is 0. A step on the
 * newest commits that has not held yet is pending; nothing is watched.
 */
void pd_trend_exact_series(struct pd_tseries *s, size_t persist);
/*
 * The trend's function series beyond their runs' levels (trend_level.c):
 * t->series.n entries, those with no points left as they are (the total,
 * counters, a series of another layout); NULL when fewer than three
 * series vote. Release with pd_trend_level_release.
 */
struct pd_tseries *pd_trend_beyond_level(const struct pd_trend *t);
void pd_trend_level_release(struct pd_tseries *s, size_t n);
/*
 * Whether function series s is judged on its values beyond the level (b,
 * its entry of pd_trend_beyond_level): when that leaves its runs less
 * spread about their commits' means (statistics.md, "Trends").
 */
int pd_trend_level_helps(const struct pd_tseries *s,
			 const struct pd_tseries *b);
/*
 * The smallest rise (a fraction) that series s's commits would show as a
 * change point at pmax half the time, at the most telling place: a step
 * of its commit means' spread about their segments, through the
 * commit-level test (trend_mde.c); 0 when the window is too short.
 */
double pd_trend_series_mde(const struct pd_tseries *s, double pmax,
			   size_t persist);
/* The floor under a series' values before their log (trend_level.c). */
double pd_trend_log_floor(const struct pd_tseries *s);
/* Commits before the newest ones that a watch needs (statistics.md). */
#define PD_TREND_WATCH_MIN 8

#endif
