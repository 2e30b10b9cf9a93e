/*
 * One metric, the same for every method: its exposures, log ratio,
 * interval, p value and MDE (statistics.md, "The test"), its threshold,
 * the Benjamini-Hochberg families and the decision rule. The methods
 * (pair.c, runs.c, tables.c) call in here; nothing here calls them.
 */
#include <assert.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/xalloc.h"
#include "stats/diff_int.h"
#include "stats/stats.h"

#define Z95 1.959963984540054
#define Z90 1.6448536269514722

/*
 * Log ratio and its standard error for counts a, b: sampling variance
 * phi (1/(a+1/2) + 1/(b+1/2)) plus 2 sig2 between runs.
 */
void pd_diff_log_ratio(const struct pd_expo *x, double a, double b, double phi,
		       double sig2, double *L, double *se)
{
	*L = log((b + 0.5) / x->eb) - log((a + 0.5) / x->ea);
	*se = sqrt(phi * (1 / (a + 0.5) + 1 / (b + 0.5)) + 2 * sig2);
}

/*
 * df: degrees of freedom of a learned variance (t tail), 0 for a fixed
 * one (normal tail, or the exact test on small counts).
 */
static double p_value(const struct pd_expo *x, double a, double b, double L,
		      double se, double df)
{
	if (df > 0)
		return pd_t_sf2(fabs(L / se), df);
	if (a + b < 200) {
		/* counts divided by the variance's ratio to Poisson */
		double r = se * se / (1 / (a + 0.5) + 1 / (b + 0.5));

		return pd_binom_mid_p(b / r, (a + b) / r,
				      x->eb / (x->ea + x->eb));
	}
	return 2 * pd_norm_sf(fabs(L / se));
}

double pd_mde_pct(double se, double z, double tau_pct)
{
	return (exp(log(1 + tau_pct / 100) + (z + 0.84) * se) - 1) * 100;
}

/* Fields every method fills the same way. */
void pd_diff_measure_common(struct pd_metric *m, const struct pd_expo *x,
			    double wa, double wb, double a, double b, int share)
{
	memset(m, 0, sizeof(*m));
	m->base = wa;
	m->cand = wb;
	m->base_n = a;
	m->cand_n = b;
	m->delta = wb - wa;
	m->p = m->q = m->mw_p = m->suggested_runs = PD_NAN;
	m->p_tau = m->ci_adj_low = m->ci_adj_high = PD_NAN;
	m->lr = m->se = m->theta0 = m->mde_se = PD_NAN;
	m->df = 0;
	m->ratio = m->ci_low = m->ci_high = PD_NAN;
	m->ci90_low = m->ci90_high = m->mde_pct = PD_NAN;
	m->shift = -1;
	if (share) {
		double sa = x->ta > 0 ? wa / x->ta : 0;
		double sb = x->tb > 0 ? wb / x->tb : 0;

		m->delta_pct = sa > 0 ? (sb / sa - 1) * 100 : PD_NAN;
		m->impact_pct = fabs(sb - sa) * 100;
	} else {
		m->delta_pct = wa > 0 ? (wb / wa - 1) * 100 : PD_NAN;
		m->impact_pct = x->ta > 0 ? fabs(wb - wa) / x->ta * 100 : 0;
	}
}

/* One profile per side: quasi-Poisson counts. Fills all but q and status. */
void pd_diff_measure(struct pd_metric *m, const struct pd_expo *x, double wa,
		     double wb, double a, double b, double phi, int share)
{
	pd_diff_measure_v(m, x, wa, wb, a, b, phi, 0, 0, share);
}

