/* `perfdiff compare`: two stored commits with all their repeat runs. */
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/run.h"
#include "store/load.h"

static const char compare_usage[] =
    "usage: perfdiff compare BASE_REV CAND_REV --scenario S [--cache C]\n"
    "                        [--tool T] [--db FILE] [options]\n"
    "\n"
    "Compares two stored commits (sha prefixes) with every repeat run on\n"
    "each side, using noise learned from the history.\n"
    "\n";

int pd_cmd_compare(int argc, char **argv)
{
	struct run_opts r;
	struct pd_db db;
	struct pd_err err = PD_ERR_INIT;
	struct pd_funcs fn;
	struct pd_idmap ids;
	struct pd_loaded la, lb;
	struct pd_noise noise;
	struct pd_diff d;
	struct pd_profile **sa = NULL, **sb = NULL;
	size_t nsa = 0, nsb = 0, mi;
	char *sha[2] = { NULL, NULL }, *cache = NULL, *tool = NULL;
	char *c2 = NULL, *t2 = NULL;
	const char *cc, *tt;
	int status, i, loaded = 0, have_noise = 0;

	memset(&la, 0, sizeof(la));
	memset(&lb, 0, sizeof(lb));
	status = pd_parse_run(argc, argv, &r, compare_usage, "compare");
	if (status >= 0)
		goto out_opts;
	status = 2;
	if (argc - optind != 2 || !r.scenario) {
		pd_error("error: usage: perfdiff compare BASE_REV CAND_REV"
			 " --scenario S [--cache C]");
		goto out_opts;
	}
	if (pd_open_history(&db, r.db) < 0)
		goto out_opts;
	pd_funcs_init(&fn, r.flags);
	pd_idmap_init(&ids, &fn);
	for (i = 0; i < 2; i++) {
		if (pd_store_resolve(&db, argv[optind + i], r.scenario, r.cache,
				     &sha[i], &err) < 0)
			goto fail;
	}
	cc = r.cache;
	tt = r.tool;
	if (pd_store_caches(&db, sha[0], r.scenario, &cc, &tt, &cache, &tool,
			    &err) < 0)
		goto fail;
	/* The candidate must have the same cache state and tool. */
	if (pd_store_caches(&db, sha[1], r.scenario, &cc, &tt, &c2, &t2, &err) <
	    0)
		goto fail;
	{
		/* Noise is learned on a second thread while the sides load. */
		const char *exclude[] = { sha[0], sha[1], NULL };
		struct pd_noise_task task;
		int rc1, rc2;

		pd_store_noise_start(&task, r.db, r.scenario, cache, tool,
				     exclude);
		rc1 = pd_store_load(&db, sha[0], r.scenario, cache, tool, &ids,
				    0, &la, &err);
		if (rc1 == 0)
			rc1 = pd_store_load(&db, sha[1], r.scenario, cache,
					    tool, &ids, 0, &lb, &err);
		/* one side stored by an older perfdiff: both whole */
		if (rc1 == 0 && la.set_apart != lb.set_apart) {
			struct pd_loaded *l = la.set_apart ? &la : &lb;

			pd_loaded_release(l);
			rc1 = pd_store_load(&db, sha[l == &lb], r.scenario,
					    cache, tool, &ids, 1, l, &err);
		}
		rc2 = pd_store_noise_finish(
		    &task, &ids, &noise,
		    rc1 < 0 ? &(struct pd_err){ 0, { 0 } } : &err);
		loaded = 1;
		if (rc1 < 0 || rc2 < 0) {
			if (rc2 == 0)
				pd_noise_release(&noise);
			goto fail;
		}
		have_noise = 1;
	}
	/* runs with whole totals (an older history): the guard of diff.c */
	r.set.whole_totals = !(la.set_apart && lb.set_apart);
	pd_diff_aggs(&d, &la.side, la.runs, la.n, &lb.side, lb.runs, lb.n, &fn,
		     &r.set, &noise);
	/* The stored counters (perf stat) of both commits, when both have. */
	if (pd_store_metrics(&db, sha[0], r.scenario, cache, &sa, &nsa, &err) <
		0 ||
	    pd_store_metrics(&db, sha[1], r.scenario, cache, &sb, &nsb, &err) <
		0) {
		pd_diff_release(&d);
		goto fail;
	}
	if (nsa && nsb)
		pd_diff_add_tables(&d, (const struct pd_profile *const *)sa,
				   nsa, (const struct pd_profile *const *)sb,
				   nsb);
	{
		struct pd_meta ma, mb;

		pd_meta_from_json(&ma, la.build_meta);
		pd_meta_from_json(&mb, lb.build_meta);
		pd_meta_warn(&d, &ma, &mb);
		pd_meta_release(&ma);
		pd_meta_release(&mb);
	}
	pd_diff_provenance(&d, 0,
			   "commit %s, scenario %s, cache %s; %zu %s"
			   " run%s from the history",
			   sha[0], r.scenario, cache, la.n, tool,
			   la.n == 1 ? "" : "s");
	pd_diff_provenance(&d, 1,
			   "commit %s, scenario %s, cache %s; %zu %s"
			   " run%s from the history",
			   sha[1], r.scenario, cache, lb.n, tool,
			   lb.n == 1 ? "" : "s");
	status = pd_render(&d, &r, NULL, NULL, &fn);
	pd_diff_release(&d);
	goto done;
fail:
	pd_error("%s", err.msg);
done:
	for (mi = 0; mi < nsa; mi++) {
		pd_profile_release(sa[mi]);
		free(sa[mi]);
	}
	for (mi = 0; mi < nsb; mi++) {
		pd_profile_release(sb[mi]);
		free(sb[mi]);
	}
	free(sa);
	free(sb);
	if (have_noise)
		pd_noise_release(&noise);
	if (loaded || la.runs)
		pd_loaded_release(&la);
	if (loaded || lb.runs)
		pd_loaded_release(&lb);
	pd_idmap_release(&ids);
	pd_funcs_release(&fn);
	pd_db_close(&db);
	free(sha[0]);
	free(sha[1]);
	free(cache);
	free(tool);
	free(c2);
	free(t2);
out_opts:
	PD_VEC_FREE(&r.base);
	PD_VEC_FREE(&r.cand);
	return status;
}
