/*
 * Metric tables that are not CPU stacks (WPA Disk Usage, File I/O, ...):
 * rows matched by key, each measure tested like a function's weight.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/sort.h"
#include "core/xalloc.h"
#include "stats/diff_int.h"
#include "stats/stats.h"

static int cmp_trow(const void *pa, const void *pb)
{
	const struct pd_trow *a = pa, *b = pb;

	if (a->impact > b->impact)
		return -1;
	if (a->impact < b->impact)
		return 1;
	return strcmp(a->key, b->key);
}

static double mvalue(const struct pd_mtable *t, const char *key, size_t m)
{
	uint32_t id = pd_intern_find(&t->rowkeys, key, strlen(key));
	size_t at;

	if (id == UINT32_MAX)
		return 0;
	at = (size_t)id * t->measures.n + m;
	return at < t->values.n ? t->values.v[at] : 0;
}

static int higher_is_better(const struct pd_mtable *t, const char *key)
{
	uint32_t id = pd_intern_find(&t->rowkeys, key, strlen(key));

	return id != UINT32_MAX && id < t->up.n && t->up.v[id];
}

/*
 * Values known with a relative standard error on both sides (perf stat
 * -r N): a t-test on the log ratio, Welch's degrees of freedom when the
 * runs are known, else the normal. Returns 0 when not applicable.
 */
static int se_test(struct pd_metric *m, const struct pd_expo *x, double va,
		   double vb, double ra, double rb, int na, int nb)
{
	double L, se, df = 1e6, tq, tq90;

	if (!(ra >= 0) || !(rb >= 0) || !(va > 0) || !(vb > 0))
		return 0;
	se = sqrt(ra * ra + rb * rb);
	if (!(se > 0)) /* the same value on every run: nothing to test */
		return 0;
	if (na > 1 && nb > 1)
		df = pow(ra * ra + rb * rb, 2) /
		     (pow(ra, 4) / (na - 1) + pow(rb, 4) / (nb - 1));
	pd_diff_measure_common(m, x, va, vb, PD_NAN, PD_NAN, 0);
	L = log(vb / va);
	tq = pd_t_quantile(0.975, df);
	tq90 = pd_t_quantile(0.95, df);
	m->p = pd_t_sf2(fabs(L) / se, df);
	pd_diff_set_test(m, L, se, df);
	m->ratio = vb / va;
	m->ci_low = exp(L - tq * se);
	m->ci_high = exp(L + tq * se);
	m->ci90_low = exp(L - tq90 * se);
	m->ci90_high = exp(L + tq90 * se);
	m->mde_pct = pd_mde_pct(se, tq, x->tau_pct);
	m->mde_se = se;
	m->tested = 1;
	return 1;
}

/*
 * A whole count of events: perf stat keys are event TAB unit, and a
 * count's unit is empty.
 */
static int is_count(const char *key, double v)
{
	size_t kl = strlen(key);

	return v >= 0 && v - floor(v) < 1e-9 && kl && key[kl - 1] == '\t';
}

/*
 * A count's relative error is at least its counting noise: over n runs
 * (1 when unknown) a mean of v events has sqrt(phi / (n v)), with the
 * dispersion floor phi. perf's own error from a few runs of a small count
 * (1 migration +- 20 %) is often far below it. Unknown errors stay so.
 */
static double count_floor(const char *key, double v, double r, int n,
			  double phi)
{
	if (r < 0 || !(v > 0) || !is_count(key, v))
		return r;
	return fmax(r, sqrt(phi / ((n > 1 ? n : 1) * v)));
}

/*
 * A counter that moved within its own noise has not changed, even where
 * no test applies (one side zero, or an error on one side only): the
 * difference against the errors perf gave (+-, floored as above), or,
 * with none, for a whole count of events against the Poisson error of
 * the two counts, widened by the dispersion floor. The two-sided p; NAN
 * when neither error is known.
 */
static double noise_p(const char *key, double va, double vb, double ra,
		      double rb, double phi)
{
	double var = 0;

	if (ra >= 0 || rb >= 0) {
		if (ra > 0)
			var += va * ra * va * ra;
		if (rb > 0)
			var += vb * rb * vb * rb;
	} else if (is_count(key, va) && is_count(key, vb)) {
		var = phi * (va + vb);
	}
	if (!(var > 0))
		return PD_NAN;
	return 2 * pd_norm_sf(fabs(vb - va) / sqrt(var));
}

static size_t measure_index(const struct pd_mtable *t, const char *name)
{
	size_t i;

	for (i = 0; i < t->measures.n; i++)
		if (!strcmp(t->measures.v[i], name))
			return i;
	return SIZE_MAX;
}

