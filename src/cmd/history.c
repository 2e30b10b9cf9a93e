/* History commands: `perfdiff ingest` and `perfdiff runs`. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <cJSON.h>

#include "cmd/cmd.h"
#include "cmd/parse.h"
#include "core/buf.h"
#include "core/file.h"
#include "core/limits.h"
#include "core/hash.h"
#include "import/bundle.h"
#include "report/report.h"
#include "store/commit.h"
#include "store/keys.h"
#include "store/store.h"

static const char ingest_about[] =
    "Stores bundles (folders with profiles/ and build_meta.json) or single\n"
    "profiles in the history. Each bundle is one transaction. A profile\n"
    "ingested again from its folder is the run stored then: it takes the\n"
    "metadata and cache state the bundle gives now (said on stderr), and\n"
    "with --rekey its sha and scenario too; unchanged, nothing is written.\n"
    "--repo (default: the repository holding the bundle, else the current\n"
    "folder's) resolves each sha to its full id and commit date.\n"
    "Frames with addresses only are named from --symbols folders, then from\n"
    "the bundle's own dist/.\n";

int pd_cmd_ingest(int argc, char **argv)
{
	struct pd_args a;
	struct pd_bundle_key key;
	struct pd_db db;
	struct pd_err err = PD_ERR_INIT;
	int i, r, status = 0, tty = isatty(2), fresh, stored = 0;
	const char *dbpath;
	time_t start = time(NULL);
	size_t skipped = 0, k;

	r = pd_parse("ingest", ingest_about, argc, argv, &a);
	if (r >= 0 || !pd_operands_ok("ingest", a.nops)) {
		pd_args_release(&a);
		return r >= 0 ? r : 2;
	}
	key.sha = a.sha;
	key.scenario = a.scenario;
	key.cache = a.cache;
	key.repo = a.repo;
	/* a history this ingest makes and then stores nothing in is removed:
	 * a failed command leaves no file behind */
	dbpath = a.db ? a.db : pd_db_default_path();
	fresh = !pd_db_is_server(dbpath) && access(dbpath, F_OK) != 0;
	if (pd_db_open(&db, a.db, PD_DB_WRITE, &err) < 0) {
		pd_error("%s", err.msg);
		pd_args_release(&a);
		return 2;
	}
	for (i = 0; i < a.nops; i++) {
		struct pd_ingest_result res;

		memset(&err, 0, sizeof(err));
		if (tty && time(NULL) - start >= 1)
			fprintf(stderr, "\rperfdiff: ingesting %d/%d", i + 1,
				a.nops);
		if (pd_store_ingest(&db, a.ops[i], &key,
				    a.rekey ? PD_INGEST_REKEY : 0, &a.io, &res,
				    &err) < 0) {
			if (tty && time(NULL) - start >= 1)
				fputc('\n', stderr);
			pd_error("%s", err.msg);
			pd_ingest_result_release(&res);
			status = 2;
			break;
		}
		for (k = 0; k < res.notes.n; k++)
			pd_error("note: %s", res.notes.v[k]);
		for (k = 0; k < res.changes.n; k++)
			pd_error("%s", res.changes.v[k]);
		if (res.skipped) {
			/* A nightly job passes every bundle every night. */
			skipped++;
			if (a.verbose || a.nops == 1)
				pd_error("%s: already stored, skipped",
					 a.ops[i]);
		} else if (res.runs) {
			char *path = pd_term_dup(a.ops[i]);

			stored = 1;
			printf("%s: %zu run%s, %zu function rows\n", path,
			       res.runs, res.runs == 1 ? "" : "s", res.rows);
			free(path);
		}
		pd_ingest_result_release(&res);
	}
	if (tty && time(NULL) - start >= 1)
		fputc('\n', stderr);
	if (skipped && !a.verbose && a.nops > 1)
		fprintf(stderr,
			"perfdiff: %zu of %d bundles already stored, skipped\n",
			skipped, a.nops);
	pd_db_close(&db);
	if (fresh && !stored && status) {
		struct pd_buf side = PD_BUF_INIT;
		static const char *const ext[] = { "", "-wal", "-shm",
						   "-journal" };
		size_t e;

		for (e = 0; e < PD_ARRAY_SIZE(ext); e++) {
			pd_buf_reset(&side);
			pd_buf_addf(&side, "%s%s", dbpath, ext[e]);
			remove(side.buf);
		}
		pd_buf_release(&side);
	}
	pd_args_release(&a);
	if (fflush(stdout) || ferror(stdout))
		status = 2;
	return status;
}

