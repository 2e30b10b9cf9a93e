/* The comparisons of diff, one per series (section.h). */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "compare/section.h"
#include "core/xalloc.h"
#include "model/profile.h"

/* The runs of side i in series x (every one for plain files). */
void pd_section_runs(struct pd_section *x, const struct pd_run_side *s, int i)
{
	size_t k;

	assert(i == 0 || i == 1);
	/* a bundle's keys run beside its files, one each */
	assert(!s[i].keys.n || s[i].keys.n == s[i].files.n);
	for (k = 0; k < s[i].files.n; k++)
		if (!x->key.cache || !s[i].keys.n ||
		    (!strcmp(s[i].keys.v[k].cache, x->key.cache) &&
		     !strcmp(s[i].keys.v[k].tool, x->key.tool)))
			PD_VEC_PUSH(&x->at[i], k);
}

/* x's runs compared into x->d, described, with only (what one side lacks). */
void pd_section_diff(struct pd_section *x, unsigned flags,
		     const struct pd_settings *set, struct pd_import_job *jobs,
		     const struct pd_run_side *s, const char *only)
{
	size_t na = x->at[0].n, nb = x->at[1].n, i, k;
	struct pd_profile **all = pd_xmalloc((na + nb) * sizeof(*all));
	const char **paths;
	int j;

	/* a series compared has runs on both sides (else it is "only") */
	assert(na > 0 && nb > 0);
	for (j = 0; j < 2; j++)
		x->p[j] = pd_xmalloc(x->at[j].n * sizeof(*x->p[j]));
	for (i = 0; i < na + nb; i++) {
		j = i >= na;
		k = x->at[j].v[j ? i - na : i] + (j ? s[0].files.n : 0);
		/* the jobs are the baseline's files, then the candidate's */
		assert(k < s[0].files.n + s[1].files.n);
		all[i] = &jobs[k].p;
		x->p[j][j ? i - na : i] = &jobs[k].p;
	}
	pd_align_process_roots(all, na + nb);
	pd_funcs_init(&x->fn, flags);
	pd_diff_profiles(&x->d, x->p[0], na, x->p[1], nb, &x->fn, set);
	pd_meta_warn(&x->d, &s[0].meta, &s[1].meta);
	if (only && *only)
		pd_diff_warn(
		    &x->d, "not compared, one side has no such runs: %s", only);
	for (j = 0; j < 2; j++) {
		paths = pd_xmalloc(x->at[j].n * sizeof(*paths));
		for (i = 0; i < x->at[j].n; i++)
			paths[i] = s[j].files.v[x->at[j].v[i]];
		pd_side_provenance(
		    &x->d, j, s[j].bundle.dir ? &s[j].bundle : NULL,
		    x->key.cache ? x->key.tool : NULL, paths, x->at[j].n);
		free(paths);
	}
	free(all);
}

void pd_section_release(struct pd_section *x)
{
	int j;

	pd_diff_release(&x->d);
	pd_funcs_release(&x->fn);
	for (j = 0; j < 2; j++) {
		PD_VEC_FREE(&x->at[j]);
		free(x->p[j]);
	}
	free(x->name);
}
