/*
 * Fills a history database for the scale benchmark: RUNS runs (one commit
 * each) x FUNCS functions, writing each run's rows by the call ingest
 * uses, one transaction per run, into SQLite or PostgreSQL (DB is then a
 * postgresql:// URL). Prints rows/s, and for a file bytes per row.
 * usage: gen_db DB RUNS FUNCS
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "store/db.h"
#include "store/packed.h"

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static double uniform(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (double)(rng >> 11) / 9007199254740992.0;
}

static void exec(struct pd_db *db, const char *sql)
{
	struct pd_err err = PD_ERR_INIT;

	if (pd_db_exec(db, sql, &err) < 0) {
		fprintf(stderr, "%s\n", err.msg);
		exit(1);
	}
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	struct pd_db db;
	struct pd_err err = PD_ERR_INIT;
	long runs, funcs, r, f;
	double *base, t0, dt;
	char name[64], sha[41], date[32];
	struct pd_st *st;
	int64_t id;
	struct stat sb;
	unsigned long long rows = 0;
	struct pd_packed_row *pk;
	struct pd_buf blob = PD_BUF_INIT;

	if (argc != 4)
		return fprintf(stderr, "usage: gen_db DB RUNS FUNCS\n"), 2;
	runs = atol(argv[2]);
	funcs = atol(argv[3]);
	if (pd_db_open(&db, argv[1], PD_DB_WRITE, &err) < 0)
		return fprintf(stderr, "%s\n", err.msg), 2;
	base = malloc((size_t)funcs * sizeof(*base));
	pk = malloc((size_t)funcs * sizeof(*pk));
	exec(&db, "BEGIN");
	st = pd_db_stmt(&db, "q_func_insert", &err);
	for (f = 0; f < funcs; f++) {
		/* Skewed costs: a few hot functions, a long tail. */
		base[f] = 20000.0 / pow((double)f + 1, 1.1) + 1;
		snprintf(name, sizeof(name), "ns::module%ld::function_%ld",
			 f % 300, f);
		pd_st_reset(st);
		pd_st_text(st, 1, name);
		pd_st_text(st, 2, f % 5 ? "libapp.so" : "app");
		if (pd_st_insert_id(st, &id, &err, "adding a function") < 0)
			return fprintf(stderr, "%s\n", err.msg), 1;
	}
	exec(&db, "COMMIT");
	t0 = now();
	for (r = 0; r < runs; r++) {
		int64_t run;
		double total = 0;

		if (pd_db_begin_write(&db, &err) < 0)
			return fprintf(stderr, "%s\n", err.msg), 1;
		snprintf(sha, sizeof(sha), "%08lx%032x",
			 ((unsigned long)r * 2654435761UL + 1) & 0xffffffffUL,
			 0);
		snprintf(date, sizeof(date), "2026-%02ld-%02ldT%02ld:00:00Z",
			 1 + r / 720 % 12, 1 + r / 24 % 28, r % 24);
		st = pd_db_stmt(&db, "q_bundle_insert", &err);
		pd_st_text(st, 1, sha);
		pd_st_text(st, 2, "generated");
		pd_st_text(st, 3, date);
		if (pd_st_step(st) < 0)
			return fprintf(stderr, "bundle\n"), 1;
		st = pd_db_stmt(&db, "q_run_insert", &err);
		pd_st_text(st, 1, sha);
		pd_st_text(st, 2, sha);
		pd_st_text(st, 3, "bench");
		pd_st_text(st, 4, "warm");
		pd_st_i64(st, 5, 1);
		pd_st_text(st, 6, "perf");
		pd_st_text(st, 7, "perf-script");
		pd_st_text(st, 8, "perf.script.txt");
		pd_st_text(st, 9, "ns");
		pd_st_f64(st, 10, 1e6);
		pd_st_f64(st, 12, 0);
		pd_st_f64(st, 13, 0);
		pd_st_text(st, 14, date);
		if (pd_st_insert_id(st, &run, &err, "adding a run") < 0)
			return fprintf(stderr, "%s\n", err.msg), 1;
		for (f = 0; f < funcs; f++) {
			/* self and total counts near the function's base cost
			 */
			double self = floor(base[f] * (0.9 + 0.2 * uniform()));
			double tot = self + floor(base[f] * uniform());

			total += self;
			pk[f].fid = f + 1;
			pk[f].v[0] = self;
			pk[f].v[1] = tot;
			pk[f].v[2] = pk[f].v[3] = NAN; /* count x interval */
			rows++;
		}
		/* as ingest stores a run's rows */
		if (pd_store_run_rows(&db, run, pk, (size_t)funcs, &blob, &err))
			return fprintf(stderr, "%s\n", err.msg), 1;
		exec(&db, "COMMIT");
		if (r % 1000 == 999)
			fprintf(stderr, "%ld runs, %.0f rows/s\n", r + 1,
				(double)rows / (now() - t0));
	}
	dt = now() - t0;
	exec(&db, "UPDATE runs SET total_samples = 1, total_weight = 1e6");
	if (db.pg) {
		pd_db_close(&db);
		printf("rows %llu in %.1f s: %.0f rows/s\n", rows, dt,
		       (double)rows / dt);
		free(base);
		free(pk);
		pd_buf_release(&blob);
		return 0;
	}
	exec(&db, "PRAGMA wal_checkpoint(TRUNCATE)");
	pd_db_close(&db);
	stat(argv[1], &sb);
	printf("rows %llu in %.1f s: %.0f rows/s; database %.1f MB, %.1f bytes"
	       " per function row\n",
	       rows, dt, (double)rows / dt, (double)sb.st_size / 1e6,
	       (double)sb.st_size / (double)rows);
	free(base);
	free(pk);
	pd_buf_release(&blob);
	return 0;
}
