/*
 * `perfdiff bundle init DIR`: a bundle folder laid out as the runbook
 * does it, with build_meta.json filled in from git, the compiler and the
 * machine (docs/history.md, "Bundles").
 */
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
#include "core/proc.h"
#include "import/bundle.h"
#include "report/report.h"
#include "store/commit.h"
#include "store/keys.h"
#include "store/store.h"

/*
 * First line of a helper program's output, at most 511 bytes of it: prog
 * with its arguments up to the first NULL (at most two), run without a
 * shell, its stderr dropped. NULL when it did not run, said nothing or
 * exited with another status than 0.
 */
static char *first_line(const char *prog, const char *arg1, const char *arg2)
{
	char *argv[4] = { pd_xstrdup(prog), NULL, NULL, NULL };
	struct pd_buf out = PD_BUF_INIT;
	char *s = NULL;
	size_t i;

	if (arg1) {
		argv[1] = pd_xstrdup(arg1);
		if (arg2)
			argv[2] = pd_xstrdup(arg2);
	}
	if (pd_proc_run(argv, NULL, NULL, &out, 511) == 0) {
		out.buf[strcspn(out.buf, "\r\n")] = '\0';
		if (*out.buf)
			s = pd_xstrdup(out.buf);
	}
	for (i = 0; argv[i]; i++)
		free(argv[i]);
	pd_buf_release(&out);
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
		return first_line("sysctl", "-n", "machdep.cpu.brand_string");
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
static char *bundle_commit(const struct pd_args *a, char **cdate)
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
static int meta_build(cJSON *meta, const struct pd_args *a)
{
	char *s = first_line("cc", "--version", NULL);

	add_str(meta, "compiler", s);
	free(s);
	s = first_line("rustc", "-V", NULL);
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
	s = first_line("cc", "-dumpmachine", NULL);
	add_str(meta, "target", s);
	free(s);
	return 0;
}

/* The datasets with their SHA-256, and this host, into meta. */
static int meta_inputs(cJSON *meta, const struct pd_args *a)
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
	struct pd_args a;
	cJSON *meta;
	const char *dir;
	char *sha = NULL, *cdate, date[32];
	time_t now = time(NULL);
	struct tm tm;
	int r, status = 2;

	r = pd_parse("bundle", bundle_usage, argc, argv, &a);
	if (r >= 0) {
		pd_args_release(&a);
		return r;
	}
	if (!pd_operands_ok("bundle", a.nops)) {
		pd_args_release(&a);
		return 2;
	}
	if (strcmp(a.ops[0], "init")) {
		pd_error(
		    "error: usage: perfdiff bundle init DIR --scenario NAME"
		    " --cache warm|cold");
		pd_args_release(&a);
		return 2;
	}
	dir = a.ops[1];
	if (!a.scenario || !a.cache) {
		pd_error("error: bundle init needs --scenario and --cache");
		pd_args_release(&a);
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
	pd_args_release(&a);
	return status;
}
