/*
 * Reading the history back: resolving revisions, loading the runs of one
 * side of a comparison as per-run aggregates, and learning noise from the
 * runs around them (statistics.md, "Learning noise from history").
 */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "stats/stats.h"
#include "store/load.h"
#include "store/store.h"

#define WINDOW_SHAS 30
#define CHI2_1_MEDIAN 0.454936423119572

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
	memset(l, 0, sizeof(*l));
}

int pd_store_resolve(struct pd_db *db, const char *prefix, const char *scenario,
		     const char *cache, char **sha, struct pd_err *err)
{
	sqlite3_stmt *st = pd_db_stmt(db, "q_revs", err);
	struct pd_buf list = PD_BUF_INIT;
	int rc, n = 0;

	*sha = NULL;
	if (!st)
		return PD_EIO;
	sqlite3_bind_text(st, 1, prefix, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, scenario, -1, SQLITE_TRANSIENT);
	if (cache)
		sqlite3_bind_text(st, 3, cache, -1, SQLITE_TRANSIENT);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *s = (const char *)sqlite3_column_text(st, 0);

		if (!n++)
			*sha = pd_xstrdup(s);
		if (n <= 10)
			pd_buf_addf(&list, "%s%.12s", list.len ? ", " : "", s);
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE) {
		free(*sha);
		*sha = NULL;
		pd_buf_release(&list);
		return pd_db_fail(db, err, "resolving a revision");
	}
	if (n != 1) {
		if (n == 0)
			rc = pd_err_set(err, PD_EINVAL,
					"%s: no stored runs of commit '%s' in"
					" scenario %s%s%s",
					db->path, prefix, scenario,
					cache ? "/" : "", cache ? cache : "");
		else {
			if (n > 10)
				pd_buf_addf(&list, " and %d more", n - 10);
			rc = pd_err_set(err, PD_EINVAL,
					"%s: '%s' is ambiguous: %s", db->path,
					prefix, list.buf);
		}
		free(*sha);
		*sha = NULL;
		pd_buf_release(&list);
		return rc;
	}
	pd_buf_release(&list);
	return 0;
}

int pd_store_caches(struct pd_db *db, const char *sha, const char *scenario,
		    const char **cache, const char **tool, char **cache_out,
		    char **tool_out, struct pd_err *err)
{
	sqlite3_stmt *st = pd_db_stmt(db, "q_caches", err);
	struct pd_buf caches = PD_BUF_INIT, tools = PD_BUF_INIT;
	char *c1 = NULL, *t1 = NULL;
	int rc, nc = 0, nt = 0;

	if (!st)
		return PD_EIO;
	sqlite3_bind_text(st, 1, sha, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, scenario, -1, SQLITE_TRANSIENT);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *c = (const char *)sqlite3_column_text(st, 0);
		const char *t = (const char *)sqlite3_column_text(st, 1);

		if ((!*cache || !strcmp(*cache, c)) && (!c1 || strcmp(c1, c))) {
			if (!c1)
				c1 = pd_xstrdup(c);
			pd_buf_addf(&caches, "%s%s", caches.len ? ", " : "", c);
			nc++;
		}
		if ((!*cache || !strcmp(*cache, c)) &&
		    (!*tool || !strcmp(*tool, t)) && (!t1 || strcmp(t1, t)) &&
		    !strstr(tools.buf, t)) {
			if (!t1)
				t1 = pd_xstrdup(t);
			pd_buf_addf(&tools, "%s%s", tools.len ? ", " : "", t);
			nt++;
		}
	}
	sqlite3_reset(st);
	rc = rc == SQLITE_DONE ? 0 : pd_db_fail(db, err, "listing runs");
	if (!rc && nc > 1)
		rc = pd_err_set(err, PD_EINVAL,
				"commit %.12s has %s runs; pass --cache", sha,
				caches.buf);
	if (!rc && nt > 1)
		rc = pd_err_set(err, PD_EINVAL,
				"commit %.12s has runs of several tools (%s);"
				" pass --tool",
				sha, tools.buf);
	if (!rc && (!nc || !nt))
		rc = pd_err_set(
		    err, PD_EINVAL, "commit %.12s has no runs of %s%s%s%s", sha,
		    scenario, *cache ? "/" : "", *cache ? *cache : "",
		    *tool ? " with that tool" : "");
	if (!rc) {
		*cache_out = c1;
		*tool_out = t1;
		*cache = c1;
		*tool = t1;
		c1 = t1 = NULL;
	}
	free(c1);
	free(t1);
	pd_buf_release(&caches);
	pd_buf_release(&tools);
	return rc;
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
}

