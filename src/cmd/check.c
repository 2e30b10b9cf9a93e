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
/* "db:REV[:SCENARIO[:CACHE]]" into the side; -1 after the message. */
static int parse_db_operand(struct check_side *c, const char *operand,
			    const struct run_opts *r)
{
	char *p;

	c->spec = pd_xstrdup(operand + 3);
	c->rev = c->spec;
	c->scenario = r->scenario;
	c->cache = r->cache;
	if ((p = strchr(c->spec, ':'))) {
		*p++ = '\0';
		c->scenario = p;
		if ((p = strchr(p, ':'))) {
			*p++ = '\0';
			c->cache = p;
		}
	}
	if (!*c->rev || !c->scenario || !*c->scenario) {
		pd_error("error: %s: want db:REV:SCENARIO[:CACHE] (or"
			 " --scenario)",
			 operand);
		return -1;
	}
	return 0;
}

/* The key both stored sides share: the first one's cache and tool. */
struct check_key {
	const char *cache, *tool;
	char *cache_own, *tool_own;
};

/*
 * A stored side: its commit resolved, its cache state and tool settled
 * against the key, its runs loaded. -1 with err set, or -2 after a
 * message.
 */
static int load_stored_side(struct pd_db *db, struct check_side *c,
			    const char *operand, struct check_key *k,
			    struct pd_idmap *ids, struct pd_err *err)
{
	char *co = NULL, *to = NULL;

	if (pd_store_resolve(db, c->rev, c->scenario, c->cache, &c->sha, err) <
	    0)
		return -1;
	if (!k->cache_own)
		k->cache = c->cache;
	if (pd_store_caches(db, c->sha, c->scenario, &k->cache, &k->tool, &co,
			    &to, err) < 0)
		return -1;
	if (!k->cache_own) {
		k->cache_own = co;
		k->tool_own = to;
	} else {
		free(co);
		free(to);
	}
	if (pd_store_load(db, c->sha, c->scenario, k->cache_own, k->tool_own,
			  ids, 0, &c->l, err) < 0)
		return -1;
	c->loaded = 1;
	c->aggs = NULL;
	c->side = c->l.side;
	/* a second stored side must match the first's key */
	k->cache = k->cache_own;
	k->tool = k->tool_own;
	if (c->cache && strcmp(c->cache, k->cache_own)) {
		pd_error("error: %s: cache state %s, the other side %s",
			 operand, c->cache, k->cache_own);
		return -2;
	}
	return 0;
}

/* The builds' differences and each side's provenance, for the report. */
static void describe_sides(struct pd_diff *d, struct check_side *c,
			   const char *cache)
{
	struct pd_meta m[2];
	int i;

	for (i = 0; i < 2; i++) {
		if (c[i].loaded)
			pd_meta_from_json(&m[i], c[i].l.build_meta);
		else
			m[i] = c[i].meta;
	}
	pd_meta_warn(d, &m[0], &m[1]);
	for (i = 0; i < 2; i++)
		if (c[i].loaded)
			pd_meta_release(&m[i]);
	for (i = 0; i < 2; i++)
		if (c[i].loaded)
			pd_diff_provenance(d, i,
					   "commit %s, scenario %s, cache %s;"
					   " %zu run%s from the history",
					   c[i].sha, c[i].scenario, cache,
					   c[i].l.n, c[i].l.n == 1 ? "" : "s");
		else
			pd_side_provenance(
			    d, i, c[i].bundle.dir ? &c[i].bundle : NULL,
			    c[i].files.v, c[i].files.n);
}

/*
 * Stored runs aggregated from their stack trees set system frames apart
 * as files do; a side stored by an older perfdiff has whole totals only,
 * and then every side is counted whole. -1 with err set.
 */
static int settle_totals(struct pd_db *db, struct check_side *c,
			 const struct check_key *k, struct run_opts *r,
			 struct pd_funcs *fn, struct pd_idmap *ids,
			 struct pd_err *err)
{
	int i;

	r->set.whole_totals = 0;
	for (i = 0; i < 2; i++)
		r->set.whole_totals |= c[i].loaded && !c[i].l.set_apart;
	for (i = 0; i < 2 && r->set.whole_totals; i++) {
		if (!c[i].loaded) {
			files_whole(&c[i], fn);
		} else if (c[i].l.set_apart) {
			pd_loaded_release(&c[i].l);
			if (pd_store_load(db, c[i].sha, c[i].scenario,
					  k->cache_own, k->tool_own, ids, 1,
					  &c[i].l, err) < 0)
				return -1;
			c[i].side = c[i].l.side;
		}
	}
	return 0;
}

int pd_check_db(struct run_opts *r, char **operands)
{
	struct check_side c[2];
	struct check_key key;
	struct pd_db db;
	struct pd_err err = PD_ERR_INIT;
	struct pd_funcs fn;
	struct pd_idmap ids;
	struct pd_noise noise;
	struct pd_diff d;
	const char *scen = NULL, *ex[3] = { NULL, NULL, NULL };
	int i, n = 0, status = 2, have_noise = 0, opened = 0, rc;
	size_t k;

	memset(c, 0, sizeof(c));
	memset(&key, 0, sizeof(key));
	key.tool = r->tool;
	pd_funcs_init(&fn, r->flags);
	pd_idmap_init(&ids, &fn);
	for (i = 0; i < 2; i++)
		if (!strncmp(operands[i], "db:", 3) &&
		    parse_db_operand(&c[i], operands[i], r) < 0)
			goto out;
	if (pd_open_history(&db, r->db) < 0)
		goto out;
	opened = 1;
	for (i = 0; i < 2; i++) {
		if (!c[i].spec) {
			if (check_side_profiles(&c[i], operands[i], r, &fn) < 0)
				goto out;
			continue;
		}
		rc =
		    load_stored_side(&db, &c[i], operands[i], &key, &ids, &err);
		if (rc == -1)
			goto fail;
		if (rc < 0)
			goto out;
		scen = c[i].scenario;
		ex[n++] = c[i].sha;
	}
	/* Noise learned for the stored side, without the commits compared. */
	if (pd_store_noise(&db, scen, key.cache_own, key.tool_own, ex, &ids,
			   &noise, &err) < 0)
		goto fail;
	have_noise = 1;
	for (i = 0; i < 2; i++) {
		struct pd_agg *a = c[i].loaded ? c[i].l.runs : c[i].aggs;
		size_t na = c[i].loaded ? c[i].l.n : c[i].n;

		for (k = 0; k < na; k++)
			pd_agg_resize(&a[k], fn.v.n);
	}
	if (settle_totals(&db, c, &key, r, &fn, &ids, &err) < 0)
		goto fail;
	/* (noise learning sized its arrays to the table, grown by then) */
	pd_diff_aggs(&d, &c[0].side, c[0].loaded ? c[0].l.runs : c[0].aggs,
		     c[0].loaded ? c[0].l.n : c[0].n, &c[1].side,
		     c[1].loaded ? c[1].l.runs : c[1].aggs,
		     c[1].loaded ? c[1].l.n : c[1].n, &fn, &r->set, &noise);
	describe_sides(&d, c, key.cache_own);
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
	free(key.cache_own);
	free(key.tool_own);
	return status;
}
