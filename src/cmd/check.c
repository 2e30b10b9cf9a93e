/*
 * `perfdiff check` with a stored side: stored runs and files compared as
 * per-run aggregates over one function table, with learned noise.
 */
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/run.h"
#include "core/xalloc.h"
#include "store/load.h"

/* One side of a check: stored runs, or profiles (files or a bundle). */
struct check_side {
	char *spec; /* db:REV[:SCENARIO[:CACHE]], split in place */
	const char *rev, *scenario, *cache;
	char *sha;
	struct pd_loaded l;
	int loaded;
	struct path_list files;
	struct pd_bundle bundle;
	struct pd_meta meta;
	struct job *jobs;
	struct pd_agg *aggs;
	size_t n;
	struct pd_side side;
};

static int check_side_profiles(struct check_side *c, const char *arg,
			       struct run_opts *r, struct pd_funcs *fn)
{
	const struct pd_profile **pp;
	size_t i;

	if (pd_is_dir(arg)) {
		if (pd_expand_bundle(arg, &c->files, &c->bundle, &c->meta,
				     NULL) < 0)
			return -1;
	} else {
		PD_VEC_PUSH(&c->files, arg);
	}
	c->n = c->files.n;
	c->jobs = pd_xcalloc(c->n, sizeof(*c->jobs));
	if (pd_import_all(c->files.v, c->n, &r->io, c->jobs) < 0)
		return -1;
	c->aggs = pd_xcalloc(c->n, sizeof(*c->aggs));
	pp = pd_xmalloc(c->n * sizeof(*pp));
	for (i = 0; i < c->n; i++) {
		pp[i] = &c->jobs[i].p;
		pd_agg_init(&c->aggs[i]);
		pd_agg_compute(&c->aggs[i], pp[i], fn);
	}
	pd_side_of_profiles(&c->side, pp, c->n);
	for (i = 0; i < c->n; i++)
		c->side.system += c->aggs[i].sys_w / (double)c->n;
	free(pp);
	return 0;
}

/*
 * The files' aggregates with whole totals (system time inside its
 * callers), as a history written by an older perfdiff stores runs: count
 * the files alike, or a caller of page faults looks 90 % faster. The
 * verdict still sets system frames apart (docs/history.md).
 */
static void files_whole(struct check_side *c, struct pd_funcs *fn)
{
	unsigned flags = fn->flags;
	size_t i;

	fn->flags |= PD_FUNCS_SYSTEM;
	for (i = 0; i < c->n; i++) {
		pd_agg_release(&c->aggs[i]);
		pd_agg_init(&c->aggs[i]);
		pd_agg_compute(&c->aggs[i], &c->jobs[i].p, fn);
	}
	fn->flags = flags;
	c->side.system = 0;
}

static void check_side_release(struct check_side *c)
{
	size_t i;

	if (c->loaded)
		pd_loaded_release(&c->l);
	for (i = 0; c->aggs && i < c->n; i++)
		pd_agg_release(&c->aggs[i]);
	for (i = 0; c->jobs && i < c->n; i++)
		pd_profile_release(&c->jobs[i].p);
	free(c->aggs);
	free(c->jobs);
	free(c->sha);
	free(c->spec);
	PD_VEC_FREE(&c->files);
	pd_bundle_release(&c->bundle);
	pd_meta_release(&c->meta);
}

/*
 * A check with a stored side (db:REV...): the stored runs and any files
 * are compared as per-run aggregates over one function table, with the
 * noise the history has learned for the stored side's scenario.
 */
