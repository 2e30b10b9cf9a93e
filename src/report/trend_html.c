/*
 * The HTML trend report: one SVG line chart per series (means, min-max
 * bars over repeats, change points dashed, a <title> per point for hover
 * values), the alerts first, every name escaped, commits linked when
 * --commit-url gives an address.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/blob.h"
#include "report/report.h"
#include "report/trend_int.h"
#include "stats/trend.h"

/* A commit in HTML: its short sha, a link when there is an address. */
static void html_commit(struct pd_buf *b, const struct pd_trend *t,
			const char *sha)
{
	struct pd_buf u = PD_BUF_INIT, s = PD_BUF_INIT;

	pd_trend_short_sha(&s, sha);
	if (pd_trend_commit_url(&u, t, sha)) {
		pd_buf_adds(b, "<a href=\"");
		pd_html_text(b, u.buf);
		pd_buf_adds(b, "\">");
		pd_html_text(b, s.buf);
		pd_buf_adds(b, "</a>");
	} else {
		pd_html_text(b, s.buf);
	}
	pd_buf_release(&u);
	pd_buf_release(&s);
}

/* A round step near want: 1, 2, 2.5 or 5 times a power of ten. */
static double nice_step(double want)
{
	double e, f;

	if (!(want > 0) || !isfinite(want))
		return 1;
	e = pow(10, floor(log10(want)));
	f = want / e;
	return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 2.5 ? 2.5 : f <= 5 ? 5 : 10) * e;
}

/* The decimals that write every multiple of step exactly. */
static int decimals(double step)
{
	int d;

	for (d = 0; d < 9; d++) {
		double x = step * pow(10, d);

		if (fabs(x - floor(x + 0.5)) < 1e-6 * x)
			return d;
	}
	return d;
}

/* The y range of a series' chart: its points' extremes, padded. */
static void series_range(const struct pd_tseries *s, double *lo, double *hi)
{
	double pad;
	size_t i;

	*lo = HUGE_VAL;
	*hi = -HUGE_VAL;
	for (i = 0; i < s->pts.n; i++) {
		if (s->pts.v[i].n) {
			*lo = fmin(*lo, s->pts.v[i].lo);
			*hi = fmax(*hi, s->pts.v[i].hi);
		}
	}
	if (!isfinite(*lo)) {
		*lo = 0;
		*hi = 1;
	}
	pad = (*hi - *lo) * 0.08 + fabs(*hi) * 0.01 + 1e-12;
	*lo = fmax(0, *lo - pad);
	*hi += pad;
}

