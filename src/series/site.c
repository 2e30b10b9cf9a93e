/*
 * The whole history as a static site (docs/cli.md, "perfdiff site"): an
 * index of every scenario x cache x tool with a sparkline and the latest
 * verdict, a trend page per series whose points open the comparison of
 * that commit with its predecessor, and a page of every alert.
 * Incremental: a comparison page is made again only when the runs of its
 * two commits changed (DIR/.perfdiff-site remembers); the index, alerts
 * and trend pages are rewritten each time.
 */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compare/side.h"
#include "core/file.h"
#include "core/hash.h"
#include "core/limits.h"
#include "core/out.h"
#include "core/sort.h"
#include "core/xalloc.h"
#include "model/func.h"
#include "report/report.h"
#include "report/site.h"
#include "series/culprit.h"
#include "series/site.h"
#include "series/trend.h"
#include "stats/diff.h"

/* Bytes safe in a file name and a URL; others become _XX. */
void pd_site_slug(struct pd_buf *b, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '-' || c == '.')
			pd_buf_addch(b, (char)c);
		else
			pd_buf_addf(b, "_%02x", c);
	}
}

void pd_site_slug_bound(struct pd_buf *b, size_t from, const void *whole,
			size_t n, int force)
{
	struct pd_sha256 h;
	char hex[65];
	size_t keep = PD_SITE_NAME_MAX - 18, i;

	if (!force && b->len - from <= PD_SITE_NAME_MAX)
		return;
	if (b->len - from < keep)
		keep = b->len - from;
	/* never half of an _XX */
	for (i = keep > 2 ? keep - 2 : 0; i < keep; i++)
		if (b->buf[from + i] == '_')
			keep = i;
	pd_sha256_init(&h);
	pd_sha256_add(&h, whole, n);
	pd_sha256_hex(&h, hex);
	b->len = from + keep;
	b->buf[b->len] = 0;
	pd_buf_addf(b, "_h%.16s", hex);
	/* a page's name fits a file name, whatever its key */
	assert(b->len - from <= PD_SITE_NAME_MAX);
}

static int by_slug(const void *a, const void *b)
{
	const struct pd_site_key *x = *(struct pd_site_key *const *)a;
	const struct pd_site_key *y = *(struct pd_site_key *const *)b;

	return strcmp(x->slug, y->slug);
}

/*
 * Each series' slug bounded (PD_SITE_NAME_MAX) and its own: "--" joins
 * parts that may hold "--" themselves (a--b, c and a, b--c), so series
 * whose slugs meet are told apart by a hash of their key, as long ones
 * are.
 */
static void unique_slugs(struct pd_site *s, struct pd_buf *b)
{
	struct pd_site_key **by = pd_xcalloc(s->keys.n + 1, sizeof(*by));
	struct pd_buf whole = PD_BUF_INIT;
	unsigned char *same = pd_xcalloc(s->keys.n + 1, 1);
	size_t i;

	for (i = 0; i < s->keys.n; i++)
		by[i] = &s->keys.v[i];
	pd_sort(by, s->keys.n, sizeof(*by), by_slug);
	for (i = 0; i + 1 < s->keys.n; i++)
		if (!strcmp(by[i]->slug, by[i + 1]->slug))
			same[i] = same[i + 1] = 1;
	for (i = 0; i < s->keys.n; i++) {
		struct pd_site_key *k = by[i];

		/* the key, its parts apart */
		pd_buf_reset(&whole);
		pd_buf_add(&whole, k->scenario, strlen(k->scenario) + 1);
		pd_buf_add(&whole, k->cache, strlen(k->cache) + 1);
		pd_buf_adds(&whole, k->tool);
		pd_buf_reset(b);
		pd_buf_adds(b, k->slug);
		pd_site_slug_bound(b, 0, whole.buf, whole.len, same[i]);
		free(k->slug);
		k->slug = pd_xstrdup(b->buf);
	}
	pd_buf_release(&whole);
	free(same);
	free(by);
}

