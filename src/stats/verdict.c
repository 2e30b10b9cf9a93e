/*
 * The entry point of a diff on aggregates: the sides checked, renamed
 * modules paired (modules.c), the method chosen (pair.c for one profile
 * per side, runs.c for several), exact counts (DHAT), the guard on whole
 * totals, and the verdict and its warnings. Every method measures and
 * decides each metric with decide.c; matching functions across builds is
 * profiles.c; metric tables are tables.c.
 */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/sort.h"
#include "stats/diff.h"
#include "stats/diff_int.h"

static int cmp_fdiff(const void *pa, const void *pb)
{
	const struct pd_fdiff *a = pa, *b = pb;

	if (a->self.delta > b->self.delta)
		return -1;
	if (a->self.delta < b->self.delta)
		return 1;
	if (a->total.delta > b->total.delta)
		return -1;
	if (a->total.delta < b->total.delta)
		return 1;
	return (a->func > b->func) - (a->func < b->func);
}

static int differs(double x, double y)
{
	return fabs(x - y) > 1e-6 * fmax(fabs(x), fabs(y));
}

static void check_sides(struct pd_diff *d)
{
	const struct pd_side *a = &d->base, *b = &d->cand;

	if (a->unit != b->unit) {
		pd_diff_warn(d,
			     "units differ (baseline %s, candidate %s):"
			     " comparing shares of each total instead of"
			     " absolute weights",
			     pd_unit_name(a->unit), pd_unit_name(b->unit));
		d->set.share = 1;
	}
	if (a->interval > 0 && b->interval > 0 && a->unit == b->unit &&
	    differs(a->interval, b->interval))
		pd_diff_warn(d,
			     "sampling intervals differ (baseline %g, candidate"
			     " %g %s per sample): sample counts are scaled to"
			     " compare",
			     a->interval, b->interval, pd_unit_name(a->unit));
	if ((a->event || b->event) &&
	    (!a->event || !b->event || strcmp(a->event, b->event)))
		pd_diff_warn(d, "events differ (baseline %s, candidate %s)",
			     a->event ? a->event : "none",
			     b->event ? b->event : "none");
	if (a->format && b->format && strcmp(a->format, b->format))
		pd_diff_warn(d, "formats differ (baseline %s, candidate %s)",
			     a->format, b->format);
}

/* Mean over runs of the system frames' own (self) time. */
static double system_self(const struct pd_diff *d, const struct pd_agg *r,
			  size_t n)
{
	double s = 0;
	size_t i, k;

	for (k = 0; k < n; k++)
		for (i = 0; i < r[k].n && i < d->fn->v.n; i++)
			if (d->fn->v.v[i].system == PD_SYSTEM_KERNEL)
				s += r[k].self_w[i] / (double)n;
	return s;
}

/*
 * Whole totals (stored runs): a function's total holds the kernel's time
 * below it, which the history cannot separate. A total that moved by no
 * more than the system frames' own time moved, plus the threshold, may be
 * the kernel's doing: it becomes inconclusive, never a verdict.
 */
static void guard_whole_totals(struct pd_diff *d, const struct pd_agg *a,
			       size_t na, const struct pd_agg *b, size_t nb)
{
	double dsys;
	size_t i, n = 0;

	if (!d->set.whole_totals || (d->fn->flags & PD_FUNCS_SYSTEM))
		return;
	dsys = fabs(system_self(d, b, nb) - system_self(d, a, na));
	if (!(dsys > 0))
		return;
	for (i = 0; i <= d->funcs.n; i++) {
		struct pd_metric *m =
		    i < d->funcs.n ? &d->funcs.v[i].total : &d->total;

		if ((m->status != PD_REGRESSED && m->status != PD_IMPROVED) ||
		    (i < d->funcs.n && d->fn->v.v[d->funcs.v[i].func].system))
			continue;
		if (fabs(m->delta) - dsys < m->tau_pct / 100 * m->base) {
			m->status = PD_INCONCLUSIVE;
			n++;
		}
	}
	if (n)
		pd_diff_warn(
		    d,
		    "%zu total%s left inconclusive: stored runs keep"
		    " the kernel's time inside the program's totals, and"
		    " the system frames' own time moved by as much"
		    " (docs/history.md)",
		    n, n == 1 ? "" : "s");
}

static int notable(const struct pd_metric *m, const struct pd_settings *s)
{
	switch (m->status) {
	case PD_REGRESSED:
	case PD_IMPROVED:
		return 1;
	case PD_ADDED:
	case PD_REMOVED:
		/* One-sided, but with enough samples that it is not chance. */
		return m->impact_pct >= s->min_impact_pct && m->p < s->alpha;
	default:
		return 0;
	}
}

