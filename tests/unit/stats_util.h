/* Helpers for the tests of stats/: synthetic profiles and a row's lookup. */
#ifndef PD_STATS_UTIL_H
#define PD_STATS_UTIL_H

#include "testutil.h"

#include "stats/diff.h"

/* Builds a flat profile: function i gets counts[i] samples of weight w. */
static inline void flat(struct pd_profile *p, const double *counts, size_t n,
			double w, const char *extra)
{
	char name[32];
	size_t i;

	pd_profile_init(p);
	p->unit = PD_UNIT_NS;
	p->format = "folded";
	p->interval = w;
	p->source = strdup("synthetic");
	for (i = 0; i < n; i++) {
		uint32_t f, node;

		if (counts[i] <= 0)
			continue;
		snprintf(name, sizeof(name), "f%zu", i);
		f = pd_profile_frame(p, pd_intern_cstr(&p->strs, name), 0);
		node = pd_profile_child(p, PD_ROOT, f);
		pd_profile_add(p, node, counts[i] * w, counts[i]);
	}
	if (extra) {
		uint32_t f =
		    pd_profile_frame(p, pd_intern_cstr(&p->strs, extra), 0);

		pd_profile_add(p, pd_profile_child(p, PD_ROOT, f), 500 * w,
			       500);
	}
	pd_profile_finish(p);
}

static inline const struct pd_fdiff *find(const struct pd_diff *d,
					  const char *name)
{
	size_t i;

	for (i = 0; i < d->funcs.n; i++)
		if (!strcmp(pd_func_name(d->fn, d->funcs.v[i].func), name))
			return &d->funcs.v[i];
	return NULL;
}

#endif