int pd_site_keys(struct pd_db *db, struct pd_site *s, struct pd_err *err)
{
	struct pd_st *st = pd_db_stmt(db, "q_site_keys", err);
	struct pd_buf slug = PD_BUF_INIT;
	size_t i;
	int rc;

	if (!st)
		return -1;
	while ((rc = pd_st_step(st)) == PD_ST_ROW) {
		struct pd_site_key k;

		k.scenario = pd_xstrdup(pd_st_col_text(st, 0));
		k.cache = pd_xstrdup(pd_st_col_text(st, 1));
		k.tool = pd_xstrdup(pd_st_col_text(st, 2));
		k.runs = (size_t)pd_st_col_i64(st, 3);
		pd_buf_reset(&slug);
		pd_site_slug(&slug, k.scenario);
		pd_buf_adds(&slug, "--");
		pd_site_slug(&slug, k.cache);
		pd_buf_adds(&slug, "--");
		pd_site_slug(&slug, k.tool);
		k.slug = pd_xstrdup(slug.buf);
		PD_VEC_PUSH(&s->keys, k);
	}
	pd_st_reset(st);
	if (rc != PD_ST_DONE) {
		pd_buf_release(&slug);
		pd_db_fail(db, err, "listing the series");
		return -1;
	}
	unique_slugs(s, &slug);
	pd_buf_release(&slug);
	for (i = 0; i < s->keys.n; i++) {
		struct pd_site_series ss;

		memset(&ss, 0, sizeof(ss));
		ss.key = &s->keys.v[i];
		PD_VEC_PUSH(&s->series, ss);
	}
	return 0;
}

void pd_site_release(struct pd_site *s)
{
	size_t i;

	pd_git_lines_free(s->order, s->norder);
	s->order = NULL;
	s->norder = 0;
	for (i = 0; i < s->keys.n; i++) {
		free(s->keys.v[i].scenario);
		free(s->keys.v[i].cache);
		free(s->keys.v[i].tool);
		free(s->keys.v[i].slug);
	}
	for (i = 0; i < s->series.n; i++) {
		pd_trend_release(&s->series.v[i].t);
		free(s->series.v[i].page);
	}
	for (i = 0; i < s->old.n; i++)
		free(s->old.v[i]);
	for (i = 0; i < s->now.n; i++)
		free(s->now.v[i]);
	PD_VEC_FREE(&s->keys);
	PD_VEC_FREE(&s->series);
	PD_VEC_FREE(&s->old);
	PD_VEC_FREE(&s->now);
}

static int make_dir(const char *path, struct pd_err *err)
{
	if (mkdir(path, 0777) == 0 || errno == EEXIST)
		return 0;
	pd_err_set(err, PD_EIO, "error: %s: cannot create: %s", path,
		   strerror(errno));
	return -1;
}

/* A page of the site's root, rendered by render, written whole. */
static int write_page(const struct pd_site *s, const char *name,
		      int (*render)(struct pd_buf *,
				    const struct pd_site_series *, size_t),
		      struct pd_err *err)
{
	struct pd_buf b = PD_BUF_INIT, path = PD_BUF_INIT;
	struct pd_out out;
	int rc = render(&b, s->series.v, s->series.n);

	pd_buf_addf(&path, "%s/%s", s->dir, name);
	if (rc == 0)
		rc = pd_out_open(&out, path.buf, err);
	else
		pd_err_set(err, PD_EIO,
			   "error: %s: the page's template is missing",
			   path.buf);
	if (rc == 0)
		rc = pd_out_close(&out, pd_report_put(out.f, &b), err);
	pd_buf_release(&path);
	pd_buf_release(&b);
	return rc ? -1 : 0;
}

/*
 * State entries are "path\tsource". Ordered as whole strings, they are in
 * path order too (no path holds a byte below the tab); by_path compares
 * the paths alone.
 */
static int by_entry(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int by_path(const void *a, const void *b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;
	size_t nx = strcspn(x, "\t"), ny = strcspn(y, "\t");
	int c = memcmp(x, y, nx < ny ? nx : ny);

	return c ? c : (nx > ny) - (nx < ny);
}

/* The previous build's comparison pages and what they were made from. */
static void state_load(struct pd_site *s)
{
	struct pd_buf path = PD_BUF_INIT;
	char line[4096];
	FILE *f;

	pd_buf_addf(&path, "%s/.perfdiff-site", s->dir);
	f = fopen(path.buf, "r");
	pd_buf_release(&path);
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (strchr(line, '\t'))
			PD_VEC_PUSH(&s->old, pd_xstrdup(line));
	}
	fclose(f);
	if (s->old.n)
		pd_sort(s->old.v, s->old.n, sizeof(*s->old.v), by_entry);
}

