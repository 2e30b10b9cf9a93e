/*
 * Trend reports in text, Markdown and JSON: text and Markdown lead with
 * the alerts, one line each, as a nightly mail or an issue wants them.
 * HTML is trend_html.c, XLSX trend_xlsx.c. Every name is escaped for its
 * output.
 */
#include <assert.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cJSON.h>

#include "core/utf8.h"
#include "core/xalloc.h"
#include "report/report.h"
#include "report/trend_int.h"
#include "stats/trend.h"

#define SHORT_SHA 10

void pd_trend_short_sha(struct pd_buf *b, const char *sha)
{
	pd_buf_addf(b, "%.*s", SHORT_SHA, sha);
}

/*
 * The commit's address from t->commit_url into b, {sha} replaced by the
 * sha and every character a Markdown link or an HTML attribute could
 * read as syntax percent-encoded; 0 when no template was given.
 */
/* A template with {sha} replaced and unsafe characters percent-encoded. */
static void fill_template(struct pd_buf *b, const char *tmpl, const char *sha)
{
	const char *p, *s;

	for (p = tmpl; *p;) {
		int is_sha = !strncmp(p, "{sha}", 5);

		for (s = is_sha ? sha : p; *s && (is_sha || s == p); s++) {
			unsigned char c = (unsigned char)*s;

			if (isalnum(c) || strchr("-._~:/?#@!$&*+,;=%", c))
				pd_buf_addch(b, (char)c);
			else
				pd_buf_addf(b, "%%%02X", c);
		}
		p += is_sha ? 5 : 1;
	}
}

int pd_trend_commit_url(struct pd_buf *b, const struct pd_trend *t,
			const char *sha)
{
	if (!t->commit_url)
		return 0;
	fill_template(b, t->commit_url, sha);
	return 1;
}

int pd_trend_page_url(struct pd_buf *b, const struct pd_trend *t, size_t commit)
{
	return t->page_link && t->page_link(t->page_arg, commit, b);
}

/* A commit in Markdown: <code>short sha</code>, a link when there is one. */
static void md_commit(struct pd_buf *b, const struct pd_trend *t,
		      const char *sha)
{
	struct pd_buf u = PD_BUF_INIT, s = PD_BUF_INIT;
	int link = pd_trend_commit_url(&u, t, sha);

	pd_trend_short_sha(&s, sha);
	pd_buf_adds(b, link ? "[<code>" : "<code>");
	pd_md_text(b, s.buf, 100);
	pd_buf_adds(b, "</code>");
	if (link)
		pd_buf_addf(b, "](%s)", u.buf);
	pd_buf_release(&u);
	pd_buf_release(&s);
}

/* The unit of a series' values as shown: a counter has its own. */
const char *pd_trend_series_unit(const struct pd_trend *t,
				 const struct pd_tseries *s)
{
	if (s->counter)
		return *s->unit ? s->unit : "count";
	return pd_unit_display((enum pd_unit)t->unit);
}

double pd_trend_series_scale(const struct pd_trend *t,
			     const struct pd_tseries *s)
{
	return s->counter ? 1 : pd_unit_display_scale((enum pd_unit)t->unit);
}

/* A value of a series: a counter's in its own unit, "-" when unmeasured. */
void pd_trend_series_value(struct pd_buf *b, const struct pd_trend *t,
			   const struct pd_tseries *s, double v)
{
	if (!s->counter)
		pd_fmt_weight(b, v, (enum pd_unit)t->unit);
	else if (isnan(v))
		pd_buf_addch(b, '-');
	else if (fabs(v) < 1e15 && fabs(v - floor(v)) < 1e-9)
		pd_buf_addf(b, "%.0f", v); /* a count: every digit */
	else
		pd_buf_addf(b, "%.6g", v);
}

