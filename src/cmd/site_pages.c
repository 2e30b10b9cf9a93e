/*
 * The pages of perfdiff site (site.h): the index of series, the alerts,
 * and each series' trend page with a way back. Every name is escaped.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/site.h"
#include "core/blob.h"
#include "core/xalloc.h"
#include "report/report.h"

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
	qsort(by, s->keys.n, sizeof(*by), by_slug);
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

int pd_site_keys(struct pd_db *db, struct pd_site *s)
{
	struct pd_err err = PD_ERR_INIT;
	struct pd_st *st = pd_db_stmt(db, "q_site_keys", &err);
	struct pd_buf slug = PD_BUF_INIT;
	size_t i;
	int rc;

	if (!st) {
		pd_error("%s", err.msg);
		return -1;
	}
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
		pd_db_fail(db, &err, "listing the series");
		pd_error("%s", err.msg);
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

static void head(struct pd_buf *b, const char *title)
{
	const struct pd_blob *css = pd_blob_get("reports/trend.css");
	const struct pd_blob *site = pd_blob_get("reports/site.css");

	pd_buf_adds(b, "<!DOCTYPE html>\n<html lang=\"en\"><head>"
		       "<meta charset=\"utf-8\">\n<title>");
	pd_html_text(b, title);
	pd_buf_adds(b, "</title>\n<style>\n");
	if (css)
		pd_buf_adds(b, css->data);
	if (site)
		pd_buf_adds(b, site->data);
	pd_buf_adds(b, "</style></head><body>\n<h1>");
	pd_html_text(b, title);
	pd_buf_adds(b, "</h1>\n");
}

static int write_page(const struct pd_site *s, const char *name,
		      const struct pd_buf *b)
{
	struct pd_buf path = PD_BUF_INIT;
	struct pd_out out;
	int rc;

	pd_buf_addf(&path, "%s/%s", s->dir, name);
	rc = pd_out_open(&out, path.buf);
	pd_buf_release(&path);
	if (rc)
		return -1;
	return pd_out_close(&out, pd_report_put(out.f, b));
}

/* The total's means as a small line, the newest alert marked. */
static void sparkline(struct pd_buf *b, const struct pd_trend *t)
{
	const struct pd_tseries *s = &t->series.v[0];
	double lo = 0, hi = 0, x, y;
	size_t i, n = s->pts.n, k = 0;

	for (i = 0; i < n; i++) {
		if (!s->pts.v[i].n)
			continue;
		if (!k++ || s->pts.v[i].mean < lo)
			lo = s->pts.v[i].mean;
		if (k == 1 || s->pts.v[i].mean > hi)
			hi = s->pts.v[i].mean;
	}
	pd_buf_adds(b, "<svg class=\"spark\" viewBox=\"0 0 120 24\""
		       " xmlns=\"http://www.w3.org/2000/svg\"><polyline"
		       " points=\"");
#define SX(i) (n > 1 ? 2 + 116.0 * (double)(i) / (double)(n - 1) : 60.0)
#define SY(v) (hi > lo ? 21 - 18 * ((v)-lo) / (hi - lo) : 12.0)
	for (i = 0; i < n; i++)
		if (s->pts.v[i].n)
			pd_buf_addf(b, "%.1f,%.1f ", SX(i),
				    SY(s->pts.v[i].mean));
	pd_buf_adds(b, "\"/>");
	if (t->alerts.n) {
		i = t->alerts.v[t->alerts.n - 1].at;
		x = SX(i);
		y = SY(s->pts.v[i].mean);
		pd_buf_addf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\"/>", x,
			    y);
	}
#undef SX
#undef SY
	pd_buf_adds(b, "</svg>");
}

/* The newest alert of a series, or why there is none. */
static void verdict(struct pd_buf *b, const struct pd_trend *t)
{
	struct pd_buf line = PD_BUF_INIT;
	struct pd_trend_need nd;

	if (t->alerts.n) {
		size_t a = t->alerts.n - 1;
		int up = pd_alert_improves(t, a);

		pd_fmt_alert(&line, t, a, 3);
		pd_buf_adds(b, up ? "<span class=\"improved\">"
				  : "<span class=\"regressed\">");
		pd_html_text(b, line.buf);
		pd_buf_adds(b, "</span>");
	} else if (t->ncommits < 2) {
		pd_buf_adds(b, "one commit so far");
	} else if (pd_trend_blind(t, &nd)) {
		/* no change point could have been found: not "steady" */
		pd_buf_addf(b, "too few commits to tell: %zu more",
			    nd.more_commits);
	} else if (pd_trend_watching(t)) {
		pd_buf_adds(b,
			    "<span class=\"steadytext\">steady</span> but for"
			    " the newest commits");
	} else {
		pd_buf_adds(b, "<span class=\"steadytext\">steady</span>");
	}
	pd_buf_release(&line);
}

