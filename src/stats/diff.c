/*
 * Tests and verdicts: the count test for one profile per side (below),
 * BH and the decision rule, exact counts (DHAT), and the entry point. The
 * moderated t-test for several runs per side is runs.c; matching
 * functions across builds is profiles.c; metric tables are tables.c.
 *
 * Counts a (baseline) and b (candidate) have exposure E (samples per unit
 * of weight in absolute mode, the side's total samples in share mode);
 * L = ln((b+1/2)/E_b) - ln((a+1/2)/E_a). Its variance has two parts
 * (statistics.md, "the noise model"): sampling, phi (1/(a+1/2) +
 * 1/(b+1/2)), and between runs, 2 sigma^2 with sigma = --run-cv; with
 * history, each side's run variance as learned for the function
 * (moderated toward that model, a t tail). phi is max(phi0, lambda) where
 * lambda = median(z^2)/0.4549 over the well-sampled functions, when there are
 * at least 30 of them. Below 200 samples the conditional binomial test b | a+b
 * (mid-p) replaces the normal tail, on counts divided by the variance's ratio
 * to Poisson. An independent filter keeps the functions worth testing, BH
 * adjusts across them, and the practical threshold decides what counts as a
 * change.
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "stats/diff.h"
#include "stats/diff_impl.h"
#include "stats/stats.h"

#define Z95 1.959963984540054
#define Z90 1.6448536269514722
#define CHI2_1_MEDIAN 0.454936423119572

void pd_settings_default(struct pd_settings *s)
{
	s->threshold_pct = 5;
	s->min_impact_pct = 0.5;
	s->alpha = 0.05;
	s->dispersion = 1.5;
	s->run_cv = 0.02;
	s->share = 0;
	s->whole_totals = 0;
	s->paired = 0;
}

int pd_diff_several_runs(const struct pd_diff *d)
{
	return !strcmp(d->method, "moderated-t") ||
	       !strcmp(d->method, "paired-t");
}

const char *pd_status_name(enum pd_status s)
{
	static const char *const names[] = { "same",	  "inconclusive",
					     "regressed", "improved",
					     "added",	  "removed",
					     "negligible" };

	return s < PD_STATUS_COUNT ? names[s] : "same";
}

void pd_diff_warn(struct pd_diff *d, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	PD_VEC_PUSH(&d->warnings, pd_vstrf(fmt, ap));
	va_end(ap);
}

void pd_diff_provenance(struct pd_diff *d, int cand, const char *fmt, ...)
{
	va_list ap;

	free(d->provenance[cand]);
	va_start(ap, fmt);
	d->provenance[cand] = pd_vstrf(fmt, ap);
	va_end(ap);
	if (cand)
		d->cand.provenance = d->provenance[1];
	else
		d->base.provenance = d->provenance[0];
}

void pd_diff_release(struct pd_diff *d)
{
	size_t i, k;

	for (i = 0; i < d->tables.n; i++) {
		for (k = 0; k < d->tables.v[i].rows.n; k++) {
			free(d->tables.v[i].rows.v[k].key);
			free(d->tables.v[i].rows.v[k].m);
		}
		PD_VEC_FREE(&d->tables.v[i].rows);
	}
	PD_VEC_FREE(&d->tables);

	for (i = 0; i < d->warnings.n; i++)
		free(d->warnings.v[i]);
	PD_VEC_FREE(&d->warnings);
	PD_VEC_FREE(&d->funcs);
	for (k = 0; k < 2; k++) {
		free(d->provenance[k]);
		d->provenance[k] = NULL;
	}
	d->base.provenance = d->cand.provenance = NULL;
	for (k = 0; k < 2; k++)
		if (d->merged[k]) {
			pd_profile_release(d->merged[k]);
			free(d->merged[k]);
			d->merged[k] = NULL;
		}
}

/*
 * Log ratio and its standard error for counts a, b: sampling variance
 * phi (1/(a+1/2) + 1/(b+1/2)) plus 2 sig2 between runs.
 */
static void log_ratio(const struct expo *x, double a, double b, double phi,
		      double sig2, double *L, double *se)
{
	*L = log((b + 0.5) / x->eb) - log((a + 0.5) / x->ea);
	*se = sqrt(phi * (1 / (a + 0.5) + 1 / (b + 0.5)) + 2 * sig2);
}