/* A series' MDE (pd_tseries.mde) as "+41%", or "-" when not known. */
static void mde_cell(struct pd_buf *b, const struct pd_tseries *s)
{
	if (!(s->mde > 0))
		pd_buf_addch(b, '-');
	else if (s->mde >= 100)
		pd_buf_adds(b, ">9999%");
	else
		pd_buf_addf(b, "+%.0f%%", 100 * s->mde);
}

/* Whether the runs have a total at all (runs of perf stat alone do not). */
static int has_total(const struct pd_trend *t)
{
	size_t i;

	for (i = 0; t->series.n && i < t->series.v[0].pts.n; i++)
		if (t->series.v[0].pts.v[i].mean > 0)
			return 1;
	return 0;
}

/* The first and the last commit's mean where the series was measured. */
static double first_mean(const struct pd_tseries *s)
{
	size_t i;

	for (i = 0; i < s->pts.n; i++)
		if (s->pts.v[i].n)
			return s->pts.v[i].mean;
	return PD_NAN;
}

static double last_mean(const struct pd_tseries *s)
{
	size_t i;

	for (i = s->pts.n; i-- > 0;)
		if (s->pts.v[i].n)
			return s->pts.v[i].mean;
	return PD_NAN;
}

/*
 * Functions of an alert, largest move in weight first (indices into
 * al->series): what a reader should look at first.
 */
static size_t *alert_order(const struct pd_alert *al)
{
	size_t *o = pd_xmalloc((al->series.n + 1) * sizeof(*o)), i, k;

	/* a change for every series ranked by it */
	assert(al->delta.n == al->series.n && al->moved.n == al->series.n);
	for (i = 0; i < al->series.n; i++)
		o[i] = i;
	for (i = 1; i < al->series.n; i++)
		for (k = i; k > 0 && fabs(al->delta.v[o[k]]) >
					 fabs(al->delta.v[o[k - 1]]);
		     k--) {
			size_t x = o[k];

			o[k] = o[k - 1];
			o[k - 1] = x;
		}
	return o;
}

/*
 * "cannot detect change points with ..." when the history is too short
 * for the permutation test to reach --p or for a change point's commits,
 * with what it would take; 0 (nothing written) otherwise.
 */
int pd_trend_quiet_text(struct pd_buf *b, const struct pd_trend *t)
{
	struct pd_trend_need nd;
	int runs_short, commits_short;

	if (!pd_trend_blind(t, &nd))
		return 0;
	runs_short = nd.runs < nd.runs_need;
	commits_short = nd.commits < nd.commits_need;
	pd_buf_addf(b,
		    "cannot detect change points with %zu commit%s and %zu"
		    " run%s in all: ",
		    t->ncommits, t->ncommits == 1 ? "" : "s", nd.runs,
		    nd.runs == 1 ? "" : "s");
	if (runs_short)
		pd_buf_addf(b,
			    "with --p %g the permutation test needs at least"
			    " %zu runs (commits, or repeats of them)",
			    t->pmax, nd.runs_need);
	if (commits_short)
		pd_buf_addf(b,
			    "%sa change point needs %zu commits (%d before it,"
			    " %zu from it on)",
			    runs_short ? ", and " : "", nd.commits_need,
			    t->exact ? 1 : 2,
			    nd.commits_need - (t->exact ? 1 : 2));
	pd_buf_addf(b, ": %zu more commit%s of %zu run%s; ", nd.more_commits,
		    nd.more_commits == 1 ? "" : "s", nd.runs_a_commit,
		    nd.runs_a_commit == 1 ? "" : "s");
	pd_buf_add_term_line(b, t->scenario);
	pd_buf_addch(b, '/');
	pd_buf_add_term_line(b, t->cache);
	pd_buf_adds(b, " is not known to be steady");
	return 1;
}