/* The function id of database function id, looked up once. */
static int map_id(struct pd_db *db, struct pd_idmap *m, sqlite3_int64 id,
		  uint32_t *out, struct pd_err *err)
{
	sqlite3_stmt *st;
	size_t i = (size_t)id;

	if (id < 0)
		return pd_err_set(err, PD_EPARSE, "%s: bad function id",
				  db->path);
	if (i < m->map.n && m->map.v[i]) {
		*out = m->map.v[i] - 1;
		return 0;
	}
	st = pd_db_stmt(db, "q_func_by_id", err);
	if (!st)
		return PD_EIO;
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_reset(st);
		return pd_err_set(err, PD_EPARSE,
				  "%s: run_functions names function %lld, which"
				  " is not stored",
				  db->path, (long long)id);
	}
	{
		const char *name = (const char *)sqlite3_column_text(st, 0);
		const char *mod = (const char *)sqlite3_column_text(st, 1);

		*out =
		    pd_funcs_get(m->fn, name, strlen(name), mod, strlen(mod));
	}
	sqlite3_reset(st);
	PD_VEC_RESERVE(&m->map, i + 1);
	while (m->map.n <= i)
		m->map.v[m->map.n++] = 0;
	m->map.v[i] = *out + 1;
	return 0;
}

/* One run's rows into an aggregate over the id map's functions. */
/* Database id space: arrays sized once to the largest function id. */
static size_t size_hint = 1024;

static void hint_from_db(struct pd_db *db)
{
	struct pd_err e = PD_ERR_INIT;
	sqlite3_stmt *st = pd_db_stmt(db, "q_max_func", &e);

	if (st && sqlite3_step(st) == SQLITE_ROW)
		size_hint = (size_t)sqlite3_column_int64(st, 0) + 1;
	if (st)
		sqlite3_reset(st);
}

static int load_run(struct pd_db *db, sqlite3_int64 run, double interval,
		    double total_w, double total_n, struct pd_idmap *ids,
		    struct pd_agg *a, struct pd_err *err)
{
	sqlite3_stmt *st = pd_db_stmt(db, "q_run_rows", err);
	int rc;

	if (!st)
		return PD_EIO;
	pd_agg_init(a);
	pd_agg_resize(a, ids ? ids->fn->v.n : size_hint);
	sqlite3_bind_int64(st, 1, run);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		uint32_t f = 0;
		double v[4]; /* self_n, total_n, self_w, total_w */
		int k;

		if (ids) {
			rc = map_id(db, ids, sqlite3_column_int64(st, 0), &f,
				    err);
			if (rc < 0) {
				sqlite3_reset(st);
				return rc;
			}
		} else { /* database id space (noise learning) */
			sqlite3_int64 id = sqlite3_column_int64(st, 0);

			if (id < 0 || id > UINT32_MAX - 64) {
				sqlite3_reset(st);
				return pd_err_set(err, PD_EPARSE,
						  "%s: bad function id",
						  db->path);
			}
			f = (uint32_t)id;
		}
		for (k = 0; k < 4; k++)
			v[k] = sqlite3_column_type(st, k + 1) == SQLITE_NULL
				   ? PD_NAN
				   : sqlite3_column_double(st, k + 1);
		/* A NULL is the other number converted by the interval. */
		for (k = 0; k < 2; k++) {
			if (isnan(v[k + 2]))
				v[k + 2] = v[k] * interval;
			if (isnan(v[k]))
				v[k] = interval > 0 ? v[k + 2] / interval : 0;
		}
		if (f >= a->n)
			pd_agg_resize(a, ids ? ids->fn->v.n + 64
					     : (size_t)f * 2 + 64);
		a->self_c[f] += v[0];
		a->total_c[f] += v[1];
		a->self_w[f] += v[2];
		a->total_w[f] += v[3];
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return pd_db_fail(db, err, "loading a run");
	a->all_w = total_w;
	a->all_c = total_n;
	return 0;
}