/* One series as an SVG line chart, 760 x 230 user units. */
static void svg_series(struct pd_buf *b, const struct pd_trend *t,
		       const struct pd_tseries *s)
{
	const double W = 760, H = 230, L = 70, R = 16, T = 14, B = 40;
	double lo, hi, scale = pd_trend_series_scale(t, s);
	size_t i, n = s->pts.n, step;
	struct pd_buf tmp = PD_BUF_INIT;

	series_range(s, &lo, &hi);
#define X(i)                                                                   \
	(n > 1 ? L + (W - L - R) * (double)(i) / (double)(n - 1)               \
	       : (L + W - R) / 2)
#define Y(v) (T + (H - T - B) * (1 - ((v)-lo) / (hi - lo)))
	pd_buf_addf(b,
		    "<svg viewBox=\"0 0 %.0f %.0f\" role=\"img\""
		    " xmlns=\"http://www.w3.org/2000/svg\">\n",
		    W, H);
	{
		/* round ticks (1, 2, 2.5 or 5 times a power of ten), in plain
		 * decimals: never 2113, 2370 or 2.253e+04 */
		double tick = nice_step((hi - lo) * scale / 4), v;
		int dec = decimals(tick);

		for (v = ceil(lo * scale / tick) * tick;
		     v <= hi * scale + 1e-9 * tick; v += tick)
			pd_buf_addf(b,
				    "<line class=\"grid\" x1=\"%.1f\""
				    " x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>"
				    "<text x=\"%.1f\" y=\"%.1f\""
				    " text-anchor=\"end\">%.*f</text>\n",
				    L, W - R, Y(v / scale), Y(v / scale), L - 6,
				    Y(v / scale) + 4, dec,
				    fabs(v) < tick / 2 ? 0 : v);
	}
	pd_buf_addf(
	    b,
	    "<text x=\"12\" y=\"%.1f\" transform=\"rotate(-90 12 %.1f)\""
	    " text-anchor=\"middle\">",
	    (H - B + T) / 2, (H - B + T) / 2);
	pd_html_text(b, pd_trend_series_unit(t, s));
	pd_buf_adds(b, "</text>\n");
	/* commit labels, the last one always, ending at the last point */
	step = n > 8 ? (n + 7) / 8 : 1;
	for (i = 0; i < n; i += step) {
		int last = i + step >= n;

		if (last && i != n - 1 && n > 1)
			i = n - 1;
		pd_buf_reset(&tmp);
		if (pd_trend_commit_url(&tmp, t, s->pts.v[i].sha)) {
			pd_buf_adds(b, "<a href=\"");
			pd_html_text(b, tmp.buf);
			pd_buf_adds(b, "\">");
		}
		pd_buf_addf(
		    b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">", X(i),
		    H - B + 16, n > 1 && i == n - 1 ? "end" : "middle");
		pd_buf_reset(&tmp);
		pd_buf_addf(&tmp, "%.7s", s->pts.v[i].sha);
		pd_html_text(b, tmp.buf);
		pd_buf_adds(b, t->commit_url ? "</text></a>\n" : "</text>\n");
	}
	/* change points: between the last good and the first bad commit */
	for (i = 0; i < s->changes.n; i++) {
		size_t at = s->changes.v[i].at;
		double x = (X(at - 1) + X(at)) / 2;

		pd_buf_addf(b,
			    "<line class=\"cp\" x1=\"%.1f\" x2=\"%.1f\""
			    " y1=\"%.1f\" y2=\"%.1f\"/>"
			    "<text class=\"cplabel\" x=\"%.1f\" y=\"%.1f\">",
			    x, x, T, H - B, x + 4, T + 10);
		pd_buf_reset(&tmp);
		pd_fmt_pct(&tmp, 100 * s->changes.v[i].change);
		pd_html_text(b, tmp.buf);
		pd_buf_adds(b, "</text>\n");
	}
	pd_buf_adds(b, "<polyline class=\"line\" points=\"");
	for (i = 0; i < n; i++)
		if (s->pts.v[i].n)
			pd_buf_addf(b, "%.1f,%.1f ", X(i), Y(s->pts.v[i].mean));
	pd_buf_adds(b, "\"/>\n");
	for (i = 0; i < n; i++) {
		const struct pd_tpoint *p = &s->pts.v[i];
		int link;

		if (!p->n)
			continue;
		if (p->hi > p->lo)
			pd_buf_addf(
			    b,
			    "<line class=\"bar\" x1=\"%.1f\" x2=\"%.1f\""
			    " y1=\"%.1f\" y2=\"%.1f\"/>",
			    X(i), X(i), Y(p->lo), Y(p->hi));
		pd_buf_reset(&tmp);
		link = pd_trend_page_url(&tmp, t, i);
		if (link) {
			pd_buf_adds(b, "<a href=\"");
			pd_html_text(b, tmp.buf);
			pd_buf_adds(b, "\">");
		}
		pd_buf_addf(b,
			    "<circle class=\"pt%s\" cx=\"%.1f\" cy=\"%.1f\""
			    " r=\"3.5\"><title>",
			    link ? " page" : "", X(i), Y(p->mean));
		pd_buf_reset(&tmp);
		pd_buf_addf(&tmp, "%s %.10s: mean ", p->sha, p->date);
		pd_trend_series_value(&tmp, t, s, p->mean);
		pd_buf_addf(&tmp, " %s (min ", pd_trend_series_unit(t, s));
		pd_trend_series_value(&tmp, t, s, p->lo);
		pd_buf_adds(&tmp, ", max ");
		pd_trend_series_value(&tmp, t, s, p->hi);
		pd_buf_addf(&tmp, ", %zu runs)", p->n);
		pd_html_text(b, tmp.buf);
		pd_buf_adds(b, link ? "</title></circle></a>\n"
				    : "</title></circle>\n");
	}
#undef X
#undef Y
	pd_buf_adds(b, "</svg>\n");
	pd_buf_release(&tmp);
}

