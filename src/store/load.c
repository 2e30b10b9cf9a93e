/*
 * Reading the history back: loading the runs of
 * one side of a comparison as per-run aggregates (noise.c learns the
 * noise of the runs around them).
 */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/sort.h"
#include "import/import.h"
#include "stats/stats.h"
#include "store/commit.h"
#include "store/keys.h"
#include "store/load.h"
#include "store/load_int.h"
#include "store/packed.h"
#include "store/store.h"

void pd_loaded_release(struct pd_loaded *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		pd_agg_release(&l->runs[i]);
	free(l->runs);
	free(l->source);
	free(l->format);
	free(l->event);
	free(l->host);
	free(l->build_meta);
	free(l->commit_date);
	if (l->mean) {
		pd_profile_release(l->mean);
		free(l->mean);
	}
	memset(l, 0, sizeof(*l));
}

static enum pd_unit unit_of(const char *u)
{
	if (!strcmp(u, "ns"))
		return PD_UNIT_NS;
	if (!strcmp(u, "bytes"))
		return PD_UNIT_BYTES;
	if (!strcmp(u, "count"))
		return PD_UNIT_COUNT;
	return PD_UNIT_SAMPLES;
}

void pd_idmap_init(struct pd_idmap *m, struct pd_funcs *fn)
{
	memset(m, 0, sizeof(*m));
	m->fn = fn;
}

void pd_idmap_release(struct pd_idmap *m)
{
	PD_VEC_FREE(&m->map);
	PD_VEC_FREE(&m->pre);
	PD_VEC_FREE(&m->pre_runs);
	pd_buf_release(&m->names);
}

/*
 * The names of run's functions, read at once: on a server always (one
 * round trip, not one per function), in SQLite for the first run mapped
 * (one join in id order is a third of the time of 20 000 look-ups; later
 * runs mostly name functions already mapped).
 */
static int prefetch_names(struct pd_db *db, struct pd_idmap *m, int64_t run,
			  struct pd_err *err)
{
	struct pd_st *st;
	size_t i;
	int rc;

	for (i = 0; i < m->pre_runs.n; i++)
		if (m->pre_runs.v[i] == run)
			return 0;
	PD_VEC_PUSH(&m->pre_runs, run);
	st = pd_db_stmt(db, "q_run_names", err);
	if (!st)
		return PD_EIO;
	/* one run's names replace the last's: the lookup stays one run big */
	m->pre.n = 0;
	pd_buf_reset(&m->names);
	pd_st_i64(st, 1, run);
	while ((rc = pd_st_step(st)) == PD_ST_ROW) {
		struct pd_idmap_name nm;

		nm.id = pd_st_col_i64(st, 0);
		nm.name = m->names.len;
		pd_buf_adds(&m->names, pd_st_col_text(st, 1));
		pd_buf_addch(&m->names, 0);
		nm.module = m->names.len;
		pd_buf_adds(&m->names, pd_st_col_text(st, 2));
		pd_buf_addch(&m->names, 0);
		PD_VEC_PUSH(&m->pre, nm);
	}
	pd_st_reset(st);
	return rc == PD_ST_DONE ? 0 : pd_db_fail(db, err, "reading names");
}

static const struct pd_idmap_name *prefetched(const struct pd_idmap *m,
					      int64_t id)
{
	size_t lo;

	PD_LOWER_BOUND(lo, m->pre.v, m->pre.n, id, id);
	return lo < m->pre.n && m->pre.v[lo].id == id ? &m->pre.v[lo] : NULL;
}

/*
 * The function id of database function id, looked up once; on a server
 * through the names of the run it appears in (one query, not one per
 * function). The order functions enter m->fn is the rows' either way.
 */
