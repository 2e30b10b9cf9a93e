/*
 * The stored metrics of a commit (perf stat counters, WPA tables) read
 * back into table-only profiles, one per run, for compare to diff.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/xalloc.h"
#include "store/load.h"

/* The table of profile p for a stored source ("format:name"). */
static struct pd_mtable *table_for(struct pd_profile *p, const char *source)
{
	const char *colon = strchr(source, ':');
	const char *name = colon ? colon + 1 : source;
	size_t i;

	for (i = 0; i < p->tables.n; i++)
		if (!strcmp(p->tables.v[i]->name, name))
			return p->tables.v[i];
	return NULL;
}

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

static size_t measure_of(struct pd_mtable *t, const char *name)
{
	size_t i;

	for (i = 0; i < t->measures.n; i++)
		if (!strcmp(t->measures.v[i], name))
			return i;
	PD_VEC_PUSH(&t->measures, pd_xstrdup(name));
	PD_VEC_PUSH(&t->count_like, 0);
	/* widen the rows stored so far */
	{
		size_t rows =
		    t->values.n / (t->measures.n - 1 ? t->measures.n - 1 : 1);
		size_t nm = t->measures.n, r, k;
		double *v = pd_xcalloc(rows * nm + 1, sizeof(double));
		double *e = pd_xcalloc(rows * nm + 1, sizeof(double));

		for (r = 0; r < rows && nm > 1; r++)
			for (k = 0; k + 1 < nm; k++) {
				v[r * nm + k] = t->values.v[r * (nm - 1) + k];
				e[r * nm + k] = r * (nm - 1) + k < t->rse.n
						    ? t->rse.v[r * (nm - 1) + k]
						    : -1;
			}
		for (r = 0; r < rows; r++)
			e[r * nm + nm - 1] = -1;
		free(t->values.v);
		t->values.v = v;
		t->values.n = t->values.cap = rows * nm;
		free(t->rse.v);
		t->rse.v = e;
		t->rse.n = t->rse.cap = rows * nm;
	}
	return t->measures.n - 1;
}

int pd_store_metrics(struct pd_db *db, const char *sha, const char *scenario,
		     const char *cache, struct pd_profile ***out, size_t *n,
		     struct pd_err *err)
{
	sqlite3_stmt *st = pd_db_stmt(db, "q_side_metrics", err);
	sqlite3_int64 last = -1;
	struct pd_profile *p = NULL;
	PD_VEC(struct pd_profile *) v = PD_VEC_INIT;
	int rc;

	*out = NULL;
	*n = 0;
	if (!st)
		return PD_EIO;
	sqlite3_bind_text(st, 1, sha, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, scenario, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 3, cache, -1, SQLITE_TRANSIENT);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		sqlite3_int64 run = sqlite3_column_int64(st, 0);
		const char *src = (const char *)sqlite3_column_text(st, 1);
		const char *key = (const char *)sqlite3_column_text(st, 2);
		const char *ms = (const char *)sqlite3_column_text(st, 3);
		double val = sqlite3_column_double(st, 4);
		size_t len = strlen(ms), m, klen = strlen(key);
		int is_rse = len > 4 && !strcmp(ms + len - 4, " rse");
		struct pd_mtable *t;
		uint32_t id;

		if (run != last) {
			p = pd_xcalloc(1, sizeof(*p));
			pd_profile_init(p);
			p->format = "history";
			PD_VEC_PUSH(&v, p);
			last = run;
		}
		t = table_for(p, src);
		if (!t)
			t = new_table(p, src);
		if (is_rse) {
			char base[256];

			snprintf(base, sizeof(base), "%.*s", (int)(len - 4),
				 ms);
			m = measure_of(t, base);
		} else {
			m = measure_of(t, ms);
		}
		id = pd_intern(&t->rowkeys, key, klen);
		while (t->values.n < ((size_t)id + 1) * t->measures.n) {
			PD_VEC_PUSH(&t->values, 0.0);
			PD_VEC_PUSH(&t->rse, -1.0);
		}
		while (t->up.n <= id)
			PD_VEC_PUSH(&t->up, 0);
		if (t->independent && !strncmp(key, "IPC", 3))
			t->up.v[id] = 1;
		if (is_rse)
			t->rse.v[(size_t)id * t->measures.n + m] = val;
		else
			t->values.v[(size_t)id * t->measures.n + m] = val;
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE) {
		size_t i;

		for (i = 0; i < v.n; i++) {
			pd_profile_release(v.v[i]);
			free(v.v[i]);
		}
		PD_VEC_FREE(&v);
		return pd_db_fail(db, err, "reading metrics");
	}
	*out = v.v;
	*n = v.n;
	return 0;
}
