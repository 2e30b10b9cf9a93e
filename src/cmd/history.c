/*
 * History commands: `perfdiff bundle init`, `perfdiff ingest`,
 * `perfdiff runs`.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <cJSON.h>

#include "cmd/cmd.h"
#include "cmd/options.h"
#include "core/buf.h"
#include "core/file.h"
#include "core/limits.h"
#include "core/hash.h"
#include "import/bundle.h"
#include "report/report.h"
#include "store/commit.h"
#include "store/keys.h"
#include "store/store.h"

struct hist_args {
	const char *db, *sha, *scenario, *cache, *repo, *cflags_from,
	    *build_cmd, *fmt;
	int verbose, rekey;
	PD_VEC(const char *) datasets;
};

/* Parses the options every history command shares; -1 on error, 1 help. */
static int parse(int argc, char **argv, struct hist_args *a, const char *usage,
		 const char *cmd)
{
	const struct option *opts = pd_opts_getopt(pd_opts_cmd(cmd));
	int c;

	memset(a, 0, sizeof(*a));
	a->db = pd_db_default_path();
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, pd_opts_short(pd_opts_cmd(cmd)),
				opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			a->fmt = optarg;
			if (strcmp(optarg, "text") && strcmp(optarg, "json") &&
			    strcmp(optarg, "tsv")) {
				pd_error("error: -f %s: runs are listed as"
					 " text, json or tsv",
					 optarg);
				return -1;
			}
			break;
		case OPT_DB:
			a->db = optarg;
			break;
		case OPT_SHA:
			a->sha = optarg;
			break;
		case OPT_SCENARIO:
			a->scenario = optarg;
			break;
		case OPT_CACHE:
			a->cache = pd_cache_state(optarg, strlen(optarg));
			/* runs: a filter, checked against the history */
			if (!a->cache && !strcmp(cmd, "runs"))
				a->cache = optarg;
			if (!a->cache) {
				pd_error("error: --cache %s: a cache state is"
					 " warm, cold or unspecified",
					 optarg);
				return -1;
			}
			break;
		case OPT_REPO:
			a->repo = optarg;
			break;
		case OPT_CFLAGS_FROM:
			a->cflags_from = optarg;
			break;
		case OPT_BUILD_CMD:
			a->build_cmd = optarg;
			break;
		case 'v':
			a->verbose = 1;
			break;
		case OPT_REKEY:
			a->rekey = 1;
			break;
		case OPT_DATASET:
			PD_VEC_PUSH(&a->datasets, optarg);
			break;
		case 'h':
			fputs(usage, stdout);
			pd_opts_help(stdout, pd_opts_cmd(cmd));
			return 1;
		case ':':
			pd_error("error: option %s needs a value",
				 argv[optind - 1]);
			return -1;
		default:
			pd_unknown_option(argv[optind - 1], opts, cmd);
			return -1;
		}
	}
	return 0;
}

static const char ingest_usage[] =
    "usage: perfdiff ingest [--db FILE] [--repo DIR] [--rekey] PATH...\n"
    "\n"
    "Stores bundles (folders with profiles/ and build_meta.json) or single\n"
    "profiles in the history. Each bundle is one transaction. A profile\n"
    "ingested again from its folder is the run stored then: it takes the\n"
    "metadata and cache state the bundle gives now (said on stderr), and\n"
    "with --rekey its sha and scenario too; unchanged, nothing is written.\n"
    "--repo (default: the repository holding the bundle, else the current\n"
    "folder's) resolves each sha to its full id and commit date.\n"
    "\n";