void pd_fmt_alert(struct pd_buf *b, const struct pd_trend *t, size_t alert,
		  int max_funcs)
{
	const struct pd_alert *al = &t->alerts.v[alert];
	const struct pd_tseries *s0 = &t->series.v[0];
	size_t *o = alert_order(al), i;
	int shown = 0;

	/* the change point is a commit of the series it names */
	assert(alert < t->alerts.n && al->at < s0->pts.n);
	/* names from the history: made safe here, for every sink */
	pd_buf_add_term_line(b, t->scenario);
	pd_buf_addch(b, '/');
	pd_buf_add_term_line(b, t->cache);
	pd_buf_adds(b, ": ");
	if (!isnan(al->total)) {
		pd_buf_adds(b, "total ");
		pd_fmt_pct(b, 100 * al->total);
		pd_buf_addch(b, ' ');
	} else if (has_total(t)) {
		pd_buf_adds(b, "total n/a ");
	} /* else runs of counters alone: no total to speak of */
	pd_buf_adds(b, "at ");
	pd_trend_short_sha(b, s0->pts.v[al->at].sha);
	for (i = 0; i < al->series.n && shown < max_funcs; i++) {
		size_t k = al->series.v[o[i]];

		assert(k < t->series.n);
		if (k == 0 || t->series.v[k].counter)
			continue;
		pd_buf_adds(b, shown ? ", " : ", from ");
		pd_buf_add_term_line(b, t->series.v[k].name);
		pd_buf_addch(b, ' ');
		pd_fmt_pct(b, 100 * al->moved.v[o[i]]);
		shown++;
	}
	/* counters in series order: each is its own measure */
	shown = 0;
	for (i = 0; i < al->series.n; i++) {
		const struct pd_tseries *s = &t->series.v[al->series.v[i]];

		if (!s->counter)
			continue;
		pd_buf_adds(b, shown ? ", " : "; counters: ");
		pd_buf_add_term_line(b, s->name);
		pd_buf_addch(b, ' ');
		pd_fmt_pct(b, 100 * al->moved.v[i]);
		if (s->up)
			pd_buf_adds(b, al->moved.v[i] < 0 ? " (worse)"
							  : " (better)");
		shown++;
	}
	free(o);
}

void pd_fmt_alert_state(struct pd_buf *b, const struct pd_trend *t,
			size_t alert)
{
	const struct pd_alert *al = &t->alerts.v[alert];

	if (al->group)
		pd_buf_addf(b, " [alert #%lld: %s]", (long long)al->group,
			    pd_alert_state_name(al->state));
}

int pd_trend_watching(const struct pd_trend *t)
{
	size_t i;

	for (i = 0; i < t->series.n; i++)
		if (t->series.v[i].watch.at || t->series.v[i].pending.at)
			return 1;
	return 0;
}

int pd_fmt_watch(struct pd_buf *b, const struct pd_trend *t, size_t i)
{
	const struct pd_tseries *s = &t->series.v[i];
	const struct pd_tchange *w = s->watch.at ? &s->watch : &s->pending;
	size_t held, more;

	if (!w->at || w->at >= s->pts.n)
		return 0;
	held = s->pts.n - w->at;
	pd_buf_add_term_line(b, s->name);
	pd_buf_addch(b, ' ');
	pd_fmt_pct(b, 100 * w->change);
	pd_buf_adds(b, " from ");
	pd_trend_short_sha(b, s->pts.v[w->at].sha);
	if (w == &s->watch) {
		pd_buf_addf(b, " (%zu of %zu commits, p = %.2g)", held,
			    t->persist, w->p);
		return 1;
	}
	/* seen by the runs' test, too new for the commit means' */
	more = t->persist > held ? t->persist - held : 1;
	pd_buf_addf(b,
		    " (%zu of %zu commits; too new to test: %zu more"
		    " commit%s will tell)",
		    held, t->persist, more, more == 1 ? "" : "s");
	return 1;
}

double pd_trend_series_change(const struct pd_tseries *s)
{
	double a = first_mean(s), z = last_mean(s);

	return a > 0 ? 100 * (z / a - 1) : PD_NAN;
}

