/* Helpers for the unit tests: cmocka's headers in the order it needs. */
#ifndef PD_TESTUTIL_H
#define PD_TESTUTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/import.h"
#include "model/func.h"

#define assert_near(a, b, tol)                                                 \
	do {                                                                   \
		double a_ = (a), b_ = (b);                                     \
		if (!(fabs(a_ - b_) <= (tol))) {                               \
			print_error("%.17g != %.17g (tolerance %g)\n", a_, b_, \
				    (double)(tol));                            \
			fail();                                                \
		}                                                              \
	} while (0)

/* Imports a fixture (relative to the source tree); fails the test on error. */
static inline void load(struct pd_profile *p, const char *rel,
			const struct pd_import_opts *o)
{
	char path[4096];
	struct pd_err err = PD_ERR_INIT;
	struct pd_import_opts none;

	memset(&none, 0, sizeof(none));
	snprintf(path, sizeof(path), "%s/%s", PD_SOURCE_DIR, rel);
	pd_profile_init(p);
	if (pd_import(p, path, o ? o : &none, &err) < 0) {
		print_error("%s\n", err.msg);
		fail();
	}
}

/* self/total of the function named name (any module) in profile p. */
struct ft {
	double self, total, self_c, total_c;
	const char *module;
	int found;
};

static inline struct ft func_of(const struct pd_profile *p, const char *name)
{
	struct pd_funcs fn;
	struct pd_agg a;
	struct ft r;
	size_t i;
	static char mod[256];

	memset(&r, 0, sizeof(r));
	pd_funcs_init(&fn, PD_FUNCS_SYSTEM); /* whole totals */
	pd_agg_init(&a);
	pd_agg_compute(&a, p, &fn);
	for (i = 0; i < fn.v.n; i++) {
		if (strcmp(pd_func_name(&fn, (uint32_t)i), name))
			continue;
		r.self += a.self_w[i];
		r.total += a.total_w[i];
		r.self_c += a.self_c[i];
		r.total_c += a.total_c[i];
		snprintf(mod, sizeof(mod), "%s",
			 pd_func_module(&fn, (uint32_t)i));
		r.module = mod;
		r.found++;
	}
	pd_agg_release(&a);
	pd_funcs_release(&fn);
	return r;
}

#endif
