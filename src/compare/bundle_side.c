/*
 * Bundle folders as comparison sides (bundle_side.h): their profiles as
 * runs with their series, what differs between the two builds, each
 * side's provenance, and a bundle's perf stat counters.
 */
#include <ctype.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "compare/bundle_side.h"
#include "core/buf.h"
#include "core/xalloc.h"
#include "store/store.h"

/* Starts as an ISO 8601 date: YYYY-MM-DD. */
static int iso_date(const char *s)
{
	static const char form[] = "dddd-dd-dd";
	size_t i;

	for (i = 0; form[i]; i++)
		if (form[i] == 'd' ? !isdigit((unsigned char)s[i])
				   : s[i] != form[i])
			return 0;
	return 1;
}

void pd_meta_warn(struct pd_diff *d, const struct pd_meta *a,
		  const struct pd_meta *b)
{
	static const struct {
		const char *what;
		size_t off;
	} f[] = {
		{ "scenarios", offsetof(struct pd_meta, scenario) },
		{ "compilers", offsetof(struct pd_meta, compiler) },
		{ "build flags", offsetof(struct pd_meta, flags) },
		{ "targets", offsetof(struct pd_meta, target) },
		{ "datasets", offsetof(struct pd_meta, dataset) },
		{ "cache states", offsetof(struct pd_meta, cache) },
		{ "hosts", offsetof(struct pd_meta, host) },
	};
	size_t i, n0 = d->warnings.n;

	for (i = 0; i < PD_ARRAY_SIZE(f); i++) {
		const char *x = *(char *const *)((const char *)a + f[i].off);
		const char *y = *(char *const *)((const char *)b + f[i].off);

		if (x && y && strcmp(x, y))
			pd_diff_warn(d, "%s differ: baseline %s, candidate %s",
				     f[i].what, x, y);
	}
	/* ISO 8601 dates and times of one form order as strings */
	if (a->commit_date && b->commit_date && iso_date(a->commit_date) &&
	    iso_date(b->commit_date) &&
	    strlen(a->commit_date) == strlen(b->commit_date) &&
	    strcmp(a->commit_date, b->commit_date) > 0)
		pd_diff_warn(d,
			     "the baseline's commit (%s) is newer than the"
			     " candidate's (%s): are the sides reversed?",
			     a->commit_date, b->commit_date);
	/* What differs between the builds is read first: to the front. */
	if (n0 && n0 < d->warnings.n) {
		size_t nw = d->warnings.n - n0;
		char **t = pd_xmalloc(n0 * sizeof(*t));

		memcpy(t, d->warnings.v, n0 * sizeof(*t));
		memmove(d->warnings.v, d->warnings.v + n0, nw * sizeof(*t));
		memcpy(d->warnings.v + nw, t, n0 * sizeof(*t));
		free(t);
	}
}

int pd_expand_bundle(const char *dir, struct pd_run_paths *files,
		     struct pd_series_list *keys, struct pd_bundle *b,
		     struct pd_meta *meta, const char **stat,
		     struct pd_err *err)
{
	const char *stat_path = NULL;
	static const struct pd_bundle_key any = { "?", "?", "?", NULL };
	struct pd_import_opts none;
	struct pd_err serr;
	size_t i, n = 0;
	int rc;

	memset(&none, 0, sizeof(none));
	rc = pd_bundle_read(b, dir, &any, err);
	if (rc < 0)
		return rc;
	for (i = 0; i < b->files.n; i++) {
		const struct pd_bundle_file *bf = &b->files.v[i];
		const struct pd_format *fmt;
		struct pd_series k;

		if (bf->skip)
			continue; /* notes, run_args: not profiles */
		memset(&serr, 0, sizeof(serr));
		fmt = pd_import_sniff(bf->path, &none, &serr);
		if (fmt && !strcmp(fmt->name, "perf-stat")) {
			/* counters of the run, not a run of their own */
			if (!stat_path)
				stat_path = bf->path;
			continue;
		}
		if (!fmt)
			continue;
		k.cache = bf->cache		  ? bf->cache
			  : strcmp(b->cache, "?") ? b->cache
						  : PD_CACHE_UNSPECIFIED;
		k.tool = pd_tool_name(bf->rel, fmt->name, NULL);
		PD_VEC_PUSH(files, bf->path);
		PD_VEC_PUSH(keys, k);
		n++;
	}
	if (!n && stat_path) { /* only counters: they are the run */
		struct pd_series k = { PD_CACHE_UNSPECIFIED, "perf-stat" };

		if (strcmp(b->cache, "?"))
			k.cache = b->cache;
		PD_VEC_PUSH(files, stat_path);
		PD_VEC_PUSH(keys, k);
		n++;
		stat_path = NULL;
	}
	if (!n)
		return pd_err_set(err, PD_EEMPTY,
				  "error: %s: no supported profile under"
				  " profiles/",
				  dir);
	if (stat)
		*stat = stat_path;
	pd_meta_from_json(meta, b->build_meta);
	if (!meta->cache && strcmp(b->cache, "?"))
		meta->cache = pd_xstrdup(b->cache);
	return 0;
}

void pd_side_provenance(struct pd_diff *d, int cand, const struct pd_bundle *b,
			const char *tool, const char *const *paths, size_t n)
{
	struct pd_buf t = PD_BUF_INIT;
	size_t i;

	if (b) {
		/* The runs' own cache states: one, or each that occurs. */
		const char *c[2] = { NULL, NULL };
		size_t k;

		for (i = 0; i < n; i++)
			for (k = 0; k < b->files.n; k++)
				if (!strcmp(b->files.v[k].path, paths[i]) &&
				    b->files.v[k].cache) {
					const char *x = b->files.v[k].cache;

					if (!c[0] || !strcmp(c[0], x))
						c[0] = x;
					else
						c[1] = x;
				}
		pd_buf_addf(&t, "commit %s, scenario %s, cache %s%s%s%s%s; ",
			    b->sha, b->scenario,
			    c[0] ? c[0] : PD_CACHE_UNSPECIFIED,
			    c[1] ? " and " : "", c[1] ? c[1] : "",
			    tool ? ", tool " : "", tool ? tool : "");
	}
	if (b || n > 1) {
		pd_buf_addf(&t, "%zu run%s:", n, n == 1 ? "" : "s");
		for (i = 0; i < n; i++) {
			const char *rel = paths[i];
			size_t k = b ? strlen(b->dir) : 0;

			/* Inside a bundle, its own paths are enough. */
			if (b && !strncmp(rel, b->dir, k) && rel[k] == '/')
				rel += k + 1;
			pd_buf_addf(&t, "%s %s", i ? "," : "", rel);
		}
		pd_diff_provenance(d, cand, "%s", t.buf);
	}
	pd_buf_release(&t);
}

int pd_attach_stat(struct pd_profile *p, const char *path,
		   const struct pd_import_opts *io, struct pd_err *err)
{
	struct pd_profile s;
	size_t i;
	int rc;

	pd_profile_init(&s);
	rc = pd_import(&s, path, io, err);
	if (rc < 0) {
		pd_profile_release(&s);
		return rc;
	}
	for (i = 0; i < s.tables.n; i++)
		PD_VEC_PUSH(&p->tables, s.tables.v[i]);
	s.tables.n = 0;
	for (i = 0; i < s.notes.n; i++)
		pd_profile_note(p, "%s", s.notes.v[i]);
	pd_profile_release(&s);
	return 0;
}