static int state_has(const struct pd_site *s, const char *entry)
{
	return s->old.n && pd_bsearch(&entry, s->old.v, s->old.n,
				      sizeof(*s->old.v), by_entry);
}

/* Comparison pages of the last build that this one no longer has. */
static void drop_stale(struct pd_site *s)
{
	struct pd_buf path = PD_BUF_INIT;
	size_t i;

	if (s->now.n)
		pd_sort(s->now.v, s->now.n, sizeof(*s->now.v), by_entry);
	for (i = 0; i < s->old.n; i++) {
		const char *rel = s->old.v[i];
		size_t n = strcspn(rel, "\t");

		/* only pages under c/, as the state names them */
		if ((s->now.n && pd_bsearch(&rel, s->now.v, s->now.n,
					    sizeof(*s->now.v), by_path)) ||
		    strncmp(rel, "c/", 2) || strstr(rel, ".."))
			continue;
		pd_buf_reset(&path);
		pd_buf_addf(&path, "%s/%.*s", s->dir, (int)n, rel);
		unlink(path.buf);
	}
	pd_buf_release(&path);
}

static int state_write(struct pd_site *s, struct pd_err *err)
{
	struct pd_buf path = PD_BUF_INIT;
	struct pd_out out;
	size_t i;
	int rc;

	drop_stale(s);
	pd_buf_addf(&path, "%s/.perfdiff-site", s->dir);
	rc = pd_out_open(&out, path.buf, err);
	pd_buf_release(&path);
	if (rc)
		return -1;
	for (i = 0; i < s->now.n; i++)
		fprintf(out.f, "%s\n", s->now.v[i]);
	return pd_out_close(&out, ferror(out.f) ? -1 : 0, err);
}

/*
 * The reason alone of a comparison's error: the caller's line names the
 * page and the commits.
 */
static void reason(struct pd_buf *why, const struct pd_err *e, const char *path)
{
	const char *p = e->msg;
	size_t n = strlen(path);

	if (!strncmp(p, "error: ", 7))
		p += 7;
	if (!strncmp(p, path, n) && !strncmp(p + n, ": ", 2))
		p += n + 2;
	pd_buf_adds(why, p);
}

/*
 * The comparison of commit prev with sha of series k, as perfdiff compare
 * PREV SHA -f html -o path writes it with every default: the sides loaded
 * (compare/side.h), compared in the history's noise and rendered by the
 * HTML report with the mean tree of each side's runs. Its warnings are
 * the page's own: a site of hundreds of pages does not repeat them. 0, or
 * -1 with the reason in why.
 */
static int compare_page(const struct pd_site *s, const struct pd_site_key *k,
			struct pd_db *db, const char *prev, const char *sha,
			const char *path, struct pd_buf *why)
{
	struct pd_run_side side[2];
	struct pd_import_opts io;
	struct pd_settings set;
	struct pd_compare_opts o;
	struct pd_report_opts ro;
	struct pd_err e = PD_ERR_INIT;
	struct pd_funcs fn;
	struct pd_diff d;
	struct pd_out out;
	int rc;

	memset(side, 0, sizeof(side));
	memset(&io, 0, sizeof(io));
	memset(&o, 0, sizeof(o));
	memset(&ro, 0, sizeof(ro));
	pd_settings_default(&set);
	ro.top = 20;
	ro.warnings = 1;
	o.io = &io;
	o.db = s->db;
	o.tool = k->tool;
	o.want_mean = 1;
	o.set = &set;
	pd_funcs_init(&fn, 0);
	rc = pd_compare_stored(&side[0], prev, prev, k->scenario, k->cache, &e);
	if (rc == 0)
		rc = pd_compare_stored(&side[1], sha, sha, k->scenario,
				       k->cache, &e);
	if (rc == 0)
		rc = pd_compare_sides(side, db, &o, &fn, &d, &e);
	if (rc == 0) {
		rc = pd_out_open(&out, path, &e);
		if (rc == 0)
			rc = pd_out_close(
			    &out,
			    pd_report_html(
				out.f, &d, &ro,
				side[0].loaded ? side[0].l.mean : NULL,
				side[1].loaded ? side[1].l.mean : NULL, &fn),
			    &e);
		if (rc && !e.msg[0])
			pd_err_set(&e, PD_EIO, "error: %s: write failed", path);
		pd_diff_release(&d);
	}
	pd_run_side_release(&side[0]);
	pd_run_side_release(&side[1]);
	pd_funcs_release(&fn);
	if (rc)
		reason(why, &e, path);
	return rc ? -1 : 0;
}

