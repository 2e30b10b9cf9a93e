/*
 * The stored metrics of a commit (perf stat counters, WPA tables) read
 * back into table-only profiles, one per run, for compare to diff. The
 * rows come sorted by run, source, key and measure, so each run, table
 * and table row is a run of consecutive rows.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "core/xalloc.h"
#include "store/load.h"

struct mrow {
	int64_t run;
	char *source, *key, *measure;
	double value;
	int is_rse; /* measure "NAME rse": NAME's relative standard error */
};

static struct pd_mtable *new_table(struct pd_profile *p, const char *source)
{
	const char *colon = strchr(source, ':');
	struct pd_mtable *t = pd_mtable_new(p, colon ? colon + 1 : source);

	/* perf stat rows are counters keyed by event and unit */
	t->independent = !strncmp(source, "perf-stat:", 10);
	if (t->independent) {
		PD_VEC_PUSH(&t->keys, pd_xstrdup("event"));
		PD_VEC_PUSH(&t->keys, pd_xstrdup("unit"));
	} else {
		PD_VEC_PUSH(&t->keys, pd_xstrdup("key"));
	}
	return t;
}

static size_t measure_index(const struct pd_mtable *t, const char *name)
{
	size_t k;

	for (k = 0; k < t->measures.n; k++)
		if (!strcmp(t->measures.v[k], name))
			return k;
	return SIZE_MAX;
}

/* One table from rows [from, to) of one run and source. */
static void build_table(struct pd_profile *p, const struct mrow *r, size_t from,
			size_t to)
{
	struct pd_mtable *t;
	double *val, *rse;
	size_t i, j, k;

	assert(from < to); /* a table of one source has its rows */
	t = new_table(p, r[from].source);
	for (i = from; i < to; i++)
		if (!r[i].is_rse &&
		    measure_index(t, r[i].measure) == SIZE_MAX) {
			PD_VEC_PUSH(&t->measures, pd_xstrdup(r[i].measure));
			PD_VEC_PUSH(&t->count_like, 0);
		}
	val = pd_xmalloc((t->measures.n + 1) * sizeof(*val));
	rse = pd_xmalloc((t->measures.n + 1) * sizeof(*rse));
	for (i = from; i < to; i = j) {
		for (j = i; j < to && !strcmp(r[j].key, r[i].key); j++)
			;
		for (k = 0; k < t->measures.n; k++) {
			val[k] = 0;
			rse[k] = -1;
		}
		for (k = i; k < j; k++) {
			size_t m = measure_index(t, r[k].measure);

			if (m == SIZE_MAX)
				continue; /* an error without its value */
			if (r[k].is_rse)
				rse[m] = r[k].value;
			else
				val[m] = r[k].value;
		}
		pd_mtable_add(t, r[i].key, strlen(r[i].key), val);
		pd_mtable_set_rse(t, r[i].key, strlen(r[i].key), rse,
				  t->independent && pd_counter_up(r[i].key));
	}
	free(val);
	free(rse);
}

int pd_store_metrics(struct pd_db *db, const struct pd_hkey *key,
		     struct pd_profile ***out, size_t *n, struct pd_err *err)
{
	const char *sha = key->sha, *scenario = key->scenario,
		   *cache = key->cache;
	struct pd_st *st = pd_db_stmt(db, "q_side_metrics", err);
	PD_VEC(struct mrow) rows = PD_VEC_INIT;
	PD_VEC(struct pd_profile *) v = PD_VEC_INIT;
	size_t i, j, k;
	int rc;

	*out = NULL;
	*n = 0;
	if (!st)
		return PD_EIO;
	pd_st_text(st, 1, sha);
	pd_st_text(st, 2, scenario);
	pd_st_text(st, 3, cache);
	while ((rc = pd_st_step(st)) == PD_ST_ROW) {
		struct mrow r;
		const char *ms = pd_st_col_text(st, 3);
		size_t len = strlen(ms);

		r.run = pd_st_col_i64(st, 0);
		r.source = pd_xstrdup(pd_st_col_text(st, 1));
		r.key = pd_xstrdup(pd_st_col_text(st, 2));
		r.is_rse = len > 4 && !strcmp(ms + len - 4, " rse");
		r.measure = pd_xstrndup(ms, r.is_rse ? len - 4 : len);
		r.value = pd_st_col_f64(st, 4);
		PD_VEC_PUSH(&rows, r);
	}
	pd_st_reset(st);
	if (rc == PD_ST_DONE) {
		for (i = 0; i < rows.n; i = j) {
			struct pd_profile *p = pd_xcalloc(1, sizeof(*p));

			pd_profile_init(p);
			p->format = "history";
			PD_VEC_PUSH(&v, p);
			for (j = i;
			     j < rows.n && rows.v[j].run == rows.v[i].run; j++)
				;
			for (k = i; k < j;) {
				size_t e = k;

				while (e < j && !strcmp(rows.v[e].source,
							rows.v[k].source))
					e++;
				build_table(p, rows.v, k, e);
				k = e;
			}
		}
		rc = 0;
	} else {
		rc = pd_db_fail(db, err, "reading metrics");
	}
	for (i = 0; i < rows.n; i++) {
		free(rows.v[i].source);
		free(rows.v[i].key);
		free(rows.v[i].measure);
	}
	PD_VEC_FREE(&rows);
	*out = v.v;
	*n = v.n;
	return rc;
}
