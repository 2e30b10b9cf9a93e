/*
 * Matching and verdicts for one profile per side.
 *
 * Counts a (baseline) and b (candidate) are treated as quasi-Poisson with
 * exposure E (samples per unit of weight in absolute mode, the side's total
 * samples in share mode): L = ln((b+1/2)/E_b) - ln((a+1/2)/E_a) with
 * SE = sqrt(phi (1/(a+1/2) + 1/(b+1/2))). Below 200 samples the conditional
 * binomial test b | a+b replaces the normal tail, on counts divided by phi.
 * phi is max(phi0, lambda) where lambda = median(z^2)/0.4549 over the
 * well-sampled functions, when there are at least 30 of them. An
 * independent filter keeps the functions worth testing, BH adjusts across
 * them, and the practical threshold decides what counts as a change.
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "stats/diff.h"
#include "stats/stats.h"

#define Z95 1.959963984540054
#define Z90 1.6448536269514722
#define CHI2_1_MEDIAN 0.454936423119572

void pd_settings_default(struct pd_settings *s)
{
	s->threshold_pct = 5;
	s->min_impact_pct = 0.5;
	s->alpha = 0.05;
	s->dispersion = 2;
	s->share = 0;
}

const char *pd_status_name(enum pd_status s)
{
	static const char *const names[] = { "same",	  "inconclusive",
					     "regressed", "improved",
					     "added",	  "removed" };

	return s < PD_STATUS_COUNT ? names[s] : "same";
}

void pd_diff_warn(struct pd_diff *d, const char *fmt, ...)
{
	struct pd_buf b = PD_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	pd_buf_vaddf(&b, fmt, ap);
	va_end(ap);
	PD_VEC_PUSH(&d->warnings, pd_buf_detach(&b));
}

void pd_diff_release(struct pd_diff *d)
{
	size_t i;

	for (i = 0; i < d->warnings.n; i++)
		free(d->warnings.v[i]);
	PD_VEC_FREE(&d->warnings);
	PD_VEC_FREE(&d->funcs);
}

struct expo {
	double ea, eb; /* exposures */
	double ta, tb; /* total weights */
	double ca, cb; /* total counts */
};

/* Log ratio and its standard error for counts a, b. */
static void log_ratio(const struct expo *x, double a, double b, double phi,
		      double *L, double *se)
{
	*L = log((b + 0.5) / x->eb) - log((a + 0.5) / x->ea);
	*se = sqrt(phi * (1 / (a + 0.5) + 1 / (b + 0.5)));
}

static double p_value(const struct expo *x, double a, double b, double phi,
		      double L, double se)
{
	if (a + b < 200)
		return pd_binom_two_sided(b / phi, (a + b) / phi,
					  x->eb / (x->ea + x->eb));
	return 2 * pd_norm_sf(fabs(L / se));
}

/* Fills everything but q and status. */
static void measure(struct pd_metric *m, const struct expo *x, double wa,
		    double wb, double a, double b, double phi, int share)
{
	double L, se, abar = (a + b) / 2;

	memset(m, 0, sizeof(*m));
	m->base = wa;
	m->cand = wb;
	m->base_n = a;
	m->cand_n = b;
	m->delta = wb - wa;
	m->p = m->q = PD_NAN;
	if (share) {
		double sa = x->ta > 0 ? wa / x->ta : 0;
		double sb = x->tb > 0 ? wb / x->tb : 0;

		m->delta_pct = sa > 0 ? (sb / sa - 1) * 100 : PD_NAN;
		m->impact_pct = fabs(sb - sa) * 100;
	} else {
		m->delta_pct = wa > 0 ? (wb / wa - 1) * 100 : PD_NAN;
		m->impact_pct = x->ta > 0 ? fabs(wb - wa) / x->ta * 100 : 0;
	}
	m->mde_pct =
	    abar > 0 ? (exp(2.8 * sqrt(2 * phi / abar)) - 1) * 100 : PD_NAN;
	if (a + b <= 0) {
		m->ratio = m->ci_low = m->ci_high = PD_NAN;
		return;
	}
	log_ratio(x, a, b, phi, &L, &se);
	m->p = p_value(x, a, b, phi, L, se);
	if (wa <= 0 || wb <= 0) { /* added or removed: no ratio to speak of */
		m->ratio = m->ci_low = m->ci_high = m->mde_pct = PD_NAN;
		return;
	}
	m->ratio = exp(L);
	m->ci_low = exp(L - Z95 * se);
	m->ci_high = exp(L + Z95 * se);
}