/*
 * runs -v: where the run was read from, and its build_meta.json on one
 * line (from a bundle: safe for a terminal).
 */
static void run_detail(struct pd_st *st)
{
	const char *raw = pd_st_isnull(st, 12) ? NULL : pd_st_col_text(st, 12);
	cJSON *m = raw ? cJSON_Parse(raw) : NULL;
	char *one = m ? cJSON_PrintUnformatted(m) : NULL;
	char *from = pd_term_dup(pd_st_col_text(st, 13));
	char *src = pd_term_dup(pd_st_col_text(st, 11));
	char *meta = pd_term_dup(one ? one : raw ? raw : "(none)");

	printf("       from %s: %s\n       build_meta.json %s\n", from, src,
	       meta);
	free(from);
	free(src);
	free(meta);
	free(one);
	cJSON_Delete(m);
}

static const char runs_about[] =
    "Lists the stored runs, newest commit first; -v adds where each was read\n"
    "from and its build_meta.json.\n";

static void runs_text_row(struct pd_st *st)
{
	struct pd_buf w = PD_BUF_INIT;
	/* NULL only in a damaged file (the column is NOT NULL) */
	const char *unit = pd_st_isnull(st, 7) ? "" : pd_st_col_text(st, 7);
	enum pd_unit u = !strcmp(unit, "ns")	  ? PD_UNIT_NS
			 : !strcmp(unit, "bytes") ? PD_UNIT_BYTES
			 : !strcmp(unit, "count") ? PD_UNIT_COUNT
						  : PD_UNIT_SAMPLES;
	char *col[5];
	int c;

	/* keys and dates from build_meta.json: safe for a terminal */
	for (c = 0; c < 4; c++)
		col[c] = pd_term_dup(pd_st_col_text(st, c + 1));
	col[4] = pd_term_dup(pd_st_col_text(st, 10));
	pd_fmt_weight(&w, pd_st_col_f64(st, 8), u);
	printf("%-6lld %-12.12s %-20s %-11s %-12s %3d %10.0f %11s %-2s  "
	       "%s\n",
	       (long long)pd_st_col_i64(st, 0), col[0], col[1], col[2], col[3],
	       (int)pd_st_col_i64(st, 5), pd_st_col_f64(st, 9), w.buf,
	       pd_unit_display(u), col[4]);
	for (c = 0; c < 5; c++)
		free(col[c]);
	pd_buf_release(&w);
}

/*
 * Samples a second of the run's time: the recording's frequency (perf -F,
 * samply -r), for time-weighted runs; 0 when the unit is no time.
 */
static double runs_rate(struct pd_st *st)
{
	const char *unit = pd_st_isnull(st, 7) ? "" : pd_st_col_text(st, 7);
	double total = pd_st_col_f64(st, 8);

	if (strcmp(unit, "ns") || !(total > 0))
		return 0;
	return pd_st_col_f64(st, 9) * 1e9 / total;
}

/* A text field of a tsv row: tab, newline, CR and backslash escaped. */
static void tsv_field(const char *s, int last)
{
	for (s = s ? s : ""; *s; s++)
		switch (*s) {
		case '\t':
			fputs("\\t", stdout);
			break;
		case '\n':
			fputs("\\n", stdout);
			break;
		case '\r':
			fputs("\\r", stdout);
			break;
		case '\\':
			fputs("\\\\", stdout);
			break;
		default:
			putchar(*s);
		}
	putchar(last ? '\n' : '\t');
}

static void runs_tsv_row(struct pd_st *st)
{
	double rate = runs_rate(st);
	int c;

	printf("%lld\t", (long long)pd_st_col_i64(st, 0));
	for (c = 1; c <= 4; c++)
		tsv_field(pd_st_col_text(st, c), 0);
	printf("%lld\t", (long long)pd_st_col_i64(st, 5));
	tsv_field(pd_st_col_text(st, 6), 0);
	tsv_field(pd_st_isnull(st, 7) ? "" : pd_st_col_text(st, 7), 0);
	printf("%.17g\t%.17g\t", pd_st_col_f64(st, 9), pd_st_col_f64(st, 8));
	if (rate > 0)
		printf("%.6g", rate);
	putchar('\t');
	tsv_field(pd_st_col_text(st, 10), 0);
	tsv_field(pd_st_col_text(st, 11), 1);
}