void pd_trend_heading(struct pd_buf *b, const struct pd_trend *t)
{
	const struct pd_tseries *s0 = &t->series.v[0];
	size_t i, ncounters = 0;

	for (i = 0; i < t->series.n; i++)
		ncounters += t->series.v[i].counter;
	pd_buf_adds(b, "scenario ");
	pd_buf_add_term_line(b, t->scenario);
	pd_buf_adds(b, ", cache ");
	pd_buf_add_term_line(b, t->cache);
	pd_buf_adds(b, ", tool ");
	pd_buf_add_term_line(b, t->tool);
	pd_buf_addf(b, ": %zu commits", t->ncommits);
	if (s0->pts.n && *s0->pts.v[0].date)
		pd_buf_addf(b, " (%.10s to %.10s)", s0->pts.v[0].date,
			    s0->pts.v[s0->pts.n - 1].date);
	if (ncounters)
		pd_buf_addf(b, ", total, %zu functions and %zu counters",
			    t->series.n - 1 - ncounters, ncounters);
	else
		pd_buf_addf(b, ", total and %zu functions", t->series.n - 1);
	if (t->exact)
		pd_buf_adds(b, "; exact counts: change points by the threshold"
			       " alone");
	else
		pd_buf_addf(b, "; change points at p <= %g", t->pmax);
}

int pd_trend_text(FILE *f, const struct pd_trend *t, int color)
{
	struct pd_buf b = PD_BUF_INIT;
	const char *red = color ? "\033[31m" : "",
		   *off = color ? "\033[0m" : "";
	size_t i, k;
	int rc;

	pd_buf_adds(&b, "perfdiff trend: ");
	pd_trend_heading(&b, t);
	pd_buf_adds(&b, "\n\n");
	for (i = 0; i < t->notes.n; i++)
		pd_buf_addf(&b, "note: %s\n", t->notes.v[i]);
	if (!t->alerts.n) {
		struct pd_buf q = PD_BUF_INIT;

		if (pd_trend_quiet_text(&q, t))
			pd_buf_addf(&b, "%s\n", q.buf);
		else {
			pd_buf_adds(&b, "no change points: ");
			pd_buf_add_term_line(&b, t->scenario);
			pd_buf_addch(&b, '/');
			pd_buf_add_term_line(&b, t->cache);
			pd_buf_adds(&b, pd_trend_watching(t)
					    ? " is steady but for its newest"
					      " commits\n"
					    : " is steady\n");
		}
		pd_buf_release(&q);
	}
	for (i = t->alerts.n; i-- > 0;) {
		const struct pd_alert *al = &t->alerts.v[i];
		int up = pd_alert_improves(t, i);

		pd_buf_addf(&b, "%s%s%s ", up ? (color ? "\033[34m" : "") : red,
			    up ? "IMPROVEMENT" : "ALERT", off);
		pd_fmt_alert(&b, t, i, 3);
		pd_fmt_alert_state(&b, t, i);
		/* an improvement has no bad commit: the one before, the first
		 */
		pd_buf_adds(&b, up ? "\n  last before " : "\n  last good ");
		pd_trend_short_sha(&b, t->series.v[0].pts.v[al->at - 1].sha);
		pd_buf_adds(&b, up ? ", first improved " : ", first bad ");
		pd_trend_short_sha(&b, t->series.v[0].pts.v[al->at].sha);
		pd_buf_addch(&b, '\n');
	}
	for (i = 0; i < t->series.n; i++) {
		struct pd_buf w = PD_BUF_INIT;

		if (pd_fmt_watch(&w, t, i))
			pd_buf_addf(&b, "WATCH %s: not yet a change point\n",
				    w.buf);
		pd_buf_release(&w);
	}
	pd_buf_addf(&b, "\n%-40s %12s %12s %9s %7s %7s  %s\n", "series",
		    "first", "last", "change", "thresh", "MDE",
		    "change points");
	for (i = 0; i < t->series.n; i++) {
		const struct pd_tseries *s = &t->series.v[i];
		struct pd_buf w = PD_BUF_INIT;
		size_t col;

		pd_buf_add_term_line(&w, s->name);
		col = 0;
		for (k = 0; w.buf[k]; k++) /* characters, not bytes */
			col += ((unsigned char)w.buf[k] & 0xc0) != 0x80;
		pd_buf_adds(&b, w.buf);
		pd_buf_release(&w);
		for (; col < 40; col++)
			pd_buf_addch(&b, ' ');
		pd_buf_addch(&b, ' ');
		pd_buf_reset(&w);
		pd_trend_series_value(&w, t, s, first_mean(s));
		pd_buf_addf(&b, "%12s ", w.buf);
		pd_buf_reset(&w);
		pd_trend_series_value(&w, t, s, last_mean(s));
		pd_buf_addf(&b, "%12s ", w.buf);
		pd_buf_reset(&w);
		pd_fmt_pct(&w, pd_trend_series_change(s));
		pd_buf_addf(&b, "%9s %6.1f%%%s ", w.buf, 100 * s->tau,
			    s->tau_learned ? "*" : " ");
		pd_buf_reset(&w);
		mde_cell(&w, s);
		pd_buf_addf(&b, "%7s ", w.buf);
		pd_buf_release(&w);
		for (k = 0; k < s->changes.n; k++) {
			pd_buf_adds(&b, k ? ", " : " ");
			pd_trend_short_sha(&b,
					   s->pts.v[s->changes.v[k].at].sha);
			pd_buf_addch(&b, ' ');
			pd_fmt_pct(&b, 100 * s->changes.v[k].change);
		}
		if (!s->changes.n)
			pd_buf_adds(&b, " -");
		pd_buf_addch(&b, '\n');
	}
	pd_buf_addf(&b,
		    "\nweights in %s (mean of the repeat runs); * threshold"
		    " learned from history; MDE: the smallest step these"
		    " commits show at --p %g half the time\n",
		    pd_unit_display((enum pd_unit)t->unit), t->pmax);
	for (i = 0; i < t->series.n; i++)
		if (t->series.v[i].counter) {
			pd_buf_adds(&b, "counters (perf stat) in their own"
					" units, as named\n");
			break;
		}
	rc = pd_report_put(f, &b);
	pd_buf_release(&b);
	return rc;
}

