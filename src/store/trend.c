/*
 * Trend loading: runs grouped into commits, ordered by commit date or by
 * git, windowed, and the per-run weights of the chosen functions.
 */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/intern.h"
#include "core/sort.h"
#include "core/xalloc.h"
#include "import/import.h"
#include "model/profile.h"
#include "stats/diff.h"
#include "store/keys.h"
#include "store/load.h"
#include "store/trend.h"
#include "store/trend_int.h"

/* The one cache state and tool for the scenario, unless given. */
static int settle_key(struct pd_db *db, const struct pd_trend_query *q,
		      struct pd_trend *t, struct pd_err *err)
{
	struct pd_st *st = pd_db_stmt(db, "q_trend_keys", err);
	const struct pd_hkey k = { NULL, q->key.scenario, q->key.cache,
				   q->key.tool };
	struct pd_buf all = PD_BUF_INIT;
	int rc, n = 0;

	if (!st)
		return PD_EIO;
	pd_st_text(st, 1, q->key.scenario);
	if (q->key.cache)
		pd_st_text(st, 2, q->key.cache);
	if (q->key.tool)
		pd_st_text(st, 3, q->key.tool);
	while ((rc = pd_st_step(st)) == PD_ST_ROW) {
		const char *c = pd_st_col_text(st, 0);
		const char *tl = pd_st_col_text(st, 1);

		if (!n) {
			t->cache = pd_xstrdup(c);
			t->tool = pd_xstrdup(tl);
		}
		pd_buf_addf(&all, "%s%s/%s", n ? ", " : "", c, tl);
		n++;
	}
	pd_st_reset(st);
	if (rc != PD_ST_DONE) {
		pd_buf_release(&all);
		return pd_db_fail(db, err, "reading the history");
	}
	if (n == 1) {
		pd_buf_release(&all);
		return 0;
	}
	/* a scenario, cache state or tool that is not stored: say so */
	if (!n && pd_store_check_key(db, &k, err) == 0)
		pd_err_set(err, PD_EINVAL,
			   "%s: no runs stored for scenario %s%s%s%s%s",
			   db->path, q->key.scenario,
			   q->key.cache ? ", cache " : "",
			   q->key.cache ? q->key.cache : "",
			   q->key.tool ? ", tool " : "",
			   q->key.tool ? q->key.tool : "");
	else if (n)
		pd_err_set(err, PD_EINVAL,
			   "%s: scenario %s has several cache states or tools"
			   " (%s): choose with --cache and --tool",
			   db->path, q->key.scenario, all.buf);
	pd_buf_release(&all);
	return err->code < 0 ? err->code : PD_EINVAL;
}

/* Position of sha in the git order (stored shas may be prefixes). */
static long git_pos(const struct pd_trend_query *q, const char *sha)
{
	size_t i, n = strlen(sha);

	for (i = 0; i < q->norder; i++)
		if (!strncmp(q->order[i], sha, n))
			return (long)i;
	return -1;
}

static int by_order(const void *a, const void *b)
{
	const struct tcommit *x = a, *y = b;

	return (x->order > y->order) - (x->order < y->order);
}

/* Vectors of commits and runs, to hand between the steps below. */
struct tcommits {
	struct tcommit *v;
	size_t n, cap;
};

struct truns {
	struct trun *v;
	size_t n, cap;
};

/* Frees the strings of commits [from, to). */
static void free_commits(struct tcommits *c, size_t from, size_t to)
{
	size_t i;

	for (i = from; i < to; i++) {
		free(c->v[i].sha);
		free(c->v[i].date);
	}
}

/* The series' runs in date order, grouped by commit as first seen. */
static int scan_runs(struct pd_db *db, const struct pd_trend_query *q,
		     struct pd_trend *t, struct tcommits *c, struct truns *r,
		     struct pd_err *err)
{
	struct pd_st *st = pd_db_stmt(db, "q_trend_runs", err);
	struct pd_intern seen; /* sha -> commit index + 1 */
	size_t i, k;
	int rc, sampled = 0;

