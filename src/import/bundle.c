/*
 * Bundle folders. The key comes from build_meta.json (accepting the common
 * spellings), else from the folder name <date>-<gitsha>-<scenario> and the
 * runbook's file names (2026-01-20_a1b2c3d_mft_large.perfview.speedscope.json,
 * warm/cold tokens), else from the caller's fallback.
 */
/* realpath(): XSI, a superset of the POSIX level the build asks for. */
#define _XOPEN_SOURCE 700

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cJSON.h>

#include "core/limits.h"
#include "core/buf.h"
#include "core/file.h"
#include "core/hash.h"
#include "core/sort.h"
#include "import/bundle.h"

static int cmp_file(const void *a, const void *b)
{
	return strcmp(((const struct pd_bundle_file *)a)->rel,
		      ((const struct pd_bundle_file *)b)->rel);
}

/* Names that say a file is about the run, not a profile of it. */
static const char *not_a_profile(const char *name)
{
	static const char *const words[] = { "notes", "note",	 "readme",
					     "args",  "license", "changelog" };
	const char *p = name;
	size_t i;

	while (*p) {
		size_t n = strcspn(p, "-_. ");

		for (i = 0; i < PD_ARRAY_SIZE(words); i++)
			if (n == strlen(words[i]) &&
			    !strncasecmp(p, words[i], n))
				return "its name says it is not a profile";
		p += n;
		if (*p)
			p++;
	}
	return NULL;
}

static int walk(struct pd_bundle *b, const char *root, const char *dir,
		const char *rel, int depth, struct pd_err *err)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int rc = 0;

	if (!d)
		return pd_err_set(err, PD_EIO, "%s: cannot read: %s", dir,
				  strerror(errno));
	while (rc == 0 && (e = readdir(d))) {
		struct pd_buf full = PD_BUF_INIT, r = PD_BUF_INIT;
		struct pd_bundle_file f;
		struct stat st;
		int link;

		if (e->d_name[0] == '.')
			continue; /* ., .., and hidden files */
		pd_buf_addf(&full, "%s/%s", dir, e->d_name);
		pd_buf_addf(&r, "%s%s%s", rel, *rel ? "/" : "", e->d_name);
		if (lstat(full.buf, &st)) {
			rc = pd_err_set(err, PD_EIO, "%s: %s", full.buf,
					strerror(errno));
			goto next;
		}
		link = S_ISLNK(st.st_mode);
		if (link) {
			/* Followed only where it stays inside the bundle. */
			char real[PATH_MAX];
			size_t n = strlen(root);

			if (!realpath(full.buf, real) ||
			    strncmp(real, root, n) ||
			    (real[n] != '/' && real[n] != '\0') ||
			    stat(real, &st)) {
				PD_VEC_PUSH(&b->outside, pd_buf_detach(&r));
				goto next;
			}
		}
		if (S_ISDIR(st.st_mode)) {
			if (depth >= PD_LIMIT_BUNDLE_DEPTH) {
				rc = pd_err_limit(
				    err, full.buf, PD_LIMIT_BUNDLE_DEPTH,
				    "folder levels", "PD_LIMIT_BUNDLE_DEPTH");
				goto next;
			}
			rc = walk(b, root, full.buf, r.buf, depth + 1, err);
			goto next;
		}
		if (!S_ISREG(st.st_mode)) {
			rc = pd_err_set(err, PD_EFORMAT,
					"%s: %s, not a file; a bundle holds"
					" files and folders only",
					full.buf, pd_file_kind(st.st_mode));
			goto next;
		}
		f.path = pd_buf_detach(&full);
		f.rel = pd_buf_detach(&r);
		f.cache = NULL;
		f.skip = not_a_profile(
		    strrchr(f.rel, '/') ? strrchr(f.rel, '/') + 1 : f.rel);
		PD_VEC_PUSH(&b->files, f);
	next:
		pd_buf_release(&full);
		pd_buf_release(&r);
	}
	closedir(d);
	return rc;
}

