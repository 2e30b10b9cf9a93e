/*
 * The sides of a comparison (side.h): files, bundles and stored commits
 * assembled, loaded and described once for diff, compare and check.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "compare/side.h"
#include "core/buf.h"
#include "core/xalloc.h"
#include "store/store.h"

int pd_compare_side_add(struct pd_run_side *s, const char *arg,
			struct pd_err *err)
{
	if (pd_is_dir(arg))
		return pd_expand_bundle(arg, &s->files, &s->keys, &s->bundle,
					&s->meta, &s->stat, err);
	PD_VEC_PUSH(&s->files, arg);
	return 0;
}

static int matches(const char *want, const char *have)
{
	return !want || !strcmp(want, have);
}

size_t pd_run_side_keep(struct pd_run_side *s, const char *cache,
			const char *tool)
{
	size_t i, n = 0;

	if (!s->keys.n)
		return s->files.n;
	assert(s->keys.n == s->files.n);
	for (i = 0; i < s->files.n; i++)
		if (matches(cache, s->keys.v[i].cache) &&
		    matches(tool, s->keys.v[i].tool)) {
			s->files.v[n] = s->files.v[i];
			s->keys.v[n++] = s->keys.v[i];
		}
	s->files.n = s->keys.n = n;
	return n;
}

void pd_run_side_series(const struct pd_run_side *s, struct pd_buf *b)
{
	size_t i, k, n, shown = 0;

	for (i = 0; i < s->keys.n; i++) {
		const struct pd_series *x = &s->keys.v[i];

		for (k = 0; k < i; k++)
			if (!strcmp(s->keys.v[k].cache, x->cache) &&
			    !strcmp(s->keys.v[k].tool, x->tool))
				break;
		if (k < i)
			continue; /* told already */
		for (n = 0, k = i; k < s->keys.n; k++)
			n += !strcmp(s->keys.v[k].cache, x->cache) &&
			     !strcmp(s->keys.v[k].tool, x->tool);
		pd_buf_addf(b, "%s%s %s (%zu run%s)", shown++ ? ", " : "",
			    x->cache, x->tool, n, n == 1 ? "" : "s");
	}
}

static size_t count_of(const struct pd_run_side *s, const struct pd_series *x)
{
	size_t i, n = 0;

	if (!s->keys.n)
		return s->files.n; /* plain files go with every series */
	for (i = 0; i < s->keys.n; i++)
		n += !strcmp(s->keys.v[i].cache, x->cache) &&
		     !strcmp(s->keys.v[i].tool, x->tool);
	return n;
}

static int listed(const struct pd_series_list *l, const struct pd_series *x)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].cache, x->cache) &&
		    !strcmp(l->v[i].tool, x->tool))
			return 1;
	return 0;
}

static const char *field(const struct pd_series *x, int tool)
{
	return tool ? x->tool : x->cache;
}

/*
 * want, a value of --cache (tool 0) or --tool (1), that no run of the
 * bundles has: an error listing those they have.
 */
static int known(const struct pd_series_list *all, const char *want, int tool,
		 struct pd_err *err)
{
	struct pd_buf b = PD_BUF_INIT;
	size_t i, k;

	if (!want)
		return 0;
	for (i = 0; i < all->n; i++)
		if (!strcmp(field(&all->v[i], tool), want))
			return 0;
	for (i = 0; i < all->n; i++) {
		for (k = 0; k < i; k++)
			if (!strcmp(field(&all->v[k], tool),
				    field(&all->v[i], tool)))
				break;
		if (k == i)
			pd_buf_addf(&b, "%s%s", b.len ? ", " : "",
				    field(&all->v[i], tool));
	}
	for (i = 0; i < all->n; i++)
		if (pd_edit_distance(want, field(&all->v[i], tool)) <= 2)
			break;
	pd_err_set(
	    err, PD_EINVAL,
	    "error: %s %s: no run of the bundles has it (they have %s)%s%s%s",
	    tool ? "--tool" : "--cache", want, b.buf,
	    i < all->n ? "; did you mean " : "",
	    i < all->n ? field(&all->v[i], tool) : "", i < all->n ? "?" : "");
	pd_buf_release(&b);
	return PD_EINVAL;
}