int pd_trend_md(FILE *f, const struct pd_trend *t)
{
	struct pd_buf b = PD_BUF_INIT, line = PD_BUF_INIT;
	size_t i, k;
	int rc;

	pd_buf_adds(&b, "### perfdiff trend: ");
	pd_md_text(&b, t->scenario, 200);
	pd_buf_adds(&b, "\n\n");
	pd_buf_reset(&line);
	pd_trend_heading(&line, t);
	pd_md_text(&b, line.buf, 100000);
	pd_buf_adds(&b, "\n\n");
	for (i = 0; i < t->notes.n; i++) {
		pd_buf_adds(&b, "> ");
		pd_md_text(&b, t->notes.v[i], 1000);
		pd_buf_adds(&b, "\n\n");
	}
	if (!t->alerts.n) {
		pd_buf_reset(&line);
		if (pd_trend_quiet_text(&line, t)) {
			pd_md_text(&b, line.buf, 2000);
			pd_buf_adds(&b, ".\n");
		} else
			pd_buf_adds(&b, pd_trend_watching(t)
					    ? "No change points: the series are"
					      " steady but for their newest"
					      " commits.\n"
					    : "No change points: the series are"
					      " steady.\n");
	}
	for (i = t->alerts.n; i-- > 0;) {
		const struct pd_alert *al = &t->alerts.v[i];

		pd_buf_reset(&line);
		pd_fmt_alert(&line, t, i, 3);
		pd_fmt_alert_state(&line, t, i);
		pd_buf_adds(&b, pd_alert_improves(t, i)
				    /* the characters, not GitHub shortcodes:
				     * mail and other renderers show them too */
				    ? "- \xf0\x9f\x94\xb5 improvement: **"
				    : "- \xf0\x9f\x94\xb4 **");
		pd_md_text(&b, line.buf, 2000);
		pd_buf_adds(&b, pd_alert_improves(t, i) ? "** (last before "
							: "** (last good ");
		md_commit(&b, t, t->series.v[0].pts.v[al->at - 1].sha);
		pd_buf_adds(&b, pd_alert_improves(t, i) ? ", first improved "
							: ", first bad ");
		md_commit(&b, t, t->series.v[0].pts.v[al->at].sha);
		pd_buf_adds(&b, ")\n");
	}
	for (i = 0; i < t->series.n; i++) {
		pd_buf_reset(&line);
		if (!pd_fmt_watch(&line, t, i))
			continue;
		pd_buf_adds(&b, "- watch: ");
		pd_md_text(&b, line.buf, 2000);
		pd_buf_adds(&b, ", not yet a change point\n");
	}
	pd_buf_addf(&b,
		    "\n| series | first (%s) | last (%s) | change |"
		    " threshold | MDE | change points |\n",
		    pd_unit_display((enum pd_unit)t->unit),
		    pd_unit_display((enum pd_unit)t->unit));
	pd_buf_adds(&b, "|---|---:|---:|---:|---:|---:|---|\n");
	for (i = 0; i < t->series.n; i++) {
		const struct pd_tseries *s = &t->series.v[i];

		pd_buf_adds(&b, "| <code>");
		pd_md_text(&b, s->name, 200);
		pd_buf_adds(&b, "</code> | ");
		pd_buf_reset(&line);
		/* numbers with no-break spaces: one line in a narrow column */
		pd_trend_series_value(&line, t, s, first_mean(s));
		pd_md_nobreak(&b, &line);
		pd_buf_adds(&b, " | ");
		pd_trend_series_value(&line, t, s, last_mean(s));
		pd_md_nobreak(&b, &line);
		pd_buf_adds(&b, " | ");
		pd_fmt_pct(&line, pd_trend_series_change(s));
		pd_md_nobreak(&b, &line);
		pd_buf_adds(&b, " | ");
		pd_buf_addf(&line, "%.1f %%", 100 * s->tau);
		pd_md_nobreak(&b, &line);
		pd_buf_adds(&b, s->tau_learned ? " (learned) | " : " | ");
		mde_cell(&line, s);
		pd_md_nobreak(&b, &line);
		pd_buf_adds(&b, " | ");
		for (k = 0; k < s->changes.n; k++) {
			pd_buf_adds(&b, k ? ", " : "");
			md_commit(&b, t, s->pts.v[s->changes.v[k].at].sha);
			pd_buf_addch(&b, ' ');
			pd_fmt_pct(&line, 100 * s->changes.v[k].change);
			pd_md_nobreak(&b, &line);
		}
		pd_buf_adds(&b, " |\n");
	}
	pd_buf_addf(&b,
		    "\nMDE: the smallest step these commits show at --p %g"
		    " half the time.\n",
		    t->pmax);
	for (i = 0; i < t->series.n; i++)
		if (t->series.v[i].counter) {
			pd_buf_adds(&b, "\nCounters (perf stat) are in their"
					" own units, as named.\n");
			break;
		}
	rc = pd_report_put(f, &b);
	pd_buf_release(&b);
	pd_buf_release(&line);
	return rc;
}

