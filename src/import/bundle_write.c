/*
 * Writing a bundle folder (docs/history.md, "Bundles"): its folders and
 * templates, and build_meta.json filled in from the compilers (run
 * without a shell), a compilation database, the datasets and this host.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <cJSON.h>

#include "core/buf.h"
#include "core/file.h"
#include "core/hash.h"
#include "core/limits.h"
#include "core/proc.h"
#include "core/utf8.h"
#include "core/vec.h"
#include "core/xalloc.h"
#include "import/bundle_write.h"

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

/* mkdir -p: every missing folder of path, then path. */
static int make_dirs(const char *path, struct pd_err *err)
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
		rc = pd_err_set(err, PD_EIO, "error: %s: %s", b.buf,
				strerror(errno));
	pd_buf_release(&b);
	return rc;
}

/*
 * What a new file may replace: nothing, or a regular file; never a link
 * (not written through), a folder or a device. The messages are those of
 * the command line's output files.
 */
static int out_target(const char *path, struct pd_err *err)
{
	struct stat st;

	if (lstat(path, &st))
		return errno == ENOENT
			   ? 0
			   : pd_err_set(err, PD_EIO, "error: %s: %s", path,
					strerror(errno));
	if (S_ISLNK(st.st_mode))
		return pd_err_set(err, PD_EINVAL,
				  "error: %s is a symbolic link: -o does not"
				  " write through links; name the file itself",
				  path);
	if (!S_ISREG(st.st_mode))
		return pd_err_set(err, PD_EINVAL,
				  "error: %s is %s, not a file: -o writes files"
				  " (- for standard output)",
				  path, pd_file_kind(st.st_mode));
	return 0;
}

/*
 * Writes text and then tail to path through a temporary file beside it,
 * renamed into place when all of it is on disk; 0 or an error.
 */
static int write_file(const char *path, const char *text, const char *tail,
		      struct pd_err *err)
{
	struct pd_buf tmp = PD_BUF_INIT;
	FILE *f;
	mode_t m;
	int fd, rc = out_target(path, err);

	if (rc)
		return rc;
	pd_buf_addf(&tmp, "%s.tmp.XXXXXX", path);
	fd = mkstemp(tmp.buf);
	if (fd < 0) {
		rc = pd_err_set(err, PD_EIO, "error: %s: cannot create: %s",
				path, strerror(errno));
		goto out;
	}
	m = umask(0); /* mkstemp makes 0600; give what a new file gets */
	umask(m);
	fchmod(fd, 0666 & ~m);
	f = fdopen(fd, "w");
	if (!f) {
		rc = pd_err_set(err, PD_EIO, "error: %s: %s", path,
				strerror(errno));
		close(fd);
		unlink(tmp.buf);
		goto out;
	}
	errno = 0;
	if (fputs(text, f) == EOF || fputs(tail, f) == EOF || fflush(f) ||
	    ferror(f) || fsync(fileno(f)))
		rc = pd_err_set(err, PD_EIO, "error: %s: write failed: %s",
				path, strerror(errno ? errno : EIO));
	if (fclose(f) && rc == 0)
		rc = pd_err_set(err, PD_EIO, "error: %s: write failed: %s",
				path, strerror(errno));
	if (rc == 0 && rename(tmp.buf, path))
		rc = pd_err_set(err, PD_EIO,
				"error: %s: cannot rename into place: %s", path,
				strerror(errno));
	if (rc)
		unlink(tmp.buf);
out:
	pd_buf_release(&tmp);
	return rc;
}

/* Writes text to dir/name unless that file exists already. */
static int write_template(const char *dir, const char *name, const char *text,
			  struct pd_err *err)
{
	struct pd_buf path = PD_BUF_INIT;
	int rc = 0;