/*
 * A percentage for a message: past 10 000 % a figure says nothing a
 * reader can use ("above 6294248230 %"), so it reads 10000: the
 * messages say "above".
 */
static const char *big_pct(char *buf, size_t n, double v)
{
	if (v >= 1e4)
		snprintf(buf, n, "10000");
	else
		snprintf(buf, n, "%.0f", v);
	return buf;
}

static void finish(struct pd_diff *d)
{
	char pct[32];
	int any_reg = d->total.status == PD_REGRESSED;
	int any_imp = d->total.status == PD_IMPROVED;
	double best = PD_NAN, noise, cv_mde, added = 0, run_part = 0;
	size_t i;

	d->total.notable = notable(&d->total, &d->set);
	for (i = 0; i < d->funcs.n; i++) {
		struct pd_fdiff *f = &d->funcs.v[i];

		f->self.notable = notable(&f->self, &d->set);
		f->total.notable = notable(&f->total, &d->set);
		f->system = d->fn->v.v[f->func].system &&
			    !(d->fn->flags & PD_FUNCS_SYSTEM);
		if (f->system) {
			d->nsystem += f->self.status == PD_REGRESSED ||
				      f->self.status == PD_IMPROVED ||
				      f->total.status == PD_REGRESSED ||
				      f->total.status == PD_IMPROVED;
			continue; /* not the program's: not its verdict */
		}
		any_reg |= f->self.status == PD_REGRESSED ||
			   f->total.status == PD_REGRESSED;
		any_imp |= f->self.status == PD_IMPROVED ||
			   f->total.status == PD_IMPROVED;
		if (f->self.notable && f->self.status == PD_ADDED)
			added += f->self.cand / exp(d->shift);
		else if (f->self.notable && f->self.status == PD_REMOVED)
			added -= f->self.base;
		if (f->self.base > 0 && f->self.cand > 0 &&
		    (isnan(best) || f->self.mde_pct < best)) {
			double c = (f->self.base_n + f->self.cand_n) / 2;

			best = f->self.mde_pct;
			/* what its MDE's variance holds beyond sampling */
			run_part = c > 0 ? f->self.mde_se * f->self.mde_se -
					       2 * d->phi / c
					 : 0;
		}
	}
	/*
	 * New work no machine made: functions added (or removed) beyond
	 * chance whose time, net of the other side's, is at least the
	 * minimum impact (a renamed function is added and removed at once).
	 */
	if (d->total.base > 0 &&
	    fabs(added) / d->total.base * 100 >= d->set.min_impact_pct) {
		any_reg |= added > 0;
		any_imp |= added < 0;
	}
	if (any_reg)
		d->verdict = PD_REGRESSED;
	else if (any_imp)
		d->verdict = PD_IMPROVED;
	else if (d->total.status == PD_SAME)
		d->verdict = PD_SAME;
	else
		d->verdict = PD_INCONCLUSIVE;
	if (d->funcs.n > 1)
		pd_sort(d->funcs.v, d->funcs.n, sizeof(*d->funcs.v), cmp_fdiff);
	/*
	 * Too short: even the best-sampled function present on both sides
	 * cannot show a change of the threshold.
	 */
	/*
	 * The MDE beyond the threshold's own part is the noise's; the
	 * --run-cv floor's share of it no recording length removes.
	 */
	d->best_mde_pct = best;
	noise = (1 + best / 100) / (1 + d->set.threshold_pct / 100) * 100 - 100;
	run_part = sqrt(fmax(run_part, 0) / 2); /* a side's, as a cv */
	cv_mde = (exp(2.8 * sqrt(2.0) * run_part) - 1) * 100;
	if (!isnan(best) && noise > d->set.threshold_pct &&
	    d->method == PD_METHOD_QUASI_POISSON &&
	    strcmp(d->phi_source, "history") && noise < 1.5 * cv_mde)
		/* no recording is long enough: the runs' own variation */
		pd_diff_warn(d,
			     "one run per side cannot show a %g %% change:"
			     " runs of one build vary by about %.0f %% (assumed"
			     " without history), so even the"
			     " best-sampled function can only show changes"
			     " above %s %% (compare several runs per side,"
			     " or keep a history: docs/statistics.md)",
			     d->set.threshold_pct, run_part * 100,
			     big_pct(pct, sizeof(pct), best));
	else if (!isnan(best) && noise > d->set.threshold_pct)
		pd_diff_warn(
		    d,
		    "%s for a %g %% threshold: even the best-sampled"
		    " function can only show changes above %s %%"
		    " (record longer, at a higher frequency, or %s)",
		    pd_diff_several_runs(d) ? "too few or too noisy runs"
					    : "profiles too short",
		    d->set.threshold_pct, big_pct(pct, sizeof(pct), best),
		    pd_diff_several_runs(d) ? "add runs" : "repeat runs");
}

