/*
 * A comparison of two profiles: per-function self and total evidence and a
 * verdict (statistics.md, "one profile per side"). The diff owns its arrays
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
	PD_STATUS_COUNT,
};

struct pd_metric {
	double base, cand;     /* weights, in the profile unit */
	double base_n, cand_n; /* sample counts behind them */
	double delta, delta_pct;
	double ratio, ci_low, ci_high; /* NAN when undefined */
	double p, q;		       /* NAN when not tested */
	double mde_pct;
	double impact_pct; /* |delta| as % of the baseline total */
	enum pd_status status;
	int tested, unstable;
};

struct pd_fdiff {
	uint32_t func;
	struct pd_metric self, total;
};

struct pd_settings {
	double threshold_pct;  /* --threshold, default 5 */
	double min_impact_pct; /* --min-impact, default 0.5 */
	double alpha;	       /* --alpha, default 0.05 */
	double dispersion;     /* phi0, --dispersion, default 2 */
	int share;	       /* --share */
};

struct pd_side {
	const char *source, *format, *exporter, *event, *count_rule;
	enum pd_unit unit;
	double total, samples, interval;
	int runs;
	const struct pd_profile *profile; /* borrowed */
};

struct pd_diff {
	struct pd_settings set;
	struct pd_side base, cand;
	double phi, lambda; /* lambda NAN when not estimated */
	size_t lambda_n;    /* functions behind lambda */
	const char *phi_source;
	PD_VEC(char *) warnings;
	enum pd_status verdict;
	struct pd_metric total;
	PD_VEC(struct pd_fdiff)
	funcs; /* sorted: largest self regression first */
	const struct pd_funcs *fn;
	size_t nstatus[PD_STATUS_COUNT]; /* functions by self status */
	int name_only; /* matched on names because a side lacks modules */
};

void pd_settings_default(struct pd_settings *s);
const char *pd_status_name(enum pd_status s);
/*
 * Compares a (baseline) with b (candidate). The function table must be
 * fresh; its flags decide normalisation. Returns 0.
 */
int pd_diff_compute(struct pd_diff *d, const struct pd_profile *a,
		    const struct pd_profile *b, struct pd_funcs *fn,
		    const struct pd_settings *set);
void pd_diff_release(struct pd_diff *d);
void pd_diff_warn(struct pd_diff *d, const char *fmt, ...) PD_PRINTF(2, 3);

#endif