	if (!st)
		return PD_EIO;
	pd_st_text(st, 1, q->key.scenario);
	pd_st_text(st, 2, t->cache);
	pd_st_text(st, 3, t->tool);
	pd_intern_init(&seen);
	while ((rc = pd_st_step(st)) == PD_ST_ROW) {
		const char *sha = pd_st_col_text(st, 1);
		const char *d = pd_st_col_text(st, 2);
		const char *u = pd_st_col_text(st, 5);
		struct trun run;

		/*
		 * Commits by sha through a hash: a scan of the commits so far
		 * for every new one was quadratic in the history (a third of
		 * trend --last 30 over 10 000 commits).
		 */
		/* (an empty sha is 0, the table's own; stored shas are not) */
		uint32_t id = *sha ? pd_intern(&seen, sha, strlen(sha))
				   : pd_intern(&seen, "\001", 1);

		k = id - 1; /* ids start at 1 (0 is the empty string) */
		if (k == c->n) {
			struct tcommit nc;

			memset(&nc, 0, sizeof(nc));
			nc.sha = pd_xstrdup(sha);
			nc.date = pd_xstrdup(d);
			nc.order = q->norder ? git_pos(q, sha) : (long)c->n;
			PD_VEC_PUSH(c, nc);
			k = c->n - 1;
		}
		run.id = pd_st_col_i64(st, 0);
		run.total = pd_st_col_f64(st, 3);
		run.interval = pd_st_col_f64(st, 4);
		run.commit = k;
		PD_VEC_PUSH(r, run);
		/* the format says whether the counts are exact (no column) */
		sampled |= !(pd_format_traits(pd_st_col_text(st, 6)) &
			     PD_FORMAT_EXACT);
		for (i = 0; i <= PD_UNIT_COUNT; i++)
			if (!strcmp(pd_unit_name((enum pd_unit)i), u))
				t->unit = (int)i;
	}
	pd_st_reset(st);
	pd_intern_release(&seen);
	if (rc != PD_ST_DONE)
		return pd_db_fail(db, err, "reading the history");
	t->exact = r->n && !sampled;
	return 0;
}

/*
 * Commits sorted (stable: ties keep date order), then the runs regrouped
 * by a counting sort on the new commit index, keeping their order.
 */
static void regroup(struct tcommits *c, const struct truns *r,
		    struct truns *sorted)
{
	size_t *newidx = pd_xmalloc((c->n + 1) * sizeof(*newidx));
	size_t *at = pd_xcalloc(c->n + 1, sizeof(*at));
	size_t i, k;

	for (i = 0; i < c->n; i++)
		c->v[i].first_run = i; /* old index, for the remap below */
	pd_sort(c->v, c->n, sizeof(*c->v), by_order);
	for (i = 0; i < c->n; i++) {
		newidx[c->v[i].first_run] = i;
		c->v[i].nruns = 0;
	}
	for (k = 0; k < r->n; k++)
		c->v[newidx[r->v[k].commit]].nruns++;
	for (i = 0; i < c->n; i++)
		c->v[i].first_run = at[i] =
		    i ? c->v[i - 1].first_run + c->v[i - 1].nruns : 0;
	PD_VEC_RESERVE(sorted, r->n + 1);
	sorted->n = r->n;
	for (k = 0; k < r->n; k++) {
		size_t ci = newidx[r->v[k].commit];
		struct trun x = r->v[k];

		x.commit = ci;
		sorted->v[at[ci]++] = x;
	}
	/* each commit's slot filled exactly: its runs are first_run on */
	for (i = 0; i < c->n; i++)
		assert(at[i] == c->v[i].first_run + c->v[i].nruns);
	free(at);
	free(newidx);
}

static int read_runs(struct pd_db *db, const struct pd_trend_query *q,
		     struct pd_trend *t, struct tcommit **cs, size_t *ncs,
		     struct trun **rs, size_t *nrs, struct pd_err *err)
{
	struct tcommits c = PD_VEC_INIT;
	struct truns r = PD_VEC_INIT, sorted = PD_VEC_INIT;
	size_t i, k, first = 0, dropped = 0;
	int rc = scan_runs(db, q, t, &c, &r, err);