static cJSON *num(double v)
{
	return isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull();
}

/* One step in the newest commits not yet a change point. */
static cJSON *json_step(const struct pd_trend *t, const struct pd_tseries *s,
			const struct pd_tchange *w)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddItemToObject(o, "series", pd_json_text(s->name));
	cJSON_AddNumberToObject(o, "index", (double)w->at);
	cJSON_AddItemToObject(o, "first_changed",
			      pd_json_text(s->pts.v[w->at].sha));
	cJSON_AddItemToObject(o, "change_pct", num(100 * w->change));
	cJSON_AddItemToObject(o, "p", num(w->p));
	cJSON_AddNumberToObject(o, "commits", (double)(s->pts.n - w->at));
	cJSON_AddNumberToObject(o, "needs", (double)t->persist);
	return o;
}

/*
 * The steps in the newest commits not yet change points: watched (the
 * prediction test passed), else pending (the runs' test saw them, the
 * commit means cannot test them yet: p is the runs' test's).
 */
static void json_watch(cJSON *root, const struct pd_trend *t)
{
	cJSON *arr = cJSON_AddArrayToObject(root, "watch");
	cJSON *pend = cJSON_AddArrayToObject(root, "pending");
	size_t i;

	for (i = 0; i < t->series.n; i++) {
		const struct pd_tseries *s = &t->series.v[i];

		if (s->watch.at && s->watch.at < s->pts.n)
			cJSON_AddItemToArray(arr, json_step(t, s, &s->watch));
		else if (s->pending.at && s->pending.at < s->pts.n)
			cJSON_AddItemToArray(pend,
					     json_step(t, s, &s->pending));
	}
}