static void series_row(struct pd_buf *b, const struct pd_site_series *ss,
		       size_t others)
{
	const struct pd_trend *t = &ss->t;
	const struct pd_tseries *tot = &t->series.v[0];
	const struct pd_tpoint *last =
	    tot->pts.n ? &tot->pts.v[tot->pts.n - 1] : NULL;

	pd_buf_adds(b, "<tr><td><a href=\"s/");
	pd_html_text(b, ss->key->slug);
	pd_buf_adds(b, ".html\">");
	pd_html_text(b, ss->key->scenario);
	pd_buf_adds(b, "</a></td><td>");
	pd_html_text(b, ss->key->cache);
	pd_buf_adds(b, "</td><td>");
	pd_html_text(b, ss->key->tool);
	pd_buf_addf(b, "</td><td>%zu</td><td>%zu</td><td>", t->ncommits,
		    ss->key->runs);
	if (last) {
		pd_html_text(b, last->date ? last->date : "");
		pd_buf_adds(b, "</td><td>");
	} else
		pd_buf_adds(b, "</td><td>");
	sparkline(b, t);
	pd_buf_adds(b, "</td><td class=\"verdict\">");
	verdict(b, t);
	if (others)
		pd_buf_addf(b,
			    " (<a href=\"alerts.html\">one change with %zu"
			    " other series</a>)",
			    others);
	pd_buf_adds(b, "</td></tr>\n");
}

struct alert_ref {
	const struct pd_site_series *ss;
	size_t i;
	const char *date;
	size_t group; /* the change it belongs to: its first alert's index */
};

static int newest_first(const void *a, const void *b)
{
	const struct alert_ref *x = a, *y = b;
	int c = strcmp(y->date, x->date);

	/* one moment's alerts in the index's order of series */
	return c ? c : (x->ss > y->ss) - (x->ss < y->ss);
}

static int by_group(const void *a, const void *b)
{
	const struct alert_ref *x = a, *y = b;

	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	return (x->ss > y->ss) - (x->ss < y->ss);
}

static const char *first_bad(const struct alert_ref *r)
{
	const struct pd_trend *t = &r->ss->t;

	return t->series.v[0].pts.v[t->alerts.v[r->i].at].sha;
}

/* Whether an alert names function k of t: moved there, no total, no counter. */
static int names_function(const struct pd_trend *t, size_t k)
{
	return k != 0 && !t->series.v[k].counter;
}

/* Whether alert b names a function that alert a names. */
static int share_function(const struct alert_ref *a, const struct alert_ref *b)
{
	const struct pd_alert *x = &a->ss->t.alerts.v[a->i];
	const struct pd_alert *y = &b->ss->t.alerts.v[b->i];
	size_t i, j;

	for (i = 0; i < x->series.n; i++) {
		if (!names_function(&a->ss->t, x->series.v[i]))
			continue;
		for (j = 0; j < y->series.n; j++)
			if (names_function(&b->ss->t, y->series.v[j]) &&
			    !strcmp(a->ss->t.series.v[x->series.v[i]].name,
				    b->ss->t.series.v[y->series.v[j]].name))
				return 1;
	}
	return 0;
}

static int has_function(const struct alert_ref *r)
{
	const struct pd_alert *al = &r->ss->t.alerts.v[r->i];
	size_t i;

	for (i = 0; i < al->series.n; i++)
		if (names_function(&r->ss->t, al->series.v[i]))
			return 1;
	return 0;
}

/*
 * Whether two alerts of different series are one change seen twice (by
 * another tool or cache state): the same scenario, first bad commit and
 * direction, and a function in common, or none named by either.
 */
static int same_change(const struct alert_ref *a, const struct alert_ref *b)
{
	if (a->ss == b->ss ||
	    strcmp(a->ss->key->scenario, b->ss->key->scenario) ||
	    strcmp(first_bad(a), first_bad(b)) ||
	    pd_alert_improves(&a->ss->t, a->i) !=
		pd_alert_improves(&b->ss->t, b->i))
		return 0;
	if (!has_function(a) && !has_function(b))
		return 1;
	return share_function(a, b);
}

