/*
 * libFuzzer target for reading a history (store/): any bytes as the
 * SQLite file of `perfdiff runs` and `compare` must give runs, a
 * comparison, or one error line, never a read outside a buffer, a leak
 * or a hang. The bytes are opened the way the read commands open a
 * history (pd_db_open, with its checks), then listed, and the first two
 * commits listed are resolved, loaded (mean run and counters too) and
 * compared with the noise learned from the rest.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/err.h"
#include "store/load.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * A history this size holds a few hundred pages of the smallest size,
 * plenty for every table with a few rows; larger images only slow the
 * fuzzer down.
 */
#define MAX_IMAGE (256 * 1024)

static char dir[64], path[96], wal[104], shm[104];

/* The folder goes when the fuzzer ends (not after a crash). */
static void cleanup(void)
{
	unlink(path);
	unlink(wal);
	unlink(shm);
	rmdir(dir);
}

static int setup(void)
{
	/* in memory where the system has a tmpfs: no disk writes per input */
	strcpy(dir, "/dev/shm/pdfuzz-hist.XXXXXX");
	if (!mkdtemp(dir)) {
		strcpy(dir, "/tmp/pdfuzz-hist.XXXXXX");
		if (!mkdtemp(dir))
			return -1;
	}
	snprintf(path, sizeof(path), "%s/h.db", dir);
	snprintf(wal, sizeof(wal), "%s-wal", path);
	snprintf(shm, sizeof(shm), "%s-shm", path);
	atexit(cleanup);
	return 0;
}

static void one_line(const struct pd_err *err)
{
	if (!err->msg[0] || strchr(err->msg, '\n'))
		__builtin_trap(); /* errors are one line, never empty */
}

/* A commit listed by `perfdiff runs`. */
struct commit {
	char *sha, *scenario;
};

/* The runs list, as `perfdiff runs` reads it; up to two commits kept. */
static int list(struct pd_db *db, struct commit *c, int *n, struct pd_err *err)
{
	struct pd_st *st = pd_db_stmt(db, "q_runs_list", err);
	int rc, k;

	if (!st)
		return -1;
	while ((rc = pd_st_step(st)) == PD_ST_ROW) {
		const char *sha = pd_st_col_text(st, 1);
		const char *scen = pd_st_col_text(st, 2);
		size_t len = 0;

		for (k = 0; k < 12; k++)
			if (!pd_st_isnull(st, k))
				len += strlen(pd_st_col_text(st, k));
		(void)pd_st_col_f64(st, 8);
		(void)pd_st_col_i64(st, 5);
		if (len > 4 * MAX_IMAGE)
			__builtin_trap(); /* text from outside the file */
		/* NULL in a NOT NULL column: a damaged file, read on */
		if (*n == 2 || !sha || !scen || !*sha ||
		    (*n == 1 && !strcmp(c[0].sha, sha) &&
		     !strcmp(c[0].scenario, scen)))
			continue;
		c[*n].sha = strdup(sha);
		c[*n].scenario = strdup(scen);
		if (!c[*n].sha || !c[*n].scenario)
			abort();
		(*n)++;
	}
	return rc == PD_ST_DONE ? 0 : pd_db_fail(db, err, "listing runs");
}

/* The counters of a commit, read and dropped. */
static int counters(struct pd_db *db, const char *sha, const char *scen,
		    const char *cache, struct pd_err *err)
{
	struct pd_profile **p = NULL;
	size_t n = 0, i;
	const struct pd_hkey k = { sha, scen, cache, NULL };
	int rc = pd_store_metrics(db, &k, &p, &n, err);

	for (i = 0; i < n; i++) {
		pd_profile_release(p[i]);
		free(p[i]);
	}
	free(p);
	return rc;
}

/* One side of a comparison, as `perfdiff compare` loads it. */
static int side(struct pd_db *db, const struct commit *c, char **sha,
		char **cache, char **tool, struct pd_idmap *ids,
		struct pd_loaded *l, struct pd_err *err)
{
	const char *ca = *cache, *to = *tool;
	struct pd_hkey key = { NULL, NULL, NULL, NULL };
	char *co = NULL, *tw = NULL, prefix[8];
	int rc;

