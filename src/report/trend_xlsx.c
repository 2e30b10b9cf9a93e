/* Trend report as XLSX: the values and native line charts (trend.c has
 * the other formats). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xlsxwriter.h>

#include "core/utf8.h"
#include "core/xalloc.h"
#include "report/report.h"
#include "report/trend_int.h"
#include "report/xlsx.h"
#include "stats/trend.h"

/*
 * A chart's title or axis name from a name in the data: valid UTF-8, at
 * most 250 bytes cut between characters, and not starting with '=', which
 * Excel would read as a reference.
 */
static void chart_text(struct pd_buf *b, const char *s)
{
	pd_buf_reset(b);
	if (*s == '=')
		pd_buf_addch(b, ' ');
	pd_utf8_sanitize(s, strlen(s), b);
	if (b->len > 250) { /* not inside a character */
		size_t n = 250;

		while (n && ((unsigned char)b->buf[n] & 0xc0) == 0x80)
			n--;
		pd_buf_setlen(b, n);
	}
}

/* The series' change points as red points of its line. */
static void mark_changes(lxw_chart_series *se, const struct pd_tseries *s,
			 size_t n)
{
	lxw_chart_fill red = { 0 };
	lxw_chart_line edge = { 0 };
	lxw_chart_point plain = { 0 }, mark = { 0 };
	lxw_chart_point **pts;
	size_t i, last = 0;

	for (i = 0; i < s->changes.n; i++)
		if (s->changes.v[i].at < n && s->changes.v[i].at + 1 > last)
			last = s->changes.v[i].at + 1;
	if (!last)
		return;
	red.color = 0xC00000;
	edge.color = 0xC00000;
	mark.fill = &red;
	mark.line = &edge;
	pts = pd_xcalloc(last + 1, sizeof(*pts));
	for (i = 0; i < last; i++)
		pts[i] = &plain;
	for (i = 0; i < s->changes.n; i++)
		if (s->changes.v[i].at < n)
			pts[s->changes.v[i].at] = &mark;
	chart_series_set_points(se, pts); /* copies the points */
	free(pts);
}

int pd_trend_xlsx(const char *path, const struct pd_trend *t,
		  struct pd_err *err)
{
	lxw_workbook *wb = workbook_new(path);
	lxw_worksheet *sum, *data;
	lxw_format *head, *val, *title;
	const struct pd_tseries *s0 = &t->series.v[0];
	struct pd_buf b = PD_BUF_INIT;
	size_t i, k, n = s0->pts.n;
	int r = 0;