static int map_id(struct pd_db *db, struct pd_idmap *m, int64_t run, int64_t id,
		  uint32_t *out, struct pd_err *err)
{
	const struct pd_idmap_name *nm;
	struct pd_st *st;
	size_t i = (size_t)id;
	int rc;

	if (id < 0)
		return pd_err_set(err, PD_EPARSE, "%s: bad function id",
				  db->path);
	if (i < m->map.n && m->map.v[i]) {
		*out = m->map.v[i] - 1;
		return 0;
	}
	if (db->pg || !m->pre_runs.n) {
		rc = prefetch_names(db, m, run, err);
		if (rc < 0)
			return rc;
	}
	if ((nm = prefetched(m, id))) {
		const char *name = m->names.buf + nm->name;
		const char *mod = m->names.buf + nm->module;

		*out =
		    pd_funcs_get(m->fn, name, strlen(name), mod, strlen(mod));
		goto mapped;
	}
	st = pd_db_stmt(db, "q_func_by_id", err);
	if (!st)
		return PD_EIO;
	pd_st_i64(st, 1, id);
	if (pd_st_step(st) != PD_ST_ROW) {
		pd_st_reset(st);
		return pd_err_set(err, PD_EPARSE,
				  "%s: run_functions names function %lld, which"
				  " is not stored",
				  db->path, (long long)id);
	}
	{
		const char *name = pd_st_col_text(st, 0);
		const char *mod = pd_st_col_text(st, 1);

		*out =
		    pd_funcs_get(m->fn, name, strlen(name), mod, strlen(mod));
	}
	pd_st_reset(st);
mapped:
	PD_VEC_RESERVE(&m->map, i + 1);
	while (m->map.n <= i)
		m->map.v[m->map.n++] = 0;
	m->map.v[i] = *out + 1;
	return 0;
}

/* Database id space: arrays sized once to the largest function id. */
static size_t size_hint = 1024;

void pd_store_size_hint(struct pd_db *db)
{
	struct pd_err e = PD_ERR_INIT;
	struct pd_st *st = pd_db_stmt(db, "q_max_func", &e);

	if (st && pd_st_step(st) == PD_ST_ROW)
		size_hint = (size_t)pd_st_col_i64(st, 0) + 1;
	if (st)
		pd_st_reset(st);
}

void pd_store_row_fill(double v[4], double interval)
{
	int k;

	/* A NULL is the other number converted by the interval. */
	for (k = 0; k < 2; k++) {
		if (isnan(v[k + 2]))
			v[k + 2] = v[k] * interval;
		if (isnan(v[k]))
			v[k] = interval > 0 ? v[k + 2] / interval : 0;
	}
}

/* One stored row (database id fid, numbers v with NaN for NULL) into a. */
static int add_row(struct pd_db *db, struct pd_idmap *ids, int64_t run,
		   int64_t fid, double v[4], double interval, struct pd_agg *a,
		   struct pd_err *err)
{
	uint32_t f = 0;

	if (ids) {
		int rc = map_id(db, ids, run, fid, &f, err);

		if (rc < 0)
			return rc;
	} else { /* database id space (noise learning) */
		if (fid < 0 || fid > UINT32_MAX - 64)
			return pd_err_set(err, PD_EPARSE, "%s: bad function id",
					  db->path);
		f = (uint32_t)fid;
	}
	pd_store_row_fill(v, interval);
	if (f >= a->n)
		pd_agg_resize(a, ids ? ids->fn->v.n + 64 : (size_t)f * 2 + 64);
	assert(f < a->n); /* an id map's functions are all in its table */
	a->self_c[f] += v[0];
	a->total_c[f] += v[1];
	a->self_w[f] += v[2];
	a->total_w[f] += v[3];
	return 0;
}

/* The rows of a run stored before run_packed, one query row each. */
static int load_rows(struct pd_db *db, int64_t run, double interval,
		     struct pd_idmap *ids, struct pd_agg *a, struct pd_err *err)
{
	struct pd_st *st = pd_db_stmt(db, "q_run_rows", err);
	int rc;