	pd_buf_addf(&path, "%s/%s", dir, name);
	if (access(path.buf, F_OK) != 0)
		rc = write_file(path.buf, text, "", err);
	pd_buf_release(&path);
	return rc;
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
static char *flags_from_compdb(const char *path, struct pd_err *err)
{
	char *text =
	    pd_read_file(path, PD_LIMIT_COMPILE_DB, "PD_LIMIT_COMPILE_DB", err);
	cJSON *db, *e;
	struct pd_buf out = PD_BUF_INIT;
	PD_VEC(char *) seen = PD_VEC_INIT;
	size_t i;

	if (!text) {
		if (!err->code)
			pd_err_set(err, PD_EIO, "error: cannot read");
		return NULL;
	}
	db = cJSON_Parse(text);
	free(text);
	if (!cJSON_IsArray(db)) {
		pd_err_set(
		    err, PD_EPARSE,
		    "error: %s: not a compile_commands.json (a JSON array"
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

/* The build's tools and flags, from the environment, into meta. */
static int meta_build(cJSON *meta, const struct pd_bundle_spec *a,
		      struct pd_err *err)
{
	char *s = first_line("cc", "--version", NULL);

	add_str(meta, "compiler", s);
	free(s);
	s = first_line("rustc", "-V", NULL);
	add_str(meta, "rustc", s);
	free(s);
	if (a->cflags_from) {
		s = flags_from_compdb(a->cflags_from, err);
		if (!s)
			return err->code;
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
static int meta_inputs(cJSON *meta, const struct pd_bundle_spec *a,
		       struct pd_err *err)
{
	struct pd_buf host = PD_BUF_INIT;
	struct utsname un;
	cJSON *ds = cJSON_CreateArray();
	char *s;
	size_t i;

	for (i = 0; i < a->ndatasets; i++) {
		struct pd_sha256 h;
		char hex[65];
		cJSON *d;

		pd_sha256_init(&h);
		if (pd_sha256_file(&h, a->datasets[i], err) < 0) {
			cJSON_Delete(ds);
			return err->code;
		}
		pd_sha256_hex(&h, hex);
		d = cJSON_CreateObject();
		cJSON_AddItemToObject(d, "path", pd_json_text(a->datasets[i]));
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

/* The bundle's folders, templates and build_meta.json; 0 or an error. */
static int write_bundle(const char *dir, cJSON *meta, struct pd_err *err)
{
	const char *sub[] = { "", "/dist", "/inputs", "/profiles" };
	struct pd_buf path = PD_BUF_INIT;
	char *text;
	size_t i;
	int rc = 0;

	for (i = 0; i < PD_ARRAY_SIZE(sub); i++) {
		pd_buf_reset(&path);
		pd_buf_addf(&path, "%s%s", dir, sub[i]);
		rc = make_dirs(path.buf, err);
		if (rc)
			goto out;
	}
	rc = write_template(dir, "run_args.txt", run_args_template, err);
	if (rc == 0)
		rc = write_template(dir, "notes.md", notes_template, err);
	if (rc)
		goto out;
	pd_buf_reset(&path);
	pd_buf_addf(&path, "%s/build_meta.json", dir);
	if (access(path.buf, F_OK) == 0) {
		rc = pd_err_set(err, PD_EINVAL,
				"error: %s exists; not overwriting it",
				path.buf);
		goto out;
	}
	text = cJSON_Print(meta);
	if (!text)
		pd_die_oom(0);
	rc = write_file(path.buf, text, "\n", err);
	free(text);
out:
	pd_buf_release(&path);
	return rc;
}

int pd_bundle_write(const char *dir, const struct pd_bundle_spec *spec,
		    struct pd_err *err)
{
	cJSON *meta = cJSON_CreateObject();
	char date[32];
	time_t now = time(NULL);
	struct tm tm;
	int rc;

	cJSON_AddItemToObject(meta, "git_sha", pd_json_text(spec->sha));
	cJSON_AddItemToObject(meta, "scenario", pd_json_text(spec->scenario));
	cJSON_AddItemToObject(meta, "cache", pd_json_text(spec->cache));
	add_str(meta, "commit_date", spec->commit_date);
	gmtime_r(&now, &tm);
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", &tm);
	cJSON_AddItemToObject(meta, "date", pd_json_text(date));
	rc = meta_build(meta, spec, err);
	if (rc == 0)
		rc = meta_inputs(meta, spec, err);
	if (rc == 0)
		rc = write_bundle(dir, meta, err);
	cJSON_Delete(meta);
	return rc;
}
