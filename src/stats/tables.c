/*
 * Metric tables that are not CPU stacks (WPA Disk Usage, File I/O, ...):
 * rows matched by key, each measure tested like a function's weight.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/xalloc.h"
#include "stats/diff_impl.h"
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

static size_t measure_index(const struct pd_mtable *t, const char *name)
{
	size_t i;

	for (i = 0; i < t->measures.n; i++)
		if (!strcmp(t->measures.v[i], name))
			return i;
	return SIZE_MAX;
}

/*
 * Metric tables (WPA Disk Usage, File I/O, ...): rows matched by key. A
 * count-like measure gets the count test (BH within the table); other
 * measures are judged by the practical threshold alone and marked untested.
 */
void pd_diff_tables(struct pd_diff *d, const struct pd_profile *a,
		    const struct pd_profile *b)
{
	size_t ti;

	for (ti = 0; ti < a->tables.n && ti < b->tables.n; ti++) {
		const struct pd_mtable *ta = a->tables.v[ti],
				       *tb = b->tables.v[ti];
		struct pd_tdiff td;
		struct pd_intern keys;
		size_t nm = ta->measures.n, i, k, np = 0;
		double *tot_a = pd_xcalloc(nm + 1, sizeof(double));
		double *tot_b = pd_xcalloc(nm + 1, sizeof(double));
		double *ps, *qs, tau = d->set.threshold_pct / 100;
		size_t *mb = pd_xmalloc((nm + 1) * sizeof(*mb));

		for (k = 0; k < nm; k++) {
			mb[k] = measure_index(tb, ta->measures.v[k]);
			if (mb[k] == SIZE_MAX)
				pd_diff_warn(
				    d,
				    "table \"%s\": measure \"%s\" is not"
				    " in the candidate",
				    ta->name, ta->measures.v[k]);
		}
		memset(&td, 0, sizeof(td));
		td.base = ta;
		td.cand = tb;
		td.nmeasures = nm;
		pd_intern_init(&keys);
		for (i = 0; i < ta->rowkeys.n; i++)
			pd_intern(&keys,
				  pd_intern_str(&ta->rowkeys, (uint32_t)i),
				  pd_intern_len(&ta->rowkeys, (uint32_t)i));
		for (i = 0; i < tb->rowkeys.n; i++)
			pd_intern(&keys,
				  pd_intern_str(&tb->rowkeys, (uint32_t)i),
				  pd_intern_len(&tb->rowkeys, (uint32_t)i));
		for (i = 0; i < keys.n; i++)
			for (k = 0; k < nm; k++) {
				const char *key =
				    pd_intern_str(&keys, (uint32_t)i);

				tot_a[k] += mvalue(ta, key, k);
				tot_b[k] += mb[k] == SIZE_MAX
						? 0
						: mvalue(tb, key, mb[k]);
			}
		for (i = 0; i < keys.n; i++) {
			const char *key = pd_intern_str(&keys, (uint32_t)i);
			struct pd_trow r;
			int any = 0;

			r.key = pd_xstrdup(key);
			r.m = pd_xcalloc(nm + 1, sizeof(*r.m));
			r.impact = 0;
			for (k = 0; k < nm; k++) {
				struct expo x;
				double va = mvalue(ta, key, k);
				double vb = mb[k] == SIZE_MAX
						? 0
						: mvalue(tb, key, mb[k]);
				struct pd_metric *m = &r.m[k];

				any |= fabs(va) > 0 || fabs(vb) > 0;
				x = pd_diff_exposure(d, tot_a[k], tot_a[k],
						     tot_b[k], tot_b[k]);
				x.ea = x.eb = 1;
				if (ta->count_like.v[k])
					pd_diff_measure(m, &x, va, vb, va, vb,
							d->phi, 0);
				else
					pd_diff_measure_common(
					    m, &x, va, vb, PD_NAN, PD_NAN, 0);
				m->tau_pct = d->set.threshold_pct;
				if (!ta->count_like.v[k] && va > 0 && vb > 0)
					m->ratio = vb / va;
				if (m->impact_pct > r.impact)
					r.impact = m->impact_pct;
			}
			if (!any) {
				free(r.key);
				free(r.m);
				continue;
			}
			PD_VEC_PUSH(&td.rows, r);
		}
		/* BH over the count tests of this table, then decide. */
		ps = pd_xmalloc((td.rows.n * nm + 1) * sizeof(*ps));
		qs = pd_xmalloc((td.rows.n * nm + 1) * sizeof(*qs));
		for (i = 0; i < td.rows.n; i++)
			for (k = 0; k < nm; k++) {
				struct pd_metric *m = &td.rows.v[i].m[k];

				if (ta->count_like.v[k] && m->base > 0 &&
				    m->cand > 0 && !isnan(m->p)) {
					m->tested = 1;
					ps[np++] = m->p;
				}
			}
		pd_bh(ps, np, qs);
		np = 0;
		for (i = 0; i < td.rows.n; i++)
			for (k = 0; k < nm; k++) {
				struct pd_metric *m = &td.rows.v[i].m[k];
				struct expo x = pd_diff_exposure(
				    d, tot_a[k], tot_a[k], tot_b[k], tot_b[k]);

				if (m->tested) {
					m->q = qs[np++];
					pd_diff_decide(m, &x, &d->set);
				} else if (m->base <= 0 && m->cand > 0) {
					m->status = PD_ADDED;
				} else if (m->cand <= 0 && m->base > 0) {
					m->status = PD_REMOVED;
				} else if (m->base > 0 &&
					   m->impact_pct >=
					       d->set.min_impact_pct &&
					   (m->ratio >= 1 + tau ||
					    m->ratio <= 1 / (1 + tau))) {
					/* untested: the threshold alone */
					m->status = m->ratio > 1 ? PD_REGRESSED
								 : PD_IMPROVED;
				} else {
					m->status = PD_SAME;
				}
			}
		free(ps);
		free(qs);
		if (td.rows.n > 1)
			qsort(td.rows.v, td.rows.n, sizeof(*td.rows.v),
			      cmp_trow);
		PD_VEC_PUSH(&d->tables, td);
		pd_intern_release(&keys);
		free(tot_a);
		free(tot_b);
		free(mb);
	}
	if (a->tables.n != b->tables.n)
		pd_diff_warn(d,
			     "the sides have %zu and %zu metric tables; the"
			     " extra ones are not compared",
			     a->tables.n, b->tables.n);
}