/*
 * Every alert of the site, newest first, those of one change together:
 * sets *n and *changes. Two alerts are one change when same_change links
 * them, directly or through others.
 */
static struct alert_ref *site_alerts(const struct pd_site *s, size_t *n,
				     size_t *changes)
{
	PD_VEC(struct alert_ref) refs = PD_VEC_INIT;
	size_t i, j, k;
	int grew;

	for (i = 0; i < s->series.n; i++) {
		const struct pd_trend *t = &s->series.v[i].t;

		for (j = 0; j < t->alerts.n; j++) {
			struct alert_ref r;
			const char *d =
			    t->series.v[0].pts.v[t->alerts.v[j].at].date;

			r.ss = &s->series.v[i];
			r.i = j;
			r.date = d ? d : "";
			PD_VEC_PUSH(&refs, r);
		}
	}
	if (refs.n)
		qsort(refs.v, refs.n, sizeof(*refs.v), newest_first);
	for (i = 0; i < refs.n; i++)
		refs.v[i].group = i;
	/* linked alerts take the earlier change's number, until none moves */
	do {
		grew = 0;
		for (i = 0; i < refs.n; i++)
			for (j = i + 1; j < refs.n; j++) {
				k = refs.v[i].group < refs.v[j].group
					? refs.v[i].group
					: refs.v[j].group;
				if (refs.v[i].group == refs.v[j].group ||
				    !same_change(&refs.v[i], &refs.v[j]))
					continue;
				refs.v[i].group = refs.v[j].group = k;
				grew = 1;
			}
	} while (grew);
	if (refs.n)
		qsort(refs.v, refs.n, sizeof(*refs.v), by_group);
	*changes = 0;
	for (i = 0; i < refs.n; i++)
		*changes += !i || refs.v[i].group != refs.v[i - 1].group;
	*n = refs.n;
	return refs.v;
}

/* How many alerts are of the change of refs[i], itself included. */
static size_t same_group(const struct alert_ref *refs, size_t n, size_t i)
{
	size_t j, c = 0;

	for (j = 0; j < n; j++)
		c += refs[j].group == refs[i].group;
	return c;
}

int pd_site_index(const struct pd_site *s)
{
	struct pd_buf b = PD_BUF_INIT;
	size_t i, j, n, alerts = 0;
	/* the number of changes, each counted once however many saw it */
	struct alert_ref *refs = site_alerts(s, &n, &alerts);
	int rc;

	head(&b, "perfdiff: the history");
	pd_buf_addf(&b,
		    "<nav><a href=\"alerts.html\">alerts (%zu)</a></nav>\n"
		    "<p class=\"meta\">%zu series; each opens its trend, whose"
		    " points open the comparison of a commit with the one"
		    " before.</p>\n",
		    alerts, s->series.n);
	pd_buf_adds(&b, "<table class=\"series\"><tr><th>scenario</th>"
			"<th>cache</th><th>tool</th><th>commits</th>"
			"<th>runs</th><th>latest</th><th>total</th>"
			"<th>latest change</th></tr>\n");
	for (i = 0; i < s->series.n; i++) {
		const struct pd_site_series *ss = &s->series.v[i];
		size_t others = 0;

		/* the other series that saw its latest change */
		for (j = 0; j < n && ss->t.alerts.n; j++)
			if (refs[j].ss == ss && refs[j].i + 1 == ss->t.alerts.n)
				others = same_group(refs, n, j) - 1;
		series_row(&b, ss, others);
	}
	pd_buf_adds(&b, "</table>\n</body></html>\n");
	rc = write_page(s, "index.html", &b);
	pd_buf_release(&b);
	free(refs);
	return rc;
}

static void series_link(struct pd_buf *b, const struct pd_site_key *k,
			int whole)
{
	pd_buf_adds(b, "<a href=\"s/");
	pd_html_text(b, k->slug);
	pd_buf_adds(b, ".html\">");
	if (whole) {
		pd_html_text(b, k->scenario);
		pd_buf_adds(b, " / ");
	}
	pd_html_text(b, k->cache);
	pd_buf_adds(b, " / ");
	pd_html_text(b, k->tool);
	pd_buf_adds(b, "</a>");
}