	if (!st)
		return PD_EIO;
	pd_st_i64(st, 1, run);
	while ((rc = pd_st_step(st)) == PD_ST_ROW) {
		double v[4]; /* self_n, total_n, self_w, total_w */
		int k;

		for (k = 0; k < 4; k++)
			v[k] = pd_st_col_f64n(st, k + 1);
		rc = add_row(db, ids, run, pd_st_col_i64(st, 0), v, interval, a,
			     err);
		if (rc < 0) {
			pd_st_reset(st);
			return rc;
		}
	}
	pd_st_reset(st);
	return rc == PD_ST_DONE ? 0 : pd_db_fail(db, err, "loading a run");
}

int pd_store_load_run(struct pd_db *db, int64_t run, double interval,
		      double total_w, double total_n, struct pd_idmap *ids,
		      struct pd_agg *a, struct pd_err *err)
{
	struct pd_buf blob = PD_BUF_INIT;
	struct pd_packed_it it;
	struct pd_packed_row row;
	size_t nrows = 0;
	int rc;

	pd_agg_init(a);
	pd_agg_resize(a, ids ? ids->fn->v.n : size_hint);
	rc = pd_packed_load(db, run, &blob, &nrows, err);
	if (rc == 1) {
		int more = 0;

		rc = 0;
		pd_packed_start(&it, blob.buf, blob.len, nrows);
		while (rc == 0 && (more = pd_packed_next(&it, &row)) == 1)
			rc = add_row(db, ids, run, row.fid, row.v, interval, a,
				     err);
		if (rc == 0 && more < 0)
			rc = pd_err_set(err, PD_EPARSE,
					"%s: run %lld: damaged packed rows",
					db->path, (long long)run);
	} else if (rc == 0) {
		rc = load_rows(db, run, interval, ids, a, err);
	}
	pd_buf_release(&blob);
	if (rc < 0)
		return rc;
	a->all_w = total_w;
	a->all_c = total_n;
	return 0;
}

/*
 * A stored run's time-block dispersions into a (statistics.md, "Bursty
 * functions"), as its file gave them: a function without a row has none.
 */
static int load_bursts(struct pd_db *db, int64_t run, struct pd_idmap *ids,
		       struct pd_agg *a, struct pd_err *err)
{
	struct pd_buf blob = PD_BUF_INIT;
	struct pd_packed_it it;
	struct pd_packed_row r;
	size_t nrows = 0;
	int rc = pd_bursts_load(db, run, &blob, &nrows, err), more = 0, k;
	uint32_t f;

	if (rc <= 0) {
		pd_buf_release(&blob);
		return rc;
	}
	for (k = 0; k < 2 && !a->bdf[k]; k++) {
		a->bdisp[k] = pd_xcalloc(a->n ? a->n : 1, sizeof(double));
		a->bdf[k] = pd_xcalloc(a->n ? a->n : 1, sizeof(double));
	}
	rc = 0;
	pd_packed_start(&it, blob.buf, blob.len, nrows);
	while (rc == 0 && (more = pd_packed_next(&it, &r)) == 1) {
		rc = map_id(db, ids, run, r.fid, &f, err);
		if (rc < 0 || f >= a->n)
			continue; /* (in no stack of the run: nothing to judge)
				   */
		for (k = 0; k < 2; k++)
			if (r.v[2 * k + 1] > 0 && r.v[2 * k] >= 0) {
				a->bdisp[k][f] = r.v[2 * k] / PD_BURST_SCALE;
				a->bdf[k][f] = r.v[2 * k + 1];
			}
	}
	if (rc == 0 && more < 0)
		rc = pd_err_set(err, PD_EPARSE,
				"%s: run %lld: damaged dispersions", db->path,
				(long long)run);
	pd_buf_release(&blob);
	return rc;
}

/*
 * A run's aggregates from its stored stack tree, as a file's are made:
 * the tree rebuilt as a profile whose frames are the functions, then
 * pd_agg_compute with the caller's flags, so system frames are set apart
 * from their callers' totals and from the run's total exactly as in a
 * diff of files (the function rows keep whole totals). A run whose tree
 * names functions otherwise (an older perfdiff) keeps its rows. Returns
 * 1 when the tree was used, 0 when not, or an error.
 */
