/* Unit tests for store/: migrations, ingest round trips, refusal. */
#include "testutil.h"

#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/load.h"
#include "store/packed.h"
#include "store/pg_secret.h"
#include "store/store.h"

static char dir[64];

static void path_in(char *out, size_t n, const char *rel)
{
	snprintf(out, n, "%s/%s", dir, rel);
}

static int setup(void **state)
{
	(void)state;
	return pd_test_scratch(dir, "/tmp/pdstoreXXXXXX");
}

static int teardown(void **state)
{
	(void)state;
	return pd_test_scratch_remove(dir);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static long long count(struct pd_db *db, const char *sql)
{
	sqlite3_stmt *st;
	long long n = -1;

	assert_int_equal(sqlite3_prepare_v2(db->h, sql, -1, &st, NULL),
			 SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

static void test_migrate(void **state)
{
	struct pd_db db;
	struct pd_err err = PD_ERR_INIT;
	char path[128];

	(void)state;
	path_in(path, sizeof(path), "m.db");
	assert_int_equal(pd_db_open(&db, path, PD_DB_READ, &err),
			 PD_EIO); /* no create */
	memset(&err, 0, sizeof(err));
	assert_int_equal(pd_db_open(&db, path, PD_DB_WRITE, &err), 0);
	assert_int_equal(db.version, pd_db_schema_latest());
	assert_int_equal(count(&db, "PRAGMA user_version"),
			 pd_db_schema_latest());
	assert_int_equal(count(&db, "SELECT count(*) FROM runs"), 0);
	assert_int_equal(pd_db_exec(&db, "PRAGMA user_version = 99", &err), 0);
	pd_db_close(&db);
	/* A newer database is refused, not damaged. */
	assert_int_equal(pd_db_open(&db, path, PD_DB_READ, &err), PD_EFORMAT);
	assert_non_null(
	    strstr(err.msg, "created by a newer perfdiff (schema 99 > "));
}

static void test_ingest_roundtrip(void **state)
{
	struct pd_db db;
	struct pd_err err = PD_ERR_INIT;
	struct pd_ingest_result res;
	struct pd_bundle_key key = { "abc1234def", "demo", "warm", NULL };
	struct pd_funcs fn;
	struct pd_idmap ids;
	struct pd_loaded l;
	char path[128], fixture[512], *sha = NULL;
	struct pd_hkey side;
	const struct pd_hkey demo = { NULL, "demo", NULL, NULL };
	size_t i;

	(void)state;
	path_in(path, sizeof(path), "r.db");
	snprintf(fixture, sizeof(fixture), "%s/fixtures/perf/small.perf.txt",
		 PD_SOURCE_DIR);
	assert_int_equal(pd_db_open(&db, path, PD_DB_WRITE, &err), 0);
	assert_int_equal(
	    pd_store_ingest(&db, fixture, &key, 0, NULL, &res, &err), 0);
	assert_false(res.skipped);
	assert_int_equal(res.runs, 1);
	pd_ingest_result_release(&res);
	/* Again: already stored. */
	assert_int_equal(
	    pd_store_ingest(&db, fixture, &key, 0, NULL, &res, &err), 0);
	assert_true(res.skipped);
	pd_ingest_result_release(&res);
	assert_int_equal(count(&db, "SELECT count(*) FROM runs"), 1);
	/* cpu-clock, constant period: every weight is derivable, so NULL. */
	assert_int_equal(
	    count(&db, "SELECT count(*) FROM run_functions"
		       " WHERE self_w IS NOT NULL OR total_w IS NOT NULL"),
	    0);
	/* The view fills them in: work's total is 3 x 250000 ns. */
	assert_int_equal(count(&db, "SELECT total FROM run_functions_v"
				    " WHERE name = 'work'"),
			 750000);

	assert_int_equal(pd_store_resolve(&db, "abc", &demo, &sha, &err), 0);
	assert_string_equal(sha, "abc1234def");
	side.sha = sha;
	side.scenario = "demo";
	side.cache = "warm";
	side.tool = "perf";
	pd_funcs_init(&fn, 0);
	pd_idmap_init(&ids, &fn);
	/*
	 * From the stored stack tree, system frames set apart as in a diff
	 * of files: of the 4 cpu-clock samples of 250000 ns, one ends in the
	 * kernel (do_syscall_64 under [unknown] under main), so the run's
	 * total is 750000 and main's is 2 samples, 500000.
	 */
	assert_int_equal(
	    pd_store_load(&db, &side, &ids, PD_LOAD_MEAN, &l, &err), 0);
	assert_int_equal(l.n, 1);
	assert_true(l.set_apart);
	/* the mean run's tree, for the HTML flame graph: every sample */
	assert_non_null(l.mean);
	{
		double w = 0;
		int has_main = 0;

		for (i = 0; i < l.mean->nodes.n; i++)
			w += l.mean->nodes.v[i].weight;
		for (i = 0; i < l.mean->frames.n; i++)
			has_main |=
			    !strcmp(pd_intern_str(&l.mean->strs,
						  l.mean->frames.v[i].name),
				    "main");
		assert_near(w, 1000000, 0);
		assert_true(has_main);
	}
	assert_near(l.runs[0].all_w, 750000, 0);
	assert_near(l.runs[0].sys_w, 250000, 0);
	for (i = 0; i < fn.v.n; i++) {
		if (!strcmp(pd_func_name(&fn, (uint32_t)i), "main")) {
			assert_near(l.runs[0].total_w[i], 500000, 0);
			assert_near(l.runs[0].total_c[i], 2, 0);
		}
	}
	pd_loaded_release(&l);
	/* Whole, from the function rows: 1000000, main 3 samples. */
	assert_int_equal(pd_store_load(&db, &side, &ids,
				       PD_LOAD_WHOLE | PD_LOAD_MEAN, &l, &err),
			 0);
	assert_false(l.set_apart);
	assert_null(l.mean); /* whole totals: no tree read */
	assert_near(l.runs[0].all_w, 1000000, 0);
	for (i = 0; i < fn.v.n; i++) {
		if (!strcmp(pd_func_name(&fn, (uint32_t)i), "main")) {
			assert_near(l.runs[0].total_w[i], 750000, 0);
			assert_near(l.runs[0].total_c[i], 3, 0);
		}
	}
	pd_loaded_release(&l);
	pd_idmap_release(&ids);
	pd_funcs_release(&fn);
	free(sha);
	assert_int_equal(pd_store_resolve(&db, "fff", &demo, &sha, &err),
			 PD_EINVAL);
	assert_non_null(strstr(err.msg, "no stored runs"));
	pd_db_close(&db);
}

static void test_stacks_blob(void **state)
{
	struct pd_profile p;
	struct pd_buf blob = PD_BUF_INIT, raw = PD_BUF_INIT;
	struct pd_err err = PD_ERR_INIT;
	uint32_t *nf;
	size_t i;
	double w;

	(void)state;
	load(&p, "fixtures/folded/small.folded", NULL);
	nf = calloc(p.nodes.n, sizeof(*nf));
	for (i = 0; i < p.nodes.n; i++)
		nf[i] = (uint32_t)i * 7;
	pd_stacks_encode(&p, nf, &blob);
	assert_int_equal(
	    pd_stacks_decode(blob.buf, blob.len, p.nodes.n - 1, &raw, &err), 0);
	assert_int_equal(raw.len, (p.nodes.n - 1) * 24);
	/* node 3 (index 2 in the blob): parent, function, weight */
	memcpy(&w, raw.buf + 2 * 24 + 8, 8);
	assert_near(w, p.nodes.v[3].weight, 0);
	assert_int_equal((unsigned char)raw.buf[2 * 24 + 4], 21);
	assert_int_equal(
	    pd_stacks_decode(blob.buf, blob.len / 2, p.nodes.n - 1, &raw, &err),
	    PD_EPARSE);
	free(nf);
	pd_buf_release(&blob);
	pd_buf_release(&raw);
	pd_profile_release(&p);
}

static void test_bundle_refused_whole(void **state)
{
	struct pd_db db;
	struct pd_err err = PD_ERR_INIT;
	struct pd_ingest_result res;
	char path[128], b[128], f[256];

	(void)state;
	path_in(path, sizeof(path), "b.db");
	path_in(b, sizeof(b), "2026-01-20-a1b2c3d-mft_large");
	mkdir(b, 0777);
	snprintf(f, sizeof(f), "%s/profiles", b);
	mkdir(f, 0777);
	snprintf(f, sizeof(f), "%s/profiles/run1.folded", b);
	write_file(f, "main;a 5\nmain;b 7\n");
	snprintf(f, sizeof(f), "%s/profiles/README.txt", b);
	write_file(f, "notes about the run\n");
	/* No cache state anywhere: stored as unspecified (its own history). */
	path_in(f, sizeof(f), "b0.db");
	assert_int_equal(pd_db_open(&db, f, PD_DB_WRITE, &err), 0);
	assert_int_equal(pd_store_ingest(&db, b, NULL, 0, NULL, &res, &err), 0);
	assert_int_equal(res.runs, 1);
	pd_ingest_result_release(&res);
	assert_int_equal(count(&db, "SELECT count(*) FROM runs WHERE"
				    " cache = 'unspecified'"),
			 1);
	pd_db_close(&db);
	assert_int_equal(pd_db_open(&db, path, PD_DB_WRITE, &err), 0);
	/* A broken speedscope profile refuses the whole bundle. */
	snprintf(f, sizeof(f), "%s/build_meta.json", b);
	write_file(f, "{\"commit\": \"a1b2c3d\", \"cache_state\": \"cold\"}");
	snprintf(f, sizeof(f), "%s/profiles/run2.speedscope.json", b);
	write_file(f, "{\"$schema\": \"https://www.speedscope.app/file-format-"
		      "schema.json\", \"profiles\": [");
	memset(&err, 0, sizeof(err));
	assert_true(pd_store_ingest(&db, b, NULL, 0, NULL, &res, &err) < 0);
	assert_non_null(strstr(err.msg, "run2.speedscope.json"));
	pd_ingest_result_release(&res);
	assert_int_equal(count(&db, "SELECT count(*) FROM runs"), 0);
	assert_int_equal(count(&db, "SELECT count(*) FROM bundles"), 0);
	/* Fixed: stored, with the key from build_meta and the folder name. */
	unlink(f);
	memset(&err, 0, sizeof(err));
	assert_int_equal(pd_store_ingest(&db, b, NULL, 0, NULL, &res, &err), 0);
	assert_int_equal(res.runs, 1);
	assert_int_equal(res.notes.n, 1); /* README.txt passed over */
	pd_ingest_result_release(&res);
	assert_int_equal(count(&db, "SELECT count(*) FROM runs WHERE git_sha ="
				    " 'a1b2c3d' AND scenario = 'mft_large' AND"
				    " cache = 'cold'"),
			 1);
	pd_db_close(&db);
}

/*
 * Noise learned from just a few functions' rows (what a trend of a few
 * series reads) equals noise learned from every row, function by
 * function: a history of 40 commits x 2 runs x 12 functions, with weights
 * stored and left NULL, rows missing, and a step in one function.
 */
static void add_runs(struct pd_db *db, int c)
{
	static uint64_t x = 12345;
	struct pd_err err = PD_ERR_INIT;
	char sql[512];
	int r, f;

	snprintf(sql, sizeof(sql),
		 "INSERT INTO bundles (hash, path, ingested_at)"
		 " VALUES ('b%d', 'p', '2026-01-01')",
		 c);
	assert_int_equal(pd_db_exec(db, sql, &err), 0);
	for (r = 1; r <= 2; r++) {
		sqlite3_int64 run;
		struct pd_st *st;

		snprintf(sql, sizeof(sql),
			 "INSERT INTO runs (bundle_hash, git_sha, scenario,"
			 " cache, repeat, tool, format, source, unit,"
			 " interval, total_weight, total_samples, commit_date)"
			 " VALUES ('b%d', 'sha%02d', 's', 'warm', %d, 'perf',"
			 " 'perf-script', 'x', 'ns', 1000, %d, %d,"
			 " '2026-01-%02dT00:%02d:00Z')",
			 c, c, r, 900000 + c * 1000, 900 + c, 1 + c % 28, c);
		assert_int_equal(pd_db_exec(db, sql, &err), 0);
		run = sqlite3_last_insert_rowid(db->h);
		st = pd_db_stmt(db, "q_rf_insert", &err);
		assert_non_null(st);
		for (f = 1; f <= 12; f++) {
			long n;

			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			if ((x >> 40) % 9 == 0)
				continue; /* no row in this run */
			n = 10 * f + (long)(x >> 59) +
			    (c >= 30 && f == 7 ? 40 : 0);
			pd_st_i64(st, 1, run);
			pd_st_i64(st, 2, f);
			pd_st_i64(st, 3, n);
			pd_st_i64(st, 4, 2 * n);
			if ((x >> 33) % 2)
				pd_st_null(st, 5);
			else
				pd_st_f64(st, 5, 1000.0 * (double)n + 0.5);
			pd_st_null(st, 6);
			assert_int_equal(pd_st_step(st), PD_ST_DONE);
			pd_st_reset(st);
		}
	}
}

static void test_noise_only(void **state)
{
	char path[256];
	struct pd_db db;
	struct pd_err err = PD_ERR_INIT;
	struct pd_noise all, few;
	const struct pd_hkey series = { NULL, "s", "warm", "perf" };
	const int64_t only[3] = { 2, 7, 11 };
	int c, f, k;
	size_t j;

	(void)state;
	snprintf(path, sizeof(path), "%s/noise.db", dir);
	assert_int_equal(pd_db_open(&db, path, PD_DB_WRITE, &err), 0);
	assert_int_equal(pd_db_exec(&db, "BEGIN", &err), 0);
	for (f = 1; f <= 12; f++) {
		char sql[128];

		snprintf(sql, sizeof(sql),
			 "INSERT INTO functions (id, name, module)"
			 " VALUES (%d, 'f%d', 'm')",
			 f, f);
		assert_int_equal(pd_db_exec(&db, sql, &err), 0);
	}
	for (c = 0; c < 40; c++)
		add_runs(&db, c);
	assert_int_equal(pd_db_exec(&db, "COMMIT", &err), 0);
	pd_db_close(&db);
	assert_int_equal(pd_db_open(&db, path, PD_DB_READ, &err), 0);
	assert_int_equal(pd_store_noise(&db, &series, NULL, NULL, &all, &err),
			 0);
	assert_int_equal(pd_store_noise_only(&db, &series, only, 3, &few, &err),
			 0);
	assert_int_equal(few.runs, all.runs);
	assert_int_equal(few.shas, all.shas);
	assert_int_equal(all.runs, 60); /* the last 30 commits */
	for (k = 0; k < 2; k++)
		for (j = 0; j < 3; j++) {
			size_t id = (size_t)only[j];

			assert_true(id < few.n && id < all.n);
			assert_memory_equal(&few.s0[k][id], &all.s0[k][id],
					    sizeof(double));
			assert_memory_equal(&few.d0[k][id], &all.d0[k][id],
					    sizeof(double));
			assert_memory_equal(&few.tau[k][id], &all.tau[k][id],
					    sizeof(double));
			assert_memory_equal(&few.cbar[k][id], &all.cbar[k][id],
					    sizeof(double));
			assert_int_equal(few.tau_points[k][id],
					 all.tau_points[k][id]);
		}
	/* the step in function 7 is in the window: its threshold is wide */
	assert_true(all.tau[0][7] > all.tau[0][2]);
	assert_true(all.s0[0][2] > 0);
	pd_noise_release(&all);
	pd_noise_release(&few);
	pd_db_close(&db);
}

/* Two doubles with the same bits, or both NaN (NULL). */
static int same_value(double a, double b)
{
	return (isnan(a) && isnan(b)) || !memcmp(&a, &b, sizeof(a));
}

/*
 * The packed rows give back every value as stored: integers, fractions,
 * negatives, -0, infinities, values past 2^53 and NULLs, in id order
 * whatever the order given; a damaged blob is refused, never read past.
 */
static void test_packed_codec(void **state)
{
	static const double vals[] = {
		0,	  1,	 127,	  128,
		16383,	  16384, 8.9e15,  9e15,
		1e300,	  0.5,	 -1,	  -0.0,
		HUGE_VAL, -3.25, 1.0 / 3, 4503599627370497.0,
		2.5e-320
	};
	enum { N = 400 };
	struct pd_packed_row rows[N], want[N], got;
	struct pd_packed_it it;
	struct pd_buf b = PD_BUF_INIT, cut = PD_BUF_INIT;
	size_t i, len, nv = sizeof(vals) / sizeof(vals[0]);
	int k, rc;

	(void)state;
	for (i = 0; i < N; i++) {
		/* ids in a scrambled order, gaps of 1 to 2^40 */
		size_t j = (i * 7919) % N;

		rows[i].fid =
		    (int64_t)j * 3 + 1 + (j == N - 1 ? (1LL << 40) : 0);
		for (k = 0; k < 4; k++)
			rows[i].v[k] = (i + (size_t)k) % (nv + 1) == nv
					   ? PD_NAN
					   : vals[(i * 3 + (size_t)k) % nv];
	}
	memcpy(want, rows, sizeof(rows));
	pd_packed_encode(&b, rows, N);
	pd_packed_start(&it, b.buf, b.len, N);
	for (i = 0; i < N; i++) {
		const struct pd_packed_row *w = NULL;
		size_t j;

		assert_int_equal(pd_packed_next(&it, &got), 1);
		for (j = 0; j < N; j++)
			if (want[j].fid == got.fid)
				w = &want[j];
		assert_non_null(w);
		assert_true(i == 0 || got.fid > rows[i - 1].fid);
		/* -0 reads back as 0, as from run_functions (+ 0.0 does it) */
		for (k = 0; k < 4; k++)
			assert_true(same_value(got.v[k], w->v[k] + 0.0));
	}
	assert_int_equal(pd_packed_next(&it, &got), 0);
	/* cut anywhere, or one byte more: refused within the blob */
	for (len = 0; len <= b.len; len++) {
		pd_buf_reset(&cut);
		pd_buf_add(&cut, b.buf, len);
		if (len == b.len)
			pd_buf_addch(&cut, 0);
		pd_packed_start(&it, cut.buf, cut.len, N);
		while ((rc = pd_packed_next(&it, &got)) == 1)
			assert_true(it.p <= it.end);
		assert_int_equal(rc, -1);
	}
	/* a repeated id (an increase of 0) and an unknown tag */
	pd_packed_start(&it, "\x00\x00", 2, 1);
	assert_int_equal(pd_packed_next(&it, &got), -1);
	pd_packed_start(&it, "\x01\x03", 2, 1);
	assert_int_equal(pd_packed_next(&it, &got), -1);
	pd_packed_start(&it, "\x01\x00", 2, 1);
	assert_int_equal(pd_packed_next(&it, &got), 1);
	assert_int_equal(got.fid, 1);
	assert_int_equal(pd_packed_next(&it, &got), 0);
	pd_buf_release(&b);
	pd_buf_release(&cut);
}

/*
 * Every ingested run's packed rows equal its run_functions rows, value
 * for value and in the same order: profiles whose weights are counts x
 * the interval (NULL weights), whose weights are not (.cpuprofile's
 * varying time deltas), and one with no rows at all (perf stat).
 */
static void test_packed_matches_rows(void **state)
{
	static const char *files[] = {
		"perf/small.perf.txt", "cpuprofile/tiny.cpuprofile",
		"speedscope/perfview-evented.speedscope.json",
		"perfstat/base.stat.txt"
	};
	struct pd_db db;
	struct pd_err err = PD_ERR_INIT;
	struct pd_ingest_result res;
	struct pd_buf blob = PD_BUF_INIT;
	char path[128], fixture[512], sha[16];
	int64_t run;
	size_t f, rows = 0;

	(void)state;
	path_in(path, sizeof(path), "p.db");
	assert_int_equal(pd_db_open(&db, path, PD_DB_WRITE, &err), 0);
	for (f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
		struct pd_bundle_key key = { sha, "demo", "warm", NULL };

		snprintf(sha, sizeof(sha), "abc%zu", f);
		snprintf(fixture, sizeof(fixture), "%s/fixtures/%s",
			 PD_SOURCE_DIR, files[f]);
		assert_int_equal(
		    pd_store_ingest(&db, fixture, &key, 0, NULL, &res, &err),
		    0);
		pd_ingest_result_release(&res);
	}
	assert_int_equal(count(&db, "SELECT count(*) FROM run_packed"), 4);
	assert_true(count(&db, "SELECT count(*) FROM run_functions"
			       " WHERE self_w IS NOT NULL") > 0);
	for (run = 1; run <= 4; run++) {
		struct pd_st *st;
		struct pd_packed_it it;
		struct pd_packed_row got;
		size_t n = 0;
		int k;

		assert_int_equal(pd_packed_load(&db, run, &blob, &n, &err), 1);
		pd_packed_start(&it, blob.buf, blob.len, n);
		st = pd_db_stmt(&db, "q_run_rows", &err);
		assert_non_null(st);
		pd_st_i64(st, 1, run);
		while (pd_st_step(st) == PD_ST_ROW) {
			assert_int_equal(pd_packed_next(&it, &got), 1);
			assert_int_equal(got.fid, pd_st_col_i64(st, 0));
			for (k = 0; k < 4; k++)
				assert_true(same_value(
				    got.v[k], pd_st_col_f64n(st, k + 1)));
			rows++;
		}
		pd_st_reset(st);
		assert_int_equal(pd_packed_next(&it, &got), 0);
	}
	assert_int_equal((long long)rows,
			 count(&db, "SELECT count(*) FROM run_functions"));
	assert_int_equal(count(&db, "SELECT nrows FROM run_packed"
				    " WHERE run_id = 4"),
			 0);
	/* a run stored before schema 3 has none: the rows are read */
	assert_int_equal(pd_packed_load(&db, 99, &blob, &f, &err), 0);
	pd_buf_release(&blob);
	pd_db_close(&db);
}

/*
 * A run's rows are written 16 to a statement where they can be: every
 * count around that size reads back whole, in id order, NULLs kept.
 */
static void test_run_rows_batches(void **state)
{
	static const size_t sizes[] = { 0, 1, 15, 16, 17, 33, 48 };
	struct pd_db db;
	struct pd_err err = PD_ERR_INIT;
	struct pd_buf scratch = PD_BUF_INIT;
	struct pd_packed_row rows[48];
	char path[128];
	size_t s, i;
	int rc;

	(void)state;
	path_in(path, sizeof(path), "batches.db");
	assert_int_equal(pd_db_open(&db, path, PD_DB_WRITE, &err), 0);
	for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		int64_t run = (int64_t)s + 1;
		struct pd_st *st;

		assert_int_equal(pd_db_exec(&db, "BEGIN", &err), 0);
		for (i = 0; i < sizes[s]; i++) { /* given in reverse id order */
			rows[i].fid = (int64_t)(sizes[s] - i) * 5;
			rows[i].v[0] = (double)i;
			rows[i].v[1] = (double)i + 0.25;
			rows[i].v[2] = i % 2 ? PD_NAN : (double)i * 3;
			rows[i].v[3] = PD_NAN;
		}
		rc =
		    pd_store_run_rows(&db, run, rows, sizes[s], &scratch, &err);
		if (rc)
			print_message("%zu rows: %s\n", sizes[s], err.msg);
		assert_int_equal(rc, 0);
		assert_int_equal(pd_db_exec(&db, "COMMIT", &err), 0);
		st = pd_db_stmt(&db, "q_run_rows", &err);
		assert_non_null(st);
		pd_st_i64(st, 1, run);
		for (i = 0; pd_st_step(st) == PD_ST_ROW; i++) {
			size_t g = sizes[s] - 1 - i; /* the row given g-th */

			assert_int_equal(pd_st_col_i64(st, 0),
					 (int64_t)(i + 1) * 5);
			assert_true(
			    same_value(pd_st_col_f64n(st, 1), (double)g));
			assert_true(same_value(pd_st_col_f64n(st, 2),
					       (double)g + 0.25));
			assert_true(same_value(pd_st_col_f64n(st, 3),
					       g % 2 ? PD_NAN : (double)g * 3));
			assert_true(isnan(pd_st_col_f64n(st, 4)));
		}
		pd_st_reset(st);
		assert_int_equal(i, sizes[s]);
	}
	assert_int_equal(count(&db, "SELECT count(*) FROM run_packed"), 7);
	pd_buf_release(&scratch);
	pd_db_close(&db);
}

/* A connection string, as masked, as displayed, and a word scrubbed. */
struct pw_case {
	const char *in, *masked, *shown, *words[6];
};

static int has_word(char **w, const char *word)
{
	size_t i;

	for (i = 0; w[i]; i++)
		if (!strcmp(w[i], word))
			return 1;
	return 0;
}

/* Password forms by libpq's rules (fe-connect.c's URI and key=value parsers).
 */
static void test_pg_password(void **state)
{
	static const struct pw_case cases[] = {
		{ "postgresql://u:p?x@h/db",
		  "postgresql://u:xxx@h/db",
		  "postgresql://u@h/db",
		  { "p?x" } },
		{ "postgresql://u:se/cret@h/db",
		  "postgresql://u:xxxxxxx@h/db",
		  "postgresql://u@h/db",
		  { "se/cret", "cret" } },
		{ "postgresql://u:pa@ss@h:5/db?x=1",
		  "postgresql://u:xxxxx@h:5/db?x=1",
		  "postgresql://u@h:5/db?x=1",
		  { "pa@ss" } },
		{ "--db=postgres://u:p%40ss%2Fw@h",
		  "--db=postgres://u:xxxxxxxxxx@h",
		  "--db=postgres://u@h",
		  { "p%40ss%2Fw", "p@ss/w" } },
		{ "postgresql://h/"
		  "db?sslmode=require&password=top%20secret&user=u",
		  "postgresql://h/"
		  "db?sslmode=require&password=xxxxxxxxxxxx&user=u",
		  "postgresql://h/db?sslmode=require&user=u",
		  { "top%20secret", "top secret" } },
		{ "postgresql://h/db?pass%77ord=abcd",
		  "postgresql://h/db?pass%77ord=xxxx",
		  "postgresql://h/db",
		  { "abcd" } },
		{ "postgresql://:only@/db?host=/tmp",
		  "postgresql://:xxxx@/db?host=/tmp",
		  "postgresql://@/db?host=/tmp",
		  { "only" } },
		{ "host=h password='a b\\'c' user=u",
		  "host=h password='xxxxxx' user=u",
		  "host=h user=u",
		  { "a b\\'c", "a b'c" } },
		{ "dbname=x password = s3cret",
		  "dbname=x password = xxxxxx",
		  "dbname=x ",
		  { "s3cret" } },
		{ "postgresql://user:pa/ss@host/db",
		  "postgresql://user:xxxxx@host/db",
		  "postgresql://user@host/db",
		  { "pa/ss", "pa", "ss" } },
		{ "postgresql://u:p@s/s@h/db",
		  "postgresql://u:xxxxx@h/db",
		  "postgresql://u@h/db",
		  { "p@s/s", "p@s", "s/s", "p", "s" } },
		{ "postgresql://u:ab:c/d=e@h/db",
		  "postgresql://u:xxxxxxxx@h/db",
		  "postgresql://u@h/db",
		  { "ab:c", "ab:c/d", "c/d=e", "d", "e" } },
		{ "postgresql://u:p?x=1@h/db?user=a@b",
		  "postgresql://u:xxxxx@h/db?user=a@b",
		  "postgresql://u@h/db?user=a@b",
		  { "p?x=1", "x=1", "1" } },
		{ "postgresql://h:5432/db?user=me@corp&application_name=a@b",
		  "postgresql://h:5432/db?user=me@corp&application_name=a@b",
		  "postgresql://h:5432/db?user=me@corp&application_name=a@b",
		  { NULL } },
		{ "postgresql://u@h/db",
		  "postgresql://u@h/db",
		  "postgresql://u@h/db",
		  { NULL } },
	};
	size_t i, j;

	(void)state;
	for (i = 0; i < PD_ARRAY_SIZE(cases); i++) {
		const struct pw_case *c = &cases[i];
		char *m = pd_xstrdup(c->in), *shown = pd_pg_display(c->in);
		char **w = pd_pg_words(c->in);

		pd_pg_mask(m);
		assert_string_equal(m, c->masked);
		assert_string_equal(shown, c->shown);
		for (j = 0; c->words[j]; j++)
			assert_true(has_word(w, c->words[j]));
		if (!c->words[0])
			assert_null(w[0]);
		free(m);
		free(shown);
		pd_pg_words_free(w);
	}
}

struct scrub_case {
	const char *target, *msg, *shown;
};

/*
 * libpq's messages that quote a password back, or a piece of one, lose
 * it; the messages are libpq 15's for these URLs (fe-connect.c).
 */
static void test_pg_scrub(void **state)
{
	static const struct scrub_case cases[] = {
		{ "postgresql://u:p%zzword@h/db",
		  "invalid percent-encoded token: \"p%zzword\"",
		  "invalid percent-encoded token: \"***\"" },
		{ "postgresql://u:8x/secretdb@h/db",
		  "FATAL: database \"secretdb@h/db\" does not exist",
		  "FATAL: database \"***@h/db\" does not exist" },
		{ "postgresql://user:pa/ss@host/db",
		  "invalid integer value \"pa\" for connection option \"port\"",
		  "invalid integer value \"***\" for connection option "
		  "\"port\"" },
		{ "postgresql://user:p/ss@host/db",
		  "invalid integer value \"p\" for connection option \"port\"",
		  "invalid integer value \"***\" for connection option "
		  "\"port\"" },
		{ "postgresql://user:on/ss@host/db",
		  "invalid integer value \"on\" for connection option \"port\"",
		  "invalid integer value \"***\" for connection option "
		  "\"port\"" },
		{ "postgresql://user:ab:cd/ef@host/db",
		  "invalid integer value \"ab:cd\" for connection option "
		  "\"port\"",
		  "invalid integer value \"***\" for connection option "
		  "\"port\"" },
		{ "postgresql://user:ab?cd/ef@host/db",
		  "missing key/value separator \"=\" in URI query parameter: "
		  "\"cd/ef@host/db\"",
		  "missing key/value separator \"=\" in URI query parameter: "
		  "\"***@host/db\"" },
		{ "postgresql://user:ab/%zzcd@host/db",
		  "invalid percent-encoded token: \"%zzcd@host/db\"",
		  "invalid percent-encoded token: \"***@host/db\"" },
		{ "postgresql://u:p@s/s@h/db",
		  "could not translate host name \"s\" to address: Name or "
		  "service not known",
		  "could not translate host name \"***\" to address: Name or "
		  "service not known" },
		{ "host=h password=ab/cd", "database \"ab/cd\"",
		  "database \"***\"" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < PD_ARRAY_SIZE(cases); i++) {
		char **w = pd_pg_words(cases[i].target);
		char *m = pd_pg_scrubbed(cases[i].msg, w);

		assert_string_equal(m, cases[i].shown);
		free(m);
		pd_pg_words_free(w);
	}
}

/* The user is told to percent-encode what libpq cannot read raw. */
static void test_pg_hint(void **state)
{
	const char *h = pd_pg_hint("postgresql://user:pa/ss@host/db");

	(void)state;
	assert_non_null(h);
	assert_non_null(strstr(h, "%2F"));
	assert_non_null(strstr(pd_pg_hint("postgresql://u:p@ss@h/db"), "%40"));
	assert_null(pd_pg_hint("postgresql://u:p%2Fss@h/db"));
	assert_null(pd_pg_hint("postgresql://h/db?password=pa/ss"));
	assert_null(pd_pg_hint("host=h password=pa/ss"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_migrate),
		cmocka_unit_test(test_ingest_roundtrip),
		cmocka_unit_test(test_stacks_blob),
		cmocka_unit_test(test_bundle_refused_whole),
		cmocka_unit_test(test_noise_only),
		cmocka_unit_test(test_packed_codec),
		cmocka_unit_test(test_packed_matches_rows),
		cmocka_unit_test(test_run_rows_batches),
		cmocka_unit_test(test_pg_password),
		cmocka_unit_test(test_pg_scrub),
		cmocka_unit_test(test_pg_hint),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