void pd_diff_measure_v(struct pd_metric *m, const struct pd_expo *x, double wa,
		       double wb, double a, double b, double phi, double sig2,
		       double df, int share)
{
	double L, se, abar = (a + b) / 2, z95 = Z95, z90 = Z90, v;

	/* a variance below 0 or a NaN one makes every interval NaN */
	assert(x->ea > 0 && x->eb > 0 && phi >= 0 && sig2 >= 0);
	pd_diff_measure_common(m, x, wa, wb, a, b, share);
	if (a + b <= 0)
		return;
	pd_diff_log_ratio(x, a, b, phi, sig2, &L, &se);
	m->p = p_value(x, a, b, L, se, df);
	if (wa <= 0 || wb <= 0) /* added or removed: no ratio to speak of */
		return;
	pd_diff_set_test(m, L, se, df);
	if (!(df > 0) && a + b < 200)
		m->theta0 = x->eb / (x->ea + x->eb);
	if (df > 0) {
		z95 = pd_t_quantile(0.975, df);
		z90 = pd_t_quantile(0.95, df);
	}
	/* the MDE at equal counts ā on both sides */
	v = abar > 0 ? 2 * phi / abar + 2 * sig2 : PD_NAN;
	m->mde_pct = abar > 0 ? pd_mde_pct(sqrt(v), z95, x->tau_pct) : PD_NAN;
	m->mde_se = sqrt(v);
	m->ratio = exp(L);
	m->ci_low = exp(L - z95 * se);
	m->ci_high = exp(L + z95 * se);
	m->ci90_low = exp(L - z90 * se);
	m->ci90_high = exp(L + z90 * se);
}

int pd_diff_whole(double a, double b, const struct pd_expo *x)
{
	return a >= PD_WHOLE_SHARE * x->ca && b >= PD_WHOLE_SHARE * x->cb;
}

double pd_diff_ready_share(const struct pd_diff *d, const struct pd_agg *a,
			   size_t na, const struct pd_agg *b, size_t nb,
			   size_t i, int k)
{
	double r = 0, c = 0;
	size_t j;

	if (!k) { /* a frame of waits named so, not any symbol ending so */
		for (j = 0; j < na + nb; j++) {
			const struct pd_agg *x = j < na ? &a[j] : &b[j - na];

			if (x->self_waits && x->self_waits[i] > 0)
				return pd_func_is_ready_wait(d->fn,
							     (uint32_t)i);
		}
		return 0;
	}
	for (j = 0; j < na + nb; j++) {
		const struct pd_agg *x = j < na ? &a[j] : &b[j - na];

		c += x->total_c[i];
		r += x->total_ready_c ? x->total_ready_c[i] : 0;
	}
	return c > 0 ? fmin(1, r / c) : 0;
}

void pd_diff_beyond_shift(struct pd_metric *m, double shift, double ta)
{
	double wb = m->cand / exp(shift);

	if (!(fabs(shift) > 0) || !(m->base > 0))
		return;
	m->ref_shift = shift;
	m->delta = wb - m->base; /* cost shifts and sorting read it too */
	m->delta_pct = (wb / m->base - 1) * 100;
	m->impact_pct = ta > 0 ? fabs(wb - m->base) / ta * 100 : 0;
}

void pd_diff_set_test(struct pd_metric *m, double L, double se, double df)
{
	m->lr = L;
	m->se = se;
	m->df = df;
}

/*
 * The p value against the threshold (statistics.md, "The test"): the
 * null is that the true log ratio lies within +-delta, delta =
 * ln(1 + tau), tested at the boundary nearer the estimate and doubled,
 * as the usual two-sided p is at 0. At tau = 0 it is the usual p; an
 * estimate inside the band gets 1.
 */