static int agg_from_stacks(struct pd_db *db, int64_t run, struct pd_idmap *ids,
			   struct pd_agg *a, struct pd_profile *mean,
			   double scale, struct pd_err *err)
{
	struct pd_st *st = pd_db_stmt(db, "q_run_stacks", err);
	struct pd_buf raw = PD_BUF_INIT;
	struct pd_err bad = PD_ERR_INIT;
	struct pd_profile p;
	struct pd_agg t;
	uint32_t *map = NULL, *fmap = NULL;
	size_t nodes, i, nf;
	int rc;

	if (!st)
		return PD_EIO;
	pd_st_i64(st, 1, run);
	rc = pd_st_step(st);
	if (rc == PD_ST_DONE) {
		pd_st_reset(st);
		return 0;
	}
	if (rc != PD_ST_ROW) {
		pd_st_reset(st);
		return pd_db_fail(db, err, "loading a stack tree");
	}
	nodes = (size_t)pd_st_col_i64(st, 0);
	/* the decoder's finding names neither: the message here does */
	rc =
	    pd_stacks_decode(pd_st_col_blob(st, 1),
			     (size_t)pd_st_col_bytes(st, 1), nodes, &raw, &bad);
	pd_st_reset(st);
	if (rc < 0) {
		pd_buf_release(&raw);
		return pd_err_set(err, rc, "%s: corrupt stack tree of run %lld",
				  db->path, (long long)run);
	}
	pd_profile_init(&p);
	map = pd_xmalloc((nodes + 1) * sizeof(*map));
	map[0] = PD_ROOT;
	nf = ids->fn->v.n;
	fmap = pd_xmalloc((nf + 1) * sizeof(*fmap));
	for (i = 0; i <= nf; i++)
		fmap[i] = UINT32_MAX;
	for (i = 0; i < nodes; i++) {
		struct pd_stack_node nd;
		uint32_t f = 0, node;

		pd_stacks_node(&raw, i, &nd);
		rc = map_id(db, ids, run, (int64_t)nd.func, &f, err);
		if (rc == 0 && nd.parent > i) /* parents come first */
			rc = pd_err_set(err, PD_EPARSE,
					"%s: corrupt stack tree of run %lld",
					db->path, (long long)run);
		if (rc < 0)
			goto out;
		if (f >= nf) {
			fmap = pd_xreallocarray(fmap, (size_t)f + 1,
						sizeof(*fmap));
			while (nf <= f)
				fmap[nf++] = UINT32_MAX;
		}
		if (fmap[f] == UINT32_MAX) {
			const char *nm = pd_func_name(ids->fn, f);
			const char *mod = pd_func_module(ids->fn, f);

			fmap[f] = pd_profile_frame(
			    &p, pd_intern_cstr(&p.strs, nm),
			    *mod ? pd_intern_cstr(&p.strs, mod) : 0);
		}
		node = pd_profile_child(&p, map[nd.parent], fmap[f]);
		pd_profile_add(&p, node, nd.weight, nd.count);
		map[i + 1] = node;
	}
	pd_profile_finish(&p);
	pd_agg_init(&t);
	pd_agg_compute(&t, &p, ids->fn);
	pd_agg_resize(&t, ids->fn->v.n);
	pd_agg_resize(a, ids->fn->v.n);
	for (i = 0; i < ids->fn->v.n; i++) {
		a->self_w[i] = t.self_w[i];
		a->self_c[i] = t.self_c[i];
		a->total_w[i] = t.total_w[i];
		a->total_c[i] = t.total_c[i];
	}
	a->all_w = t.all_w;
	a->all_c = t.all_c;
	a->sys_w = t.sys_w;
	a->sys_c = t.sys_c;
	pd_agg_release(&t);
	if (mean)
		pd_profile_merge(mean, &p, scale, NULL);
	rc = load_bursts(db, run, ids, a, err);
	if (rc == 0)
		rc = 1;
out:
	pd_profile_release(&p);
	free(map);
	free(fmap);
	pd_buf_release(&raw);
	return rc;
}