/* Little-endian fields of a stack tree node (store.h). */
static uint32_t get_u32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static double get_f64(const unsigned char *p)
{
	uint64_t v = 0;
	double d;
	int i;

	for (i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	memcpy(&d, &v, 8);
	return d;
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
static int agg_from_stacks(struct pd_db *db, sqlite3_int64 run,
			   struct pd_idmap *ids, struct pd_agg *a,
			   struct pd_err *err)
{
	sqlite3_stmt *st = pd_db_stmt(db, "q_run_stacks", err);
	struct pd_buf raw = PD_BUF_INIT;
	struct pd_profile p;
	struct pd_agg t;
	uint32_t *map = NULL, *fmap = NULL;
	size_t nodes, i, nf;
	int rc;

	if (!st)
		return PD_EIO;
	sqlite3_bind_int64(st, 1, run);
	rc = sqlite3_step(st);
	if (rc == SQLITE_DONE) {
		sqlite3_reset(st);
		return 0;
	}
	if (rc != SQLITE_ROW) {
		sqlite3_reset(st);
		return pd_db_fail(db, err, "loading a stack tree");
	}
	nodes = (size_t)sqlite3_column_int64(st, 0);
	rc = pd_stacks_decode(sqlite3_column_blob(st, 1),
			      (size_t)sqlite3_column_bytes(st, 1), nodes, &raw,
			      err);
	sqlite3_reset(st);
	if (rc < 0) {
		pd_buf_release(&raw);
		return rc;
	}
	pd_profile_init(&p);
	map = pd_xmalloc((nodes + 1) * sizeof(*map));
	map[0] = PD_ROOT;
	nf = ids->fn->v.n;
	fmap = pd_xmalloc((nf + 1) * sizeof(*fmap));
	for (i = 0; i <= nf; i++)
		fmap[i] = UINT32_MAX;
	for (i = 0; i < nodes; i++) {
		const unsigned char *q =
		    (const unsigned char *)raw.buf + i * 24;
		uint32_t parent = get_u32(q), f = 0, node;

		rc = map_id(db, ids, (sqlite3_int64)get_u32(q + 4), &f, err);
		if (rc == 0 && parent > i) /* parents come first */
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
		node = pd_profile_child(&p, map[parent], fmap[f]);
		pd_profile_add(&p, node, get_f64(q + 8), get_f64(q + 16));
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
	rc = 1;
out:
	pd_profile_release(&p);
	free(map);
	free(fmap);
	pd_buf_release(&raw);
	return rc;
}

int pd_store_load(struct pd_db *db, const char *sha, const char *scenario,
		  const char *cache, const char *tool, struct pd_idmap *idmap,
		  int whole, struct pd_loaded *out, struct pd_err *err)
{
	sqlite3_stmt *st;
	PD_VEC(sqlite3_int64) ids = PD_VEC_INIT;
	PD_VEC(double) tw = PD_VEC_INIT, tn = PD_VEC_INIT, iv = PD_VEC_INIT;
	struct pd_buf src = PD_BUF_INIT;
	size_t i;
	int rc;

	memset(out, 0, sizeof(*out));
	st = pd_db_stmt(db, "q_side_runs", err);
	if (!st)
		return PD_EIO;
	sqlite3_bind_text(st, 1, sha, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, scenario, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 3, cache, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 4, tool, -1, SQLITE_TRANSIENT);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		PD_VEC_PUSH(&ids, sqlite3_column_int64(st, 0));
		PD_VEC_PUSH(&tw, sqlite3_column_double(st, 7));
		PD_VEC_PUSH(&tn, sqlite3_column_double(st, 8));
		PD_VEC_PUSH(&iv, sqlite3_column_double(st, 5));
		if (ids.n == 1) {
			out->format = pd_xstrdup(
			    (const char *)sqlite3_column_text(st, 3));
			out->side.unit =
			    unit_of((const char *)sqlite3_column_text(st, 4));
			out->side.interval = sqlite3_column_double(st, 5);
			if (sqlite3_column_type(st, 6) != SQLITE_NULL)
				out->event = pd_xstrdup(
				    (const char *)sqlite3_column_text(st, 6));
			if (sqlite3_column_type(st, 10) != SQLITE_NULL)
				out->host = pd_xstrdup(
				    (const char *)sqlite3_column_text(st, 10));
			if (sqlite3_column_type(st, 11) != SQLITE_NULL)
				out->build_meta = pd_xstrdup(
				    (const char *)sqlite3_column_text(st, 11));
		}
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE) {
		rc = pd_db_fail(db, err, "loading runs");
		goto out;
	}
	if (!ids.n) {
		rc = pd_err_set(err, PD_EINVAL, "no runs of %.12s %s/%s (%s)",
				sha, scenario, cache, tool);
		goto out;
	}
	out->runs = pd_xcalloc(ids.n, sizeof(*out->runs));
	out->n = ids.n;
	out->set_apart = idmap != NULL && !whole;
	for (i = 0; i < ids.n; i++) {
		rc = load_run(db, ids.v[i], iv.v[i], tw.v[i], tn.v[i], idmap,
			      &out->runs[i], err);
		if (rc >= 0 && out->set_apart)
			rc = agg_from_stacks(db, ids.v[i], idmap, &out->runs[i],
					     err);
		if (rc < 0)
			goto out;
		if (rc == 0 && out->set_apart) {
			/* one run without a usable tree: all runs whole */
			size_t k;

			out->set_apart = 0;
			for (k = 0; k < i; k++) {
				pd_agg_release(&out->runs[k]);
				rc = load_run(db, ids.v[k], iv.v[k], tw.v[k],
					      tn.v[k], idmap, &out->runs[k],
					      err);
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
	pd_buf_addf(&src, "%.12s %s/%s, %s, %zu run%s", sha, scenario, cache,
		    tool, ids.n, ids.n == 1 ? "" : "s");
	out->source = pd_buf_detach(&src);
	out->side.source = out->source;
	out->side.format = out->format;
	out->side.event = out->event;
	out->side.count_rule = "stored sample counts";
	out->side.runs = (int)ids.n;
	rc = 0;
out:
	PD_VEC_FREE(&ids);
	PD_VEC_FREE(&tw);
	PD_VEC_FREE(&tn);
	PD_VEC_FREE(&iv);
	return rc;
}

struct hrun {
	sqlite3_int64 id;
	char *sha;
	double tw, tn, interval;
	struct pd_agg agg;
};

/* Half of a noise window, loaded on its own connection and thread. */
struct half {
	const char *path;
	struct hrun *runs;
	size_t lo, hi;
	struct pd_err err;
	int rc;
};

static void *load_half(void *arg)
{
	struct half *h = arg;
	struct pd_db db;
	size_t i;

	h->rc = pd_db_open(&db, h->path, PD_DB_READ, &h->err);
	if (h->rc < 0)
		return NULL;
	for (i = h->lo; i < h->hi && h->rc == 0; i++)
		h->rc = load_run(&db, h->runs[i].id, h->runs[i].interval,
				 h->runs[i].tw, h->runs[i].tn, NULL,
				 &h->runs[i].agg, &h->err);
	pd_db_close(&db);
	return NULL;
}

/* The q quantile of sorted v (linear interpolation). */
static double quantile(const double *v, size_t n, double q)
{
	double pos = q * (double)(n - 1);
	size_t lo = (size_t)floor(pos);

	if (lo + 1 >= n)
		return v[n - 1];
	return v[lo] + (pos - (double)lo) * (v[lo + 1] - v[lo]);
}

/*
 * One function's (or, for f == nfun, the profile total's) run-to-run
 * noise over the window (statistics.md, "the noise model"): the pooled
 * variance of ln(weight) within commits (repeats), the variance of
 * commit means from one commit to the next (night-to-night, from the
 * median of squared successive differences, which a few real steps do
 * not move), the single-run variance they imply, and the threshold from
 * neighbouring commits' ratios.
 */
static double run_w(const struct pd_agg *a, size_t f, size_t nfun, int k)
{
	if (f == nfun)
		return a->all_w;
	return k ? a->total_w[f] : a->self_w[f];
}

static double run_c(const struct pd_agg *a, size_t f, size_t nfun, int k)
{
	if (f == nfun)
		return a->all_c;
	return k ? a->total_c[f] : a->self_c[f];
}

static void learn_one(const struct hrun *runs, size_t n, size_t f, size_t nfun,
		      int k, struct pd_noise *noise)
{
	double pooled = 0, df = 0, cbar = 0, groups = 0, s2w, v, d0;
	PD_VEC(double) means = PD_VEC_INIT, lmeans = PD_VEC_INIT;
	size_t i, j;

	for (i = 0; i < n;) {
		double m = 0, vv = 0, mw = 0;
		size_t e = i, g;

		while (e < n && !strcmp(runs[e].sha, runs[i].sha))
			e++;
		g = e - i;
		for (j = i; j < e; j++) {
			const struct pd_agg *a = &runs[j].agg;
			double eps =
			    a->all_c > 0 ? 0.5 * a->all_w / a->all_c : 0.5;

			m += log(run_w(a, f, nfun, k) + eps) / (double)g;
			mw += run_w(a, f, nfun, k) / (double)g;
			cbar += run_c(a, f, nfun, k) / (double)n;
		}
		for (j = i; j < e && g > 1; j++) {
			const struct pd_agg *a = &runs[j].agg;
			double eps =
			    a->all_c > 0 ? 0.5 * a->all_w / a->all_c : 0.5;
			double y = log(run_w(a, f, nfun, k) + eps);

			vv += (y - m) * (y - m);
		}
		if (g > 1) {
			pooled += vv;
			df += (double)(g - 1);
		}
		PD_VEC_PUSH(&means, mw);
		PD_VEC_PUSH(&lmeans, m);
		groups += 1;
		i = e;
	}
	s2w = df > 0 ? pooled / df : 0;
	v = s2w;
	d0 = df;
	/*
	 * Night to night: commit means' successive differences, the largest
	 * tenth (at least one) left out: a real step in the window is one
	 * large difference. Keeping the lower fraction p of a chi-square(1)
	 * sample keeps, on average, P(chi2(3) < q) / p of its mean, q its p
	 * quantile (z^2 with z the (1 + p)/2 normal quantile; 0.623 for p =
	 * 0.9), and the estimate is divided by that.
	 */
	if (lmeans.n >= 5) {
		PD_VEC(double) d2 = PD_VEC_INIT;
		double vcm = 0, nbar = (double)n / groups;
		size_t keep;

		for (j = 1; j < lmeans.n; j++)
			PD_VEC_PUSH(&d2, (lmeans.v[j] - lmeans.v[j - 1]) *
					     (lmeans.v[j] - lmeans.v[j - 1]));
		pd_median(d2.v, d2.n); /* sorts */
		keep = d2.n - (d2.n + 9) / 10;
		for (j = 0; j < keep; j++)
			vcm += d2.v[j] / (double)keep;
		{
			double p = (double)keep / (double)d2.n;
			double z = pd_t_quantile((1 + p) / 2, 1e9);
			/* sqrt(2 / pi) = 0.79788... */
			double kept = erf(z / sqrt(2)) -
				      z * 0.7978845608028654 * exp(-z * z / 2);

			vcm /= 2 * kept / p;
		}
		/* a single run's variance: night part plus within part */
		v = fmax(v, vcm + s2w * (1 - 1 / nbar));
		/* a trimmed mean keeps about 70 % of the information */
		d0 += 0.7 * (double)d2.n;
		PD_VEC_FREE(&d2);
	}
	if (d0 >= 2) {
		noise->s0[k][f] = v;
		noise->d0[k][f] = fmin(d0, 30);
		noise->cbar[k][f] = cbar;
	}
	/* Thresholds from neighbouring commits: Q3 + 3 IQR. */
	if (f < nfun && means.n >= WINDOW_SHAS) {
		PD_VEC(double) d = PD_VEC_INIT;

		for (j = 1; j < means.n; j++)
			if (means.v[j - 1] > 0 && means.v[j] > 0)
				PD_VEC_PUSH(
				    &d, fabs(means.v[j] / means.v[j - 1] - 1));
		if (d.n + 1 >= WINDOW_SHAS) {
			double q1, q3;

			pd_median(d.v, d.n); /* sorts */
			q1 = quantile(d.v, d.n, 0.25);
			q3 = quantile(d.v, d.n, 0.75);
			noise->tau[k][f] = q3 + 3 * (q3 - q1);
			noise->tau_points[k][f] = (int)means.n;
		}
		PD_VEC_FREE(&d);
	}
	PD_VEC_FREE(&means);
	PD_VEC_FREE(&lmeans);
}

int pd_store_noise(struct pd_db *db, const char *scenario, const char *cache,
		   const char *tool, const char *const *exclude,
		   struct pd_idmap *ids, struct pd_noise *noise,
		   struct pd_err *err)
{
	sqlite3_stmt *st = pd_db_stmt(db, "q_history_runs", err);
	PD_VEC(struct hrun) runs = PD_VEC_INIT;
	size_t i, k, f, first = 0, nshas = 0, nfun = 0;
	int rc;

	memset(noise, 0, sizeof(*noise));
	if (!st)
		return PD_EIO;
	sqlite3_bind_text(st, 1, scenario, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, cache, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 3, tool, -1, SQLITE_TRANSIENT);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct hrun r;
		const char *sha = (const char *)sqlite3_column_text(st, 1);
		int skip = 0;

		for (k = 0; exclude && exclude[k]; k++)
			skip |= !strcmp(exclude[k], sha);
		if (skip)
			continue;
		memset(&r, 0, sizeof(r));
		r.id = sqlite3_column_int64(st, 0);
		r.sha = pd_xstrdup(sha);
		r.tw = sqlite3_column_double(st, 3);
		r.tn = sqlite3_column_double(st, 4);
		r.interval = sqlite3_column_double(st, 5);
		PD_VEC_PUSH(&runs, r);
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE) {
		rc = pd_db_fail(db, err, "reading the history");
		goto out;
	}
	/* The window: the last WINDOW_SHAS commits. */
	for (i = runs.n; i-- > 0;) {
		if (i + 1 == runs.n || strcmp(runs.v[i].sha, runs.v[i + 1].sha))
			nshas++;
		if (nshas > WINDOW_SHAS) {
			first = i + 1;
			nshas = WINDOW_SHAS;
			break;
		}
	}
	/*
	 * Loading the window is most of the work: a second connection on a
	 * second thread reads half of it (database ids only: no names).
	 */
	if (!ids)
		hint_from_db(db);
	if (!ids && runs.n - first >= 4) {
		struct half h;
		pthread_t th;
		int threaded;

		memset(&h, 0, sizeof(h));
		h.path = db->path;
		h.runs = runs.v;
		h.lo = first + (runs.n - first) / 2;
		h.hi = runs.n;
		threaded = !pthread_create(&th, NULL, load_half, &h);
		rc = 0;
		for (i = first; i < (threaded ? h.lo : runs.n) && rc == 0; i++)
			rc = load_run(db, runs.v[i].id, runs.v[i].interval,
				      runs.v[i].tw, runs.v[i].tn, NULL,
				      &runs.v[i].agg, err);
		if (threaded) {
			pthread_join(th, NULL);
			if (rc == 0 && h.rc < 0) {
				*err = h.err;
				rc = h.rc;
			}
		}
		if (rc < 0)
			goto out;
	} else {
		for (i = first; i < runs.n; i++) {
			rc = load_run(db, runs.v[i].id, runs.v[i].interval,
				      runs.v[i].tw, runs.v[i].tn, ids,
				      &runs.v[i].agg, err);
			if (rc < 0)
				goto out;
		}
	}

	/* Functions: the caller's table, or database ids when ids is NULL. */
	for (i = first; i < runs.n; i++)
		if (runs.v[i].agg.n > nfun)
			nfun = runs.v[i].agg.n;
	if (ids && ids->fn->v.n > nfun)
		nfun = ids->fn->v.n;
	pd_noise_init(noise, nfun);
	noise->runs = runs.n - first;
	noise->shas = nshas;
	for (i = first; i < runs.n; i++)
		pd_agg_resize(&runs.v[i].agg, nfun);

	for (k = 0; k < 2; k++) {
		for (f = 0; f <= nfun; f++)
			learn_one(runs.v + first, runs.n - first, f, nfun,
				  (int)k, noise);
	}
	rc = 0;
out:
	for (i = 0; i < runs.n; i++) {
		free(runs.v[i].sha);
		pd_agg_release(&runs.v[i].agg);
	}
	PD_VEC_FREE(&runs);
	return rc;
}

struct noise_job {
	const char *path, *scenario, *cache, *tool;
	const char *const *exclude;
	struct pd_noise noise;
	struct pd_err err;
	int rc;
};

static void *noise_thread(void *arg)
{
	struct noise_job *j = arg;
	struct pd_db db;

	j->rc = pd_db_open(&db, j->path, PD_DB_READ, &j->err);
	if (j->rc < 0)
		return NULL;
	/* In database function ids: no names to look up on this thread. */
	j->rc = pd_store_noise(&db, j->scenario, j->cache, j->tool, j->exclude,
			       NULL, &j->noise, &j->err);
	pd_db_close(&db);
	return NULL;
}

int pd_store_noise_start(struct pd_noise_task *t, const char *db_path,
			 const char *scenario, const char *cache,
			 const char *tool, const char *const *exclude)
{
	struct noise_job *j = pd_xcalloc(1, sizeof(*j));

	j->path = db_path;
	j->scenario = scenario;
	j->cache = cache;
	j->tool = tool;
	j->exclude = exclude;
	t->job = j;
	t->threaded = !pthread_create(&t->th, NULL, noise_thread, j);
	if (!t->threaded)
		noise_thread(j);
	return 0;
}

static void copy_noise(struct pd_noise *to, size_t t,
		       const struct pd_noise *from, size_t f, int k)
{
	to->s0[k][t] = from->s0[k][f];
	to->d0[k][t] = from->d0[k][f];
	to->tau[k][t] = from->tau[k][f];
	to->tau_points[k][t] = from->tau_points[k][f];
	to->cbar[k][t] = from->cbar[k][f];
}

int pd_store_noise_finish(struct pd_noise_task *t, struct pd_idmap *ids,
			  struct pd_noise *out, struct pd_err *err)
{
	struct noise_job *j = t->job;
	size_t i, n = ids->fn->v.n;
	int k, rc;

	if (t->threaded)
		pthread_join(t->th, NULL);
	rc = j->rc;
	if (rc < 0) {
		*err = j->err;
	} else {
		/*
		 * Database ids to the caller's functions. A function the two
		 * compared sides do not have needs no noise.
		 */
		pd_noise_init(out, n);
		out->runs = j->noise.runs;
		out->shas = j->noise.shas;
		for (i = 0; i < j->noise.n && i < ids->map.n; i++) {
			uint32_t f;

			if (!ids->map.v[i])
				continue;
			f = ids->map.v[i] - 1;
			for (k = 0; k < 2; k++)
				copy_noise(out, f, &j->noise, i, k);
		}
		/* the profile total, one past the last function */
		for (k = 0; k < 2; k++)
			copy_noise(out, n, &j->noise, j->noise.n, k);
	}
	pd_noise_release(&j->noise);
	free(j);
	t->job = NULL;
	return rc;
}