/*
 * Exact counts (DHAT records every allocation): there is no sampling noise
 * to test against, so a change is one when it passes the practical
 * threshold and the minimum impact; nothing is marked tested.
 */
static void exact_metric(struct pd_metric *m, const struct pd_settings *set)
{
	double tau = m->tau_pct / 100;

	m->tested = 0;
	m->p = m->q = m->mw_p = m->suggested_runs = PD_NAN;
	m->p_tau = m->ci_adj_low = m->ci_adj_high = PD_NAN;
	m->ci_low = m->ci_high = m->ci90_low = m->ci90_high = PD_NAN;
	m->mde_pct = PD_NAN;
	m->ratio = isnan(m->delta_pct) ? PD_NAN : 1 + m->delta_pct / 100;
	if (m->base <= 0 && m->cand <= 0)
		m->status = PD_SAME;
	else if (m->base <= 0)
		m->status = PD_ADDED;
	else if (m->cand <= 0)
		m->status = PD_REMOVED;
	else if (m->impact_pct >= set->min_impact_pct &&
		 (m->ratio >= 1 + tau || m->ratio <= 1 / (1 + tau)))
		m->status = m->ratio > 1 ? PD_REGRESSED : PD_IMPROVED;
	else
		m->status = PD_SAME;
}

static void exact_verdicts(struct pd_diff *d)
{
	size_t i;

	for (i = 0; i < d->funcs.n; i++) {
		exact_metric(&d->funcs.v[i].self, &d->set);
		exact_metric(&d->funcs.v[i].total, &d->set);
	}
	d->total.tau_pct = d->set.threshold_pct;
	exact_metric(&d->total, &d->set);
	d->method = PD_METHOD_EXACT;
	pd_diff_warn(d,
		     "exact counts (%s): no sampling noise, so no significance"
		     " test; a change is one when it passes the %g %%"
		     " threshold and %g %% of the baseline total",
		     d->base.exact ? d->base.format : d->cand.format,
		     d->set.threshold_pct, d->set.min_impact_pct);
}

/*
 * Totals of a self-only input (flat WPA rows, cachegrind) are not known:
 * emptied before the verdict, which then rests on self alone.
 */
static void drop_totals(struct pd_diff *d)
{
	size_t i;

	d->self_only = 1;
	for (i = 0; i < d->funcs.n; i++) {
		struct pd_metric *m = &d->funcs.v[i].total;

		m->base = m->cand = m->delta = m->delta_pct = PD_NAN;
		m->ratio = m->ci_low = m->ci_high = m->p = m->q = PD_NAN;
		m->p_tau = m->ci_adj_low = m->ci_adj_high = PD_NAN;
		m->mde_pct = PD_NAN;
		m->status = PD_SAME;
		m->tested = 0;
	}
}

int pd_diff_aggs(struct pd_diff *d, const struct pd_side *sa, struct pd_agg *a,
		 size_t na, const struct pd_side *sb, struct pd_agg *b,
		 size_t nb, struct pd_funcs *fn, const struct pd_settings *set,
		 const struct pd_noise *noise)
{
	size_t i;

	assert(na > 0 && nb > 0); /* a side of no runs has no mean */
	pd_diff_begin(d, fn, set);
	d->base = *sa;
	d->cand = *sb;
	check_sides(d);
	for (i = 0; i < na; i++)
		pd_agg_resize(&a[i], fn->v.n);
	for (i = 0; i < nb; i++)
		pd_agg_resize(&b[i], fn->v.n);
	pd_diff_pair_modules(d, a, na, b, nb);
	if (na == 1 && nb == 1)
		pd_diff_counts(d, a, b, noise);
	else
		pd_diff_runs(d, a, na, b, nb, noise);
	if (sa->exact || sb->exact)
		exact_verdicts(d);
	guard_whole_totals(d, a, na, b, nb);
	if (sa->self_only || sb->self_only)
		drop_totals(d);
	finish(d);
	return 0;
}