int pd_trend_html(FILE *f, const struct pd_trend *t)
{
	const struct pd_blob *css = pd_blob_get("reports/trend.css");
	struct pd_buf b = PD_BUF_INIT, line = PD_BUF_INIT;
	size_t i;
	int rc;

	pd_buf_adds(&b, "<!DOCTYPE html>\n<html lang=\"en\"><head>"
			"<meta charset=\"utf-8\">\n<title>perfdiff trend: ");
	pd_html_text(&b, t->scenario);
	pd_buf_adds(&b, "</title>\n<style>\n");
	if (css)
		pd_buf_adds(&b, css->data);
	pd_buf_adds(&b, "</style></head><body>\n<h1>perfdiff trend: ");
	pd_html_text(&b, t->scenario);
	pd_buf_adds(&b, "</h1>\n<p class=\"meta\">");
	pd_trend_heading(&line, t);
	pd_html_text(&b, line.buf);
	pd_buf_adds(&b, "</p>\n");
	for (i = 0; i < t->notes.n; i++) {
		pd_buf_adds(&b, "<p class=\"note\">");
		pd_html_text(&b, t->notes.v[i]);
		pd_buf_adds(&b, "</p>\n");
	}
	if (!t->alerts.n) {
		pd_buf_reset(&line);
		if (pd_trend_quiet_text(&line, t)) {
			pd_buf_adds(&b, "<p class=\"note\">");
			pd_html_text(&b, line.buf);
			pd_buf_adds(&b, "</p>\n");
		} else
			pd_buf_adds(
			    &b, pd_trend_watching(t)
				    ? "<p class=\"steady\">No change points:"
				      " the series are steady but for"
				      " their newest commits.</p>\n"
				    : "<p class=\"steady\">No change points:"
				      " the series are steady.</p>\n");
	}
	for (i = t->alerts.n; i-- > 0;) {
		const struct pd_alert *al = &t->alerts.v[i];

		pd_buf_reset(&line);
		pd_fmt_alert(&line, t, i, 5);
		pd_fmt_alert_state(&line, t, i);
		pd_buf_adds(&b, pd_alert_improves(t, i)
				    ? "<p class=\"improvement\">improvement: "
				    : "<p class=\"alert\">");
		pd_html_text(&b, line.buf);
		pd_buf_adds(&b, pd_alert_improves(t, i) ? " (last before "
							: " (last good ");
		html_commit(&b, t, t->series.v[0].pts.v[al->at - 1].sha);
		pd_buf_adds(&b, pd_alert_improves(t, i) ? ", first improved "
							: ", first bad ");
		html_commit(&b, t, t->series.v[0].pts.v[al->at].sha);
		pd_buf_reset(&line);
		if (pd_trend_page_url(&line, t, al->at)) {
			pd_buf_adds(&b, "; <a href=\"");
			pd_html_text(&b, line.buf);
			pd_buf_adds(&b, "\">the comparison</a>");
		}
		pd_buf_adds(&b, ")</p>\n");
	}
	for (i = 0; i < t->series.n; i++) {
		pd_buf_reset(&line);
		if (!pd_fmt_watch(&line, t, i))
			continue;
		pd_buf_adds(&b, "<p class=\"note\">watch: ");
		pd_html_text(&b, line.buf);
		pd_buf_adds(&b, ", not yet a change point</p>\n");
	}
	for (i = 0; i < t->series.n; i++) {
		const struct pd_tseries *s = &t->series.v[i];

		pd_buf_adds(&b, "<h2>");
		pd_html_text(&b, s->name);
		pd_buf_adds(&b, "</h2>\n<p class=\"meta\">threshold ");
		pd_buf_addf(&b, "%.1f %%%s; change ", 100 * s->tau,
			    s->tau_learned ? " (learned)" : "");
		pd_buf_reset(&line);
		pd_fmt_pct(&line, pd_trend_series_change(s));
		pd_html_text(&b, line.buf);
		pd_buf_adds(&b, " from the first commit to the last");
		if (s->mde >
		    0) /* the smallest step shown (stats/trend_mde.c) */
			pd_buf_addf(&b,
				    "; a step under +%.0f %% would not show"
				    " half the time",
				    100 * s->mde);
		pd_buf_adds(&b, "</p>\n");
		svg_series(&b, t, s);
	}
	pd_buf_adds(&b, "</body></html>\n");
	rc = pd_report_put(f, &b);
	pd_buf_release(&b);
	pd_buf_release(&line);
	return rc;
}