int pd_cmd_ingest(int argc, char **argv)
{
	struct hist_args a;
	struct pd_bundle_key key;
	struct pd_db db;
	struct pd_err err = PD_ERR_INIT;
	int i, r, status = 0, tty = isatty(2);
	time_t start = time(NULL);
	size_t skipped = 0, k;

	r = parse(argc, argv, &a, ingest_usage, "ingest");
	if (r)
		return r > 0 ? 0 : 2;
	if (!pd_operands_ok("ingest", argc - optind)) {
		PD_VEC_FREE(&a.datasets);
		return 2;
	}
	key.sha = a.sha;
	key.scenario = a.scenario;
	key.cache = a.cache;
	key.repo = a.repo;
	if (pd_db_open(&db, a.db, PD_DB_WRITE, &err) < 0) {
		pd_error("%s", err.msg);
		PD_VEC_FREE(&a.datasets);
		return 2;
	}
	for (i = optind; i < argc; i++) {
		struct pd_ingest_result res;

		memset(&err, 0, sizeof(err));
		if (tty && time(NULL) - start >= 1)
			fprintf(stderr, "\rperfdiff: ingesting %d/%d",
				i - optind + 1, argc - optind);
		if (pd_store_ingest(&db, argv[i], &key,
				    a.rekey ? PD_INGEST_REKEY : 0, &res,
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
			if (a.verbose || argc - optind == 1)
				pd_error("%s: already stored, skipped",
					 argv[i]);
		} else if (res.runs) {
			char *path = pd_term_dup(argv[i]);

			printf("%s: %zu run%s, %zu function rows\n", path,
			       res.runs, res.runs == 1 ? "" : "s", res.rows);
			free(path);
		}
		pd_ingest_result_release(&res);
	}
	if (tty && time(NULL) - start >= 1)
		fputc('\n', stderr);
	if (skipped && !a.verbose && argc - optind > 1)
		fprintf(stderr,
			"perfdiff: %zu of %d bundles already stored, skipped\n",
			skipped, argc - optind);
	pd_db_close(&db);
	PD_VEC_FREE(&a.datasets);
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

static const char runs_usage[] =
    "usage: perfdiff runs [--db FILE] [--scenario S] [--cache C] [--sha REV]\n"
    "                     [-f text|json|tsv] [-v]\n"
    "\n"
    "Lists the stored runs, newest commit first; -v adds where each was read\n"
    "from and its build_meta.json.\n"
    "\n";

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
	struct hist_args a;
	struct pd_db db;
	struct pd_err err = PD_ERR_INIT;
	struct pd_st *st;
	cJSON *root = NULL, *arr = NULL;
	int r, rc, n = 0, fmt;

	r = parse(argc, argv, &a, runs_usage, "runs");
	PD_VEC_FREE(&a.datasets);
	if (r)
		return r > 0 ? 0 : 2;
	if (!pd_operands_ok("runs", argc - optind))
		return 2;
	if (pd_open_history(&db, a.db) < 0)
		return 2;
	/* a scenario or cache state that is not stored is a typo: say so */
	if (pd_store_check_key(&db, NULL, a.scenario, a.cache, NULL, &err) <
		0 ||
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
	fmt = !a.fmt || !strcmp(a.fmt, "text") ? 't'
	      : !strcmp(a.fmt, "json")	       ? 'j'
					       : 's';
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

/* First line of a command's output, or NULL. */
static char *first_line(const char *cmd)
{
	char buf[512];
	FILE *p = popen(cmd, "r");
	char *s = NULL;

	if (!p)
		return NULL;
	if (fgets(buf, sizeof(buf), p)) {
		buf[strcspn(buf, "\r\n")] = '\0';
		if (*buf)
			s = pd_xstrdup(buf);
	}
	if (pclose(p) != 0) {
		free(s);
		return NULL;
	}
	return s;
}

static void add_str(cJSON *o, const char *k, const char *v)
{
	if (v)
		cJSON_AddItemToObject(o, k, pd_json_text(v));
}

static char *cpu_model(void)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];
	char *s = NULL;

	if (!f)
		return first_line(
		    "sysctl -n machdep.cpu.brand_string 2>/dev/null");
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "model name", 10) && strchr(line, ':')) {
			char *v = strchr(line, ':') + 1;

			while (*v == ' ' || *v == '\t')
				v++;
			v[strcspn(v, "\n")] = '\0';
			s = pd_xstrdup(v);
			break;
		}
	}
	fclose(f);
	return s;
}

static const char bundle_usage[] =
    "usage: perfdiff bundle init DIR --scenario NAME --cache warm|cold\n"
    "                            [--sha REV] [--repo DIR] [--dataset PATH]...\n"
    "                            [--cflags-from compile_commands.json]\n"
    "                            [--build-cmd TEXT]\n"
    "\n"
    "Creates a bundle folder (and its parents) with dist/, inputs/,\n"
    "profiles/, run_args.txt and notes templates, and a build_meta.json\n"
    "filled in from git (REV, default HEAD, resolved to its full sha and its\n"
    "own commit date in --repo, default the current folder's repository),\n"
    "the compilers, the compiler flags (from compile_commands.json, else\n"
    "CFLAGS/RUSTFLAGS), the datasets' SHA-256 and this host. Put the\n"
    "profiles under DIR/profiles/, then ingest DIR.\n"
    "\n";