/* What a history too short for any change point would need; or null. */
static void json_blind(cJSON *root, const struct pd_trend *t)
{
	struct pd_trend_need nd;
	cJSON *o;

	if (!pd_trend_blind(t, &nd)) {
		cJSON_AddNullToObject(root, "too_short");
		return;
	}
	o = cJSON_AddObjectToObject(root, "too_short");
	cJSON_AddNumberToObject(o, "runs", (double)nd.runs);
	cJSON_AddNumberToObject(o, "runs_needed", (double)nd.runs_need);
	cJSON_AddNumberToObject(o, "commits", (double)nd.commits);
	cJSON_AddNumberToObject(o, "commits_needed", (double)nd.commits_need);
	cJSON_AddNumberToObject(o, "more_commits", (double)nd.more_commits);
	cJSON_AddNumberToObject(o, "runs_a_commit", (double)nd.runs_a_commit);
}

/* The history's alert group of a change point and its state; null unstored. */
static void json_alert_state(cJSON *o, const struct pd_alert *al)
{
	cJSON_AddItemToObject(o, "alert",
			      al->group ? cJSON_CreateNumber((double)al->group)
					: cJSON_CreateNull());
	cJSON_AddItemToObject(
	    o, "state",
	    al->group ? cJSON_CreateString(pd_alert_state_name(al->state))
		      : cJSON_CreateNull());
}