static char *json_str(const cJSON *o, const char *const *names)
{
	for (; *names; names++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, *names);

		if (cJSON_IsString(v) && v->valuestring[0])
			return pd_xstrdup(v->valuestring);
		if (cJSON_IsNumber(v)) {
			struct pd_buf b = PD_BUF_INIT;

			pd_buf_addf(&b, "%.17g", v->valuedouble);
			return pd_buf_detach(&b);
		}
	}
	return NULL;
}

/* A nested object's field: build_meta often groups "git": {"sha": ...}. */
static char *json_find(const cJSON *o, const char *const *names)
{
	const cJSON *c;
	char *s = json_str(o, names);

	if (s)
		return s;
	cJSON_ArrayForEach(c, o)
	{
		if (cJSON_IsObject(c) && (s = json_str(c, names)))
			return s;
	}
	return NULL;
}

static int is_hexsha(const char *s, size_t n)
{
	size_t i;

	if (n < 7 || n > 40)
		return 0;
	for (i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]) ||
		    isupper((unsigned char)s[i]))
			return 0;
	return 1;
}

/* Finds "<date><sep><sha><sep><rest>" in name; rest ends at the first dot. */
static int parse_runbook_name(const char *name, char **date, char **sha,
			      char **scenario)
{
	const char *p = name, *q, *r;
	size_t n;

	if (strlen(p) < 12 || !isdigit((unsigned char)p[0]) || p[4] != '-' ||
	    p[7] != '-')
		return 0;
	q = p + 10;
	if (*q != '-' && *q != '_')
		return 0;
	q++;
	r = q;
	while (*r && *r != '-' && *r != '_' && *r != '.')
		r++;
	if (!is_hexsha(q, (size_t)(r - q)) || (*r != '-' && *r != '_'))
		return 0;
	*date = pd_xstrndup(p, 10);
	*sha = pd_xstrndup(q, (size_t)(r - q));
	r++;
	n = strcspn(r, ".");
	*scenario = n ? pd_xstrndup(r, n) : NULL;
	return 1;
}

const char *pd_cache_state(const char *s, size_t n)
{
	static const char *const warm[] = { "warm", "warmcache", "warmstart",
					    "warmrun" };
	static const char *const cold[] = { "cold", "coldcache", "coldstart",
					    "coldrun" };
	size_t i;

	for (i = 0; i < PD_ARRAY_SIZE(warm); i++) {
		if (n == strlen(warm[i]) && !strncasecmp(s, warm[i], n))
			return "warm";
		if (n == strlen(cold[i]) && !strncasecmp(s, cold[i], n))
			return "cold";
	}
	if (n == strlen(PD_CACHE_UNSPECIFIED) &&
	    !strncasecmp(s, PD_CACHE_UNSPECIFIED, n))
		return PD_CACHE_UNSPECIFIED;
	return NULL;
}

/* The cache state a token of name gives (split at - _ . / and space). */
static const char *cache_token(const char *name)
{
	const char *p = name, *c;

	while (*p) {
		size_t n = strcspn(p, "-_./ ");

		if ((c = pd_cache_state(p, n)))
			return c;
		p += n;
		if (*p)
			p++;
	}
	return NULL;
}

/* Drops warm/cold tokens from a scenario guessed from a name. */
static void strip_cache_token(char *s)
{
	size_t n = strlen(s);

	if (n > 5 &&
	    (!strcmp(s + n - 5, "_warm") || !strcmp(s + n - 5, "-warm") ||
	     !strcmp(s + n - 5, "_cold") || !strcmp(s + n - 5, "-cold")))
		s[n - 5] = '\0';
}

static void take(char **field, const char **from, char *value,
		 const char *where)
{
	if (*field || !value) {
		free(value);
		return;
	}
	*field = value;
	*from = where;
}

/* The keys build_meta.json may use for each field, first found wins. */
static const char *const meta_cc[] = {
	"compiler", "toolchain", "rustc_version", "rustc", "cc_version",
	"cc",	    NULL
};
static const char *const meta_flags[] = { "flags", "cflags", "CFLAGS",
					  "rustflags", NULL };