int pd_check_db(struct run_opts *r, char **operands)
{
	struct check_side c[2];
	struct pd_db db;
	struct pd_err err = PD_ERR_INIT;
	struct pd_funcs fn;
	struct pd_idmap ids;
	struct pd_noise noise;
	struct pd_diff d;
	const char *scen = NULL, *cache = NULL, *tool = r->tool;
	char *cache_own = NULL, *tool_own = NULL;
	const char *exclude[3] = { NULL, NULL, NULL };
	int i, status = 2, have_noise = 0, opened = 0;
	size_t k;

	memset(c, 0, sizeof(c));
	pd_funcs_init(&fn, r->flags);
	pd_idmap_init(&ids, &fn);
	for (i = 0; i < 2; i++) {
		char *p;

		if (strncmp(operands[i], "db:", 3))
			continue;
		c[i].spec = pd_xstrdup(operands[i] + 3);
		c[i].rev = c[i].spec;
		c[i].scenario = r->scenario;
		c[i].cache = r->cache;
		if ((p = strchr(c[i].spec, ':'))) {
			*p++ = '\0';
			c[i].scenario = p;
			if ((p = strchr(p, ':'))) {
				*p++ = '\0';
				c[i].cache = p;
			}
		}
		if (!*c[i].rev || !c[i].scenario || !*c[i].scenario) {
			pd_error("error: %s: want db:REV:SCENARIO[:CACHE] (or"
				 " --scenario)",
				 operands[i]);
			goto out;
		}
	}
	if (pd_open_history(&db, r->db) < 0)
		goto out;
	opened = 1;
	for (i = 0; i < 2; i++) {
		if (!c[i].spec) {
			if (check_side_profiles(&c[i], operands[i], r, &fn) < 0)
				goto out;
			continue;
		}
		if (pd_store_resolve(&db, c[i].rev, c[i].scenario, c[i].cache,
				     &c[i].sha, &err) < 0)
			goto fail;
		if (!cache_own)
			cache = c[i].cache;
		{
			char *co = NULL, *to = NULL;

			if (pd_store_caches(&db, c[i].sha, c[i].scenario,
					    &cache, &tool, &co, &to, &err) < 0)
				goto fail;
			if (!cache_own) {
				cache_own = co;
				tool_own = to;
			} else {
				free(co);
				free(to);
			}
		}
		if (pd_store_load(&db, c[i].sha, c[i].scenario, cache_own,
				  tool_own, &ids, 0, &c[i].l, &err) < 0)
			goto fail;
		c[i].loaded = 1;
		c[i].aggs = NULL;
		c[i].side = c[i].l.side;
		scen = c[i].scenario;
		exclude[i] = c[i].sha;
		/* a second stored side must match the first's key */
		cache = cache_own;
		tool = tool_own;
		if (c[i].cache && strcmp(c[i].cache, cache_own)) {
			pd_error("error: %s: cache state %s, the other side %s",
				 operands[i], c[i].cache, cache_own);
			goto out;
		}
	}
	/* Noise learned for the stored side, without the commits compared. */
	{
		const char *ex[3];
		int n = 0;

		for (i = 0; i < 2; i++)
			if (exclude[i])
				ex[n++] = exclude[i];
		ex[n] = NULL;
		if (pd_store_noise(&db, scen, cache_own, tool_own, ex, &ids,
				   &noise, &err) < 0)
			goto fail;
		have_noise = 1;
	}
	for (i = 0; i < 2; i++) {
		struct pd_agg *a = c[i].loaded ? c[i].l.runs : c[i].aggs;
		size_t n = c[i].loaded ? c[i].l.n : c[i].n;

		for (k = 0; k < n; k++)
			pd_agg_resize(&a[k], fn.v.n);
	}
	/*
	 * Stored runs aggregated from their stack trees set system frames
	 * apart as files do; a side stored by an older perfdiff has whole
	 * totals only, and then every side is counted whole.
	 */
	r->set.whole_totals = 0;
	for (i = 0; i < 2; i++)
		r->set.whole_totals |= c[i].loaded && !c[i].l.set_apart;
	for (i = 0; i < 2 && r->set.whole_totals; i++) {
		if (!c[i].loaded) {
			files_whole(&c[i], &fn);
		} else if (c[i].l.set_apart) {
			pd_loaded_release(&c[i].l);
			if (pd_store_load(&db, c[i].sha, c[i].scenario,
					  cache_own, tool_own, &ids, 1, &c[i].l,
					  &err) < 0)
				goto fail;
			c[i].side = c[i].l.side;
		}
	}
	/* (noise learning sized its arrays to the table, grown by then) */
	pd_diff_aggs(&d, &c[0].side, c[0].loaded ? c[0].l.runs : c[0].aggs,
		     c[0].loaded ? c[0].l.n : c[0].n, &c[1].side,
		     c[1].loaded ? c[1].l.runs : c[1].aggs,
		     c[1].loaded ? c[1].l.n : c[1].n, &fn, &r->set, &noise);
	{
		struct pd_meta m[2];

		for (i = 0; i < 2; i++) {
			if (c[i].loaded)
				pd_meta_from_json(&m[i], c[i].l.build_meta);
			else
				m[i] = c[i].meta;
		}
		pd_meta_warn(&d, &m[0], &m[1]);
		for (i = 0; i < 2; i++)
			if (c[i].loaded)
				pd_meta_release(&m[i]);
	}
	for (i = 0; i < 2; i++)
		if (c[i].loaded)
			pd_diff_provenance(&d, (int)i,
					   "commit %s, scenario %s, cache %s;"
					   " %zu run%s from the history",
					   c[i].sha, c[i].scenario, cache_own,
					   c[i].l.n, c[i].l.n == 1 ? "" : "s");
		else
			pd_side_provenance(
			    &d, (int)i, c[i].bundle.dir ? &c[i].bundle : NULL,
			    c[i].files.v, c[i].files.n);
	status = pd_render(&d, r, NULL, NULL, &fn);
	pd_diff_release(&d);
	goto out;
fail:
	pd_error("%s", err.msg);
out:
	if (have_noise)
		pd_noise_release(&noise);
	for (i = 0; i < 2; i++)
		check_side_release(&c[i]);
	if (opened)
		pd_db_close(&db);
	pd_idmap_release(&ids);
	pd_funcs_release(&fn);
	free(cache_own);
	free(tool_own);
	return status;
}