/*
 * The way back, put in a comparison page after its <body> tag: the page
 * is perfdiff compare's own report, written whole, then read back once.
 */
static int add_nav(const char *path, const char *slug, struct pd_err *err)
{
	struct pd_buf out = PD_BUF_INIT;
	struct pd_out o;
	char *page;
	int rc;

	page =
	    pd_read_file(path, PD_LIMIT_SITE_PAGE, "PD_LIMIT_SITE_PAGE", err);
	if (!page) {
		pd_err_set(err, PD_EIO, "error: %s: the page went missing",
			   path);
		return -1;
	}
	rc = pd_site_compare_nav(&out, page, slug);
	free(page);
	if (rc <= 0) {
		if (rc < 0)
			pd_err_set(
			    err, PD_EIO,
			    "error: %s: the way back's template is missing",
			    path);
		pd_buf_release(&out);
		return rc;
	}
	rc = pd_out_open(&o, path, err);
	if (rc == 0) {
		rc = fwrite(out.buf, 1, out.len, o.f) == out.len ? 0 : -1;
		rc = pd_out_close(&o, rc, err);
	}
	pd_buf_release(&out);
	return rc;
}

/* The page of commit i of the series, relative to the site's root. */
static void page_path(struct pd_buf *b, const struct pd_site_key *k,
		      const char *sha)
{
	size_t from;

	pd_buf_addf(b, "c/%s/", k->slug);
	from = b->len;
	pd_site_slug(b, sha);
	pd_site_slug_bound(b, from, sha, strlen(sha), 0);
	pd_buf_adds(b, ".html");
}

static int series_link(const void *arg, size_t commit, struct pd_buf *url)
{
	const struct pd_site_series *ss = arg;

	if (commit >= ss->t.ncommits || !ss->page[commit])
		return 0;
	pd_buf_adds(url, "../");
	page_path(url, ss->key, ss->t.series.v[0].pts.v[commit].sha);
	return 1;
}

/* Which commits get a comparison page: the last ones and every alert's. */
static void choose_pages(const struct pd_site *s, struct pd_site_series *ss)
{
	size_t n = ss->t.ncommits, i;

	ss->page = pd_xcalloc(n + 1, 1);
	for (i = 1; i < n; i++)
		ss->page[i] = s->pages == 0 || i + s->pages >= n;
	for (i = 0; i < ss->t.alerts.n; i++)
		if (ss->t.alerts.v[i].at > 0 && ss->t.alerts.v[i].at < n)
			ss->page[ss->t.alerts.v[i].at] = 1;
}

static int commit_pages(struct pd_site *s, struct pd_db *db,
			struct pd_site_series *ss, struct pd_err *err)
{
	const struct pd_trend *t = &ss->t;
	struct pd_buf path = PD_BUF_INIT, entry = PD_BUF_INIT,
		      why = PD_BUF_INIT;
	size_t i;
	int rc = 0;

