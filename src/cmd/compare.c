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

/* What compare holds while it works, released by release_work. */
struct work {
	struct pd_loaded la, lb;
	struct pd_noise noise;
	int loaded, have_noise;
	struct pd_profile **sa, **sb; /* stored counters, per side */
	size_t nsa, nsb;
};

/*
 * Both commits' runs loaded while the noise is learned on a second
 * thread from the rest of the history. -1 with err set.
 */
static int load_sides(struct pd_db *db, const struct run_opts *r,
		      char *const *sha, const char *cache, const char *tool,
		      struct pd_idmap *ids, struct work *w, struct pd_err *err)
{
	const char *exclude[] = { sha[0], sha[1], NULL };
	struct pd_noise_task task;
	struct pd_err ignored = PD_ERR_INIT;
	int rc1, rc2;

	pd_store_noise_start(&task, r->db, r->scenario, cache, tool, exclude);
	rc1 = pd_store_load(db, sha[0], r->scenario, cache, tool, ids, 0,
			    &w->la, err);
	if (rc1 == 0)
		rc1 = pd_store_load(db, sha[1], r->scenario, cache, tool, ids,
				    0, &w->lb, err);
	/* one side stored by an older perfdiff: both whole */
	if (rc1 == 0 && w->la.set_apart != w->lb.set_apart) {
		struct pd_loaded *l = w->la.set_apart ? &w->la : &w->lb;

		pd_loaded_release(l);
		rc1 = pd_store_load(db, sha[l == &w->lb], r->scenario, cache,
				    tool, ids, 1, l, err);
	}
	rc2 = pd_store_noise_finish(&task, ids, &w->noise,
				    rc1 < 0 ? &ignored : err);
	w->loaded = 1;
	if (rc1 < 0 || rc2 < 0) {
		if (rc2 == 0)
			pd_noise_release(&w->noise);
		return -1;
	}
	w->have_noise = 1;
	return 0;
}

/* The stored counters (perf stat) of both commits, when both have. */
static int add_counters(struct pd_db *db, struct pd_diff *d, char *const *sha,
			const char *scenario, const char *cache, struct work *w,
			struct pd_err *err)
{
	if (pd_store_metrics(db, sha[0], scenario, cache, &w->sa, &w->nsa,
			     err) < 0 ||
	    pd_store_metrics(db, sha[1], scenario, cache, &w->sb, &w->nsb,
			     err) < 0)
		return -1;
	if (w->nsa && w->nsb)
		pd_diff_add_tables(
		    d, (const struct pd_profile *const *)w->sa, w->nsa,
		    (const struct pd_profile *const *)w->sb, w->nsb);
	return 0;
}

/* The builds' differences and each commit's provenance. */
static void describe(struct pd_diff *d, const struct work *w, char *const *sha,
		     const char *scenario, const char *cache, const char *tool)
{
	struct pd_meta ma, mb;
	int i;

	pd_meta_from_json(&ma, w->la.build_meta);
	pd_meta_from_json(&mb, w->lb.build_meta);
	pd_meta_warn(d, &ma, &mb);
	pd_meta_release(&ma);
	pd_meta_release(&mb);
	for (i = 0; i < 2; i++) {
		size_t n = i ? w->lb.n : w->la.n;

		pd_diff_provenance(d, i,
				   "commit %s, scenario %s, cache %s; %zu %s"
				   " run%s from the history",
				   sha[i], scenario, cache, n, tool,
				   n == 1 ? "" : "s");
	}
}

static void release_work(struct work *w)
{
	size_t i;

	for (i = 0; i < w->nsa; i++) {
		pd_profile_release(w->sa[i]);
		free(w->sa[i]);
	}
	for (i = 0; i < w->nsb; i++) {
		pd_profile_release(w->sb[i]);
		free(w->sb[i]);
	}
	free(w->sa);
	free(w->sb);
	if (w->have_noise)
		pd_noise_release(&w->noise);
	if (w->loaded || w->la.runs)
		pd_loaded_release(&w->la);
	if (w->loaded || w->lb.runs)
		pd_loaded_release(&w->lb);
}

int pd_cmd_compare(int argc, char **argv)
{
	struct run_opts r;
	struct pd_db db;
	struct pd_err err = PD_ERR_INIT;
	struct pd_funcs fn;
	struct pd_idmap ids;
	struct pd_diff d;
	struct work w;
	char *sha[2] = { NULL, NULL }, *cache = NULL, *tool = NULL;
	char *c2 = NULL, *t2 = NULL;
	const char *cc, *tt;
	int status, i;

	memset(&w, 0, sizeof(w));
	status = pd_parse_run(argc, argv, &r, compare_usage, "compare");
	if (status >= 0)
		goto out_opts;
	status = 2;
	if (!pd_operands_ok("compare", argc - optind))
		goto out_opts;
	if (!r.scenario) {
		pd_error("error: compare wants --scenario S (perfdiff runs"
			 " lists them)");
		goto out_opts;
	}
	if (pd_open_history(&db, r.db) < 0)
		goto out_opts;
	pd_funcs_init(&fn, r.flags);
	pd_idmap_init(&ids, &fn);
	for (i = 0; i < 2; i++)
		if (pd_store_resolve(&db, argv[optind + i], r.scenario, r.cache,
				     &sha[i], &err) < 0)
			goto fail;
	cc = r.cache;
	tt = r.tool;
	/* the candidate must have the same cache state and tool */
	if (pd_store_caches(&db, sha[0], r.scenario, &cc, &tt, &cache, &tool,
			    &err) < 0 ||
	    pd_store_caches(&db, sha[1], r.scenario, &cc, &tt, &c2, &t2, &err) <
		0 ||
	    load_sides(&db, &r, sha, cache, tool, &ids, &w, &err) < 0)
		goto fail;
	/* runs with whole totals (an older history): the guard of diff.c */
	r.set.whole_totals = !(w.la.set_apart && w.lb.set_apart);
	pd_diff_aggs(&d, &w.la.side, w.la.runs, w.la.n, &w.lb.side, w.lb.runs,
		     w.lb.n, &fn, &r.set, &w.noise);
	if (add_counters(&db, &d, sha, r.scenario, cache, &w, &err) < 0) {
		pd_diff_release(&d);
		goto fail;
	}
	describe(&d, &w, sha, r.scenario, cache, tool);
	status = pd_render(&d, &r, NULL, NULL, &fn);
	pd_diff_release(&d);
	goto done;
fail:
	pd_error("%s", err.msg);
done:
	release_work(&w);
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