int pd_compare_series(const struct pd_run_side *s, const char *cache,
		      const char *tool, struct pd_series_list *common,
		      struct pd_buf *only, struct pd_err *err)
{
	struct pd_series_list all = PD_VEC_INIT;
	size_t i, j, n[2];
	int rc = 0;

	for (i = 0; i < 2; i++)
		for (j = 0; j < s[i].keys.n; j++)
			if (!listed(&all, &s[i].keys.v[j]))
				PD_VEC_PUSH(&all, s[i].keys.v[j]);
	if (!all.n)
		goto out; /* plain files on both sides: no series */
	rc = known(&all, cache, 0, err);
	if (rc == 0)
		rc = known(&all, tool, 1, err);
	if (rc)
		goto out;
	for (i = 0; i < all.n; i++) {
		const struct pd_series *x = &all.v[i];

		if (!matches(cache, x->cache) || !matches(tool, x->tool))
			continue;
		n[0] = count_of(&s[0], x);
		n[1] = count_of(&s[1], x);
		if (n[0] && n[1]) {
			PD_VEC_PUSH(common, *x);
			continue;
		}
		pd_buf_addf(only,
			    "%s%s %s: baseline %zu run%s, candidate %zu"
			    " run%s",
			    only->len ? "; " : "", x->cache, x->tool, n[0],
			    n[0] == 1 ? "" : "s", n[1], n[1] == 1 ? "" : "s");
	}
	if (!common->n) {
		struct pd_buf h[2] = { PD_BUF_INIT, PD_BUF_INIT };

		for (i = 0; i < 2; i++)
			if (s[i].keys.n)
				pd_run_side_series(&s[i], &h[i]);
			else
				pd_buf_addf(&h[i], "%zu file%s", s[i].files.n,
					    s[i].files.n == 1 ? "" : "s");
		rc = pd_err_set(err, PD_EINVAL,
				"error: the sides share no cache state and"
				" tool%s: baseline %s; candidate %s",
				cache || tool ? " as selected" : "", h[0].buf,
				h[1].buf);
		pd_buf_release(&h[0]);
		pd_buf_release(&h[1]);
	}
out:
	PD_VEC_FREE(&all);
	return rc;
}

int pd_compare_stored(struct pd_run_side *s, const char *operand,
		      const char *rev, const char *scenario, const char *cache,
		      struct pd_err *err)
{
	char *p;

	s->operand = operand;
	s->spec = pd_xstrdup(rev);
	s->rev = s->spec;
	s->scenario = scenario;
	s->cache = cache;
	if ((p = strchr(s->spec, ':'))) {
		*p++ = '\0';
		s->scenario = p;
		if ((p = strchr(p, ':'))) {
			*p++ = '\0';
			s->cache = p;
		}
	}
	if (!*s->rev || !s->scenario || !*s->scenario) {
		return pd_err_set(err, PD_EUSAGE,
				  "error: %s: want %sREV:SCENARIO[:CACHE] (or"
				  " --scenario)",
				  operand, rev == operand ? "" : "db:");
	}
	return 0;
}

/* The files imported and aggregated over fn; 0, or an error code. */
static int side_profiles(struct pd_run_side *s, const struct pd_import_opts *io,
			 struct pd_funcs *fn, struct pd_err *err)
{
	const struct pd_profile **pp;
	size_t i;
	int rc;

	s->n = s->files.n;
	s->jobs = pd_xcalloc(s->n, sizeof(*s->jobs));
	rc = pd_import_pool(s->files.v, s->n, io, s->jobs, err);
	if (rc < 0)
		return rc;
	s->aggs = pd_xcalloc(s->n, sizeof(*s->aggs));
	pp = pd_xmalloc(s->n * sizeof(*pp));
	for (i = 0; i < s->n; i++) {
		pp[i] = &s->jobs[i].p;
		pd_agg_init(&s->aggs[i]);
		pd_agg_compute(&s->aggs[i], pp[i], fn);
	}
	pd_side_of_profiles(&s->side, pp, s->n);
	for (i = 0; i < s->n; i++)
		s->side.system += s->aggs[i].sys_w / (double)s->n;
	free(pp);
	return 0;
}