	if (!wb)
		return pd_err_set(err, PD_EIO, "%s: cannot create the workbook",
				  path);
	head = workbook_add_format(wb);
	format_set_bold(head);
	format_set_bg_color(head, 0xEEEEEE);
	title = workbook_add_format(wb);
	format_set_bold(title);
	format_set_font_size(title, 14);
	val = workbook_add_format(wb);
	format_set_num_format(val, "#,##0.000");
	sum = workbook_add_worksheet(wb, "Trend");
	data = workbook_add_worksheet(wb, "Series");
	pd_buf_addf(&b, "perfdiff trend: %s", t->scenario);
	pd_xlsx_str(sum, r++, 0, b.buf, title);
	pd_buf_reset(&b);
	pd_trend_heading(&b, t);
	pd_xlsx_str(sum, r++, 0, b.buf, NULL);
	for (i = 0; i < t->notes.n; i++)
		pd_xlsx_str(sum, r++, 0, t->notes.v[i], NULL);
	if (!t->alerts.n) {
		pd_buf_reset(&b);
		if (!pd_trend_quiet_text(&b, t))
			pd_buf_adds(&b, pd_trend_watching(t)
					    ? "No change points: the series are"
					      " steady but for their newest"
					      " commits."
					    : "No change points: the series are"
					      " steady.");
		pd_xlsx_str(sum, r++, 0, b.buf, NULL);
	}
	for (i = t->alerts.n; i-- > 0;) {
		pd_buf_reset(&b);
		pd_buf_adds(&b, pd_alert_improves(t, i) ? "IMPROVEMENT "
							: "ALERT ");
		pd_fmt_alert(&b, t, i, 5);
		pd_fmt_alert_state(&b, t, i);
		pd_xlsx_str(sum, r++, 0, b.buf, NULL);
	}
	for (i = 0; i < t->series.n; i++) {
		pd_buf_reset(&b);
		pd_buf_adds(&b, "WATCH ");
		if (pd_fmt_watch(&b, t, i)) {
			pd_buf_adds(&b, ": not yet a change point");
			pd_xlsx_str(sum, r++, 0, b.buf, NULL);
		}
	}
	r++;
	/* Series sheet: one row per commit, one column per series mean. */
	pd_xlsx_str(data, 0, 0, "commit", head);
	pd_xlsx_str(data, 0, 1, "date", head);
	pd_xlsx_str(data, 0, 2, "runs", head);
	for (k = 0; k < t->series.n; k++) {
		pd_buf_reset(&b);
		pd_buf_addf(&b, "%s (%s)", t->series.v[k].name,
			    pd_trend_series_unit(t, &t->series.v[k]));
		pd_xlsx_str(data, 0, (int)k + 3, b.buf, head);
	}
	/* the charts' labels: a short sha reads; 40 hex digits squash them */
	pd_xlsx_str(data, 0, (int)t->series.n + 3, "label", head);
	for (i = 0; i < n; i++) {
		pd_buf_reset(&b);
		pd_trend_short_sha(&b, s0->pts.v[i].sha);
		pd_xlsx_str(data, (int)i + 1, (int)t->series.n + 3, b.buf,
			    NULL);
		pd_xlsx_str(data, (int)i + 1, 0, s0->pts.v[i].sha, NULL);
		pd_xlsx_str(data, (int)i + 1, 1, s0->pts.v[i].date, NULL);
		worksheet_write_number(data, (lxw_row_t)(i + 1), 2,
				       (double)s0->pts.v[i].n, NULL);
		for (k = 0; k < t->series.n; k++) {
			const struct pd_tpoint *p = &t->series.v[k].pts.v[i];

			if (p->n)
				worksheet_write_number(
				    data, (lxw_row_t)(i + 1),
				    (lxw_col_t)(k + 3),
				    p->mean * pd_trend_series_scale(
						  t, &t->series.v[k]),
				    val);
		}
	}
	worksheet_set_column(data, 0, 0, 14, NULL);
	worksheet_set_column(data, 1, 1, 22, NULL);
	worksheet_set_column(data, 3, (lxw_col_t)(t->series.n + 2), 16, NULL);
	worksheet_freeze_panes(data, 1, 3);
	/* One native line chart per series on the summary sheet. */
	for (k = 0; k < t->series.n && n; k++) {
		lxw_chart *ch = workbook_add_chart(wb, LXW_CHART_LINE);
		lxw_chart_series *se = chart_add_series(ch, NULL, NULL);
		struct pd_buf nm = PD_BUF_INIT;

		chart_series_set_categories(
		    se, "Series", 1, (lxw_col_t)(t->series.n + 3), (lxw_row_t)n,
		    (lxw_col_t)(t->series.n + 3));
		chart_series_set_values(se, "Series", 1, (lxw_col_t)(k + 3),
					(lxw_row_t)n, (lxw_col_t)(k + 3));
		chart_series_set_marker_type(se, LXW_CHART_MARKER_CIRCLE);
		mark_changes(se, &t->series.v[k], n);
		chart_text(&nm, t->series.v[k].name);
		chart_title_set_name(ch, nm.buf);
		chart_legend_set_position(ch, LXW_CHART_LEGEND_NONE);
		chart_text(&nm, pd_trend_series_unit(t, &t->series.v[k]));
		chart_axis_set_name(ch->y_axis, nm.buf);
		worksheet_insert_chart(sum, (lxw_row_t)(r + (int)k * 16), 0,
				       ch);
		pd_buf_release(&nm);
	}
	worksheet_set_column(sum, 0, 0, 100, NULL);
	pd_buf_release(&b);
	return pd_xlsx_close(wb, path, err);
}