/* The decision rule of statistics.md, after BH. */
static void decide(struct pd_metric *m, const struct expo *x, double phi,
		   const struct pd_settings *set, int use_q)
{
	double tau = set->threshold_pct / 100, mi = set->min_impact_pct;
	double sig = use_q ? m->q : m->p;
	double L, se, lo90, hi90, base_ref, worst;

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
	if (m->tested && sig < set->alpha && m->impact_pct >= mi) {
		if (m->ci_low > 1 + tau) {
			m->status = PD_REGRESSED;
			return;
		}
		if (m->ci_high < 1 / (1 + tau)) {
			m->status = PD_IMPROVED;
			return;
		}
	}
	log_ratio(x, m->base_n, m->cand_n, phi, &L, &se);
	lo90 = exp(L - Z90 * se);
	hi90 = exp(L + Z90 * se);
	/* Equivalent: the change fits the ratio band, or is too small to
	 * matter. */
	base_ref = set->share ? (x->ta > 0 ? m->base / x->ta * 100 : 0)
			      : (x->ta > 0 ? m->base / x->ta * 100 : 0);
	worst = base_ref * fmax(hi90 - 1, 1 - lo90);
	if ((lo90 >= 1 / (1 + tau) && hi90 <= 1 + tau) || worst < mi)
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

/* Module basename of a frame, as a slice of the profile's string. */
static const char *frame_module(const struct pd_profile *p, uint32_t f,
				size_t *len)
{
	const char *m = pd_intern_str(&p->strs, p->frames.v[f].module);
	size_t n = pd_intern_len(&p->strs, p->frames.v[f].module);
	size_t b = pd_module_basename(m, n);

	*len = n - b;
	return m + b;
}

/* Counts baseline functions of module ma that candidate module mb also has. */
static size_t common_names(const struct pd_profile *a, const char *ma,
			   const char *mb, const struct pd_intern *keys,
			   const unsigned char *kbits)
{
	struct pd_buf k = PD_BUF_INIT;
	size_t f, n = 0, mal = strlen(ma);

	for (f = 0; f < a->frames.n; f++) {
		size_t ml;
		const char *m = frame_module(a, (uint32_t)f, &ml);
		const struct pd_frame *fr = &a->frames.v[f];
		uint32_t kid;

		if (ml != mal || memcmp(m, ma, ml))
			continue;
		pd_buf_reset(&k);
		pd_buf_adds(&k, mb);
		pd_buf_addch(&k, 0);
		pd_buf_add(&k, pd_intern_str(&a->strs, fr->name),
			   pd_intern_len(&a->strs, fr->name));
		kid = pd_intern_find(keys, k.buf, k.len);
		if (kid != UINT32_MAX && (kbits[kid] & 2))
			n++;
	}
	pd_buf_release(&k);
	return n;
}

/*
 * Builds often name their binary differently (app-old, app-new). A module
 * seen on one side only is paired with the other side's one-sided module
 * that shares most of its function names, when at least half of the
 * smaller one's functions match.
 */
static void pair_modules(struct pd_diff *d, const struct pd_profile *a,
			 const struct pd_profile *b, struct pd_funcs *fn)
{
	const struct pd_profile *side[2] = { a, b };
	struct pd_intern mods, keys;
	PD_VEC(unsigned char) mbits = PD_VEC_INIT, kbits = PD_VEC_INIT;
	PD_VEC(uint32_t) nfun[2] = { PD_VEC_INIT, PD_VEC_INIT };
	struct pd_buf k = PD_BUF_INIT;
	size_t i, j, s;

	pd_intern_init(&mods);
	pd_intern_init(&keys);
	for (s = 0; s < 2; s++) {
		for (i = 0; i < side[s]->frames.n; i++) {
			size_t ml;
			const char *m = frame_module(side[s], (uint32_t)i, &ml);
			const struct pd_frame *fr = &side[s]->frames.v[i];
			uint32_t mid, kid;

			if (!ml)
				continue;
			mid = pd_intern(&mods, m, ml);
			while (mbits.n <= mid)
				PD_VEC_PUSH(&mbits, 0);
			mbits.v[mid] |= (unsigned char)(1u << s);
			pd_buf_reset(&k);
			pd_buf_add(&k, m, ml);
			pd_buf_addch(&k, 0);
			pd_buf_add(&k, pd_intern_str(&side[s]->strs, fr->name),
				   pd_intern_len(&side[s]->strs, fr->name));
			kid = pd_intern(&keys, k.buf, k.len);
			while (kbits.n <= kid)
				PD_VEC_PUSH(&kbits, 0);
			if (!(kbits.v[kid] & (1u << s))) {
				while (nfun[s].n <= mid)
					PD_VEC_PUSH(&nfun[s], 0);
				nfun[s].v[mid]++;
			}
			kbits.v[kid] |= (unsigned char)(1u << s);
		}
	}
	for (s = 0; s < 2; s++)
		while (nfun[s].n < mods.n)
			PD_VEC_PUSH(&nfun[s], 0);
	for (i = 1; i < mods.n; i++) {
		size_t best = 0, best_common = 0, small;

		if (mbits.v[i] != 1) /* baseline-only modules */
			continue;
		for (j = 1; j < mods.n; j++) {
			size_t c;

			if (mbits.v[j] != 2)
				continue;
			c = common_names(a, pd_intern_str(&mods, (uint32_t)i),
					 pd_intern_str(&mods, (uint32_t)j),
					 &keys, kbits.v);
			if (c > best_common) {
				best_common = c;
				best = j;
			}
		}
		if (!best)
			continue;
		small = nfun[0].v[i] < nfun[1].v[best] ? nfun[0].v[i]
						       : nfun[1].v[best];
		if (best_common * 2 < small)
			continue;
		pd_funcs_alias(fn, pd_intern_str(&mods, (uint32_t)best),
			       pd_intern_str(&mods, (uint32_t)i));
		pd_diff_warn(
		    d,
		    "module %s (candidate) is matched to %s (baseline):"
		    " %zu functions in common",
		    pd_intern_str(&mods, (uint32_t)best),
		    pd_intern_str(&mods, (uint32_t)i), best_common);
		mbits.v[best] = 3;
	}
	pd_buf_release(&k);
	pd_intern_release(&mods);
	pd_intern_release(&keys);
	PD_VEC_FREE(&mbits);
	PD_VEC_FREE(&kbits);
	PD_VEC_FREE(&nfun[0]);
	PD_VEC_FREE(&nfun[1]);
}

static void side_from(struct pd_side *s, const struct pd_profile *p)
{
	s->source = p->source;
	s->format = p->format;
	s->exporter = p->exporter;
	s->event = p->event;
	s->count_rule = p->count_rule;
	s->unit = p->unit;
	s->total = p->total_weight;
	s->samples = p->total_count;
	s->interval = p->interval;
	s->runs = 1;
	s->profile = p;
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
	if (strcmp(a->format, b->format))
		pd_diff_warn(d, "formats differ (baseline %s, candidate %s)",
			     a->format, b->format);
}

int pd_diff_compute(struct pd_diff *d, const struct pd_profile *a,
		    const struct pd_profile *b, struct pd_funcs *fn,
		    const struct pd_settings *set)
{
	struct pd_agg aa, ab;
	struct expo x;
	double *z2, *ps, *qs, phi;
	size_t nf, i, nz = 0, np = 0;
	int any_reg = 0, any_imp = 0;

	memset(d, 0, sizeof(*d));
	d->set = *set;
	d->fn = fn;
	d->lambda = PD_NAN;
	side_from(&d->base, a);
	side_from(&d->cand, b);
	check_sides(d);
	for (i = 0; i < a->notes.n; i++)
		pd_diff_warn(d, "baseline: %s", a->notes.v[i]);
	for (i = 0; i < b->notes.n; i++)
		pd_diff_warn(d, "candidate: %s", b->notes.v[i]);
	if (!(fn->flags & PD_FUNCS_NO_MODULE) &&
	    a->has_modules != b->has_modules) {
		fn->flags |= PD_FUNCS_NO_MODULE;
		d->name_only = 1;
		pd_diff_warn(d,
			     "the %s has no module names: functions are matched"
			     " by name alone",
			     a->has_modules ? "candidate" : "baseline");
	}

	if (!(fn->flags & PD_FUNCS_NO_MODULE))
		pair_modules(d, a, b, fn);
	pd_agg_init(&aa);
	pd_agg_init(&ab);
	pd_agg_compute(&aa, a, fn);
	pd_agg_compute(&ab, b, fn);
	nf = fn->v.n;
	pd_agg_resize(&aa, nf);
	pd_agg_resize(&ab, nf);

	x.ta = aa.all_w;
	x.tb = ab.all_w;
	x.ca = aa.all_c;
	x.cb = ab.all_c;
	if (d->set.share) {
		x.ea = x.ca > 0 ? x.ca : 1;
		x.eb = x.cb > 0 ? x.cb : 1;
	} else {
		x.ea = x.ta > 0 && x.ca > 0 ? x.ca / x.ta : 1;
		x.eb = x.tb > 0 && x.cb > 0 ? x.cb / x.tb : 1;
	}

	/* Overdispersion: z^2 of well-sampled self counts at phi = 1. */
	z2 = pd_xmalloc((nf ? nf : 1) * sizeof(*z2));
	for (i = 0; i < nf; i++) {
		double c = aa.self_c[i] + ab.self_c[i], L, se;

		if (c < 50)
			continue;
		log_ratio(&x, aa.self_c[i], ab.self_c[i], 1, &L, &se);
		z2[nz++] = (L / se) * (L / se);
	}
	phi = set->dispersion > 0 ? set->dispersion : 1;
	d->phi_source = "default";
	d->lambda_n = nz;
	if (nz >= 30) {
		d->lambda = pd_median(z2, nz) / CHI2_1_MEDIAN;
		if (d->lambda > phi) {
			phi = d->lambda;
			d->phi_source = "estimated";
		}
	}
	d->phi = phi;
	free(z2);

	PD_VEC_RESERVE(&d->funcs, nf);
	for (i = 0; i < nf; i++) {
		struct pd_fdiff f;

		if (aa.total_w[i] <= 0 && ab.total_w[i] <= 0)
			continue;
		f.func = (uint32_t)i;
		measure(&f.self, &x, aa.self_w[i], ab.self_w[i], aa.self_c[i],
			ab.self_c[i], phi, d->set.share);
		measure(&f.total, &x, aa.total_w[i], ab.total_w[i],
			aa.total_c[i], ab.total_c[i], phi, d->set.share);
		PD_VEC_PUSH(&d->funcs, f);
	}

	/* Independent filter, then BH over both metrics of every function. */
	ps = pd_xmalloc((d->funcs.n * 2 + 1) * sizeof(*ps));
	qs = pd_xmalloc((d->funcs.n * 2 + 1) * sizeof(*qs));
	for (i = 0; i < d->funcs.n * 2; i++) {
		struct pd_fdiff *f = &d->funcs.v[i / 2];
		struct pd_metric *m = i % 2 ? &f->total : &f->self;
		double possible =
		    x.ta > 0 ? fmax(m->base, m->cand) / x.ta * 100 : 0;

		if (m->base <= 0 || m->cand <= 0 || isnan(m->p))
			continue;
		if (m->base_n + m->cand_n >= 20 ||
		    possible >= set->min_impact_pct) {
			m->tested = 1;
			ps[np++] = m->p;
		}
	}
	pd_bh(ps, np, qs);
	np = 0;
	for (i = 0; i < d->funcs.n * 2; i++) {
		struct pd_fdiff *f = &d->funcs.v[i / 2];
		struct pd_metric *m = i % 2 ? &f->total : &f->self;

		if (m->tested)
			m->q = qs[np++];
		decide(m, &x, phi, &d->set, 1);
		any_reg |= m->status == PD_REGRESSED;
		any_imp |= m->status == PD_IMPROVED;
		if (i % 2 == 0)
			d->nstatus[m->status]++;
	}
	free(ps);
	free(qs);

	/* The profile total: one test of its own. */
	measure(&d->total, &x, x.ta, x.tb, x.ca, x.cb, phi, d->set.share);
	d->total.tested = !d->set.share;
	if (d->set.share) {
		d->total.p = PD_NAN;
		d->total.status = PD_SAME;
	} else {
		d->total.q = d->total.p;
		decide(&d->total, &x, phi, &d->set, 1);
	}
	any_reg |= d->total.status == PD_REGRESSED;
	any_imp |= d->total.status == PD_IMPROVED;

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
	{
		double best = PD_NAN;

		for (i = 0; i < d->funcs.n; i++) {
			const struct pd_metric *m = &d->funcs.v[i].self;

			if (m->base > 0 && m->cand > 0 &&
			    (isnan(best) || m->mde_pct < best))
				best = m->mde_pct;
		}
		if (!isnan(best) && best > set->threshold_pct)
			pd_diff_warn(
			    d,
			    "profiles too short for a %g %% threshold:"
			    " even the best-sampled function can only"
			    " show changes above %.0f %% (record longer,"
			    " at a higher frequency, or repeat runs)",
			    set->threshold_pct, best);
	}
	pd_agg_release(&aa);
	pd_agg_release(&ab);
	return 0;
}