/*
 * The files' aggregates with whole totals (system time inside its
 * callers), as a history written by an older perfdiff stores runs: count
 * the files alike, or a caller of page faults looks 90 % faster. The
 * verdict still sets system frames apart (docs/history.md).
 */
static void files_whole(struct pd_run_side *s, struct pd_funcs *fn)
{
	unsigned flags = fn->flags;
	size_t i;

	fn->flags |= PD_FUNCS_SYSTEM;
	for (i = 0; i < s->n; i++) {
		pd_agg_release(&s->aggs[i]);
		pd_agg_init(&s->aggs[i]);
		pd_agg_compute(&s->aggs[i], &s->jobs[i].p, fn);
	}
	fn->flags = flags;
	s->side.system = 0;
}

/* The cache state and tool both stored sides share: the first one's. */
struct store_key {
	const char *cache, *tool;
	char *cache_own, *tool_own;
};

/*
 * A stored side's commit resolved, its cache state and tool settled
 * against the key. 0, or -1 with err set.
 */
static int resolve(struct pd_db *db, struct pd_run_side *s, struct store_key *k,
		   struct pd_err *err)
{
	struct pd_hkey key = { NULL, s->scenario, s->cache, NULL };
	char *co = NULL, *to = NULL;

	if (pd_store_resolve(db, s->rev, &key, &s->sha, err) < 0)
		return -1;
	key.sha = s->sha;
	key.cache = k->cache_own ? k->cache : s->cache;
	key.tool = k->tool;
	if (pd_store_settle(db, &key, &co, &to, err) < 0)
		return -1;
	if (!k->cache_own) {
		k->cache_own = co;
		k->tool_own = to;
	} else {
		free(co);
		free(to);
	}
	/* a second stored side must match the first's key */
	k->cache = k->cache_own;
	k->tool = k->tool_own;
	if (s->cache && strcmp(s->cache, k->cache_own)) {
		pd_err_set(err, PD_EINVAL,
			   "error: %s: cache state %s, the other side %s",
			   s->operand, s->cache, k->cache_own);
		return -1;
	}
	return 0;
}

static int load(struct pd_db *db, struct pd_run_side *s,
		const struct store_key *k, struct pd_idmap *ids, unsigned how,
		struct pd_err *err)
{
	const struct pd_hkey key = { s->sha, s->scenario, k->cache_own,
				     k->tool_own };

	if (s->loaded)
		pd_loaded_release(&s->l);
	s->loaded = 0;
	if (pd_store_load(db, &key, ids, how, &s->l, err) < 0)
		return -1;
	s->loaded = 1;
	s->side = s->l.side;
	return 0;
}

/*
 * Stored runs aggregated from their stack trees set system frames apart
 * as files do; a side stored by an older perfdiff has whole totals only,
 * and then every side is counted whole. -1 with err set.
 */
static int settle_totals(struct pd_db *db, struct pd_run_side *s,
			 const struct store_key *k, struct pd_settings *set,
			 struct pd_funcs *fn, struct pd_idmap *ids,
			 struct pd_err *err)
{
	int i;

	set->whole_totals = 0;
	for (i = 0; i < 2; i++)
		set->whole_totals |= s[i].loaded && !s[i].l.set_apart;
	for (i = 0; i < 2 && set->whole_totals; i++) {
		if (!s[i].loaded)
			files_whole(&s[i], fn);
		else if (s[i].l.set_apart &&
			 load(db, &s[i], k, ids, PD_LOAD_WHOLE, err) < 0)
			return -1;
	}
	return 0;
}

/* The stored counters (perf stat) of both commits, when both have. */
static int add_counters(struct pd_db *db, struct pd_diff *d,
			struct pd_run_side *s, const struct store_key *k,
			struct pd_err *err)
{
	int i;

	for (i = 0; i < 2; i++) {
		const struct pd_hkey key = { s[i].sha, s[i].scenario,
					     k->cache_own, k->tool_own };

		if (pd_store_metrics(db, &key, &s[i].counters, &s[i].ncounters,
				     err) < 0)
			return -1;
	}
	if (s[0].ncounters && s[1].ncounters)
		pd_diff_add_tables(
		    d, (const struct pd_profile *const *)s[0].counters,
		    s[0].ncounters,
		    (const struct pd_profile *const *)s[1].counters,
		    s[1].ncounters);
	return 0;
}

