/*
 * Loading the history that noise is learned from (the arithmetic is
 * stats/noise.c): the last PD_NOISE_WINDOW commits of a scenario, read on
 * a second thread while the sides load.
 */
#include <assert.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "stats/noise.h"
#include "stats/stats.h"
#include "store/load.h"
#include "store/load_int.h"

struct hrun {
	int64_t id;
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

	h->rc = pd_db_open(&db, h->path, PD_DB_READ_AGAIN, &h->err);
	if (h->rc < 0)
		return NULL;
	for (i = h->lo; i < h->hi && h->rc == 0; i++)
		h->rc = pd_store_load_run(
		    &db, h->runs[i].id, h->runs[i].interval, h->runs[i].tw,
		    h->runs[i].tn, NULL, &h->runs[i].agg, &h->err);
	pd_db_close(&db);
	return NULL;
}

/*
 * Loads runs [first, n): most of the work, so without an id map (database
 * ids only, no names) a second connection on a second thread reads half.
 */
static int load_window(struct pd_db *db, struct hrun *runs, size_t first,
		       size_t n, struct pd_idmap *ids, struct pd_err *err)
{
	struct half h;
	pthread_t th;
	int threaded = 0, rc = 0;
	size_t i, end = n;

	if (!ids)
		pd_store_size_hint(db);
	if (!ids && n - first >= 4 && pd_db_threads()) {
		memset(&h, 0, sizeof(h));
		h.path = db->target;
		h.runs = runs;
		h.lo = first + (n - first) / 2;
		h.hi = n;
		threaded = !pthread_create(&th, NULL, load_half, &h);
		if (threaded)
			end = h.lo;
	}
	for (i = first; i < end && rc == 0; i++)
		rc = pd_store_load_run(db, runs[i].id, runs[i].interval,
				       runs[i].tw, runs[i].tn, ids,
				       &runs[i].agg, err);
	if (threaded) {
		pthread_join(th, NULL);
		if (rc == 0 && h.rc < 0) {
			*err = h.err;
			rc = h.rc;
		}
	}
	return rc;
}

/* The n runs' aggregates, numbered by commit, to stats/noise.c. */
static void learn(struct pd_noise *noise, const struct hrun *runs, size_t n,
		  size_t nfun)
{
	const struct pd_agg **aggs = pd_xmalloc((n + 1) * sizeof(*aggs));
	size_t *commit = pd_xmalloc((n + 1) * sizeof(*commit));
	size_t i, c = 0;

	for (i = 0; i < n; i++) {
		if (i && strcmp(runs[i].sha, runs[i - 1].sha))
			c++;
		aggs[i] = &runs[i].agg;
		commit[i] = c;
	}
	pd_noise_learn(noise, aggs, commit, n, nfun);
	free(aggs);
	free(commit);
}

/*
 * The runs of scenario/cache/tool, oldest first, shas in exclude left out;
 * *first is where the window of the last PD_NOISE_WINDOW commits starts.
 */
static int window_runs(struct pd_db *db, const char *scenario,
		       const char *cache, const char *tool,
		       const char *const *exclude, void *out, size_t *first,
		       size_t *nshas, struct pd_err *err)
{
	PD_VEC(struct hrun) *runs = out;
	struct pd_st *st = pd_db_stmt(db, "q_history_runs", err);
	size_t i, k;
	int rc;

	*first = *nshas = 0;
	if (!st)
		return PD_EIO;
	pd_st_text(st, 1, scenario);
	pd_st_text(st, 2, cache);
	pd_st_text(st, 3, tool);
	while ((rc = pd_st_step(st)) == PD_ST_ROW) {
		struct hrun r;
		const char *sha = pd_st_col_text(st, 1);
		int skip = 0;

		for (k = 0; exclude && exclude[k]; k++)
			skip |= !strcmp(exclude[k], sha);
		if (skip)
			continue;
		memset(&r, 0, sizeof(r));
		r.id = pd_st_col_i64(st, 0);
		r.sha = pd_xstrdup(sha);
		r.tw = pd_st_col_f64(st, 3);
		r.tn = pd_st_col_f64(st, 4);
		r.interval = pd_st_col_f64(st, 5);
		PD_VEC_PUSH(runs, r);
	}
	pd_st_reset(st);
	if (rc != PD_ST_DONE)
		return pd_db_fail(db, err, "reading the history");
	for (i = runs->n; i-- > 0;) {
		if (i + 1 == runs->n ||
		    strcmp(runs->v[i].sha, runs->v[i + 1].sha))
			(*nshas)++;
		if (*nshas > PD_NOISE_WINDOW) {
			*first = i + 1;
			*nshas = PD_NOISE_WINDOW;
			break;
		}
	}
	return 0;
}

static void free_runs(struct hrun *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(v[i].sha);
		pd_agg_release(&v[i].agg);
	}
	free(v);
}

int pd_store_noise(struct pd_db *db, const struct pd_hkey *series,
		   const char *const *exclude, struct pd_idmap *ids,
		   struct pd_noise *noise, struct pd_err *err)
{
	const char *scenario = series->scenario, *cache = series->cache,
		   *tool = series->tool;

	PD_VEC(struct hrun) runs = PD_VEC_INIT;
	size_t i, first, nshas, nfun = 0;
	int rc;

	memset(noise, 0, sizeof(*noise));
	rc = window_runs(db, scenario, cache, tool, exclude, &runs, &first,
			 &nshas, err);
	if (rc == 0)
		rc = load_window(db, runs.v, first, runs.n, ids, err);
	if (rc < 0)
		goto out;

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