/*
 * Counts of events (I/O operations, context switches, migrations) are not
 * samples: how many happen in a run is up to the scheduler and the
 * devices, and varies at least twice as much as Poisson counting would
 * (statistics.md, "run-level counters").
 */
#define EVENT_PHI 2

/* One pair of tables being compared. */
struct tpair {
	const struct pd_mtable *ta, *tb;
	size_t nm;	       /* the baseline's measures */
	size_t *mb;	       /* each one's index in the candidate, or none */
	double *tot_a, *tot_b; /* each measure's total over the rows */
	double phi;
};

/* The rows' keys of both tables, and each measure's totals. */
static void pair_rows(struct pd_diff *d, struct tpair *c,
		      struct pd_intern *keys)
{
	const struct pd_mtable *ta = c->ta, *tb = c->tb;
	size_t i, k;

	for (k = 0; k < c->nm; k++) {
		c->mb[k] = measure_index(tb, ta->measures.v[k]);
		if (c->mb[k] == SIZE_MAX)
			pd_diff_warn(d,
				     "table \"%s\": measure \"%s\" is not in"
				     " the candidate",
				     ta->name, ta->measures.v[k]);
	}
	for (i = 0; i < ta->rowkeys.n; i++)
		pd_intern(keys, pd_intern_str(&ta->rowkeys, (uint32_t)i),
			  pd_intern_len(&ta->rowkeys, (uint32_t)i));
	for (i = 0; i < tb->rowkeys.n; i++)
		pd_intern(keys, pd_intern_str(&tb->rowkeys, (uint32_t)i),
			  pd_intern_len(&tb->rowkeys, (uint32_t)i));
	for (i = 0; i < keys->n; i++)
		for (k = 0; k < c->nm; k++) {
			const char *key = pd_intern_str(keys, (uint32_t)i);

			c->tot_a[k] += mvalue(ta, key, k);
			c->tot_b[k] += c->mb[k] == SIZE_MAX
					   ? 0
					   : mvalue(tb, key, c->mb[k]);
		}
}

/* Measure k of the row key, before BH; 1 when either side has a value. */
static int measure_cell(struct pd_diff *d, const struct tpair *c,
			const char *key, size_t k, struct pd_metric *m)
{
	const struct pd_mtable *ta = c->ta, *tb = c->tb;
	int missing = c->mb[k] == SIZE_MAX;
	double va = mvalue(ta, key, k);
	double vb = missing ? 0 : mvalue(tb, key, c->mb[k]);
	double ra = pd_mtable_rse(ta, key, k);
	double rb = missing ? -1 : pd_mtable_rse(tb, key, c->mb[k]);
	struct pd_expo x;

	if (ta->independent) {
		ra = count_floor(key, va, ra, ta->runs, c->phi);
		rb = count_floor(key, vb, rb, tb->runs, c->phi);
	}
	x = pd_diff_exposure(d, c->tot_a[k], c->tot_a[k], c->tot_b[k],
			     c->tot_b[k]);
	x.ea = x.eb = 1;
	if (ta->independent) { /* its own quantity */
		x.ta = va;
		x.tb = vb;
	}
	if (se_test(m, &x, va, vb, ra, rb, ta->runs, tb->runs))
		; /* tested on the runs' spread */
	else if (ta->count_like.v[k])
		pd_diff_measure(m, &x, va, vb, va, vb, c->phi, 0);
	else
		pd_diff_measure_common(m, &x, va, vb, PD_NAN, PD_NAN, 0);
	m->tau_pct = d->set.threshold_pct;
	if (!ta->count_like.v[k] && !m->tested && va > 0 && vb > 0)
		m->ratio = vb / va;
	if (ta->independent && !m->tested)
		m->p = noise_p(key, va, vb, ra, rb, c->phi);
	return fabs(va) > 0 || fabs(vb) > 0;
}

/*
 * A measure no test applies to: within its noise, added, removed, or
 * judged by the threshold alone. Counters (perf stat, past their own
 * noise) are; any other measure (a duration, a size) cannot tell its
 * change from noise without repeats, and stays inconclusive.
 */
static enum pd_status untested_status(const struct pd_metric *m,
				      const struct pd_mtable *ta,
				      const struct pd_settings *set)
{
	double tau = set->threshold_pct / 100;
	int beyond = m->ratio >= 1 + tau || m->ratio <= 1 / (1 + tau);

	if (!isnan(m->p) && m->p >= set->alpha)
		return PD_SAME; /* within noise */
	if (m->base <= 0 && m->cand > 0)
		return PD_ADDED;
	if (m->cand <= 0 && m->base > 0)
		return PD_REMOVED;
	if (m->base > 0 && m->impact_pct >= set->min_impact_pct && beyond)
		return !ta->independent ? PD_INCONCLUSIVE
		       : m->ratio > 1	? PD_REGRESSED
					: PD_IMPROVED;
	if (m->base > 0 && m->cand > 0 && beyond)
		return PD_NEGLIGIBLE; /* small */
	return PD_SAME;
}