/*
 * Resolves and loads both sides while the noise of the stored sides'
 * scenario is learned on a second thread. 0, or -1 with err set.
 */
/*
 * The tool (cache: the cache state) every run of bundle side s has, or
 * NULL when they differ or s is no bundle.
 */
static const char *bundle_one(const struct pd_run_side *s, int cache)
{
	const char *one = NULL;
	size_t i;

	for (i = 0; i < s->keys.n; i++) {
		const char *x = cache ? s->keys.v[i].cache : s->keys.v[i].tool;

		if (!x || (one && strcmp(one, x)))
			return NULL;
		one = x;
	}
	return one;
}

/*
 * A stored commit against a bundle, neither --tool nor --cache given:
 * the stored side's runs of the bundle's one tool and one cache state,
 * when it has one (docs/history.md), as a pull request's check compares
 * its bundle with the main branch's stored commit whatever else the
 * history holds for it.
 */
static void bundle_defaults(struct pd_run_side *s, struct store_key *k)
{
	int i, j;

	for (i = 0; i < 2; i++) {
		const char *tool, *cache;

		if (s[i].spec || !s[i].keys.n)
			continue;
		tool = bundle_one(&s[i], 0);
		cache = bundle_one(&s[i], 1);
		if (!k->tool && tool)
			k->tool = tool;
		for (j = 0; j < 2; j++)
			if (s[j].spec && !s[j].cache && cache)
				s[j].cache = cache;
	}
}

static int load_sides(struct pd_db *db, struct pd_run_side *s,
		      struct store_key *k, const struct pd_compare_opts *o,
		      struct pd_funcs *fn, struct pd_idmap *ids,
		      struct pd_noise *noise, struct pd_err *err)
{
	const char *scen = NULL, *ex[3] = { NULL, NULL, NULL };
	struct pd_hkey series = { NULL, NULL, NULL, NULL };
	struct pd_noise_task task;
	struct pd_err ignored = PD_ERR_INIT;
	int i, n = 0, rc = 0, rc2;

	bundle_defaults(s, k);
	for (i = 0; i < 2; i++) {
		if (!s[i].spec)
			continue;
		rc = resolve(db, &s[i], k, err);
		if (rc < 0)
			return rc;
		scen = s[i].scenario;
		ex[n++] = s[i].sha;
	}
	/*
	 * A bundle's runs of the stored side's series alone: warm against
	 * warm, one tool against the same tool.
	 */
	for (i = 0; i < 2; i++) {
		struct pd_buf have = PD_BUF_INIT;

		if (s[i].spec || !s[i].keys.n)
			continue;
		pd_run_side_series(&s[i], &have);
		if (!pd_run_side_keep(&s[i], k->cache_own, k->tool_own)) {
			pd_err_set(err, PD_EINVAL,
				   "error: %s: no run of cache %s, tool %s, as"
				   " the history has; the bundle has %s",
				   s[i].bundle.dir, k->cache_own, k->tool_own,
				   have.buf);
			pd_buf_release(&have);
			return -1;
		}
		pd_buf_release(&have);
	}
	/* noise learned without the commits compared */
	series.scenario = scen;
	series.cache = k->cache_own;
	series.tool = k->tool_own;
	pd_store_noise_start(&task, o->db, &series, ex);
	for (i = 0; i < 2 && rc == 0; i++) {
		if (s[i].spec)
			rc = load(db, &s[i], k, ids,
				  o->want_mean ? PD_LOAD_MEAN : 0, err);
		else if (side_profiles(&s[i], o->io, fn, err) < 0)
			rc = -1;
	}
	rc2 = pd_store_noise_finish(&task, ids, noise, rc ? &ignored : err);
	if (rc == 0 && rc2 < 0)
		rc = -1;
	else if (rc2 == 0 && rc)
		pd_noise_release(noise);
	return rc;
}

