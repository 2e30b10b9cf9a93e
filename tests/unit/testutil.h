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
#include <sys/stat.h>
#include <unistd.h>

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

/*
 * A scratch folder for a group of tests: made in the group's setup from
 * a mkdtemp template such as "/tmp/pdstoreXXXXXX" (dir holds it, 64
 * bytes), removed with what it holds in the teardown.
 */
static inline int pd_test_scratch(char *dir, const char *templ)
{
	snprintf(dir, 64, "%s", templ);
	assert_non_null(mkdtemp(dir));
	return 0;
}

static inline int pd_test_scratch_remove(const char *dir)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

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

/*
 * The path of a file of the corpus of real profiles, which the repository
 * does not hold (tests/README.md, "The corpus"). The folder is found as
 * the CLI tests find it: PD_CORPUS when set, and then nothing else;
 * PD_EXTRA_CORPUS, its older name; ../shared/corpus beside the source
 * tree; .corpus in it, where scripts/fetch-corpus.sh lays it out.
 * Returns 0 when the file is there, else prints a note and returns -1:
 * the caller skips (cmocka's skip()).
 */
static inline int corpus_file(char *path, size_t size, const char *rel)
{
	const char *dir = getenv("PD_CORPUS");
	struct stat sb;

	if (!dir || !*dir)
		dir = getenv("PD_EXTRA_CORPUS");
	if (dir && *dir)
		snprintf(path, size, "%s/%s", dir, rel);
	else if (stat(PD_SOURCE_DIR "/../shared/corpus", &sb) == 0 &&
		 S_ISDIR(sb.st_mode))
		snprintf(path, size, "%s/../shared/corpus/%s", PD_SOURCE_DIR,
			 rel);
	else
		snprintf(path, size, "%s/.corpus/%s", PD_SOURCE_DIR, rel);
	if (stat(path, &sb) == 0)
		return 0;
	print_message("note: %s not here: skipped (scripts/fetch-corpus.sh "
		      "lays the corpus out)\n",
		      path);
	return -1;
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