/* The columns of sql/q_side_runs.sql, by name. */
enum side_run_col {
	SR_ID,
	SR_CACHE,
	SR_TOOL,
	SR_FORMAT,
	SR_UNIT,
	SR_INTERVAL,
	SR_EVENT,
	SR_TOTAL_WEIGHT,
	SR_TOTAL_SAMPLES,
	SR_SOURCE,
	SR_HOST,
	SR_BUILD_META,
	SR_COMMIT_DATE,
};

int pd_store_load(struct pd_db *db, const struct pd_hkey *key,
		  struct pd_idmap *idmap, unsigned how, struct pd_loaded *out,
		  struct pd_err *err)
{
	struct pd_st *st;
	PD_VEC(int64_t) ids = PD_VEC_INIT;
	PD_VEC(double) tw = PD_VEC_INIT, tn = PD_VEC_INIT, iv = PD_VEC_INIT;
	struct pd_buf src = PD_BUF_INIT;
	size_t i;
	int rc;

	/* a NULL key binds NULL, which matches no run: "no runs", silently */
	assert(key->sha && pd_sha_is_hex(key->sha) && key->scenario);
	assert(!(how & ~(unsigned)(PD_LOAD_WHOLE | PD_LOAD_MEAN)));
	memset(out, 0, sizeof(*out));
	st = pd_db_stmt(db, "q_side_runs", err);
	if (!st)
		return PD_EIO;
	pd_st_text(st, 1, key->sha);
	pd_st_text(st, 2, key->scenario);
	pd_st_text(st, 3, key->cache);
	pd_st_text(st, 4, key->tool);
	while ((rc = pd_st_step(st)) == PD_ST_ROW) {
		PD_VEC_PUSH(&ids, pd_st_col_i64(st, SR_ID));
		PD_VEC_PUSH(&tw, pd_st_col_f64(st, SR_TOTAL_WEIGHT));
		PD_VEC_PUSH(&tn, pd_st_col_f64(st, SR_TOTAL_SAMPLES));
		PD_VEC_PUSH(&iv, pd_st_col_f64(st, SR_INTERVAL));
		if (ids.n == 1) {
			out->format = pd_xstrdup(pd_st_col_text(st, SR_FORMAT));
			out->side.unit = unit_of(pd_st_col_text(st, SR_UNIT));
			out->side.interval = pd_st_col_f64(st, SR_INTERVAL);
			if (!pd_st_isnull(st, SR_EVENT))
				out->event =
				    pd_xstrdup(pd_st_col_text(st, SR_EVENT));
			if (!pd_st_isnull(st, SR_HOST))
				out->host =
				    pd_xstrdup(pd_st_col_text(st, SR_HOST));
			if (!pd_st_isnull(st, SR_BUILD_META))
				out->build_meta = pd_xstrdup(
				    pd_st_col_text(st, SR_BUILD_META));
			if (!pd_st_isnull(st, SR_COMMIT_DATE))
				out->commit_date = pd_xstrdup(
				    pd_st_col_text(st, SR_COMMIT_DATE));
		}
	}
	pd_st_reset(st);
	if (rc != PD_ST_DONE) {
		rc = pd_db_fail(db, err, "loading runs");
		goto out;
	}
	if (!ids.n) {
		rc = pd_err_set(err, PD_EINVAL, "no runs of %.12s %s/%s (%s)",
				key->sha, key->scenario, key->cache, key->tool);
		goto out;
	}
	out->runs = pd_xcalloc(ids.n, sizeof(*out->runs));
	out->n = ids.n;
	out->set_apart = idmap != NULL && !(how & PD_LOAD_WHOLE);
	if ((how & PD_LOAD_MEAN) && out->set_apart) {
		out->mean = pd_xmalloc(sizeof(*out->mean));
		pd_profile_init(out->mean);
	}
	for (i = 0; i < ids.n; i++) {
		rc = pd_store_load_run(db, ids.v[i], iv.v[i], tw.v[i], tn.v[i],
				       idmap, &out->runs[i], err);
		if (rc >= 0 && out->set_apart)
			rc = agg_from_stacks(db, ids.v[i], idmap, &out->runs[i],
					     out->mean, 1.0 / (double)ids.n,
					     err);
		if (rc < 0)
			goto out;
		if (rc == 0 && out->set_apart) {
			/* one run without a usable tree: all runs whole */
			size_t k;

			out->set_apart = 0;
			if (out->mean) { /* no picture of a side in part */
				pd_profile_release(out->mean);
				free(out->mean);
				out->mean = NULL;
			}
			for (k = 0; k < i; k++) {
				pd_agg_release(&out->runs[k]);
				rc = pd_store_load_run(db, ids.v[k], iv.v[k],
						       tw.v[k], tn.v[k], idmap,
						       &out->runs[k], err);
				if (rc < 0)
					goto out;
			}
			out->side.system = 0;
		}
		if (out->set_apart)
			out->side.system += out->runs[i].sys_w / (double)ids.n;
		out->side.total += tw.v[i] / (double)ids.n;
		out->side.samples += tn.v[i] / (double)ids.n;
	}
	pd_buf_addf(&src, "%.12s %s/%s, %s, %zu run%s", key->sha, key->scenario,
		    key->cache, key->tool, ids.n, ids.n == 1 ? "" : "s");
	out->source = pd_buf_detach(&src);
	out->side.source = out->source;
	out->side.format = out->format;
	out->side.event = out->event;
	/* the format says what its counts are (no column of the runs) */
	out->side.exact = !!(pd_format_traits(out->format) & PD_FORMAT_EXACT);
	out->side.self_only =
	    !!(pd_format_traits(out->format) & PD_FORMAT_SELF_ONLY);
	out->side.count_rule =
	    out->side.exact ? "stored exact counts" : "stored sample counts";
	out->side.runs = (int)ids.n;
	if (out->mean)
		pd_profile_finish(out->mean);
	rc = 0;
out:
	if (rc < 0) /* nothing half-loaded for the caller to miss */
		pd_loaded_release(out);
	PD_VEC_FREE(&ids);
	PD_VEC_FREE(&tw);
	PD_VEC_FREE(&tn);
	PD_VEC_FREE(&iv);
	return rc;
}