static const char *const meta_target[] = { "target", "target_triple", NULL };
static const char *const meta_data[] = { "dataset_hash", "dataset", NULL };
static const char *const meta_cache[] = { "cache", "cache_state", NULL };
static const char *const meta_host[] = { "host", "host_fingerprint", "hostname",
					 NULL };

static const char *const meta_sha[] = { "git_sha",    "sha",	  "commit",
					"git_commit", "revision", NULL };
static const char *const meta_scen[] = { "scenario", "scenario_name", NULL };
static const char *const meta_cdate[] = { "commit_date", "commit_time", NULL };
static const char *const meta_date[] = { "date", "run_date", "timestamp",
					 NULL };

/* The one reader of build_meta.json's fields. */
static void meta_fields(struct pd_meta *m, const cJSON *o)
{
	memset(m, 0, sizeof(*m));
	m->sha = json_find(o, meta_sha);
	m->scenario = json_find(o, meta_scen);
	m->cache = json_find(o, meta_cache);
	m->commit_date = json_find(o, meta_cdate);
	m->run_date = json_find(o, meta_date);
	m->compiler = json_find(o, meta_cc);
	m->flags = json_find(o, meta_flags);
	m->target = json_find(o, meta_target);
	m->dataset = json_find(o, meta_data);
	m->host = json_find(o, meta_host);
}

void pd_meta_from_json(struct pd_meta *m, const char *json)
{
	cJSON *o = json ? cJSON_Parse(json) : NULL;

	memset(m, 0, sizeof(*m));
	if (cJSON_IsObject(o))
		meta_fields(m, o);
	cJSON_Delete(o);
}

void pd_meta_release(struct pd_meta *m)
{
	free(m->sha);
	free(m->scenario);
	free(m->commit_date);
	free(m->run_date);
	free(m->compiler);
	free(m->flags);
	free(m->target);
	free(m->dataset);
	free(m->cache);
	free(m->host);
	memset(m, 0, sizeof(*m));
}

/* build_meta.json, when the bundle has one: its text, key and dates. */
static int read_meta(struct pd_bundle *b, struct pd_err *err)
{
	struct pd_buf path = PD_BUF_INIT;
	const char *stop = NULL;
	cJSON *meta;
	struct pd_meta m;
	int rc = 0;

	pd_buf_addf(&path, "%s/build_meta.json", b->dir);
	b->build_meta = pd_read_file(path.buf, PD_LIMIT_BUILD_META,
				     "PD_LIMIT_BUILD_META", err);
	if (err->code || !b->build_meta) {
		rc = err->code;
		goto out;
	}
	meta = cJSON_ParseWithOpts(b->build_meta, &stop, 0);
	if (!meta || !cJSON_IsObject(meta)) {
		size_t at = stop ? (size_t)(stop - b->build_meta) : 0,
		       len = strlen(b->build_meta);

		/* where it went wrong, and what stands there */
		if (meta)
			rc =
			    pd_err_set(err, PD_EPARSE,
				       "%s: JSON, but not an object", path.buf);
		else if (at >= len || !strpbrk(stop, "}]"))
			/* nothing left could close it: cut short */
			rc = pd_err_set(err, PD_EPARSE,
					"%s: byte %zu: truncated JSON"
					" (it ends inside a value)",
					path.buf, len);
		else
			rc = pd_err_set(err, PD_EPARSE,
					"%s: byte %zu: not valid JSON"
					" near \"%.20s\"",
					path.buf, at, stop);
		cJSON_Delete(meta);
		goto out;
	}
	meta_fields(&m, meta);
	cJSON_Delete(meta);
	/* the key and dates are the bundle's; the rest is compared */
	take(&b->sha, &b->sha_from, m.sha, "build_meta.json");
	take(&b->scenario, &b->scenario_from, m.scenario, "build_meta.json");
	take(&b->cache, &b->cache_from, m.cache, "build_meta.json");
	b->commit_date = m.commit_date;
	b->run_date = m.run_date;
	b->host = m.host;
	m.sha = m.scenario = m.cache = NULL;
	m.commit_date = m.run_date = m.host = NULL;
	pd_meta_release(&m);
out:
	pd_buf_release(&path);
	return rc;
}

