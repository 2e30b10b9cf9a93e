/*
 * Ingest: a bundle's profiles become runs. This file is the read phase:
 * the bundle's key and commit, every profile imported and aggregated
 * before the write lock is taken; ingest_write.c then writes all of a
 * bundle in one transaction or none of it, even when the process is
 * killed (SQLite's journal).
 */
#include <assert.h>
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "core/buf.h"
#include "core/file.h"
#include "core/hash.h"
#include "import/import.h"
#include "store/commit.h"
#include "store/ingest_int.h"
#include "store/store.h"

/*
 * The bundle's commit as the history keys it: resolved through git to
 * the full id and its own date where a repository knows it (--repo, else
 * the one holding the bundle, else the current folder's); else a hex id
 * or prefix, lower-cased; anything else is refused.
 */
static int resolve_commit(struct pd_bundle *b, const char *repo_opt,
			  const char *path, int is_dir, struct pd_err *err)
{
	char full[41], *date = NULL, *repo = NULL;
	size_t i;

	if (strlen(b->sha) == 40 && pd_sha_is_hex(b->sha) && b->commit_date &&
	    !repo_opt)
		goto hex; /* nothing git could add */
	if (repo_opt)
		repo = pd_xstrdup(repo_opt);
	else {
		char *dir = is_dir ? pd_xstrdup(path) : NULL;

		if (!dir) { /* a single profile: its folder */
			const char *sl = pd_path_sep(path);

			dir = sl ? pd_xstrndup(path, (size_t)(sl - path) + 1)
				 : pd_xstrdup(".");
		}
		repo = pd_git_toplevel(dir);
		free(dir);
		if (!repo)
			repo = pd_git_toplevel(".");
	}
	if (repo && pd_git_resolve(repo, b->sha, full, &date) == 0) {
		free(b->sha);
		b->sha = pd_xstrdup(full);
		if (date) {
			free(b->commit_date);
			b->commit_date = date;
		}
		free(repo);
		return 0;
	}
	if (repo_opt) {
		pd_err_set(err, PD_EINVAL,
			   "%s: %s (from %s) is not a commit of %s", b->dir,
			   b->sha, b->sha_from ? b->sha_from : "--sha", repo);
		free(repo);
		return PD_EINVAL;
	}
	free(repo);
hex:
	if (!pd_sha_is_hex(b->sha))
		return pd_err_set(err, PD_EINVAL,
				  "%s: git sha \"%s\" (from %s) is not a commit"
				  " id; a name such as HEAD~3 needs --repo DIR"
				  " to be resolved",
				  b->dir, b->sha,
				  b->sha_from ? b->sha_from : "--sha");
	for (i = 0; b->sha[i]; i++)
		b->sha[i] = (char)tolower((unsigned char)b->sha[i]);
	return 0;
}

static int contains_ci(const char *s, const char *needle)
{
	size_t n = strlen(needle);

	for (; *s; s++)
		if (!strncasecmp(s, needle, n))
			return 1;
	return 0;
}

const char *pd_tool_name(const char *rel, const char *format,
			 const char *exporter)
{
	static const char *const hints[] = { "perfview", "samply",
					     "wpa",	 "dotnet-trace",
					     "py-spy",	 "pyinstrument" };
	size_t i;

	for (i = 0; i < PD_ARRAY_SIZE(hints); i++)
		if (rel && contains_ci(rel, hints[i]))
			return hints[i];
	if (!strcmp(format, "perf-script"))
		return "perf";
	if (!strcmp(format, "speedscope") && exporter) {
		if (strstr(exporter, "TraceEvent") ||
		    !strcmp(exporter, "speedscope@1.3.2"))
			return "perfview";
		if (!strncmp(exporter, "py-spy", 6))
			return "py-spy";
		if (!strncmp(exporter, "pyinstrument", 12))
			return "pyinstrument";
	}
	return format;
}

/*
 * The profile's metric tables as metrics rows: source "format:table",
 * key the row key (tab-separated), one row per measure, and the relative
 * standard error, when known, as measure "NAME rse".
 */