int pd_trend_json(FILE *f, const struct pd_trend *t)
{
	cJSON *root = cJSON_CreateObject(), *arr, *o;
	const struct pd_tseries *s0 = &t->series.v[0];
	size_t i, k, j;
	int rc;

	cJSON_AddNumberToObject(root, "version", 1);
	cJSON_AddItemToObject(root, "scenario", pd_json_text(t->scenario));
	cJSON_AddItemToObject(root, "cache", pd_json_text(t->cache));
	cJSON_AddItemToObject(root, "tool", pd_json_text(t->tool));
	cJSON_AddItemToObject(
	    root, "unit", pd_json_text(pd_unit_name((enum pd_unit)t->unit)));
	cJSON_AddNumberToObject(root, "p_max", t->pmax);
	cJSON_AddBoolToObject(root, "exact", t->exact);
	arr = cJSON_AddArrayToObject(root, "notes");
	for (i = 0; i < t->notes.n; i++)
		cJSON_AddItemToArray(arr, pd_json_text(t->notes.v[i]));
	arr = cJSON_AddArrayToObject(root, "commits");
	for (i = 0; i < s0->pts.n; i++) {
		o = cJSON_CreateObject();
		cJSON_AddItemToObject(o, "sha", pd_json_text(s0->pts.v[i].sha));
		cJSON_AddItemToObject(o, "date",
				      pd_json_text(s0->pts.v[i].date));
		cJSON_AddNumberToObject(o, "runs", (double)s0->pts.v[i].n);
		cJSON_AddItemToArray(arr, o);
	}
	arr = cJSON_AddArrayToObject(root, "alerts");
	for (i = 0; i < t->alerts.n; i++) {
		const struct pd_alert *al = &t->alerts.v[i];
		cJSON *fa, *ca;
		size_t *ord = alert_order(al);

		o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "index", (double)al->at);
		cJSON_AddItemToObject(o, "first_bad",
				      pd_json_text(s0->pts.v[al->at].sha));
		cJSON_AddItemToObject(o, "last_good",
				      pd_json_text(s0->pts.v[al->at - 1].sha));
		cJSON_AddItemToObject(o, "total_change_pct",
				      num(100 * al->total));
		cJSON_AddBoolToObject(o, "improvement",
				      pd_alert_improves(t, i));
		json_alert_state(o, al);
		fa = cJSON_AddArrayToObject(o, "functions");
		ca = cJSON_AddArrayToObject(o, "counters");
		for (j = 0; j < al->series.n; j++) {
			size_t si = al->series.v[ord[j]];
			cJSON *x;

			if (!si)
				continue;
			x = cJSON_CreateObject();
			cJSON_AddItemToObject(
			    x, "name", pd_json_text(t->series.v[si].name));
			cJSON_AddItemToObject(x, "change_pct",
					      num(100 * al->moved.v[ord[j]]));
			cJSON_AddItemToArray(t->series.v[si].counter ? ca : fa,
					     x);
		}
		free(ord);
		cJSON_AddItemToArray(arr, o);
	}
	json_watch(root, t);
	json_blind(root, t);
	arr = cJSON_AddArrayToObject(root, "series");
	for (i = 0; i < t->series.n; i++) {
		const struct pd_tseries *s = &t->series.v[i];
		cJSON *pts, *chs;

		o = cJSON_CreateObject();
		cJSON_AddItemToObject(o, "name", pd_json_text(s->name));
		cJSON_AddItemToObject(o, "kind",
				      pd_json_text(!i		? "total"
						   : s->counter ? "counter"
								: "function"));
		if (s->counter) {
			cJSON_AddItemToObject(o, "unit", pd_json_text(s->unit));
			cJSON_AddBoolToObject(o, "higher_is_better", s->up);
		}
		cJSON_AddNumberToObject(o, "threshold_pct", 100 * s->tau);
		cJSON_AddBoolToObject(o, "threshold_learned", s->tau_learned);
		cJSON_AddItemToObject(o, "mde_pct",
				      s->mde > 0 ? num(100 * s->mde)
						 : cJSON_CreateNull());
		pts = cJSON_AddArrayToObject(o, "points");
		for (k = 0; k < s->pts.n; k++) {
			const struct pd_tpoint *p = &s->pts.v[k];
			cJSON *po = cJSON_CreateObject(), *vs;

			cJSON_AddItemToObject(po, "mean", num(p->mean));
			cJSON_AddItemToObject(po, "min", num(p->lo));
			cJSON_AddItemToObject(po, "max", num(p->hi));
			vs = cJSON_AddArrayToObject(po, "runs");
			for (j = 0; j < p->n; j++)
				cJSON_AddItemToArray(vs, num(p->v[j]));
			cJSON_AddItemToArray(pts, po);
		}
		chs = cJSON_AddArrayToObject(o, "change_points");
		for (k = 0; k < s->changes.n; k++) {
			cJSON *c = cJSON_CreateObject();

			cJSON_AddNumberToObject(c, "index",
						(double)s->changes.v[k].at);
			cJSON_AddItemToObject(
			    c, "sha",
			    pd_json_text(s->pts.v[s->changes.v[k].at].sha));
			cJSON_AddItemToObject(
			    c, "change_pct", num(100 * s->changes.v[k].change));
			cJSON_AddItemToObject(c, "p", num(s->changes.v[k].p));
			cJSON_AddItemToArray(chs, c);
		}
		cJSON_AddItemToArray(arr, o);
	}
	rc = pd_json_write(f, root);
	cJSON_Delete(root);
	return rc;
}