double pd_diff_p_tau(const struct pd_metric *m)
{
	double delta = log(1 + m->tau_pct / 100), a = m->base_n, b = m->cand_n,
	       k, th, r;

	if (isnan(m->lr) || !(m->se > 0))
		return m->p;
	if (fabs(m->lr) <= delta)
		return 1;
	if (!isnan(m->theta0)) {
		/* the exact test at the boundary's binomial probability,
		 * on counts divided by the variance's ratio to Poisson */
		k = m->lr > 0 ? 1 + m->tau_pct / 100
			      : 1 / (1 + m->tau_pct / 100);
		th = m->theta0 * k / (m->theta0 * k + 1 - m->theta0);
		r = m->se * m->se / (1 / (a + 0.5) + 1 / (b + 0.5));
		if ((m->lr > 0) != (b > th * (a + b)))
			return 1;
		return pd_binom_mid_p(b / r, (a + b) / r, th);
	}
	if (m->df > 0)
		return pd_t_sf2((fabs(m->lr) - delta) / m->se, m->df);
	return fmin(1, 2 * pd_norm_sf((fabs(m->lr) - delta) / m->se));
}

void pd_diff_warn(struct pd_diff *d, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	PD_VEC_PUSH(&d->warnings, pd_vstrf(fmt, ap));
	va_end(ap);
}

/* The decision rule of statistics.md, after BH. */
void pd_diff_decide(struct pd_metric *m, const struct pd_expo *x,
		    const struct pd_settings *set)
{
	double tau = m->tau_pct / 100, mi = set->min_impact_pct;
	double base_ref, worst, lo, hi;

	/* NaN: no q (a table's cell whose test gave no p), else in [0, 1] */
	assert(!(m->q < 0) && !(m->q > 1));
	assert(!(m->ci_low > m->ci_high) && !(m->ci90_low > m->ci90_high) &&
	       !(m->ci_adj_low > m->ci_adj_high));
	assert(m->tau_pct >= 0);
	if (m->base <= 0 && m->cand <= 0) {
		m->status = PD_SAME;
		return;
	}
	if (m->base <= 0) {
		m->status = PD_ADDED;
		return;
	}
	if (m->cand <= 0) {
		m->status = PD_REMOVED;
		return;
	}
	/* the interval that must clear the threshold */
	lo = set->treat ? m->ci_adj_low : m->ci_low;
	hi = set->treat ? m->ci_adj_high : m->ci_high;
	if (m->tested && m->q < set->alpha &&
	    (lo > 1 + tau || hi < 1 / (1 + tau))) {
		/* Real and beyond the threshold: does it matter? */
		m->status = m->impact_pct < mi ? PD_NEGLIGIBLE
			    : lo > 1 + tau     ? PD_REGRESSED
					       : PD_IMPROVED;
		return;
	}
	/* Equivalent: the change fits the ratio band, or is too small to
	 * matter. */
	base_ref = x->ta > 0 ? m->base / x->ta * 100 : 0;
	worst = base_ref * fmax(m->ci90_high - 1, 1 - m->ci90_low);
	if (!isnan(m->ci90_low) &&
	    ((m->ci90_low >= 1 / (1 + tau) && m->ci90_high <= 1 + tau) ||
	     worst < mi))
		m->status = PD_SAME;
	else
		m->status = PD_INCONCLUSIVE;
}

/* The threshold for function f, metric k: learned when history has one. */
void pd_diff_set_tau(struct pd_metric *m, const struct pd_settings *set,
		     const struct pd_noise *noise, uint32_t f, int k)
{
	assert(k == 0 || k == 1); /* self or total: noise has two tables */
	m->tau_pct = set->threshold_pct;
	m->tau_points = 0;
	if (noise && f < noise->n && noise->tau_points[k][f] > 0 &&
	    noise->tau[k][f] * 100 > set->threshold_pct) {
		m->tau_pct = noise->tau[k][f] * 100;
		m->tau_points = noise->tau_points[k][f];
		m->unstable = 1; /* noisier than the threshold asked */
	}
}

int pd_diff_set_apart(const struct pd_diff *d, const struct pd_fdiff *f)
{
	return d->fn->v.v[f->func].system && !(d->fn->flags & PD_FUNCS_SYSTEM);
}

/*
 * A leaf's total is its self time (a total is never less): one
 * hypothesis, not two.
 */
