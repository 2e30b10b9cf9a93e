/*
 * Learning noise from history (statistics.md, "The noise model";
 * history.md, "Noise learned from history"): each function's and the
 * total's single-run variance over the last commits of a scenario, and
 * per-function thresholds, on a second thread while the sides load.
 */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "stats/stats.h"
#include "store/load.h"
#include "store/load_int.h"

#define WINDOW_SHAS 30

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
		h->rc = pd_store_load_run(
		    &db, h->runs[i].id, h->runs[i].interval, h->runs[i].tw,
		    h->runs[i].tn, NULL, &h->runs[i].agg, &h->err);
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
		pd_store_size_hint(db);
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
			rc = pd_store_load_run(
			    db, runs.v[i].id, runs.v[i].interval, runs.v[i].tw,
			    runs.v[i].tn, NULL, &runs.v[i].agg, err);
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
			rc = pd_store_load_run(
			    db, runs.v[i].id, runs.v[i].interval, runs.v[i].tw,
			    runs.v[i].tn, ids, &runs.v[i].agg, err);
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
