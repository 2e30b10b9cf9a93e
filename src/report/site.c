/*
 * The pages of perfdiff site (report/site.h): the index of series with
 * their sparklines and verdicts, the alerts grouped by change, and the way
 * back on the trend and comparison pages, each filled into its template
 * of reports/. Every name is escaped.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/blob.h"
#include "core/err.h"
#include "core/sort.h"
#include "core/vec.h"
#include "report/report.h"
#include "report/site.h"
#include "report/tpl_int.h"

/* The site's stylesheet: the trend report's, then the site's own. */
static void style(struct pd_buf *b)
{
	const struct pd_blob *css = pd_blob_get("reports/trend.css");
	const struct pd_blob *site = pd_blob_get("reports/site.css");

	if (css)
		pd_buf_adds(b, css->data);
	if (site)
		pd_buf_adds(b, site->data);
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
		pd_fmt_alert_state(&line, t, a);
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
static struct alert_ref *site_alerts(const struct pd_site_series *series,
				     size_t nseries, size_t *n, size_t *changes)
{
	PD_VEC(struct alert_ref) refs = PD_VEC_INIT;
	size_t i, j, k;
	int grew;

	for (i = 0; i < nseries; i++) {
		const struct pd_trend *t = &series[i].t;

		for (j = 0; j < t->alerts.n; j++) {
			struct alert_ref r;
			const char *d =
			    t->series.v[0].pts.v[t->alerts.v[j].at].date;

			r.ss = &series[i];
			r.i = j;
			r.date = d ? d : "";
			PD_VEC_PUSH(&refs, r);
		}
	}
	if (refs.n)
		pd_sort(refs.v, refs.n, sizeof(*refs.v), newest_first);
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
		pd_sort(refs.v, refs.n, sizeof(*refs.v), by_group);
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

struct index_slots {
	const struct pd_site_series *series;
	size_t n, changes;
	const struct alert_ref *refs;
	size_t nrefs;
};

static int index_slot(struct pd_buf *b, const char *name, size_t k, void *arg)
{
	const struct index_slots *x = arg;
	size_t i, j;

	if (pd_tpl_is(name, k, "style")) {
		style(b);
	} else if (pd_tpl_is(name, k, "changes")) {
		pd_buf_addf(b, "%zu", x->changes);
	} else if (pd_tpl_is(name, k, "series")) {
		pd_buf_addf(b, "%zu", x->n);
	} else if (pd_tpl_is(name, k, "rows")) {
		for (i = 0; i < x->n; i++) {
			const struct pd_site_series *ss = &x->series[i];
			size_t others = 0;

			/* the other series that saw its latest change */
			for (j = 0; j < x->nrefs && ss->t.alerts.n; j++)
				if (x->refs[j].ss == ss &&
				    x->refs[j].i + 1 == ss->t.alerts.n)
					others =
					    same_group(x->refs, x->nrefs, j) -
					    1;
			series_row(b, ss, others);
		}
	} else
		return 0;
	return 1;
}

int pd_site_index_html(struct pd_buf *b, const struct pd_site_series *series,
		       size_t n)
{
	const struct pd_blob *tpl = pd_blob_get("reports/site-index.html");
	struct index_slots x;
	struct alert_ref *refs;

	if (!tpl)
		return PD_EIO;
	x.series = series;
	x.n = n;
	/* the number of changes, each counted once however many saw it */
	refs = site_alerts(series, n, &x.nrefs, &x.changes);
	x.refs = refs;
	pd_tpl_fill(b, tpl->data, index_slot, &x);
	free(refs);
	return 0;
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
	pd_fmt_alert_state(&line, t, r->i);
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

struct alerts_slots {
	const struct alert_ref *refs;
	size_t n, changes;
};

static int alerts_slot(struct pd_buf *b, const char *name, size_t k, void *arg)
{
	const struct alerts_slots *x = arg;
	size_t i, j;

	if (pd_tpl_is(name, k, "style")) {
		style(b);
	} else if (pd_tpl_is(name, k, "summary")) {
		if (!x->n)
			pd_buf_adds(b, "<p class=\"steady\">No change points in"
				       " any series.</p>\n");
		else if (x->changes < x->n)
			pd_buf_addf(
			    b,
			    "<p class=\"meta\">%zu alerts of %zu change%s: the"
			    " alerts of one scenario at one first bad commit,"
			    " in one direction, that name a function in common"
			    " (or none) are one change, seen by several tools"
			    " or cache states.</p>\n",
			    x->n, x->changes, x->changes == 1 ? "" : "s");
	} else if (pd_tpl_is(name, k, "changes")) {
		for (i = 0; i < x->n; i = j) {
			for (j = i + 1;
			     j < x->n && x->refs[j].group == x->refs[i].group;
			     j++)
				;
			change_entry(b, &x->refs[i], j - i);
		}
	} else
		return 0;
	return 1;
}

int pd_site_alerts_html(struct pd_buf *b, const struct pd_site_series *series,
			size_t n)
{
	const struct pd_blob *tpl = pd_blob_get("reports/site-alerts.html");
	struct alerts_slots x;
	struct alert_ref *refs;

	if (!tpl)
		return PD_EIO;
	refs = site_alerts(series, n, &x.n, &x.changes);
	x.refs = refs;
	pd_tpl_fill(b, tpl->data, alerts_slot, &x);
	free(refs);
	return 0;
}

int pd_site_trend_html(FILE *f, const struct pd_trend *t)
{
	const struct pd_blob *nav = pd_blob_get("reports/site-trend-nav.html");
	char *text = NULL;
	size_t len = 0;
	FILE *m;
	const char *body;
	int rc;

	if (!nav)
		return PD_EIO;
	m = open_memstream(&text, &len);
	if (!m)
		return PD_EIO;
	rc = pd_trend_html(m, t);
	if (fclose(m) != 0 || rc) {
		free(text);
		return PD_EIO;
	}
	/* the trend report as it is, with the way back after <body> */
	body = strstr(text, "<body>\n");
	if (body) {
		body += 7;
		fwrite(text, 1, (size_t)(body - text), f);
		fputs(nav->data, f);
		fputs(body, f);
	} else
		fputs(text, f);
	free(text);
	return ferror(f) ? PD_EIO : 0;
}

struct nav_slots {
	const char *slug;
};

static int nav_slot(struct pd_buf *b, const char *name, size_t k, void *arg)
{
	const struct nav_slots *x = arg;

	if (!pd_tpl_is(name, k, "slug"))
		return 0;
	pd_html_text(b, x->slug);
	return 1;
}

int pd_site_compare_nav(struct pd_buf *out, const char *page, const char *slug)
{
	const struct pd_blob *nav =
	    pd_blob_get("reports/site-compare-nav.html");
	const char *body = strstr(page, "<body");
	struct nav_slots x;

	if (!nav)
		return PD_EIO;
	body = body ? strchr(body, '>') : NULL;
	if (!body)
		return 0;
	/*
	 * The template is a line of its own: after the tag's line end (a
	 * report of perfdiff compare has one), else right after the tag.
	 */
	body += body[1] == '\n' ? 2 : 1;
	pd_buf_add(out, page, (size_t)(body - page));
	x.slug = slug;
	pd_tpl_fill(out, nav->data, nav_slot, &x);
	pd_buf_adds(out, body);
	return 1;
}