	/* a short prefix, as typed, to reach the resolver's search */
	snprintf(prefix, sizeof(prefix), "%s", c->sha);
	key.scenario = c->scenario;
	key.cache = NULL;
	rc = pd_store_resolve(db, prefix, &key, sha, err);
	if (rc < 0)
		return rc;
	key.sha = *sha;
	key.cache = ca;
	key.tool = to;
	rc = pd_store_settle(db, &key, &co, &tw, err);
	if (rc < 0)
		return rc;
	if (!*cache) {
		*cache = co;
		*tool = tw;
	} else {
		free(co);
		free(tw);
	}
	key.cache = *cache;
	key.tool = *tool;
	rc = pd_store_load(db, &key, ids, PD_LOAD_MEAN, l, err);
	if (rc < 0)
		return rc;
	return counters(db, *sha, c->scenario, *cache, err);
}

static void compare(struct pd_db *db, const struct commit *c, int n)
{
	struct pd_err err = PD_ERR_INIT;
	struct pd_funcs fn;
	struct pd_idmap ids;
	struct pd_loaded l[2];
	struct pd_noise_task task;
	struct pd_noise noise;
	struct pd_settings set;
	struct pd_diff d;
	char *sha[2] = { NULL, NULL }, *cache = NULL, *tool = NULL;
	const char *ex[3] = { NULL, NULL, NULL };
	int i, rc = 0;
	size_t j;

	memset(l, 0, sizeof(l));
	pd_funcs_init(&fn, 0);
	pd_idmap_init(&ids, &fn);
	for (i = 0; i < n && rc == 0; i++) {
		rc = side(db, &c[i], &sha[i], &cache, &tool, &ids, &l[i], &err);
		ex[i] = sha[i];
	}
	if (rc < 0)
		one_line(&err);
	/* the noise of the rest, on its own thread and connection */
	if (rc == 0 && n == 2) {
		const struct pd_hkey series = { NULL, c[0].scenario, cache,
						tool };

		pd_store_noise_start(&task, path, &series, ex);
		if (pd_store_noise_finish(&task, &ids, &noise, &err) < 0) {
			one_line(&err);
		} else {
			for (i = 0; i < 2; i++)
				for (j = 0; j < l[i].n; j++)
					pd_agg_resize(&l[i].runs[j], fn.v.n);
			pd_settings_default(&set);
			if (l[0].n && l[1].n) {
				pd_diff_aggs(&d, &l[0].side, l[0].runs, l[0].n,
					     &l[1].side, l[1].runs, l[1].n, &fn,
					     &set, &noise);
				pd_diff_release(&d);
			}
			pd_noise_release(&noise);
		}
	}
	for (i = 0; i < 2; i++) {
		pd_loaded_release(&l[i]);
		free(sha[i]);
	}
	free(cache);
	free(tool);
	pd_idmap_release(&ids);
	pd_funcs_release(&fn);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	struct pd_db db;
	struct pd_err err = PD_ERR_INIT;
	struct commit c[2];
	uint8_t *image;
	FILE *f;
	int n = 0, i;

	if (!ready)
		ready = setup() == 0 ? 1 : -1;
	if (ready < 0 || size > MAX_IMAGE)
		return 0;
	image = malloc(size ? size : 1);
	if (!image)
		return 0;
	memcpy(image, data, size);
	/*
	 * Header bytes 18 and 19 at 2 say WAL: a reader would then keep
	 * the -wal and -shm files SQLite makes, and the next input would
	 * read this one's. Rollback mode keeps each input on its own.
	 */
	if (size > 19 && image[18] == 2)
		image[18] = 1;
	if (size > 19 && image[19] == 2)
		image[19] = 1;
	unlink(wal);
	unlink(shm);
	f = fopen(path, "wb");
	if (!f || fwrite(image, 1, size, f) != size) {
		if (f)
			fclose(f);
		free(image);
		return 0;
	}
	fclose(f);
	free(image);

	if (pd_db_open(&db, path, PD_DB_READ, &err) < 0) {
		one_line(&err);
		return 0;
	}
	memset(c, 0, sizeof(c));
	if (list(&db, c, &n, &err) < 0)
		one_line(&err);
	else if (n)
		compare(&db, c, n);
	for (i = 0; i < n; i++) {
		free(c[i].sha);
		free(c[i].scenario);
	}
	pd_db_close(&db);
	return 0;
}