	pd_buf_addf(&path, "%s/c/%s", s->dir, ss->key->slug);
	if (make_dir(path.buf, err) < 0)
		rc = -1;
	for (i = 1; i < t->ncommits && rc == 0; i++) {
		const struct pd_tpoint *a = &t->series.v[0].pts.v[i - 1];
		const struct pd_tpoint *b = &t->series.v[0].pts.v[i];
		struct stat st;
		int r;

		if (!ss->page[i])
			continue;
		pd_buf_reset(&path);
		pd_buf_addf(&path, "%s/", s->dir);
		page_path(&path, ss->key, b->sha);
		/* what the page was made from: the two commits and their runs
		 */
		pd_buf_reset(&entry);
		pd_buf_addf(&entry, "%s\t%s %zu %s %zu",
			    path.buf + strlen(s->dir) + 1, a->sha, a->n, b->sha,
			    b->n);
		PD_VEC_PUSH(&s->now, pd_xstrdup(entry.buf));
		if (!s->rebuild && state_has(s, entry.buf) &&
		    stat(path.buf, &st) == 0) {
			s->kept++;
			continue;
		}
		pd_buf_reset(&why);
		r = compare_page(s, ss->key, db, a->sha, b->sha, path.buf,
				 &why);
		if (r < 0) {
			pd_err_set(err, PD_EIO,
				   "error: %s: the comparison of %s with %s"
				   " failed: %s",
				   path.buf, b->sha, a->sha,
				   why.len ? why.buf : "?");
			rc = -1;
		} else if (add_nav(path.buf, ss->key->slug, err) < 0) {
			rc = -1;
		} else
			s->made++;
	}
	pd_buf_release(&path);
	pd_buf_release(&entry);
	pd_buf_release(&why);
	return rc;
}

static int trend_page(const struct pd_site *s, struct pd_site_series *ss,
		      struct pd_err *err)
{
	struct pd_buf path = PD_BUF_INIT;
	struct pd_out out;
	int rc;

	pd_buf_addf(&path, "%s/s/%s.html", s->dir, ss->key->slug);
	rc = pd_out_open(&out, path.buf, err);
	pd_buf_release(&path);
	if (rc)
		return -1;
	ss->t.commit_url = s->commit_url;
	ss->t.page_link = series_link;
	ss->t.page_arg = ss;
	rc = pd_site_trend_html(out.f, &ss->t);
	return pd_out_close(&out, rc, err);
}

/* One scenario x cache x tool: its trend, pages and index entry. */
static int one_series(struct pd_site *s, struct pd_db *db,
		      struct pd_site_series *ss, struct pd_err *err)
{
	struct pd_trend_query q;

	memset(&q, 0, sizeof(q));
	q.key.scenario = ss->key->scenario;
	q.key.cache = ss->key->cache;
	q.key.tool = ss->key->tool;
	q.last = s->last;
	q.top = 10;
	q.threshold_pct = 5;
	q.order = s->order;
	q.norder = s->norder;
	/* with the states a team gave them; invalid ones are left out */
	if (pd_series_trend(db, &q, 0.001, &ss->t, err) < 0)
		return -1;
	choose_pages(s, ss);
	if (commit_pages(s, db, ss, err) < 0)
		return -1;
	return trend_page(s, ss, err);
}

int pd_site_build(struct pd_site *s, struct pd_err *err)
{
	struct pd_db db;
	struct pd_buf path = PD_BUF_INIT;
	size_t i;
	int rc = 0;

	if (s->repo) {
		struct pd_err gerr = PD_ERR_INIT;
		long n = pd_git_order(s->repo, &s->order, &gerr);

		if (n < 0) {
			pd_err_set(err, gerr.code, "error: %s", gerr.msg);
			return -1;
		}
		s->norder = (size_t)n;
	}
	if (pd_db_open_history(&db, s->db, err) < 0)
		return -1;
	if (pd_site_keys(&db, s, err) < 0) {
		pd_db_close(&db);
		return -1;
	}
	pd_buf_addf(&path, "%s/c", s->dir);
	if (make_dir(s->dir, err) < 0 || make_dir(path.buf, err) < 0)
		rc = -1;
	pd_buf_reset(&path);
	pd_buf_addf(&path, "%s/s", s->dir);
	if (rc == 0 && make_dir(path.buf, err) < 0)
		rc = -1;
	pd_buf_release(&path);
	if (rc == 0)
		state_load(s);
	for (i = 0; i < s->series.n && rc == 0; i++)
		rc = one_series(s, &db, &s->series.v[i], err);
	pd_db_close(&db);
	if (rc == 0)
		rc = write_page(s, "index.html", pd_site_index_html, err);
	if (rc == 0)
		rc = write_page(s, "alerts.html", pd_site_alerts_html, err);
	if (rc == 0)
		rc = state_write(s, err);
	return rc ? -1 : 0;
}