	if (rc < 0)
		goto fail;
	/* git order: commits git does not know are left out */
	for (i = 0; q->norder && i < c.n; i++)
		dropped += c.v[i].order < 0;
	if (dropped) {
		struct pd_buf b = PD_BUF_INIT;

		pd_buf_addf(&b,
			    "%zu stored commits are not in the repository's"
			    " history and are left out",
			    dropped);
		PD_VEC_PUSH(&t->notes, pd_buf_detach(&b));
	}
	regroup(&c, &r, &sorted);
	/* the window */
	while (first < c.n && c.v[first].order < 0)
		first++;
	if (q->since)
		while (first < c.n && strcmp(c.v[first].date, q->since) < 0)
			first++;
	if (q->last && c.n - first > q->last)
		first = c.n - q->last;
	free_commits(&c, 0, first);
	memmove(c.v, c.v + first, (c.n - first) * sizeof(*c.v));
	c.n -= first;
	if (!c.n) {
		rc = pd_err_set(err, PD_EINVAL,
				"%s: no stored commits of %s/%s in the window",
				db->path, q->key.scenario, t->cache);
		goto fail;
	}
	/* runs of the window only, commit indices from 0 */
	k = c.v[0].first_run;
	for (i = 0; i < c.n; i++)
		c.v[i].first_run -= k;
	memmove(sorted.v, sorted.v + k, (sorted.n - k) * sizeof(*sorted.v));
	sorted.n -= k;
	for (i = 0; i < sorted.n; i++) {
		/* the runs left are the window's commits' own */
		assert(sorted.v[i].commit >= first &&
		       sorted.v[i].commit - first < c.n);
		sorted.v[i].commit -= first;
	}
	PD_VEC_FREE(&r);
	*cs = c.v;
	*ncs = c.n;
	*rs = sorted.v;
	*nrs = sorted.n;
	return 0;
fail:
	free_commits(&c, 0, c.n);
	PD_VEC_FREE(&c);
	PD_VEC_FREE(&r);
	PD_VEC_FREE(&sorted);
	return rc;
}

static void fill_point(struct pd_tpoint *pt, const struct tcommit *c,
		       const double *v, size_t n)
{
	size_t k;

	pt->sha = pd_xstrdup(c->sha);
	pt->date = pd_xstrdup(c->date);
	pt->n = n;
	pt->v = pd_xmalloc((n + 1) * sizeof(*pt->v));
	memcpy(pt->v, v, n * sizeof(*v));
	pt->mean = 0;
	pt->lo = n ? v[0] : PD_NAN;
	pt->hi = pt->lo;
	for (k = 0; k < n; k++) {
		pt->mean += v[k] / (double)n;
		pt->lo = fmin(pt->lo, v[k]);
		pt->hi = fmax(pt->hi, v[k]);
	}
}

struct run_at {
	int64_t id;
	size_t at; /* index in the window's runs */
};