	/* no runs: runs.v is NULL, which takes no offset, not even 0 */
	learn(noise, runs.v ? runs.v + first : NULL, runs.n - first, nfun);
	rc = 0;
out:
	free_runs(runs.v, runs.n);
	return rc;
}

static void copy_noise(struct pd_noise *to, size_t t,
		       const struct pd_noise *from, size_t f, int k)
{
	/* n + 1 entries a table: the functions, then the total */
	assert(t <= to->n && f <= from->n && (k == 0 || k == 1));
	to->s0[k][t] = from->s0[k][f];
	to->d0[k][t] = from->d0[k][f];
	to->tau[k][t] = from->tau[k][f];
	to->tau_points[k][t] = from->tau_points[k][f];
	to->cbar[k][t] = from->cbar[k][f];
	to->beta[k][t] = from->beta[k][f];
	to->bvar[k][t] = from->bvar[k][f];
	to->s0b[k][t] = from->s0b[k][f];
	to->d0b[k][t] = from->d0b[k][f];
}

/*
 * The rows of the functions only[] in runs[0 .. nr), as functions 0 ..
 * n - 1 of each run's aggregate: one query per function.
 */
static int load_only(struct pd_db *db, const struct pd_hkey *series,
		     struct hrun *runs, size_t nr, const int64_t *only,
		     size_t n, struct pd_err *err)
{
	int64_t *ids = pd_xmalloc((nr + 1) * sizeof(*ids));
	struct pd_func_row *rows = pd_xmalloc((nr + 1) * sizeof(*rows));
	size_t i, j;
	int rc = 0;

	for (i = 0; i < nr; i++) {
		ids[i] = runs[i].id;
		pd_agg_init(&runs[i].agg);
		pd_agg_resize(&runs[i].agg, n);
		runs[i].agg.all_w = runs[i].tw;
		runs[i].agg.all_c = runs[i].tn;
	}
	for (j = 0; j < n && rc == 0; j++) {
		rc =
		    pd_store_func_rows(db, series, ids, nr, only[j], rows, err);
		for (i = 0; i < nr && rc == 0; i++) {
			struct pd_agg *a = &runs[i].agg;
			double *v = rows[i].v;

			if (!rows[i].present)
				continue;
			pd_store_row_fill(v, runs[i].interval);
			a->self_c[j] += v[0];
			a->total_c[j] += v[1];
			a->self_w[j] += v[2];
			a->total_w[j] += v[3];
		}
	}
	free(ids);
	free(rows);
	return rc;
}

int pd_store_noise_only(struct pd_db *db, const struct pd_hkey *series,
			const int64_t *only, size_t n, struct pd_noise *noise,
			struct pd_err *err)
{
	const char *scenario = series->scenario, *cache = series->cache,
		   *tool = series->tool;
	PD_VEC(struct hrun) runs = PD_VEC_INIT;
	struct pd_noise c; /* functions 0 .. n - 1, then the total */
	size_t i, first, nshas, max = 0;
	int rc, k;

	memset(noise, 0, sizeof(*noise));
	rc = window_runs(db, scenario, cache, tool, NULL, &runs, &first, &nshas,
			 err);
	if (rc == 0)
		rc = load_only(db, series, runs.v + first, runs.n - first, only,
			       n, err);
	if (rc < 0) {
		free_runs(runs.v, runs.n);
		return rc;
	}
	pd_noise_init(&c, n);
	learn(&c, runs.v + first, runs.n - first, n);
	/* indexed by database id, as pd_store_noise gives it */
	for (i = 0; i < n; i++)
		if (only[i] >= 0 && (size_t)only[i] + 1 > max)
			max = (size_t)only[i] + 1;
	pd_noise_init(noise, max);
	noise->runs = runs.n - first;
	noise->shas = nshas;
	noise->repeats = c.repeats;
	for (k = 0; k < 2; k++) {
		for (i = 0; i <= n; i++) {
			size_t to = i < n ? (size_t)only[i] : max;

			if (i < n && only[i] < 0)
				continue;
			copy_noise(noise, to, &c, i, k);
		}
	}
	pd_noise_release(&c);
	free_runs(runs.v, runs.n);
	return 0;
}

struct noise_job {
	const char *path;
	struct pd_hkey series;
	const char *const *exclude;
	struct pd_noise noise;
	struct pd_err err;
	int rc;
};

static void *noise_thread(void *arg)
{
	struct noise_job *j = arg;
	struct pd_db db;

	j->rc = pd_db_open(&db, j->path, PD_DB_READ_AGAIN, &j->err);
	if (j->rc < 0)
		return NULL;
	/* In database function ids: no names to look up on this thread. */
	j->rc = pd_store_noise(&db, &j->series, j->exclude, NULL, &j->noise,
			       &j->err);
	pd_db_close(&db);
	return NULL;
}

int pd_store_noise_start(struct pd_noise_task *t, const char *db_path,
			 const struct pd_hkey *series,
			 const char *const *exclude)
{
	struct noise_job *j = pd_xcalloc(1, sizeof(*j));

	j->path = db_path;
	j->series = *series;
	j->exclude = exclude;
	t->job = j;
	t->threaded =
	    pd_db_threads() && !pthread_create(&t->th, NULL, noise_thread, j);
	if (!t->threaded)
		noise_thread(j);
	return 0;
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
		out->repeats = j->noise.repeats;
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