/* A runbook name's date, sha and scenario, for fields not known yet. */
static void key_from_name(struct pd_bundle *b, const char *name,
			  const char *where)
{
	char *date = NULL, *sha = NULL, *scen = NULL;

	if (!parse_runbook_name(name, &date, &sha, &scen))
		return;
	if (scen)
		strip_cache_token(scen);
	take(&b->sha, &b->sha_from, sha, where);
	take(&b->scenario, &b->scenario_from, scen, where);
	take(&b->run_date, &(const char *){ NULL }, date, "");
}

/*
 * How many folders right below dir are bundles (have a profiles/), the
 * first one's name in first: a folder of bundles given for one.
 */
static size_t bundles_below(const char *dir, struct pd_buf *first)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	struct pd_buf p = PD_BUF_INIT;
	size_t n = 0;

	while (d && (e = readdir(d)) != NULL && n < 1000) {
		if (e->d_name[0] == '.')
			continue;
		pd_buf_reset(&p);
		pd_buf_addf(&p, "%s/%s/profiles", dir, e->d_name);
		if (pd_is_dir(p.buf) && !n++)
			pd_buf_adds(first, e->d_name);
	}
	if (d)
		closedir(d);
	pd_buf_release(&p);
	return n;
}

/* The files under profiles/, sorted by path. */
static int list_profiles(struct pd_bundle *b, struct pd_err *err)
{
	struct pd_buf path = PD_BUF_INIT, first = PD_BUF_INIT;
	char root[PATH_MAX];
	size_t below;
	int rc;

	pd_buf_addf(&path, "%s/profiles", b->dir);
	if (!pd_is_dir(path.buf) && (below = bundles_below(b->dir, &first)) > 0)
		rc = pd_err_set(err, PD_EFORMAT,
				"%s: not a bundle but a folder of %zu%s (%s/%s"
				"%s): name the bundles themselves (perfdiff"
				" ingest %s/*)",
				b->dir, below,
				below == 1 ? " bundle" : " bundles", b->dir,
				first.buf, below > 1 ? ", ..." : "", b->dir);
	else if (!pd_is_dir(path.buf))
		rc =
		    pd_err_set(err, PD_EFORMAT,
			       "%s: not a bundle: no profiles/ folder", b->dir);
	else if (!realpath(b->dir, root))
		rc = pd_err_set(err, PD_EIO, "%s: %s", b->dir, strerror(errno));
	else
		rc = walk(b, root, path.buf, "", 0, err);
	pd_buf_release(&path);
	pd_buf_release(&first);
	if (rc < 0)
		return rc;
	if (b->files.n > 1)
		pd_sort(b->files.v, b->files.n, sizeof(*b->files.v), cmp_file);
	return 0;
}

/*
 * The key's last sources (--sha, --scenario, --cache), then what must be
 * known, and each run's cache state: build_meta.json speaks for every
 * run; else a profile's own name; else the folder name or --cache; else
 * it is unspecified, which is a state of its own, not an error.
 */
static int settle_key(struct pd_bundle *b, const struct pd_bundle_key *fb,
		      struct pd_err *err)
{
	size_t i;

	if (fb) {
		take(&b->sha, &b->sha_from,
		     fb->sha ? pd_xstrdup(fb->sha) : NULL, "--sha");
		take(&b->scenario, &b->scenario_from,
		     fb->scenario ? pd_xstrdup(fb->scenario) : NULL,
		     "--scenario");
		take(&b->cache, &b->cache_from,
		     fb->cache ? pd_xstrdup(fb->cache) : NULL, "--cache");
	}
	if (!b->sha || !b->scenario)
		return pd_err_set(err, PD_EINVAL,
				  "%s: no %s: not in build_meta.json, the"
				  " folder name (<date>-<gitsha>-<scenario>)"
				  " or the file names; pass %s",
				  b->dir, !b->sha ? "git sha" : "scenario",
				  !b->sha ? "--sha" : "--scenario");
	if (b->cache && strcmp(b->cache, "?")) {
		const char *c = pd_cache_state(b->cache, strlen(b->cache));

		if (!c)
			return pd_err_set(err, PD_EINVAL,
					  "%s: cache state \"%s\" (from %s) is"
					  " neither warm, cold nor unspecified",
					  b->dir, b->cache, b->cache_from);
		free(b->cache);
		b->cache = pd_xstrdup(c);
	}
	for (i = 0; i < b->files.n; i++) {
		struct pd_bundle_file *f = &b->files.v[i];

		f->cache =
		    b->cache_from && !strcmp(b->cache_from, "build_meta.json")
			? b->cache
			: cache_token(f->rel);
		if (!f->cache)
			f->cache = b->cache;
		if (!f->cache)
			f->cache = PD_CACHE_UNSPECIFIED;
	}
	return 0;
}