/* mkdir -p: every missing folder of path, then path. */
static int make_dirs(const char *path)
{
	struct pd_buf b = PD_BUF_INIT;
	size_t i;
	int rc = 0;

	pd_buf_adds(&b, path);
	for (i = 1; i <= b.len && rc == 0; i++) {
		if (b.buf[i] != '/' && b.buf[i] != '\0')
			continue;
		b.buf[i] = '\0';
		if (mkdir(b.buf, 0777) && errno != EEXIST)
			rc = -1;
		else if (!pd_is_dir(b.buf)) {
			errno = ENOTDIR;
			rc = -1;
		}
		if (i < b.len)
			b.buf[i] = '/';
	}
	if (rc)
		pd_error("error: %s: %s", b.buf, strerror(errno));
	pd_buf_release(&b);
	return rc;
}

/* Writes text to dir/name unless that file exists already. */
static int write_template(const char *dir, const char *name, const char *text)
{
	struct pd_buf path = PD_BUF_INIT;
	struct pd_out out;
	int rc = 0;

	pd_buf_addf(&path, "%s/%s", dir, name);
	if (access(path.buf, F_OK) != 0) {
		rc = pd_out_open(&out, path.buf);
		if (rc == 0)
			rc = pd_out_close(
			    &out, fputs(text, out.f) == EOF ? PD_EIO : 0);
	}
	pd_buf_release(&path);
	return rc ? -1 : 0;
}

struct words {
	PD_VEC(char *) v;
};

/* A command line split as a shell would, quotes and backslashes undone. */
static void split_words(const char *s, struct words *out)
{
	struct pd_buf w = PD_BUF_INIT;
	int in_word = 0;
	char q = 0;

	for (;; s++) {
		if (!*s || (!q && (*s == ' ' || *s == '\t' || *s == '\n'))) {
			if (in_word)
				PD_VEC_PUSH(&out->v, pd_buf_detach(&w));
			in_word = 0;
			if (!*s)
				break;
			continue;
		}
		in_word = 1;
		if (q) {
			if (*s == q)
				q = 0;
			else if (*s == '\\' && q == '"' && s[1])
				pd_buf_addch(&w, *++s);
			else
				pd_buf_addch(&w, *s);
		} else if (*s == '\'' || *s == '"')
			q = *s;
		else if (*s == '\\' && s[1])
			pd_buf_addch(&w, *++s);
		else
			pd_buf_addch(&w, *s);
	}
	pd_buf_release(&w);
}

/*
 * The distinct compiler flags of a compile_commands.json, in order: each
 * entry's "arguments", or its "command" split at blanks (quotes kept
 * whole); the compiler, -c, -o FILE and the source file are left out.
 */
static char *flags_from_compdb(const char *path)
{
	struct pd_err err = PD_ERR_INIT;
	char *text = pd_read_file(path, PD_LIMIT_COMPILE_DB,
				  "PD_LIMIT_COMPILE_DB", &err);
	cJSON *db, *e;
	struct pd_buf out = PD_BUF_INIT;
	PD_VEC(char *) seen = PD_VEC_INIT;
	size_t i;

	if (!text) {
		pd_error("%s", err.code ? err.msg : "error: cannot read");
		return NULL;
	}
	db = cJSON_Parse(text);
	free(text);
	if (!cJSON_IsArray(db)) {
		pd_error("error: %s: not a compile_commands.json (a JSON array"
			 " of entries)",
			 path);
		cJSON_Delete(db);
		return NULL;
	}
	cJSON_ArrayForEach(e, db)
	{
		const cJSON *args =
		    cJSON_GetObjectItemCaseSensitive(e, "arguments");
		const cJSON *cmd =
		    cJSON_GetObjectItemCaseSensitive(e, "command");
		const cJSON *file = cJSON_GetObjectItemCaseSensitive(e, "file");
		struct words words = { PD_VEC_INIT };
		const cJSON *a;

		if (cJSON_IsArray(args)) {
			cJSON_ArrayForEach(a, args)
			{
				if (cJSON_IsString(a))
					PD_VEC_PUSH(&words.v,
						    pd_xstrdup(a->valuestring));
			}
		} else if (cJSON_IsString(cmd))
			split_words(cmd->valuestring, &words);
		for (i = 1; i < words.v.n; i++) {
			const char *w = words.v.v[i];
			size_t k;

			if (!strcmp(w, "-o")) {
				i++;
				continue;
			}
			if (w[0] != '-' || !strcmp(w, "-c") ||
			    (cJSON_IsString(file) &&
			     !strcmp(w, file->valuestring)))
				continue;
			for (k = 0; k < seen.n && strcmp(seen.v[k], w); k++)
				;
			if (k < seen.n)
				continue;
			PD_VEC_PUSH(&seen, pd_xstrdup(w));
			/* A flag with blanks stays one word when read back. */
			pd_buf_addf(&out,
				    strpbrk(w, " \t\"") ? "%s'%s'" : "%s%s",
				    out.len ? " " : "", w);
		}
		for (i = 0; i < words.v.n; i++)
			free(words.v.v[i]);
		PD_VEC_FREE(&words.v);
	}
	for (i = 0; i < seen.n; i++)
		free(seen.v[i]);
	PD_VEC_FREE(&seen);
	cJSON_Delete(db);
	return pd_buf_detach(&out);
}