static int by_run_id(const void *a, const void *b)
{
	const struct run_at *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

/* The window's runs sorted by id, to find a run from its row. */
static struct run_at *runs_by_id(const struct trun *rs, size_t nrs)
{
	struct run_at *ix = pd_xmalloc((nrs + 1) * sizeof(*ix));
	size_t i;

	for (i = 0; i < nrs; i++) {
		ix[i].id = rs[i].id;
		ix[i].at = i;
	}
	pd_sort(ix, nrs, sizeof(*ix), by_run_id);
	return ix;
}

/* One counter's series from its per-run values (NAN: not measured). */
static void add_counter(struct pd_trend *t, const char *key,
			const double *per_run, const struct tcommit *cs,
			size_t ncs, double tau)
{
	struct pd_tseries s;
	const char *tab = strchr(key, '\t');
	struct pd_buf name = PD_BUF_INIT;
	double *v;
	size_t k, i, n, most = 0;

	memset(&s, 0, sizeof(s));
	for (k = 0; k < ncs; k++)
		most = cs[k].nruns > most ? cs[k].nruns : most;
	v = pd_xmalloc((most + 1) * sizeof(*v));
	pd_mtable_key_text(&name, key); /* "task-clock / msec", "cycles" */
	s.name = pd_buf_detach(&name);
	s.unit = pd_xstrdup(tab ? tab + 1 : "");
	s.counter = 1;
	s.up = pd_counter_up(key);
	s.tau = tau;
	for (k = 0; k < ncs; k++) {
		struct pd_tpoint pt;

		for (i = n = 0; i < cs[k].nruns; i++)
			if (!isnan(per_run[cs[k].first_run + i]))
				v[n++] = per_run[cs[k].first_run + i];
		memset(&pt, 0, sizeof(pt));
		fill_point(&pt, &cs[k], v, n);
		PD_VEC_PUSH(&s.pts, pt);
	}
	free(v);
	PD_VEC_PUSH(&t->series, s);
}

/*
 * The window's run-level counters (perf stat, stored by ingest), one
 * series each, after the functions.
 */
static int load_counters(struct pd_db *db, struct pd_trend *t,
			 const struct pd_trend_query *q,
			 const struct tcommit *cs, size_t ncs,
			 const struct trun *rs, size_t nrs, struct pd_err *err)
{
	struct pd_st *st = pd_db_stmt(db, "q_trend_counters", err);
	struct run_at *ix, key, *hit;
	double *per_run;
	char *cur = NULL;
	size_t i;
	int rc;

	if (!st)
		return PD_EIO;
	ix = runs_by_id(rs, nrs);
	per_run = pd_xmalloc((nrs + 1) * sizeof(*per_run));
	pd_st_text(st, 1, q->key.scenario);
	pd_st_text(st, 2, t->cache);
	pd_st_text(st, 3, t->tool);
	while ((rc = pd_st_step(st)) == PD_ST_ROW) {
		const char *k = pd_st_col_text(st, 1);

		if (!cur || strcmp(cur, k)) {
			if (cur)
				add_counter(t, cur, per_run, cs, ncs,
					    q->threshold_pct / 100);
			free(cur);
			cur = pd_xstrdup(k);
			for (i = 0; i < nrs; i++)
				per_run[i] = PD_NAN;
		}
		key.id = pd_st_col_i64(st, 0);
		hit = pd_bsearch(&key, ix, nrs, sizeof(*ix), by_run_id);
		if (hit) /* else a run outside the window */
			per_run[hit->at] = pd_st_col_f64(st, 2);
	}
	pd_st_reset(st);
	if (cur && rc == PD_ST_DONE)
		add_counter(t, cur, per_run, cs, ncs, q->threshold_pct / 100);
	free(cur);
	free(per_run);
	free(ix);
	return rc == PD_ST_DONE ? 0 : pd_db_fail(db, err, "reading counters");
}

/*
 * Per-run weights: vals[0][run] the run's total, vals[j][run] the self
 * weight of the j-th chosen function; vals is (nsel + 1) x nrs. Each
 * chosen function's rows are read through its index (a few functions of
 * a window: far fewer rows than every run's).
 */
static int pick_values(struct pd_db *db, const struct pd_trend_query *q,
		       const struct pd_trend *t, const struct trun *rs,
		       size_t nrs, const struct scored *sc, size_t nsel,
		       double *vals, struct pd_err *err)
{
	size_t i, j;
	int rc = 0;

	for (j = 0; j < nsel && rc == 0; j++)
		rc = pd_trend_series(db, q, t, rs, nrs, (int64_t)sc[j].id,
				     vals + (j + 1) * nrs, err);
	for (i = 0; i < nrs; i++)
		vals[i] = rs[i].total;
	return rc;
}

/* "name [module]" of the history's function id. */
static int func_label(struct pd_db *db, size_t id, char **out,
		      struct pd_err *err)
{
	struct pd_st *st = pd_db_stmt(db, "q_func_by_id", err);
	int rc;

	if (!st)
		return PD_EIO;
	pd_st_i64(st, 1, (int64_t)id);
	rc = pd_st_step(st);
	if (rc < 0) {
		pd_st_reset(st);
		return pd_db_fail(db, err, "reading a function's name");
	}
	if (rc == PD_ST_ROW) {
		const char *nm = pd_st_col_text(st, 0);
		const char *md = pd_st_col_text(st, 1);
		struct pd_buf b = PD_BUF_INIT;

		pd_buf_addf(&b, *md ? "%s [%s]" : "%s%s", nm, md);
		*out = pd_buf_detach(&b);
	} else {
		*out = pd_xstrdup("?");
	}
	pd_st_reset(st);
	return 0;
}

int pd_store_trend(struct pd_db *db, const struct pd_trend_query *q,
		   struct pd_trend *t, struct pd_err *err)
{
	struct tcommit *cs = NULL;
	struct trun *rs = NULL;
	struct rank rk;
	struct pd_noise noise;
	struct scored *sc = NULL;
	size_t ncs = 0, nrs = 0, i, j, k, nsel = 0;
	double *vals = NULL; /* [series][run] */
	int rc, have_noise = 0;

	memset(t, 0, sizeof(*t));
	memset(&rk, 0, sizeof(rk));
	t->scenario = pd_xstrdup(q->key.scenario);
	t->threshold_pct = q->threshold_pct;
	rc = settle_key(db, q, t, err);
	if (rc == 0)
		rc = read_runs(db, q, t, &cs, &ncs, &rs, &nrs, err);
	if (rc)
		return rc;
	t->ncommits = ncs;
	rc = pd_trend_rank(db, q, t, cs, ncs, rs, nrs, &rk, &sc, &nsel, err);
	if (rc)
		goto out;
	/* Learned thresholds of the chosen functions, by database id. */
	{
		int64_t *only = pd_xcalloc(nsel + 1, sizeof(*only));
		const struct pd_hkey series = { NULL, q->key.scenario, t->cache,
						t->tool };

		for (i = 0; i < nsel; i++)
			only[i] = (int64_t)sc[i].id;
		rc = pd_store_noise_only(db, &series, only, nsel, &noise, err);
		free(only);
	}
	if (rc)
		goto out;
	have_noise = 1;
	vals = pd_xcalloc((nsel + 1) * (nrs + 1), sizeof(*vals));
	rc = pick_values(db, q, t, rs, nrs, sc, nsel, vals, err);
	/* Series: the total, then the functions. */
	for (j = 0; j <= nsel && rc == 0; j++) {
		struct pd_tseries s;
		size_t id = j ? sc[j - 1].id : 0;

		memset(&s, 0, sizeof(s));
		s.tau = q->threshold_pct / 100;
		if (!j)
			s.name = pd_xstrdup("total");
		else if ((rc = func_label(db, id, &s.name, err)))
			break;
		/* exact counts have no noise to learn: the threshold alone */
		if (j && !t->exact && id < noise.n && noise.tau[0] &&
		    noise.tau[0][id] > 0) {
			s.tau = noise.tau[0][id];
			s.tau_learned = 1;
		}
		for (k = 0; k < ncs; k++) {
			struct pd_tpoint pt;

			/* the commit's runs lie in the series' row of vals */
			assert(cs[k].first_run + cs[k].nruns <= nrs);
			memset(&pt, 0, sizeof(pt));
			fill_point(&pt, &cs[k],
				   vals + j * nrs + cs[k].first_run,
				   cs[k].nruns);
			PD_VEC_PUSH(&s.pts, pt);
		}
		PD_VEC_PUSH(&t->series, s);
	}
	/* a trend narrowed to some functions leaves the counters out */
	if (rc == 0 && !q->function)
		rc = load_counters(db, t, q, cs, ncs, rs, nrs, err);
out:
	if (have_noise)
		pd_noise_release(&noise);
	for (i = 0; i < ncs; i++) {
		free(cs[i].sha);
		free(cs[i].date);
	}
	free(cs);
	free(rs);
	free(sc);
	free(vals);
	free(rk.mean);
	free(rk.first);
	free(rk.last);
	free(rk.allow);
	return rc;
}