int pd_bundle_hash(struct pd_bundle *b, struct pd_err *err)
{
	struct pd_sha256 h;
	char hex[65];
	size_t i;

	pd_sha256_init(&h);
	for (i = 0; i < b->files.n; i++) {
		struct pd_bundle_file *f = &b->files.v[i];
		struct pd_sha256 fh;
		int rc;

		pd_sha256_init(&fh);
		rc = pd_sha256_file(&fh, f->path, err);
		if (rc < 0)
			return rc;
		pd_sha256_hex(&fh, f->hash);
		pd_sha256_add(&h, f->rel, strlen(f->rel) + 1);
		pd_sha256_add(&h, f->hash, 64);
	}
	pd_sha256_hex(&h, hex);
	b->hash = pd_xstrdup(hex);
	return 0;
}

int pd_bundle_hash_v1(const struct pd_bundle *b, char hex[65],
		      struct pd_err *err)
{
	struct pd_sha256 h;
	size_t i;

	pd_sha256_init(&h);
	if (b->build_meta) {
		pd_sha256_add(&h, "build_meta.json", 16);
		pd_sha256_add(&h, b->build_meta, strlen(b->build_meta));
	}
	for (i = 0; i < b->files.n; i++) {
		int rc;

		pd_sha256_add(&h, b->files.v[i].rel,
			      strlen(b->files.v[i].rel) + 1);
		rc = pd_sha256_file(&h, b->files.v[i].path, err);
		if (rc < 0)
			return rc;
	}
	pd_sha256_hex(&h, hex);
	return 0;
}

int pd_bundle_read(struct pd_bundle *b, const char *dir,
		   const struct pd_bundle_key *fallback, struct pd_err *err)
{
	const char *base;
	size_t i, n;
	int rc;

	memset(b, 0, sizeof(*b));
	n = strlen(dir);
	while (n > 1 && dir[n - 1] == '/')
		n--;
	b->dir = pd_xstrndup(dir, n);
	rc = read_meta(b, err);
	if (rc < 0)
		return rc;
	/* The folder name, then the profiles' file names. */
	base = pd_path_base(b->dir);
	key_from_name(b, base, "the folder name");
	if (!b->cache && cache_token(base))
		take(&b->cache, &b->cache_from, pd_xstrdup(cache_token(base)),
		     "the folder name");
	rc = list_profiles(b, err);
	if (rc < 0)
		return rc;
	for (i = 0; i < b->files.n; i++) {
		const char *fname = strrchr(b->files.v[i].rel, '/');

		key_from_name(b, fname ? fname + 1 : b->files.v[i].rel,
			      "a profile's file name");
	}
	rc = settle_key(b, fallback, err);
	if (rc < 0)
		return rc;
	return pd_bundle_hash(b, err);
}

void pd_bundle_release(struct pd_bundle *b)
{
	size_t i;

	for (i = 0; i < b->files.n; i++) {
		free(b->files.v[i].path);
		free(b->files.v[i].rel);
	}
	PD_VEC_FREE(&b->files);
	for (i = 0; i < b->outside.n; i++)
		free(b->outside.v[i]);
	PD_VEC_FREE(&b->outside);
	free(b->dir);
	free(b->hash);
	free(b->sha);
	free(b->scenario);
	free(b->cache);
	free(b->commit_date);
	free(b->run_date);
	free(b->host);
	free(b->build_meta);
	memset(b, 0, sizeof(*b));
}