static const char run_args_template[] =
    "# The exact command line of the profiled run, one line, for example:\n"
    "# app.exe --input data/mft.bin --threads 8\n";

static const char notes_template[] =
    "# Notes\n"
    "\n"
    "What was run, on what machine state (other load, power plan, thermal\n"
    "state), and anything unusual about this run.\n";

/*
 * The commit a bundle's build is of (--sha, default HEAD) as its full id,
 * and that commit's own date (*cdate, owned, may be NULL); NULL after an
 * error line.
 */
static char *bundle_commit(const struct hist_args *a, char **cdate)
{
	char full[41], *sha = NULL, *repo;
	size_t i;

	*cdate = NULL;
	repo = a->repo ? pd_xstrdup(a->repo) : pd_git_toplevel(".");
	if (repo &&
	    pd_git_resolve(repo, a->sha ? a->sha : "HEAD", full, cdate) == 0)
		sha = pd_xstrdup(full);
	else if (a->sha && !a->repo && pd_sha_is_hex(a->sha)) {
		sha = pd_xstrdup(a->sha);
		for (i = 0; sha[i]; i++)
			sha[i] = (char)tolower((unsigned char)sha[i]);
		pd_error("warning: %s is not a commit of a repository"
			 " here: stored as given, without a commit date",
			 a->sha);
	} else
		pd_error("error: %s%s: not a commit%s%s; pass --sha and --repo",
			 a->sha ? "--sha " : "", a->sha ? a->sha : "HEAD",
			 repo ? " of " : " (no git repository here)",
			 repo ? repo : "");
	free(repo);
	return sha;
}

/* The build's tools and flags, from the environment, into meta. */
static int meta_build(cJSON *meta, const struct hist_args *a)
{
	char *s = first_line("cc --version 2>/dev/null");

	add_str(meta, "compiler", s);
	free(s);
	s = first_line("rustc -V 2>/dev/null");
	add_str(meta, "rustc", s);
	free(s);
	if (a->cflags_from) {
		s = flags_from_compdb(a->cflags_from);
		if (!s)
			return -1;
		cJSON_AddItemToObject(meta, "cflags", pd_json_text(s));
		cJSON_AddItemToObject(meta, "cflags_from",
				      pd_json_text(a->cflags_from));
		free(s);
	} else {
		add_str(meta, "cflags", getenv("CFLAGS"));
	}
	add_str(meta, "rustflags", getenv("RUSTFLAGS"));
	add_str(meta, "build_cmd", a->build_cmd);
	s = first_line("cc -dumpmachine 2>/dev/null");
	add_str(meta, "target", s);
	free(s);
	return 0;
}