static void runs_json_row(cJSON *arr, struct pd_st *st)
{
	static const char *const keys[] = { "sha", "scenario", "cache", "tool",
					    NULL,  "format",   "unit" };
	cJSON *o = cJSON_CreateObject();
	double rate = runs_rate(st);
	int c;

	cJSON_AddNumberToObject(o, "id", (double)pd_st_col_i64(st, 0));
	for (c = 1; c <= 7; c++)
		if (c == 5)
			cJSON_AddNumberToObject(o, "repeat",
						(double)pd_st_col_i64(st, 5));
		else if (!pd_st_isnull(st, c))
			cJSON_AddItemToObject(
			    o, keys[c - 1],
			    pd_json_text(pd_st_col_text(st, c)));
	cJSON_AddNumberToObject(o, "samples", pd_st_col_f64(st, 9));
	cJSON_AddNumberToObject(o, "total", pd_st_col_f64(st, 8));
	if (rate > 0)
		cJSON_AddNumberToObject(o, "sample_rate_hz", rate);
	else
		cJSON_AddNullToObject(o, "sample_rate_hz");
	cJSON_AddItemToObject(o, "date", pd_json_text(pd_st_col_text(st, 10)));
	cJSON_AddItemToObject(o, "source",
			      pd_json_text(pd_st_col_text(st, 11)));
	cJSON_AddItemToArray(arr, o);
}

int pd_cmd_runs(int argc, char **argv)
{
	struct pd_args a;
	struct pd_db db;
	struct pd_hkey key = { NULL, NULL, NULL, NULL };
	struct pd_err err = PD_ERR_INIT;
	struct pd_st *st;
	cJSON *root = NULL, *arr = NULL;
	int r, rc, n = 0, fmt;

	r = pd_parse("runs", runs_about, argc, argv, &a);
	if (r < 0 && !pd_operands_ok("runs", a.nops))
		r = 2;
	fmt = a.fmt == PD_FMT_JSON ? 'j' : a.fmt == PD_FMT_TSV ? 's' : 't';
	pd_args_release(&a);
	if (r >= 0)
		return r;
	if (pd_open_history(&db, a.db) < 0)
		return 2;
	/* a scenario or cache state that is not stored is a typo: say so */
	key.scenario = a.scenario;
	key.cache = a.cache;
	if (pd_store_check_key(&db, &key, &err) < 0 ||
	    !(st = pd_db_stmt(&db, "q_runs_list", &err))) {
		pd_error("%s", err.msg);
		pd_db_close(&db);
		return 2;
	}
	if (a.scenario)
		pd_st_text(st, 1, a.scenario);
	if (a.cache)
		pd_st_text(st, 2, a.cache);
	if (a.sha)
		pd_st_text(st, 3, a.sha);
	if (fmt == 'j') {
		root = cJSON_CreateObject();
		cJSON_AddNumberToObject(root, "version", 1);
		arr = cJSON_AddArrayToObject(root, "runs");
	} else if (fmt == 't')
		printf("%-6s %-12s %-20s %-11s %-12s %3s %10s %14s  %s\n",
		       "RUN", "SHA", "SCENARIO", "CACHE", "TOOL", "#",
		       "SAMPLES", "TOTAL", "DATE");
	while ((rc = pd_st_step(st)) == PD_ST_ROW) {
		if (fmt == 'j')
			runs_json_row(arr, st);
		else if (fmt == 's')
			runs_tsv_row(st);
		else
			runs_text_row(st);
		if (a.verbose && fmt == 't')
			run_detail(st);
		n++;
	}
	if (rc != PD_ST_DONE) {
		pd_db_fail(&db, &err, "listing runs");
		pd_error("%s", err.msg);
		pd_db_close(&db);
		cJSON_Delete(root);
		return 2;
	}
	pd_db_close(&db);
	if (root) {
		rc = pd_json_write(stdout, root);
		cJSON_Delete(root);
		if (rc)
			return 2;
	}
	if (!n)
		fprintf(stderr, "perfdiff: no runs match\n");
	return fflush(stdout) || ferror(stdout) ? 2 : 0;
}