static void take_metrics(struct pending *pe, const struct pd_profile *p)
{
	struct pd_buf src = PD_BUF_INIT, ms = PD_BUF_INIT;
	size_t t, r, k;

	for (t = 0; t < p->tables.n; t++) {
		const struct pd_mtable *mt = p->tables.v[t];

		pd_buf_reset(&src);
		pd_buf_addf(&src, "%s:%s", p->format, mt->name);
		for (r = 1; r < mt->rowkeys.n; r++) {
			const char *key =
			    pd_intern_str(&mt->rowkeys, (uint32_t)r);

			for (k = 0; k < mt->measures.n; k++) {
				size_t at = r * mt->measures.n + k;
				double rse =
				    at < mt->rse.n ? mt->rse.v[at] : -1;
				struct mrow m;

				m.source = pd_xstrdup(src.buf);
				m.key = pd_xstrdup(key);
				m.measure = pd_xstrdup(mt->measures.v[k]);
				m.value =
				    at < mt->values.n ? mt->values.v[at] : 0;
				PD_VEC_PUSH(&pe->metrics, m);
				if (rse < 0)
					continue;
				pd_buf_reset(&ms);
				pd_buf_addf(&ms, "%s rse", mt->measures.v[k]);
				m.source = pd_xstrdup(src.buf);
				m.key = pd_xstrdup(key);
				m.measure = pd_xstrdup(ms.buf);
				m.value = rse;
				PD_VEC_PUSH(&pe->metrics, m);
			}
		}
	}
	pd_buf_release(&src);
	pd_buf_release(&ms);
}

static void release_pending(struct pending *pe)
{
	size_t i;

	for (i = 0; i < pe->metrics.n; i++) {
		free(pe->metrics.v[i].source);
		free(pe->metrics.v[i].key);
		free(pe->metrics.v[i].measure);
	}
	PD_VEC_FREE(&pe->metrics);
	PD_VEC_FREE(&pe->joined);
	free(pe->rel);
	free(pe->format);
	free(pe->event);
	free(pe->exporter);
	pd_agg_release(&pe->agg);
	pd_buf_release(&pe->stacks);
}

/*
 * A single profile as a bundle of one run: its key from the options,
 * its hashes those of a bundle holding just that file.
 */
static int single_profile(struct pd_bundle *b, const char *path,
			  const struct pd_bundle_key *fallback,
			  struct pd_err *err)
{
	struct pd_bundle_file f;

	if (!fallback || !fallback->sha || !fallback->scenario)
		return pd_err_set(err, PD_EUSAGE,
				  "%s: a single profile needs --sha and"
				  " --scenario (and --cache, else its cache"
				  " state is unspecified)",
				  path);
	memset(&f, 0, sizeof(f));
	f.cache = fallback->cache
		      ? pd_cache_state(fallback->cache, strlen(fallback->cache))
		      : PD_CACHE_UNSPECIFIED;
	if (!f.cache)
		return pd_err_set(err, PD_EINVAL,
				  "--cache %s: a cache state is warm, cold or"
				  " unspecified",
				  fallback->cache);
	b->dir = pd_xstrdup(path);
	b->sha = pd_xstrdup(fallback->sha);
	b->scenario = pd_xstrdup(fallback->scenario);
	b->cache = pd_xstrdup(f.cache);
	f.path = pd_xstrdup(path);
	f.rel = pd_xstrdup(pd_path_base(path));
	PD_VEC_PUSH(&b->files, f);
	return pd_bundle_hash(b, err);
}

/*
 * The hash a history before schema 5 stored a single profile under: its
 * key as given and its bytes.
 */
static int single_v1(const char *path, const struct pd_bundle_key *fallback,
		     const char *cache, char hex[65], struct pd_err *err)
{
	struct pd_sha256 h;
	int rc;

	pd_sha256_init(&h);
	pd_sha256_add(&h, fallback->sha, strlen(fallback->sha) + 1);
	pd_sha256_add(&h, fallback->scenario, strlen(fallback->scenario) + 1);
	pd_sha256_add(&h, cache, strlen(cache) + 1);
	rc = pd_sha256_file(&h, path, err);
	if (rc == 0)
		pd_sha256_hex(&h, hex);
	return rc;
}

/*
 * One file of the bundle read into p (the run number among those of its
 * tool counted over pv[0 .. np)): 1, or 0 when it is skipped with a note,
 * or the error code.
 */