/* BH over the count tests of the table, then every cell's status. */
static void decide_table(struct pd_diff *d, const struct tpair *c,
			 struct pd_tdiff *td)
{
	size_t n = td->rows.n * c->nm + 1, np = 0, i, k;
	struct pd_metric **ms = pd_xmalloc(n * sizeof(*ms));

	for (i = 0; i < td->rows.n; i++)
		for (k = 0; k < c->nm; k++) {
			struct pd_metric *m = &td->rows.v[i].m[k];

			if ((m->tested || c->ta->count_like.v[k]) &&
			    m->base > 0 && m->cand > 0 && !isnan(m->p)) {
				m->tested = 1;
				ms[np++] = m;
			}
		}
	pd_diff_family(ms, np, &d->set);
	for (i = 0; i < td->rows.n; i++)
		for (k = 0; k < c->nm; k++) {
			struct pd_metric *m = &td->rows.v[i].m[k];
			struct pd_expo x =
			    pd_diff_exposure(d, c->tot_a[k], c->tot_a[k],
					     c->tot_b[k], c->tot_b[k]);

			if (c->ta->independent) {
				x.ta = m->base;
				x.tb = m->cand;
			}
			pd_diff_mde(m, np, &d->set);
			if (m->tested) {
				pd_diff_decide(m, &x, &d->set);
			} else {
				m->status = untested_status(m, c->ta, &d->set);
			}
			if (higher_is_better(c->ta, td->rows.v[i].key)) {
				if (m->status == PD_REGRESSED)
					m->status = PD_IMPROVED;
				else if (m->status == PD_IMPROVED)
					m->status = PD_REGRESSED;
			}
		}
	free(ms);
}

/* One pair of tables: rows matched by key, measured and decided. */
static void diff_table(struct pd_diff *d, const struct pd_mtable *ta,
		       const struct pd_mtable *tb, double phi)
{
	struct tpair c;
	struct pd_tdiff td;
	struct pd_intern keys;
	size_t i, k;

	c.ta = ta;
	c.tb = tb;
	c.nm = ta->measures.n;
	c.phi = phi;
	c.tot_a = pd_xcalloc(c.nm + 1, sizeof(double));
	c.tot_b = pd_xcalloc(c.nm + 1, sizeof(double));
	c.mb = pd_xmalloc((c.nm + 1) * sizeof(*c.mb));
	memset(&td, 0, sizeof(td));
	td.base = ta;
	td.cand = tb;
	td.nmeasures = c.nm;
	pd_intern_init(&keys);
	pair_rows(d, &c, &keys);
	for (i = 0; i < keys.n; i++) {
		const char *key = pd_intern_str(&keys, (uint32_t)i);
		struct pd_trow r;
		int any = 0;

		r.key = pd_xstrdup(key);
		r.m = pd_xcalloc(c.nm + 1, sizeof(*r.m));
		r.impact = 0;
		for (k = 0; k < c.nm; k++) {
			any |= measure_cell(d, &c, key, k, &r.m[k]);
			if (r.m[k].impact_pct > r.impact)
				r.impact = r.m[k].impact_pct;
		}
		if (!any) {
			free(r.key);
			free(r.m);
			continue;
		}
		PD_VEC_PUSH(&td.rows, r);
	}
	decide_table(d, &c, &td);
	if (td.rows.n > 1)
		pd_sort(td.rows.v, td.rows.n, sizeof(*td.rows.v), cmp_trow);
	PD_VEC_PUSH(&d->tables, td);
	pd_intern_release(&keys);
	free(c.tot_a);
	free(c.tot_b);
	free(c.mb);
}

/*
 * Metric tables (WPA Disk Usage, File I/O, perf stat counters): rows
 * matched by key. A count-like measure gets the count test (BH within
 * the table); other measures are judged by the practical threshold alone
 * and marked untested.
 */
void pd_diff_tables(struct pd_diff *d, const struct pd_profile *a,
		    const struct pd_profile *b)
{
	size_t ti;

	for (ti = 0; ti < a->tables.n && ti < b->tables.n; ti++)
		diff_table(d, a->tables.v[ti], b->tables.v[ti],
			   fmax(d->phi, EVENT_PHI));
	if (a->tables.n != b->tables.n)
		pd_diff_warn(d,
			     "the sides have %zu and %zu metric tables; the"
			     " extra ones are not compared",
			     a->tables.n, b->tables.n);
}

/*
 * Counters of several runs: each row's mean, and the relative standard
 * error of that mean from the runs' spread (perf stat -r's "+-" is the
 * same quantity). Other tables are taken from the first run.
 */