int pd_compare_sides(struct pd_run_side *s, struct pd_db *db,
		     const struct pd_compare_opts *o, struct pd_funcs *fn,
		     struct pd_diff *d, struct pd_err *err)
{
	struct store_key k;
	struct pd_idmap ids;
	struct pd_noise noise;
	size_t j;
	int i, rc;

	memset(&k, 0, sizeof(k));
	k.tool = o->tool;
	pd_idmap_init(&ids, fn);
	rc = load_sides(db, s, &k, o, fn, &ids, &noise, err);
	if (rc < 0)
		goto fail;
	/* (the noise's id map grew the table: every run to its size) */
	for (i = 0; i < 2; i++)
		for (j = 0; j < pd_run_side_n(&s[i]); j++)
			pd_agg_resize(&pd_run_side_aggs(&s[i])[j], fn->v.n);
	rc = settle_totals(db, s, &k, o->set, fn, &ids, err);
	if (rc == 0) {
		/* both sides loaded, each run's table as long as fn's */
		assert(pd_run_side_n(&s[0]) > 0 && pd_run_side_n(&s[1]) > 0);
		assert(pd_run_side_aggs(&s[0])[0].n >= fn->v.n &&
		       pd_run_side_aggs(&s[1])[0].n >= fn->v.n);
		pd_diff_aggs(d, &s[0].side, pd_run_side_aggs(&s[0]),
			     pd_run_side_n(&s[0]), &s[1].side,
			     pd_run_side_aggs(&s[1]), pd_run_side_n(&s[1]), fn,
			     o->set, &noise);
		if (s[0].loaded && s[1].loaded)
			rc = add_counters(db, d, s, &k, err);
		if (rc == 0)
			pd_run_sides_describe(d, s, k.cache_own, k.tool_own);
		else
			pd_diff_release(d);
	}
	pd_noise_release(&noise);
fail:
	pd_idmap_release(&ids);
	free(k.cache_own);
	free(k.tool_own);
	if (rc < 0)
		return err->code ? err->code : PD_EIO;
	return 0;
}

void pd_run_sides_describe(struct pd_diff *d, struct pd_run_side *s,
			   const char *cache, const char *tool)
{
	struct pd_meta m[2];
	int i;

	for (i = 0; i < 2; i++) {
		if (s[i].loaded) {
			pd_meta_from_json(&m[i], s[i].l.build_meta);
			/* the date the history resolved, when the file has none
			 */
			if (!m[i].commit_date && s[i].l.commit_date)
				m[i].commit_date =
				    pd_xstrdup(s[i].l.commit_date);
		} else {
			m[i] = s[i].meta;
		}
	}
	pd_meta_warn(d, &m[0], &m[1]);
	for (i = 0; i < 2; i++) {
		if (!s[i].loaded) {
			pd_side_provenance(
			    d, i, s[i].bundle.dir ? &s[i].bundle : NULL,
			    s[i].keys.n ? s[i].keys.v[0].tool : NULL,
			    s[i].files.v, s[i].files.n);
			continue;
		}
		pd_meta_release(&m[i]);
		pd_diff_provenance(d, i,
				   "commit %s, scenario %s, cache %s; %zu %s"
				   " run%s from the history%s%s",
				   s[i].sha, s[i].scenario, cache, s[i].l.n,
				   tool, s[i].l.n == 1 ? "" : "s",
				   s[i].why ? "; " : "",
				   s[i].why ? s[i].why : "");
	}
}

void pd_run_side_release(struct pd_run_side *s)
{
	size_t i;

	if (s->loaded)
		pd_loaded_release(&s->l);
	for (i = 0; s->aggs && i < s->n; i++)
		pd_agg_release(&s->aggs[i]);
	for (i = 0; s->jobs && i < s->n; i++)
		pd_profile_release(&s->jobs[i].p);
	for (i = 0; i < s->ncounters; i++) {
		pd_profile_release(s->counters[i]);
		free(s->counters[i]);
	}
	free(s->counters);
	free(s->aggs);
	free(s->jobs);
	free(s->sha);
	free(s->why);
	free(s->spec);
	PD_VEC_FREE(&s->files);
	PD_VEC_FREE(&s->keys);
	pd_bundle_release(&s->bundle);
	pd_meta_release(&s->meta);
	memset(s, 0, sizeof(*s));
}