static int read_run(const struct pd_bundle_file *f,
		    const struct pd_import_opts *o, struct pd_funcs *fn,
		    struct pending *pv, size_t np, struct pd_ingest_result *res,
		    struct pd_err *err)
{
	struct pd_import_opts io;
	struct pd_err serr = PD_ERR_INIT;
	struct pd_profile prof;
	struct pending *p = &pv[np];
	uint32_t *node_func;
	size_t k;
	int rc;

	memset(&io, 0, sizeof(io));
	if (o) {
		io.symbol_dirs = o->symbol_dirs;
		io.symbolizer = o->symbolizer;
	}
	if (f->skip) {
		pd_ingest_note(res, "skipped %s: %s", f->path, f->skip);
		return 0;
	}
	if (!pd_import_sniff(f->path, &io, &serr)) {
		pd_ingest_note(res, "skipped %s", serr.msg);
		return 0;
	}
	pd_profile_init(&prof);
	rc = pd_import(&prof, f->path, &io, err);
	if (rc < 0) {
		pd_profile_release(&prof);
		return rc;
	}
	p->cache = f->cache;
	p->rel = pd_xstrdup(f->rel);
	p->format = pd_xstrdup(prof.format);
	p->event = prof.event ? pd_xstrdup(prof.event) : NULL;
	p->exporter = prof.exporter ? pd_xstrdup(prof.exporter) : NULL;
	p->tool = pd_tool_name(p->rel, prof.format, prof.exporter);
	for (k = 0; k < np; k++)
		if (!strcmp(pv[k].tool, p->tool))
			p->repeat++;
	p->repeat++;
	p->unit = prof.unit;
	p->interval = prof.interval;
	p->total_w = prof.total_weight;
	p->total_n = prof.total_count;
	pd_agg_init(&p->agg);
	pd_agg_compute(&p->agg, &prof, fn);
	node_func = pd_xmalloc(prof.nodes.n * sizeof(*node_func));
	node_func[0] = UINT32_MAX;
	for (k = 1; k < prof.nodes.n; k++)
		node_func[k] = p->agg.frame_func[prof.nodes.v[k].frame];
	pd_buf_init(&p->stacks);
	pd_stacks_records(&prof, node_func, &p->stacks);
	p->nodes = prof.nodes.n - 1;
	take_metrics(p, &prof);
	p->table_only = prof.nodes.n <= 1 && prof.tables.n;
	free(node_func);
	pd_profile_release(&prof);
	return 1;
}

/*
 * Counters without stacks (perf.stat.txt) belong to the first run with
 * stacks, when there is one: they are not a run of their own. Returns
 * the number of runs left.
 */
static size_t join_counters(struct pending *pv, size_t np)
{
	size_t i, k, out = 0;

	for (i = 0; i < np && pv[i].table_only; i++)
		;
	if (i == np)
		return np;
	for (i = 0; i < np; i++)
		if (!pv[i].table_only) {
			struct pending t = pv[out];

			pv[out++] = pv[i];
			pv[i] = t;
		}
	/* pv[0] is now the first run with stacks */
	assert(out > 0 && !pv[0].table_only);
	for (i = out; i < np; i++) {
		for (k = 0; k < pv[i].metrics.n; k++)
			PD_VEC_PUSH(&pv[0].metrics, pv[i].metrics.v[k]);
		pv[i].metrics.n = 0;
		PD_VEC_PUSH(&pv[0].joined, pv[i].hash);
		for (k = 0; k < pv[i].joined.n; k++)
			PD_VEC_PUSH(&pv[0].joined, pv[i].joined.v[k]);
		release_pending(&pv[i]);
	}
	return out;
}

/*
 * The bundle's files stored already, looked up before anything is
 * imported: by their bytes; else, in a history holding runs from before
 * schema 5, as the bundle stored then (*v1, its hash then, owned).
 */
static int pre_match(struct pd_db *db, const struct pd_bundle *b,
		     const char *path, const struct pd_bundle_key *fallback,
		     int rekey, struct match *m, char **v1, struct pd_err *err)
{
	int any = 0, rc = pd_match_files(db, b, path, NULL, 0, rekey, m, err);

	if (rc < 0 || m->files)
		return rc;
	rc = pd_match_legacy_any(db, &any, err);
	if (rc < 0 || !any)
		return rc;
	*v1 = pd_xmalloc(65);
	rc = pd_is_dir(path)
		 ? pd_bundle_hash_v1(b, *v1, err)
		 : single_v1(path, fallback, b->files.v[0].cache, *v1, err);
	if (rc < 0)
		return rc;
	pd_match_release(m);
	return pd_match_files(db, b, path, *v1, 0, rekey, m, err);
}