/*
 * df: degrees of freedom of a learned variance (t tail), 0 for a fixed
 * one (normal tail, or the exact test on small counts).
 */
static double p_value(const struct expo *x, double a, double b, double L,
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
void pd_diff_measure_common(struct pd_metric *m, const struct expo *x,
			    double wa, double wb, double a, double b, int share)
{
	memset(m, 0, sizeof(*m));
	m->base = wa;
	m->cand = wb;
	m->base_n = a;
	m->cand_n = b;
	m->delta = wb - wa;
	m->p = m->q = m->mw_p = m->suggested_runs = PD_NAN;
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
void pd_diff_measure(struct pd_metric *m, const struct expo *x, double wa,
		     double wb, double a, double b, double phi, int share)
{
	pd_diff_measure_v(m, x, wa, wb, a, b, phi, 0, 0, share);
}

void pd_diff_measure_v(struct pd_metric *m, const struct expo *x, double wa,
		       double wb, double a, double b, double phi, double sig2,
		       double df, int share)
{
	double L, se, abar = (a + b) / 2, z95 = Z95, z90 = Z90, v;

	pd_diff_measure_common(m, x, wa, wb, a, b, share);
	if (a + b <= 0)
		return;
	log_ratio(x, a, b, phi, sig2, &L, &se);
	m->p = p_value(x, a, b, L, se, df);
	if (wa <= 0 || wb <= 0) /* added or removed: no ratio to speak of */
		return;
	if (df > 0) {
		z95 = pd_t_quantile(0.975, df);
		z90 = pd_t_quantile(0.95, df);
	}
	/* the MDE at equal counts ā on both sides */
	v = abar > 0 ? 2 * phi / abar + 2 * sig2 : PD_NAN;
	m->mde_pct = abar > 0 ? pd_mde_pct(sqrt(v), z95, x->tau_pct) : PD_NAN;
	m->ratio = exp(L);
	m->ci_low = exp(L - z95 * se);
	m->ci_high = exp(L + z95 * se);
	m->ci90_low = exp(L - z90 * se);
	m->ci90_high = exp(L + z90 * se);
}

/* The decision rule of statistics.md, after BH. */
void pd_diff_decide(struct pd_metric *m, const struct expo *x,
		    const struct pd_settings *set)
{
	double tau = m->tau_pct / 100, mi = set->min_impact_pct;
	double base_ref, worst;

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
	if (m->tested && m->q < set->alpha &&
	    (m->ci_low > 1 + tau || m->ci_high < 1 / (1 + tau))) {
		/* Real and beyond the threshold: does it matter? */
		m->status = m->impact_pct < mi	  ? PD_NEGLIGIBLE
			    : m->ci_low > 1 + tau ? PD_REGRESSED
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

void pd_noise_init(struct pd_noise *n, size_t nfuncs)
{
	int k;

	memset(n, 0, sizeof(*n));
	n->n = nfuncs;
	for (k = 0; k < 2; k++) {
		n->s0[k] = pd_xcalloc(nfuncs + 1, sizeof(double));
		n->d0[k] = pd_xcalloc(nfuncs + 1, sizeof(double));
		n->tau[k] = pd_xcalloc(nfuncs + 1, sizeof(double));
		n->cbar[k] = pd_xcalloc(nfuncs + 1, sizeof(double));

		n->tau_points[k] = pd_xcalloc(nfuncs + 1, sizeof(int));
	}
}

void pd_noise_release(struct pd_noise *n)
{
	int k;

	for (k = 0; k < 2; k++) {
		free(n->s0[k]);
		free(n->d0[k]);
		free(n->tau[k]);
		free(n->cbar[k]);

		free(n->tau_points[k]);
	}
	memset(n, 0, sizeof(*n));
}

/* The threshold for function f, metric k: learned when history has one. */
void pd_diff_set_tau(struct pd_metric *m, const struct pd_settings *set,
		     const struct pd_noise *noise, uint32_t f, int k)
{
	m->tau_pct = set->threshold_pct;
	m->tau_points = 0;
	if (noise && f < noise->n && noise->tau_points[k][f] > 0 &&
	    noise->tau[k][f] * 100 > set->threshold_pct) {
		m->tau_pct = noise->tau[k][f] * 100;
		m->tau_points = noise->tau_points[k][f];
		m->unstable = 1; /* noisier than the threshold asked */
	}
}

/* A system frame set apart from the verdict (statistics.md). */
static int set_apart(const struct pd_diff *d, const struct pd_fdiff *f)
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

/*
 * BH over the tested metrics, then the decision for every metric. Two
 * families: the program's (its functions and the profile total, which is
 * one more hypothesis, not a free extra test) and the system frames set
 * apart (their changes never make the verdict, so they must not dilute
 * the program's). A function whose total equals its self time is one
 * member. In share mode the total is 1 by definition.
 */
void pd_diff_test_all(struct pd_diff *d, const struct expo *x)
{
	size_t cap = d->funcs.n * 2 + 1, i, np[2] = { 0, 0 }, fam;
	double *ps[2], *qs[2];
	struct pd_metric *t = &d->total;

	for (fam = 0; fam < 2; fam++) {
		ps[fam] = pd_xmalloc(cap * sizeof(double));
		qs[fam] = pd_xmalloc(cap * sizeof(double));
	}
	t->tested = !d->set.share && t->base > 0 && t->cand > 0 && !isnan(t->p);
	if (t->tested)
		ps[0][np[0]++] = t->p;
	for (i = 0; i < d->funcs.n * 2; i++) {
		struct pd_fdiff *f = &d->funcs.v[i / 2];
		struct pd_metric *m = i % 2 ? &f->total : &f->self;
		double possible =
		    x->ta > 0 ? fmax(m->base, m->cand) / x->ta * 100 : 0;

		fam = (size_t)set_apart(d, f);
		if (m->base <= 0 || m->cand <= 0 || isnan(m->p))
			continue;
		if (m->base_n + m->cand_n >= 20 ||
		    possible >= d->set.min_impact_pct) {
			m->tested = 1;
			if (!(i % 2 && f->self.tested && same_as_self(f)))
				ps[fam][np[fam]++] = m->p;
		}
	}
	for (fam = 0; fam < 2; fam++) {
		pd_bh(ps[fam], np[fam], qs[fam]);
		np[fam] = 0;
	}
	if (t->tested)
		t->q = qs[0][np[0]++];
	if (d->set.share) {
		t->p = PD_NAN;
		t->status = PD_SAME;
	} else {
		pd_diff_decide(t, x, &d->set);
	}
	for (i = 0; i < d->funcs.n * 2; i++) {
		struct pd_fdiff *f = &d->funcs.v[i / 2];
		struct pd_metric *m = i % 2 ? &f->total : &f->self;

		fam = (size_t)set_apart(d, f);
		if (m->tested)
			m->q = i % 2 && f->self.tested && same_as_self(f)
				   ? f->self.q
				   : qs[fam][np[fam]++];
		pd_diff_decide(m, x, &d->set);
		if (i % 2 == 0)
			d->nstatus[m->status]++;
	}
	for (fam = 0; fam < 2; fam++) {
		free(ps[fam]);
		free(qs[fam]);
	}
}

struct expo pd_diff_exposure(const struct pd_diff *d, double ta, double ca,
			     double tb, double cb)
{
	struct expo x;

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

/*
 * A learned variance counts as PRIOR_DF observations of the model without
 * history: a few commits cannot make a function look quieter than that by
 * chance alone.
 */
#define PRIOR_DF 4

/* What history learned of one metric: a run's variance of ln(weight). */
struct learned {
	double s2;   /* moderated, at a run of cbar samples */
	double cbar; /* the history's mean count of a run */
	double df;   /* 0: nothing learned */
};

/*
 * Function f's metric k (f = SIZE_MAX: the profile total, which the
 * history keeps one past its last function), moderated toward the model
 * without history at the history's run length, phi0/cbar + cv^2, worth
 * PRIOR_DF observations. (A trend over the history's functions, as for
 * several runs, was measured worse here: the noisy functions lift its
 * between-run part, and quiet ones moderated toward it lost a third of
 * their power; statistics.md.)
 */
static struct learned learned_of(const struct pd_diff *d,
				 const struct pd_noise *noise, size_t f, int k)
{
	struct learned l = { 0, 0, 0 };
	double n, prior;

	if (noise && f == SIZE_MAX)
		f = noise->n;
	else if (!noise || f >= noise->n)
		return l;
	n = noise->d0[k][f];
	if (!(n > 0) || !(noise->cbar[k][f] > 0))
		return l;
	l.cbar = noise->cbar[k][f];
	prior =
	    d->set.dispersion / (l.cbar + 0.5) + d->set.run_cv * d->set.run_cv;
	l.s2 = (n * noise->s0[k][f] + PRIOR_DF * prior) / (n + PRIOR_DF);
	l.df = n + PRIOR_DF;
	return l;
}

/*
 * A run of c samples, from what history learned at cbar: the sampling
 * part moves with the count (Poisson's 1/c for 1/cbar), the rest stays;
 * never below a quarter of Poisson (periodic sampling is sub-Poisson,
 * not free of noise).
 */
static double learned_var(const struct learned *l, double c)
{
	return fmax(l->s2 + 1 / (c + 0.5) - 1 / (l->cbar + 0.5),
		    0.25 / (c + 0.5));
}

/*
 * One metric of one pair. With history: each side's learned variance, a
 * t tail with its degrees of freedom. Without: phi0 sampling plus 2 cv^2
 * between runs, or the same scaled by lambda (the excess the profile's
 * own well-sampled functions show) when that is larger.
 */
static void measure_pair(struct pd_diff *d, struct pd_metric *m,
			 const struct expo *x, double wa, double wb, double a,
			 double b, const struct learned *l)
{
	double phi = d->phi, s = 1 / (a + 0.5) + 1 / (b + 0.5);
	double sig2 = d->set.run_cv * d->set.run_cv;

	if (l->df > 0) {
		pd_diff_measure_v(m, x, wa, wb, a, b, 0,
				  (learned_var(l, a) + learned_var(l, b)) / 2,
				  l->df, d->set.share);
		return;
	}
	if (!isnan(d->lambda) &&
	    d->lambda * (s + 2 * sig2) > phi * s + 2 * sig2) {
		phi = d->lambda;
		sig2 *= d->lambda;
	}
	pd_diff_measure_v(m, x, wa, wb, a, b, phi, sig2, 0, d->set.share);
}

/* One profile per side. */
static void diff_counts(struct pd_diff *d, const struct pd_agg *aa,
			const struct pd_agg *ab, const struct pd_noise *noise)
{
	struct expo x =
	    pd_diff_exposure(d, aa->all_w, aa->all_c, ab->all_w, ab->all_c);
	size_t nf = d->fn->v.n, i, nz = 0, nlearned = 0;
	double *z2, cv2 = d->set.run_cv * d->set.run_cv;
	struct learned l;

	d->method = "quasi-poisson";
	/*
	 * Overdispersion: z^2 of well-sampled self counts under the model
	 * at phi = 1 (sampling plus the between-run term).
	 */
	z2 = pd_xmalloc((nf ? nf : 1) * sizeof(*z2));
	for (i = 0; i < nf; i++) {
		double c = aa->self_c[i] + ab->self_c[i], L, se;

		if (c < 50 ||
		    (d->fn->v.v[i].system && !(d->fn->flags & PD_FUNCS_SYSTEM)))
			continue;
		log_ratio(&x, aa->self_c[i], ab->self_c[i], 1, cv2, &L, &se);
		z2[nz++] = (L / se) * (L / se);
	}
	d->phi = d->set.dispersion > 0 ? d->set.dispersion : 1;
	d->phi_source = "default";
	d->lambda_n = nz;
	if (nz >= 30) {
		d->lambda = pd_median(z2, nz) / CHI2_1_MEDIAN;
		if (d->lambda > d->phi) {
			d->phi = d->lambda;
			d->phi_source = "estimated";
		}
	}
	free(z2);

	PD_VEC_RESERVE(&d->funcs, nf);
	for (i = 0; i < nf; i++) {
		struct pd_fdiff f;
		int k;

		if (aa->total_w[i] <= 0 && ab->total_w[i] <= 0)
			continue;
		f.func = (uint32_t)i;
		for (k = 0; k < 2; k++) {
			struct pd_metric *m = k ? &f.total : &f.self;

			l = learned_of(d, noise, i, k);
			nlearned += l.df > 0;
			measure_pair(d, m, &x,
				     k ? aa->total_w[i] : aa->self_w[i],
				     k ? ab->total_w[i] : ab->self_w[i],
				     k ? aa->total_c[i] : aa->self_c[i],
				     k ? ab->total_c[i] : ab->self_c[i], &l);
			pd_diff_set_tau(m, &d->set, noise, f.func, k);
		}
		PD_VEC_PUSH(&d->funcs, f);
	}
	if (nlearned)
		d->phi_source = "history";

	/*
	 * The profile total: the same model, its run-to-run variation
	 * learned under the function id one past the last (the history's
	 * total row), else the floor; tested in the family below.
	 */
	l = learned_of(d, noise, SIZE_MAX, 1);
	measure_pair(d, &d->total, &x, x.ta, x.tb, x.ca, x.cb, &l);
	d->total.tau_pct = d->set.threshold_pct;
	pd_diff_test_all(d, &x);
}

/* Mean over runs of the system frames' own (self) time. */
static double system_self(const struct pd_diff *d, const struct pd_agg *r,
			  size_t n)
{
	double s = 0;
	size_t i, k;

	for (k = 0; k < n; k++)
		for (i = 0; i < r[k].n && i < d->fn->v.n; i++)
			if (d->fn->v.v[i].system)
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

static void finish(struct pd_diff *d)
{
	int any_reg = d->total.status == PD_REGRESSED;
	int any_imp = d->total.status == PD_IMPROVED;
	double best = PD_NAN, noise, cv_mde;
	size_t i;

	for (i = 0; i < d->funcs.n; i++) {
		struct pd_fdiff *f = &d->funcs.v[i];

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
		if (f->self.base > 0 && f->self.cand > 0 &&
		    (isnan(best) || f->self.mde_pct < best))
			best = f->self.mde_pct;
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
		qsort(d->funcs.v, d->funcs.n, sizeof(*d->funcs.v), cmp_fdiff);
	/*
	 * Too short: even the best-sampled function present on both sides
	 * cannot show a change of the threshold.
	 */
	/*
	 * The MDE beyond the threshold's own part is the noise's; the
	 * --run-cv floor's share of it no recording length removes.
	 */
	noise = (1 + best / 100) / (1 + d->set.threshold_pct / 100) * 100 - 100;
	cv_mde = (exp(2.8 * sqrt(2.0) * d->set.run_cv) - 1) * 100;
	if (!isnan(best) && noise > d->set.threshold_pct &&
	    !strcmp(d->method, "quasi-poisson") &&
	    strcmp(d->phi_source, "history") && noise < 1.5 * cv_mde)
		/* no recording is long enough: the runs' own variation */
		pd_diff_warn(d,
			     "one run per side cannot show a %g %% change:"
			     " runs of one build vary by about %g %% (--run-cv,"
			     " assumed without history), so even the"
			     " best-sampled function can only show changes"
			     " above %.0f %% (compare several runs per side,"
			     " or keep a history: docs/statistics.md)",
			     d->set.threshold_pct, d->set.run_cv * 100, best);
	else if (!isnan(best) && noise > d->set.threshold_pct)
		pd_diff_warn(
		    d,
		    "%s for a %g %% threshold: even the best-sampled"
		    " function can only show changes above %.0f %%"
		    " (record longer, at a higher frequency, or %s)",
		    pd_diff_several_runs(d) ? "too few or too noisy runs"
					    : "profiles too short",
		    d->set.threshold_pct, best,
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
	d->method = "exact";
	pd_diff_warn(d,
		     "exact counts (%s): no sampling noise, so no significance"
		     " test; a change is one when it passes the %g %%"
		     " threshold and %g %% of the baseline total",
		     d->base.exact ? d->base.format : d->cand.format,
		     d->set.threshold_pct, d->set.min_impact_pct);
}

void pd_diff_begin(struct pd_diff *d, struct pd_funcs *fn,
		   const struct pd_settings *set)
{
	memset(d, 0, sizeof(*d));
	d->set = *set;
	d->fn = fn;
	d->lambda = PD_NAN;
	d->method = "quasi-poisson";
	d->phi_source = "default";
}

int pd_diff_aggs(struct pd_diff *d, const struct pd_side *sa, struct pd_agg *a,
		 size_t na, const struct pd_side *sb, struct pd_agg *b,
		 size_t nb, struct pd_funcs *fn, const struct pd_settings *set,
		 const struct pd_noise *noise)
{
	size_t i;

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
		diff_counts(d, a, b, noise);
	else
		pd_diff_runs(d, a, na, b, nb, noise);
	if (sa->exact || sb->exact)
		exact_verdicts(d);
	guard_whole_totals(d, a, na, b, nb);
	finish(d);
	return 0;
}