/* An alert's series, date, line and comparison. */
static void alert_body(struct pd_buf *b, const struct alert_ref *r)
{
	const struct pd_trend *t = &r->ss->t;
	size_t at = t->alerts.v[r->i].at;
	struct pd_buf line = PD_BUF_INIT;

	pd_fmt_alert(&line, t, r->i, 5);
	series_link(b, r->ss->key, 1);
	pd_buf_adds(b, ", ");
	pd_html_text(b, r->date);
	pd_buf_adds(b, ": ");
	pd_html_text(b, line.buf);
	pd_buf_reset(&line);
	if (t->page_link && t->page_link(t->page_arg, at, &line)) {
		/* the link is relative to s/; the alerts page is at the root */
		pd_buf_adds(b, " (<a href=\"");
		pd_html_text(b, line.buf + 3);
		pd_buf_adds(b, "\">the comparison</a>)");
	}
	pd_buf_release(&line);
}

/*
 * One change: an alert of one series as a paragraph; one seen by several
 * series (tools, cache states) as one entry naming them, then each
 * series' own alert.
 */
static void change_entry(struct pd_buf *b, const struct alert_ref *r, size_t n)
{
	const char *cls = pd_alert_improves(&r->ss->t, r->i)
			      ? "<p class=\"improvement\">improvement: "
			      : "<p class=\"alert\">";
	size_t i;

	pd_buf_adds(b, cls);
	if (n == 1) {
		alert_body(b, r);
		pd_buf_adds(b, "</p>\n");
		return;
	}
	pd_html_text(b, r->ss->key->scenario);
	/* a sha is hex: no escaping; as short as the alert lines have it */
	pd_buf_addf(
	    b, ": one change at %.10s, seen by %zu series: ", first_bad(r), n);
	for (i = 0; i < n; i++) {
		if (i)
			pd_buf_adds(b, ", ");
		series_link(b, r[i].ss->key, 0);
	}
	pd_buf_adds(b, "</p>\n<ul class=\"seen\">\n");
	for (i = 0; i < n; i++) {
		pd_buf_adds(b, "<li>");
		alert_body(b, &r[i]);
		pd_buf_adds(b, "</li>\n");
	}
	pd_buf_adds(b, "</ul>\n");
}

int pd_site_alerts(const struct pd_site *s)
{
	struct pd_buf b = PD_BUF_INIT;
	size_t n, changes, i, j;
	struct alert_ref *refs = site_alerts(s, &n, &changes);
	int rc;

	head(&b, "perfdiff: alerts");
	pd_buf_adds(&b, "<nav><a href=\"index.html\">all series</a></nav>\n");
	if (!n)
		pd_buf_adds(&b, "<p class=\"steady\">No change points in any"
				" series.</p>\n");
	else if (changes < n)
		pd_buf_addf(&b,
			    "<p class=\"meta\">%zu alerts of %zu change%s: the"
			    " alerts of one scenario at one first bad commit,"
			    " in one direction, that name a function in common"
			    " (or none) are one change, seen by several tools"
			    " or cache states.</p>\n",
			    n, changes, changes == 1 ? "" : "s");
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && refs[j].group == refs[i].group; j++)
			;
		change_entry(&b, &refs[i], j - i);
	}
	pd_buf_adds(&b, "</body></html>\n");
	rc = write_page(s, "alerts.html", &b);
	pd_buf_release(&b);
	free(refs);
	return rc;
}

int pd_site_trend_page(FILE *f, const struct pd_site *s,
		       const struct pd_site_series *ss)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	const char *body;
	int rc;

	(void)s;
	if (!m)
		return -1;
	rc = pd_trend_html(m, &ss->t);
	if (fclose(m) != 0 || rc) {
		free(text);
		return -1;
	}
	/* the trend report as it is, with the way back to the index */
	body = strstr(text, "<body>\n");
	if (body) {
		body += 7;
		fwrite(text, 1, (size_t)(body - text), f);
		fputs("<nav><a href=\"../index.html\">all series</a> &middot; "
		      "<a href=\"../alerts.html\">alerts</a> &middot; a point"
		      " with a ring opens the comparison with the commit"
		      " before</nav>\n",
		      f);
		fputs(body, f);
	} else
		fputs(text, f);
	free(text);
	return ferror(f) ? -1 : 0;
}