static struct pd_profile *merge_runs(const struct pd_profile *const *p,
				     size_t n)
{
	struct pd_profile *m = pd_xcalloc(1, sizeof(*m));
	size_t ti, i, r, k;

	pd_profile_init(m);
	for (ti = 0; ti < p[0]->tables.n; ti++) {
		const struct pd_mtable *t0 = p[0]->tables.v[ti];
		struct pd_mtable *t = pd_mtable_new(m, t0->name);
		size_t nm = t0->measures.n;
		struct pd_intern keys;
		double *sum = pd_xcalloc(nm + 1, sizeof(double));
		double *sq = pd_xcalloc(nm + 1, sizeof(double));
		double *rse = pd_xcalloc(nm + 1, sizeof(double));

		for (k = 0; k < t0->keys.n; k++)
			PD_VEC_PUSH(&t->keys, pd_xstrdup(t0->keys.v[k]));
		for (k = 0; k < nm; k++) {
			PD_VEC_PUSH(&t->measures,
				    pd_xstrdup(t0->measures.v[k]));
			PD_VEC_PUSH(&t->count_like, t0->count_like.v[k]);
		}
		t->independent = t0->independent;
		t->runs = t0->independent ? (int)n : t0->runs;
		pd_intern_init(&keys);
		for (i = 0; i < n; i++)
			if (ti < p[i]->tables.n && (t0->independent || !i))
				for (r = 1; r < p[i]->tables.v[ti]->rowkeys.n;
				     r++)
					pd_intern(
					    &keys,
					    pd_intern_str(
						&p[i]->tables.v[ti]->rowkeys,
						(uint32_t)r),
					    pd_intern_len(
						&p[i]->tables.v[ti]->rowkeys,
						(uint32_t)r));
		for (r = 1; r < keys.n; r++) {
			const char *key = pd_intern_str(&keys, (uint32_t)r);
			size_t klen = pd_intern_len(&keys, (uint32_t)r);
			size_t have = 0;
			int up = 0;

			memset(sum, 0, nm * sizeof(double));
			memset(sq, 0, nm * sizeof(double));
			for (i = 0; i < n && (t0->independent || !i); i++) {
				const struct pd_mtable *ti_ =
				    ti < p[i]->tables.n ? p[i]->tables.v[ti]
							: NULL;

				if (!ti_ || pd_intern_find(&ti_->rowkeys, key,
							   klen) == UINT32_MAX)
					continue;
				have++;
				up |= higher_is_better(ti_, key);
				for (k = 0; k < nm; k++) {
					double v = mvalue(ti_, key, k);

					sum[k] += v;
					sq[k] += v * v;
				}
			}
			for (k = 0; k < nm; k++) {
				double mean = sum[k] / (double)have;
				double var = have > 1
						 ? (sq[k] - sum[k] * mean) /
						       (double)(have - 1)
						 : 0;

				rse[k] =
				    !t0->independent ? pd_mtable_rse(t0, key, k)
				    : have > 1 && mean > 0
					? sqrt(fmax(var, 0) / (double)have) /
					      mean
					: -1;
				sum[k] = mean;
			}
			pd_mtable_add(t, key, klen, sum);
			pd_mtable_set_rse(t, key, klen, rse, up);
		}
		t->rows_in = t0->rows_in;
		pd_intern_release(&keys);
		free(sum);
		free(sq);
		free(rse);
	}
	return m;
}

void pd_diff_add_tables(struct pd_diff *d, const struct pd_profile *const *a,
			size_t na, const struct pd_profile *const *b, size_t nb)
{
	const struct pd_profile *pa = a[0], *pb = b[0];
	size_t i;

	if (na > 1)
		pa = d->merged[0] = merge_runs(a, na);
	if (nb > 1)
		pb = d->merged[1] = merge_runs(b, nb);
	pd_diff_tables(d, pa, pb);
	/*
	 * A regression in a metric table counts like a function's: tested
	 * ones always; counters (perf stat) also on the threshold alone,
	 * which is their only verdict without -r or repeats.
	 */
	for (i = 0; i < d->tables.n; i++) {
		const struct pd_tdiff *td = &d->tables.v[i];
		size_t r, k;

		for (r = 0; r < td->rows.n; r++)
			for (k = 0; k < td->nmeasures; k++) {
				const struct pd_metric *m = &td->rows.v[r].m[k];

				if (m->status == PD_INCONCLUSIVE &&
				    d->verdict == PD_SAME)
					d->verdict = PD_INCONCLUSIVE;
				if (m->status == PD_REGRESSED)
					d->verdict = PD_REGRESSED;
				else if (m->status == PD_IMPROVED &&
					 d->verdict != PD_REGRESSED)
					d->verdict = PD_IMPROVED;
			}
	}
}