static int same_as_self(const struct pd_fdiff *f)
{
	return !(f->total.base_n - f->self.base_n > 0) &&
	       !(f->total.cand_n - f->self.cand_n > 0) &&
	       !(f->total.base - f->self.base > 1e-9 * f->total.base) &&
	       !(f->total.cand - f->self.cand > 1e-9 * f->total.cand);
}

/* Quantile of the test's distribution: t on df, else normal. */
static double quantile(double p, double df)
{
	return df > 0 ? pd_t_quantile(p, df) : pd_norm_quantile(p);
}

/*
 * The MDE in a family of n (statistics.md, "Minimum detectable effect"):
 * a change found alone among n must pass Benjamini-Hochberg's bar for a
 * single discovery, the quantile of alpha / n, on its p value: against
 * the threshold with --treat; else against no change, while its 95 %
 * interval must clear the threshold too.
 */
void pd_diff_mde(struct pd_metric *m, size_t n, const struct pd_settings *set)
{
	double zn, z95;

	if (!(m->mde_se > 0))
		return;
	zn = quantile(1 - set->alpha / (2 * (double)(n ? n : 1)), m->df);
	if (set->treat) {
		m->mde_pct = pd_mde_pct(m->mde_se, zn, m->tau_pct);
		return;
	}
	z95 = quantile(0.975, m->df);
	m->mde_pct = fmax(pd_mde_pct(m->mde_se, z95, m->tau_pct),
			  pd_mde_pct(m->mde_se, zn, 0));
}

/*
 * One family: Benjamini-Hochberg over the members' p values (against the
 * threshold with --treat, else against no change), and the selected
 * members' intervals at the adjusted level 1 - R alpha / m (Benjamini
 * and Yekutieli's false coverage rate). With p values against the
 * threshold a member is selected exactly when that interval lies beyond
 * it, on the normal and t tails.
 */
void pd_diff_family(struct pd_metric **ms, size_t n,
		    const struct pd_settings *set)
{
	double *p = pd_xmalloc((n + 1) * sizeof(*p));
	double *q = pd_xmalloc((n + 1) * sizeof(*q));
	double alpha = set->alpha;
	size_t i, r = 0;

	assert(alpha > 0 && alpha < 1 && (ms || !n));
	for (i = 0; i < n; i++) {
		if (isnan(ms[i]->p_tau))
			ms[i]->p_tau = pd_diff_p_tau(ms[i]);
		p[i] = set->treat ? ms[i]->p_tau : ms[i]->p;
	}
	pd_bh(p, n, q);
	for (i = 0; i < n; i++) {
		ms[i]->q = q[i];
		r += q[i] < alpha;
	}
	for (i = 0; i < n && r > 0; i++) {
		struct pd_metric *m = ms[i];
		double z;

		if (!(m->q < alpha) || isnan(m->lr) || !(m->se > 0))
			continue;
		z = quantile(1 - (double)r * alpha / (2 * (double)n), m->df);
		m->ci_adj_low = exp(m->lr - z * m->se);
		m->ci_adj_high = exp(m->lr + z * m->se);
	}
	free(p);
	free(q);
}

/* The same samples on both sides: one hypothesis, not two. */
static int same_counts(const struct pd_metric *a, const struct pd_metric *b)
{
	return !(fabs(a->base_n - b->base_n) > 0) &&
	       !(fabs(a->cand_n - b->cand_n) > 0) &&
	       !(fabs(a->base - b->base) > 1e-9 * fabs(b->base)) &&
	       !(fabs(a->cand - b->cand) > 1e-9 * fabs(b->cand)) &&
	       !(fabs(a->tau_pct - b->tau_pct) > 0);
}

/*
 * The metric whose hypothesis metric i of f is, or NULL when it is a
 * member of its own: a leaf's total is its self time, and a function on
 * every stack (main, the start routines) has the profile's total.
 */
