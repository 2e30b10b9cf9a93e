/*
 * Fills a history database for the scale benchmark: RUNS runs (one commit
 * each) x FUNCS functions, through the same prepared statements ingest
 * uses, one transaction per run. Prints rows/s and bytes per row.
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
	sqlite3_stmt *st;
	struct stat sb;
	unsigned long long rows = 0;

	if (argc != 4)
		return fprintf(stderr, "usage: gen_db DB RUNS FUNCS\n"), 2;
	runs = atol(argv[2]);
	funcs = atol(argv[3]);
	if (pd_db_open(&db, argv[1], PD_DB_WRITE, &err) < 0)
		return fprintf(stderr, "%s\n", err.msg), 2;
	base = malloc((size_t)funcs * sizeof(*base));
	exec(&db, "BEGIN");
	st = pd_db_stmt(&db, "q_func_insert", &err);
	for (f = 0; f < funcs; f++) {
		/* Skewed costs: a few hot functions, a long tail. */
		base[f] = 20000.0 / pow((double)f + 1, 1.1) + 1;
		snprintf(name, sizeof(name), "ns::module%ld::function_%ld",
			 f % 300, f);
		sqlite3_reset(st);
		sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(st, 2, f % 5 ? "libapp.so" : "app", -1,
				  SQLITE_STATIC);
		sqlite3_step(st);
	}
	exec(&db, "COMMIT");
	t0 = now();
	for (r = 0; r < runs; r++) {
		sqlite3_int64 run;
		double total = 0;

		exec(&db, "BEGIN IMMEDIATE");
		snprintf(sha, sizeof(sha), "%08lx%032x",
			 ((unsigned long)r * 2654435761UL + 1) & 0xffffffffUL,
			 0);
		snprintf(date, sizeof(date), "2026-%02ld-%02ldT%02ld:00:00Z",
			 1 + r / 720 % 12, 1 + r / 24 % 28, r % 24);
		st = pd_db_stmt(&db, "q_bundle_insert", &err);
		sqlite3_bind_text(st, 1, sha, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(st, 2, "generated", -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, date, -1, SQLITE_TRANSIENT);
		sqlite3_step(st);
		st = pd_db_stmt(&db, "q_run_insert", &err);
		sqlite3_bind_text(st, 1, sha, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(st, 2, sha, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(st, 3, "bench", -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 4, "warm", -1, SQLITE_STATIC);
		sqlite3_bind_int(st, 5, 1);
		sqlite3_bind_text(st, 6, "perf", -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 7, "perf-script", -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 8, "perf.script.txt", -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 9, "ns", -1, SQLITE_STATIC);
		sqlite3_bind_double(st, 10, 1e6);
		sqlite3_bind_double(st, 12, 0);
		sqlite3_bind_double(st, 13, 0);
		sqlite3_bind_text(st, 14, date, -1, SQLITE_TRANSIENT);
		sqlite3_step(st);
		run = sqlite3_last_insert_rowid(db.h);
		st = pd_db_stmt(&db, "q_rf_insert", &err);
		for (f = 0; f < funcs; f++) {
			/* self and total counts near the function's base cost
			 */
			double self = floor(base[f] * (0.9 + 0.2 * uniform()));
			double tot = self + floor(base[f] * uniform());

			total += self;
			sqlite3_bind_int64(st, 1, run);
			sqlite3_bind_int64(st, 2, f + 1);
			sqlite3_bind_int64(st, 3, (sqlite3_int64)self);
			sqlite3_bind_int64(st, 4, (sqlite3_int64)tot);
			sqlite3_bind_null(st, 5);
			sqlite3_bind_null(st, 6);
			if (sqlite3_step(st) != SQLITE_DONE)
				return fprintf(stderr, "%s\n",
					       sqlite3_errmsg(db.h)),
				       1;
			sqlite3_reset(st);
			rows++;
		}
		exec(&db, "COMMIT");
		if (r % 1000 == 999)
			fprintf(stderr, "%ld runs, %.0f rows/s\n", r + 1,
				(double)rows / (now() - t0));
	}
	dt = now() - t0;
	exec(&db, "UPDATE runs SET total_samples = 1, total_weight = 1e6;"
		  "PRAGMA wal_checkpoint(TRUNCATE)");
	pd_db_close(&db);
	stat(argv[1], &sb);
	printf("rows %llu in %.1f s: %.0f rows/s; database %.1f MB, %.1f bytes"
	       " per function row\n",
	       rows, dt, (double)rows / dt, (double)sb.st_size / 1e6,
	       (double)sb.st_size / (double)rows);
	free(base);
	return 0;
}