/* The datasets with their SHA-256, and this host, into meta. */
static int meta_inputs(cJSON *meta, const struct hist_args *a)
{
	struct pd_err err = PD_ERR_INIT;
	struct pd_buf host = PD_BUF_INIT;
	struct utsname un;
	cJSON *ds = cJSON_CreateArray();
	char *s;
	size_t i;

	for (i = 0; i < a->datasets.n; i++) {
		struct pd_sha256 h;
		char hex[65];
		cJSON *d;

		pd_sha256_init(&h);
		if (pd_sha256_file(&h, a->datasets.v[i], &err) < 0) {
			pd_error("%s", err.msg);
			cJSON_Delete(ds);
			return -1;
		}
		pd_sha256_hex(&h, hex);
		d = cJSON_CreateObject();
		cJSON_AddItemToObject(d, "path",
				      pd_json_text(a->datasets.v[i]));
		cJSON_AddItemToObject(d, "sha256", pd_json_text(hex));
		cJSON_AddItemToArray(ds, d);
		if (i == 0)
			cJSON_AddItemToObject(meta, "dataset_hash",
					      pd_json_text(hex));
	}
	cJSON_AddItemToObject(meta, "datasets", ds);
	s = cpu_model();
	if (uname(&un) == 0)
		pd_buf_addf(&host, "%s; %ld cores; %s %s %s",
			    s ? s : "unknown cpu",
			    sysconf(_SC_NPROCESSORS_ONLN), un.sysname,
			    un.release, un.machine);
	free(s);
	add_str(meta, "host", host.buf);
	pd_buf_release(&host);
	return 0;
}

/* The bundle's folders, templates and build_meta.json; 0 or -1. */
static int write_bundle(const char *dir, cJSON *meta)
{
	const char *sub[] = { "", "/dist", "/inputs", "/profiles" };
	struct pd_buf path = PD_BUF_INIT;
	struct pd_out out;
	char *text;
	size_t i;
	int r, rc = -1;

	for (i = 0; i < PD_ARRAY_SIZE(sub); i++) {
		pd_buf_reset(&path);
		pd_buf_addf(&path, "%s%s", dir, sub[i]);
		if (make_dirs(path.buf))
			goto out;
	}
	if (write_template(dir, "run_args.txt", run_args_template) ||
	    write_template(dir, "notes.md", notes_template))
		goto out;
	pd_buf_reset(&path);
	pd_buf_addf(&path, "%s/build_meta.json", dir);
	if (access(path.buf, F_OK) == 0) {
		pd_error("error: %s exists; not overwriting it", path.buf);
		goto out;
	}
	if (pd_out_open(&out, path.buf))
		goto out;
	text = cJSON_Print(meta);
	r = fputs(text, out.f) == EOF || fputc('\n', out.f) == EOF;
	free(text);
	if (pd_out_close(&out, r ? PD_EIO : 0) == 0)
		rc = 0;
out:
	pd_buf_release(&path);
	return rc;
}

int pd_cmd_bundle(int argc, char **argv)
{
	struct hist_args a;
	cJSON *meta;
	const char *dir;
	char *sha = NULL, *cdate, date[32];
	time_t now = time(NULL);
	struct tm tm;
	int r, status = 2;

	r = parse(argc, argv, &a, bundle_usage, "bundle");
	if (r) {
		PD_VEC_FREE(&a.datasets);
		return r > 0 ? 0 : 2;
	}
	if (!pd_operands_ok("bundle", argc - optind)) {
		PD_VEC_FREE(&a.datasets);
		return 2;
	}
	if (strcmp(argv[optind], "init")) {
		pd_error(
		    "error: usage: perfdiff bundle init DIR --scenario NAME"
		    " --cache warm|cold");
		PD_VEC_FREE(&a.datasets);
		return 2;
	}
	dir = argv[optind + 1];
	if (!a.scenario || !a.cache) {
		pd_error("error: bundle init needs --scenario and --cache");
		PD_VEC_FREE(&a.datasets);
		return 2;
	}
	meta = cJSON_CreateObject();
	sha = bundle_commit(&a, &cdate);
	if (!sha)
		goto out;
	cJSON_AddItemToObject(meta, "git_sha", pd_json_text(sha));
	cJSON_AddItemToObject(meta, "scenario", pd_json_text(a.scenario));
	cJSON_AddItemToObject(meta, "cache", pd_json_text(a.cache));
	add_str(meta, "commit_date", cdate);
	free(cdate);
	gmtime_r(&now, &tm);
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", &tm);
	cJSON_AddItemToObject(meta, "date", pd_json_text(date));
	if (meta_build(meta, &a) || meta_inputs(meta, &a) ||
	    write_bundle(dir, meta))
		goto out;
	printf("%s: bundle for %.12s (%s, %s); put profiles in %s/profiles/\n",
	       dir, sha, a.scenario, a.cache, dir);
	status = 0;
out:
	free(sha);
	cJSON_Delete(meta);
	PD_VEC_FREE(&a.datasets);
	return status;
}