static const struct pd_metric *member_of(const struct pd_diff *d,
					 const struct pd_fdiff *f, size_t i)
{
	if (i % 2 && f->self.tested && same_as_self(f))
		return &f->self;
	if (d->total.tested && !pd_diff_set_apart(d, f) &&
	    same_counts(i % 2 ? &f->total : &f->self, &d->total))
		return &d->total;
	return NULL;
}

/*
 * BH over the tested metrics, then the decision for every metric. Two
 * families: the program's (its functions and the profile total, which is
 * one more hypothesis, not a free extra test) and the system frames set
 * apart (their changes never make the verdict, so they must not dilute
 * the program's). Metrics of the same samples are one member.
 * In share mode the total is 1 by definition.
 */
void pd_diff_test_all(struct pd_diff *d, const struct pd_expo *x)
{
	size_t cap = d->funcs.n * 2 + 1, i, n[2] = { 0, 0 }, fam;
	struct pd_metric **ms[2], *t = &d->total;

	for (fam = 0; fam < 2; fam++)
		ms[fam] = pd_xmalloc(cap * sizeof(*ms[fam]));
	t->tested = !d->set.share && t->base > 0 && t->cand > 0 && !isnan(t->p);
	if (t->tested)
		ms[0][n[0]++] = t;
	for (i = 0; i < d->funcs.n * 2; i++) {
		struct pd_fdiff *f = &d->funcs.v[i / 2];
		struct pd_metric *m = i % 2 ? &f->total : &f->self;
		double possible =
		    x->ta > 0 ? fmax(m->base, m->cand) / x->ta * 100 : 0;

		fam = (size_t)pd_diff_set_apart(d, f);
		if (m->base <= 0 || m->cand <= 0 || isnan(m->p))
			continue;
		if (m->base_n + m->cand_n >= 20 ||
		    possible >= d->set.min_impact_pct) {
			m->tested = 1;
			if (!member_of(d, f, i))
				ms[fam][n[fam]++] = m;
		}
	}
	for (fam = 0; fam < 2; fam++)
		pd_diff_family(ms[fam], n[fam], &d->set);
	if (d->set.share) {
		t->p = PD_NAN;
		t->status = PD_SAME;
	} else {
		pd_diff_mde(t, n[0], &d->set);
		pd_diff_decide(t, x, &d->set);
	}
	for (i = 0; i < d->funcs.n * 2; i++) {
		struct pd_fdiff *f = &d->funcs.v[i / 2];
		struct pd_metric *m = i % 2 ? &f->total : &f->self;
		const struct pd_metric *of = member_of(d, f, i);

		if (m->tested && of) {
			m->p_tau = of->p_tau;
			m->q = of->q;
			m->ci_adj_low = of->ci_adj_low;
			m->ci_adj_high = of->ci_adj_high;
		}
		/* tested here means with a p: a NaN q would pass as "not below
		 * alpha", a change unseen */
		assert(!m->tested || (m->q >= 0 && m->q <= 1));
		pd_diff_mde(m, n[(size_t)pd_diff_set_apart(d, f)], &d->set);
		pd_diff_decide(m, x, &d->set);
		if (i % 2 == 0)
			d->nstatus[m->status]++;
	}
	for (fam = 0; fam < 2; fam++)
		free(ms[fam]);
}

struct pd_expo pd_diff_exposure(const struct pd_diff *d, double ta, double ca,
				double tb, double cb)
{
	struct pd_expo x;

	x.ta = ta;
	x.tb = tb;
	x.ca = ca;
	x.cb = cb;
	x.tau_pct = d->set.threshold_pct;
	if (d->set.share) {
		x.ea = x.ca > 0 ? x.ca : 1;
		x.eb = x.cb > 0 ? x.cb : 1;
	} else {
		x.ea = x.ta > 0 && x.ca > 0 ? x.ca / x.ta : 1;
		x.eb = x.tb > 0 && x.cb > 0 ? x.cb / x.tb : 1;
	}
	return x;
}
