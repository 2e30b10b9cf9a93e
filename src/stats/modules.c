/*
 * Renamed binaries among per-run aggregates (diff_int.h): stored runs have
 * no profiles to alias before lookup (profiles.c does that for profiles),
 * only the function table.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/xalloc.h"
#include "stats/diff_int.h"

/* (module, name) -> function id, open addressing; UINT32_MAX when free. */
struct fmap {
	uint64_t *key;
	uint32_t *id;
	size_t cap;
};

static size_t fmap_slot(const struct fmap *m, uint64_t k)
{
	size_t h = (size_t)((k * 0x9e3779b97f4a7c15ULL) >> 17) & (m->cap - 1);

	while (m->id[h] != UINT32_MAX && m->key[h] != k)
		h = (h + 1) & (m->cap - 1);
	return h;
}

/* Whether function i has weight in any of the runs. */
static int present(const struct pd_agg *r, size_t n, size_t i)
{
	size_t k;

	for (k = 0; k < n; k++)
		if (i < r[k].n && r[k].total_w[i] > 0)
			return 1;
	return 0;
}

/*
 * The same pairing as pair_modules, on aggregates: for stored runs
 * (check db:REV, compare) there are no profiles to alias before lookup,
 * only the function table. A module with weight on the baseline side only
 * is paired with the candidate-only module that shares most of its
 * function names, when at least half of the smaller one's match; the
 * candidate's counts of each such function move to the baseline's id.
 */
void pd_diff_pair_modules(struct pd_diff *d, struct pd_agg *a, size_t na,
			  struct pd_agg *b, size_t nb)
{
	const struct pd_funcs *fn = d->fn;
	size_t nf = fn->v.n, nm = fn->strs.n + 1, i, k;
	unsigned char *side, *fside;
	size_t *count;
	struct fmap m;

	if (fn->flags & PD_FUNCS_NO_MODULE)
		return;
	side = pd_xcalloc(nm, 1);
	fside = pd_xcalloc(nf + 1, 1);
	count = pd_xcalloc(nm * 2, sizeof(*count));
	for (i = 0; i < nf; i++) {
		const struct pd_func *f = &fn->v.v[i];

		if (!f->module || f->system)
			continue;
		fside[i] =
		    (unsigned char)(present(a, na, i) | present(b, nb, i) << 1);
		side[f->module] |= fside[i];
		count[f->module * 2] += fside[i] & 1;
		count[f->module * 2 + 1] += (fside[i] & 2) != 0;
	}
	for (m.cap = 16; m.cap < nf * 2 + 2; m.cap *= 2)
		;
	m.key = pd_xmalloc(m.cap * sizeof(*m.key));
	m.id = pd_xmalloc(m.cap * sizeof(*m.id));
	memset(m.id, 0xff, m.cap * sizeof(*m.id));
	for (i = 0; i < nf; i++)
		if (fside[i] == 1) {
			uint64_t key =
			    (uint64_t)fn->v.v[i].module << 32 | fn->v.v[i].name;
			size_t h = fmap_slot(&m, key);

			m.key[h] = key;
			m.id[h] = (uint32_t)i;
		}
	for (i = 1; i < nm; i++) {
		size_t best = 0, best_common = 0, j, f, small;

		if (side[i] != 1) /* baseline-only modules */
			continue;
		for (j = 1; j < nm; j++) {
			size_t c = 0;

			if (side[j] != 2)
				continue;
			for (f = 0; f < nf; f++)
				if (fside[f] == 2 && fn->v.v[f].module == j &&
				    m.id[fmap_slot(&m, (uint64_t)i << 32 |
							   fn->v.v[f].name)] !=
					UINT32_MAX)
					c++;
			if (c > best_common) {
				best_common = c;
				best = j;
			}
		}
		small = count[i * 2] < count[best * 2 + 1]
			    ? count[i * 2]
			    : count[best * 2 + 1];
		if (!best || best_common * 2 < small)
			continue;
		for (f = 0; f < nf; f++) {
			uint32_t to;

			if (fside[f] != 2 || fn->v.v[f].module != best)
				continue;
			to = m.id[fmap_slot(&m, (uint64_t)i << 32 |
						    fn->v.v[f].name)];
			if (to == UINT32_MAX)
				continue;
			for (k = 0; k < nb; k++) {
				struct pd_agg *r = &b[k];

				r->self_w[to] += r->self_w[f];
				r->self_c[to] += r->self_c[f];
				r->total_w[to] += r->total_w[f];
				r->total_c[to] += r->total_c[f];
				r->self_w[f] = r->self_c[f] = 0;
				r->total_w[f] = r->total_c[f] = 0;
			}
		}
		side[best] = 3;
		pd_diff_warn(
		    d,
		    "module %s (candidate) is matched to %s (baseline):"
		    " %zu functions in common",
		    pd_intern_str(&fn->strs, (uint32_t)best),
		    pd_intern_str(&fn->strs, (uint32_t)i), best_common);
	}
	free(m.key);
	free(m.id);
	free(side);
	free(fside);
	free(count);
}