/* Files stored from another folder under the same key: said once. */
static void note_copies(const char *path, const struct match *m,
			struct pd_ingest_result *res)
{
	if (m->copies)
		pd_ingest_note(res,
			       "%s: %zu of its profiles %s stored already from"
			       " another folder under the same key: not"
			       " stored again",
			       path, m->copies, m->copies == 1 ? "is" : "are");
}

/* The bundle's files not stored yet, imported into pv[0 .. *np). */
static int read_new(const struct pd_bundle *b, const struct match *m,
		    const struct pd_import_opts *o, struct pd_funcs *fn,
		    struct pending *pv, size_t *np,
		    struct pd_ingest_result *res, struct pd_err *err)
{
	size_t i;
	int rc;

	for (i = 0; i < b->files.n; i++) {
		if (m->run[i])
			continue;
		rc = read_run(&b->files.v[i], o, fn, pv, *np, res, err);
		if (rc < 0)
			return rc;
		if (rc) {
			pv[*np].hash = b->files.v[i].hash;
			pv[*np].file = i;
			(*np)++;
		}
	}
	return 0;
}

int pd_store_ingest(struct pd_db *db, const char *path,
		    const struct pd_bundle_key *fallback, unsigned flags,
		    const struct pd_import_opts *io,
		    struct pd_ingest_result *res, struct pd_err *err)
{
	struct pd_bundle b;
	struct pd_funcs fn;
	struct match m;
	struct pending *pv = NULL;
	char *v1 = NULL;
	size_t np = 0, i, keep = 0;
	int rc;

	memset(res, 0, sizeof(*res));
	memset(&b, 0, sizeof(b));
	memset(&m, 0, sizeof(m));
	/*
	 * The history keeps whole totals, system time included, as it
	 * always has: a trend never mixes two meanings of "total". compare
	 * sets the system functions apart from the verdict only.
	 */
	pd_funcs_init(&fn, PD_FUNCS_SYSTEM);
	if (pd_is_dir(path))
		rc = pd_bundle_read(&b, path, fallback, err);
	else
		rc = single_profile(&b, path, fallback, err);
	if (rc == 0)
		rc = resolve_commit(&b, fallback ? fallback->repo : NULL, path,
				    pd_is_dir(path), err);
	if (rc < 0)
		goto out;
	for (i = 0; i < b.outside.n; i++)
		pd_ingest_note(res,
			       "skipped %s/profiles/%s: a link leading"
			       " out of the bundle",
			       path, b.outside.v[i]);
	rc = pre_match(db, &b, path, fallback, (flags & PD_INGEST_REKEY) != 0,
		       &m, &v1, err);
	if (rc < 0)
		goto out;
	note_copies(path, &m, res);
	/* what a bundle stored already says again is not said again */
	keep = res->notes.n;
	pv = pd_xcalloc(b.files.n + 1, sizeof(*pv));
	rc = read_new(&b, &m, io, &fn, pv, &np, res, err);
	if (rc < 0)
		goto out;
	np = join_counters(pv, np);
	if (!np && !m.files) {
		rc = pd_err_set(err, PD_EEMPTY,
				"%s: no supported profile under profiles/",
				path);
		goto out;
	}
	/* stored and unchanged: nothing to write, no lock to take */
	res->skipped = !np && !m.v1 && !m.prefix && !pd_match_changed(&b, &m);
	if (res->skipped)
		goto out;
	for (i = 0; i < np; i++)
		pd_agg_resize(&pv[i].agg, fn.v.n);
	/* The function ids the rows refer to are written on first use. */
	rc = pd_ingest_write(db, &b, path, pv, np, &fn, v1, m.rekey, res, err);
out:
	while (rc == 0 && res->skipped && res->notes.n > keep)
		free(res->notes.v[--res->notes.n]);
	for (i = 0; i < np; i++)
		release_pending(&pv[i]);
	free(pv);
	free(v1);
	pd_match_release(&m);
	pd_funcs_release(&fn);
	pd_bundle_release(&b);
	return rc;
}