struct id_at {
	int64_t id;
	size_t at;
};

static int by_id(const void *a, const void *b)
{
	const struct id_at *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

int pd_store_func_rows(struct pd_db *db, const struct pd_hkey *series,
		       const int64_t *ids, size_t n, int64_t func,
		       struct pd_func_row *rows, struct pd_err *err)
{
	struct id_at *ix, key, *hit;
	struct pd_st *st;
	size_t i;
	int rc, k;

	memset(rows, 0, n * sizeof(*rows));
	if (!n)
		return 0;
	st = pd_db_stmt(db, "q_func_rows", err);
	if (!st)
		return PD_EIO;
	ix = pd_xmalloc(n * sizeof(*ix));
	for (i = 0; i < n; i++) {
		ix[i].id = ids[i];
		ix[i].at = i;
	}
	pd_sort(ix, n, sizeof(*ix), by_id);
	pd_st_i64(st, 1, func);
	pd_st_text(st, 2, series->scenario);
	pd_st_text(st, 3, series->cache);
	pd_st_text(st, 4, series->tool);
	pd_st_i64(st, 5, ix[0].id);
	pd_st_i64(st, 6, ix[n - 1].id);
	while ((rc = pd_st_step(st)) == PD_ST_ROW) {
		key.id = pd_st_col_i64(st, 0);
		hit = pd_bsearch(&key, ix, n, sizeof(*ix), by_id);
		if (!hit)
			continue; /* a run of the key outside the window */
		rows[hit->at].present = 1;
		for (k = 0; k < 4; k++)
			rows[hit->at].v[k] = pd_st_isnull(st, k + 1)
						 ? PD_NAN
						 : pd_st_col_f64(st, k + 1);
	}
	pd_st_reset(st);
	free(ix);
	return rc == PD_ST_DONE ? 0 : pd_db_fail(db, err, "reading a series");
}
