/*
 * The XLSX workbook (libxlsxwriter): Summary (verdict, inputs, settings,
 * warnings, counts per verdict, a bar chart of the top regressions),
 * Regressions, Improvements, All functions, and one sheet per metric table.
 * Every name goes in as a string cell, never a formula, so a symbol that
 * starts with '=', '+', '-' or '@' stays text. libxlsxwriter writes the
 * file itself; the caller gives it a temporary name and renames it.
 */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xlsxwriter.h>

#include "core/utf8.h"
#include "report/report.h"
#include "report/xlsx.h"

struct fmts {
	lxw_format *head, *ms, *num, *pct, *ratio, *p, *red, *blue, *title;
};

/* Excel's cell holds this many UTF-16 units of text. */
#define XLSX_CELL_UNITS 32767

/*
 * Where valid UTF-8 s of len bytes is cut to XLSX_CELL_UNITS units: at a
 * character's first byte, a character past U+FFFF two units.
 */
static size_t cell_cut(const char *s, size_t len)
{
	size_t i, units = 0;

	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if ((c & 0xc0) == 0x80)
			continue;
		units += c >= 0xf0 ? 2 : 1;
		if (units > XLSX_CELL_UNITS)
			return i;
	}
	return len;
}

void pd_xlsx_str(lxw_worksheet *ws, int r, int c, const char *s, lxw_format *f)
{
	struct pd_buf b = PD_BUF_INIT;

	assert(r >= 0 && c >= 0); /* a negative cell would be dropped */
	pd_utf8_sanitize(s, strlen(s), &b);
	pd_buf_setlen(&b, cell_cut(b.buf, b.len));
	worksheet_write_string(ws, (lxw_row_t)r, (lxw_col_t)c, b.buf, f);
	pd_buf_release(&b);
}

static void put_num(lxw_worksheet *ws, int r, int c, double v, lxw_format *f)
{
	assert(r >= 0 && c >= 0);
	if (isnan(v) || isinf(v))
		worksheet_write_blank(ws, (lxw_row_t)r, (lxw_col_t)c, f);
	else
		worksheet_write_number(ws, (lxw_row_t)r, (lxw_col_t)c, v, f);
}

static const char *const fcols[] = {
	"Function",	  "Module",	    "Self verdict",    "Self baseline",
	"Self candidate", "Self delta",	    "Self delta %",    "Self ratio",
	"Ratio CI low",	  "Ratio CI high",  "Self q",	       "Self MDE %",
	"Total verdict",  "Total baseline", "Total candidate", "Total delta",
	"Total delta %",  "Total ratio",    "Total q",	       "Unstable",
	"Threshold %",
};

static void header(lxw_worksheet *ws, const struct fmts *F, int nrows,
		   const char *unit)
{
	int c, n = (int)PD_ARRAY_SIZE(fcols);

	for (c = 0; c < n; c++) {
		struct pd_buf h = PD_BUF_INIT;

		pd_buf_adds(&h, fcols[c]);
		if (strstr(fcols[c], "baseline") ||
		    strstr(fcols[c], "candidate") ||
		    !strcmp(fcols[c], "Self delta") ||
		    !strcmp(fcols[c], "Total delta"))
			pd_buf_addf(&h, " (%s)", unit);
		pd_xlsx_str(ws, 0, c, h.buf, F->head);
		/* wide enough for the header and the filter's button */
		if (c >= 2)
			worksheet_set_column(
			    ws, (lxw_col_t)c, (lxw_col_t)c,
			    h.len + 4 > 13 ? (double)h.len + 4 : 13, NULL);
		pd_buf_release(&h);
	}
	worksheet_freeze_panes(ws, 1, 1);
	worksheet_autofilter(ws, 0, 0, (lxw_row_t)(nrows > 0 ? nrows : 1),
			     (lxw_col_t)(n - 1));
	worksheet_set_column(ws, 0, 0, 48, NULL);
	worksheet_set_column(ws, 1, 1, 18, NULL);
	/* Conditional formats on the delta % columns: red up, blue down. */
	if (nrows > 0) {
		lxw_conditional_format up = { 0 }, down = { 0 };
		int dc[2] = { 6, 16 }, k;

		up.type = LXW_CONDITIONAL_TYPE_CELL;
		up.criteria = LXW_CONDITIONAL_CRITERIA_GREATER_THAN;
		up.value = 0.05;
		up.format = F->red;
		down.type = LXW_CONDITIONAL_TYPE_CELL;
		down.criteria = LXW_CONDITIONAL_CRITERIA_LESS_THAN;
		down.value = -0.05;
		down.format = F->blue;
		for (k = 0; k < 2; k++) {
			worksheet_conditional_format_range(
			    ws, 1, (lxw_col_t)dc[k], (lxw_row_t)nrows,
			    (lxw_col_t)dc[k], &up);
			worksheet_conditional_format_range(
			    ws, 1, (lxw_col_t)dc[k], (lxw_row_t)nrows,
			    (lxw_col_t)dc[k], &down);
		}
	}
}

static void frow(lxw_worksheet *ws, const struct fmts *F, int r,
		 const struct pd_diff *d, const struct pd_fdiff *f,
		 double scale)
{
	const struct pd_metric *s = &f->self, *t = &f->total;

	pd_xlsx_str(ws, r, 0, pd_func_name(d->fn, f->func), NULL);
	pd_xlsx_str(ws, r, 1, pd_func_module(d->fn, f->func), NULL);
	pd_xlsx_str(ws, r, 2, pd_status_name(s->status), NULL);
	put_num(ws, r, 3, s->base * scale, F->ms);
	put_num(ws, r, 4, s->cand * scale, F->ms);
	put_num(ws, r, 5, s->delta * scale, F->ms);
	put_num(ws, r, 6, s->delta_pct / 100, F->pct);
	put_num(ws, r, 7, s->ratio, F->ratio);
	put_num(ws, r, 8, s->ci_low, F->ratio);
	put_num(ws, r, 9, s->ci_high, F->ratio);
	put_num(ws, r, 10, s->q, F->p);
	put_num(ws, r, 11, s->mde_pct / 100, F->pct);
	pd_xlsx_str(ws, r, 12, d->self_only ? "" : pd_status_name(t->status),
		    NULL);
	put_num(ws, r, 13, t->base * scale, F->ms);
	put_num(ws, r, 14, t->cand * scale, F->ms);
	put_num(ws, r, 15, t->delta * scale, F->ms);
	put_num(ws, r, 16, t->delta_pct / 100, F->pct);
	put_num(ws, r, 17, t->ratio, F->ratio);
	put_num(ws, r, 18, t->q, F->p);
	pd_xlsx_str(ws, r, 19, s->unstable || t->unstable ? "yes" : "", NULL);
	put_num(ws, r, 20, s->tau_pct / 100, F->pct);
}

static int sheet_of(lxw_workbook *wb, const struct fmts *F,
		    const struct pd_diff *d, const char *name, int want,
		    double scale, const char *unit)
{
	lxw_worksheet *ws = workbook_add_worksheet(wb, name);
	size_t i;
	int r = 0;

	worksheet_set_landscape(ws);
	worksheet_fit_to_pages(ws, 1, 0);
	for (i = 0; i < d->funcs.n; i++) {
		const struct pd_fdiff *f = &d->funcs.v[i];

		if (want >= 0 && f->self.status != (enum pd_status)want &&
		    f->total.status != (enum pd_status)want)
			continue;
		if (r >= 1048574)
			break;
		frow(ws, F, ++r, d, f, scale);
	}
	header(ws, F, r, unit);
	return r;
}

static void make_formats(lxw_workbook *wb, struct fmts *F)
{
	F->head = workbook_add_format(wb);
	format_set_bold(F->head);
	format_set_bg_color(F->head, 0xEEEEEE);
	format_set_bottom(F->head, LXW_BORDER_THIN);
	F->title = workbook_add_format(wb);
	format_set_bold(F->title);
	format_set_font_size(F->title, 14);
	F->ms = workbook_add_format(wb);
	format_set_num_format(F->ms, "#,##0.000");
	F->num = workbook_add_format(wb);
	format_set_num_format(F->num, "#,##0");
	F->pct = workbook_add_format(wb);
	format_set_num_format(F->pct, "+0.0%;-0.0%;0.0%");
	F->ratio = workbook_add_format(wb);
	format_set_num_format(F->ratio, "0.000");
	F->p = workbook_add_format(wb);
	format_set_num_format(F->p, "0.00E+00");
	F->red = workbook_add_format(wb);
	format_set_font_color(F->red, 0x9C0006);
	format_set_bg_color(F->red, 0xFFC7CE);
	F->blue = workbook_add_format(wb);
	format_set_font_color(F->blue, 0x1F3F8F);
	format_set_bg_color(F->blue, 0xC6D9F1);
}

/* The summary sheet's rows: verdict, sides, settings, counts, warnings. */
static int summary_rows(lxw_worksheet *sum, const struct fmts *F,
			const struct pd_diff *d, struct pd_buf *b)
{
	double scale = pd_unit_display_scale(d->base.unit);
	const char *unit = pd_unit_display(d->base.unit);
	int r = 0;
	size_t i, k;

	pd_buf_reset(b);
	pd_buf_addf(b, "perfdiff: %s", pd_status_name(d->verdict));
	pd_xlsx_str(sum, r++, 0, b->buf, F->title);
	pd_buf_reset(b);
	pd_fmt_headline(b, d, pd_fmt_func);
	pd_xlsx_str(sum, r++, 0, b->buf, NULL);
	r++;
	for (k = 0; k < 2; k++) {
		const struct pd_side *s = k ? &d->cand : &d->base;

		pd_buf_reset(b);
		pd_buf_addf(b, "%s (%s, %d run%s, %.0f samples)", s->source,
			    s->format ? s->format : "?", s->runs,
			    s->runs == 1 ? "" : "s", s->samples);
		pd_xlsx_str(sum, r, 0, k ? "Candidate" : "Baseline", F->head);
		pd_xlsx_str(sum, r, 1, b->buf, NULL);
		r++;
		pd_buf_reset(b);
		pd_buf_addf(b, "Total %s (%s)", k ? "candidate" : "baseline",
			    unit);
		pd_xlsx_str(sum, r, 0, b->buf, F->head);
		put_num(sum, r++, 1, s->total * scale, F->ms);
	}
	pd_buf_reset(b);
	pd_buf_addf(b, "threshold %g %%, min impact %g %%, alpha %g, %s, %s",
		    d->set.threshold_pct, d->set.min_impact_pct, d->set.alpha,
		    d->set.share ? "shares" : "absolute",
		    pd_method_name(d->method));
	pd_xlsx_str(sum, r, 0, "Settings", F->head);
	pd_xlsx_str(sum, r++, 1, b->buf, NULL);
	pd_xlsx_str(sum, r, 0, "Total change", F->head);
	put_num(sum, r++, 1, d->total.delta_pct / 100, F->pct);
	for (k = 0; k < PD_STATUS_COUNT; k++) {
		pd_buf_reset(b);
		pd_buf_addf(b, "Functions %s",
			    pd_status_name((enum pd_status)k));
		pd_xlsx_str(sum, r, 0, b->buf, F->head);
		put_num(sum, r++, 1, (double)d->nstatus[k], F->num);
	}
	for (i = 0; i < d->warnings.n; i++) {
		pd_xlsx_str(sum, r, 0, i ? "" : "Warnings", F->head);
		pd_xlsx_str(sum, r++, 1, d->warnings.v[i], NULL);
	}
	return r;
}

/* A bar chart of the top n regressions (self delta) at row r of sum. */
static void top_chart(lxw_workbook *wb, lxw_worksheet *sum, int r, int n,
		      const char *unit, struct pd_buf *b)
{
	lxw_chart *ch = workbook_add_chart(wb, LXW_CHART_BAR);
	lxw_chart_series *se = chart_add_series(ch, NULL, NULL);

	chart_series_set_categories(se, "Regressions", 1, 0, (lxw_row_t)n, 0);
	chart_series_set_values(se, "Regressions", 1, 5, (lxw_row_t)n, 5);
	pd_buf_reset(b);
	pd_buf_addf(b, "Self delta (%s)", unit);
	chart_series_set_name(se, b->buf);
	chart_title_set_name(ch, "Top regressions");
	chart_axis_set_name(ch->x_axis, b->buf);
	chart_axis_set_name(ch->y_axis, "Function");
	chart_legend_set_position(ch, LXW_CHART_LEGEND_NONE);
	worksheet_insert_chart(sum, (lxw_row_t)(r + 2), 0, ch);
}

/* Metric table i on a sheet of its own. */
static void table_sheet(lxw_workbook *wb, const struct fmts *F,
			const struct pd_tdiff *t, size_t i, struct pd_buf *b)
{
	lxw_worksheet *ws;
	size_t rr, m;
	int c = 0;

	pd_buf_reset(b);
	pd_buf_addf(b, "Table %zu", i + 1);
	ws = workbook_add_worksheet(wb, b->buf);
	pd_xlsx_str(ws, 0, c++, "Key", F->head);
	for (m = 0; m < t->nmeasures; m++) {
		const char *mn = t->base->measures.v[m];
		const char *sub[] = { "baseline", "candidate", "delta %",
				      "verdict" };
		int s;

		for (s = 0; s < 4; s++) {
			pd_buf_reset(b);
			pd_buf_addf(b, "%s %s", mn, sub[s]);
			pd_xlsx_str(ws, 0, c++, b->buf, F->head);
		}
	}
	for (rr = 0; rr < t->rows.n && rr < 1048574; rr++) {
		int row = (int)rr + 1;

		pd_buf_reset(b);
		pd_mtable_key_text(b, t->rows.v[rr].key);
		c = 0;
		pd_xlsx_str(ws, row, c++, b->buf, NULL);
		for (m = 0; m < t->nmeasures; m++) {
			const struct pd_metric *x = &t->rows.v[rr].m[m];

			put_num(ws, row, c++, x->base, F->num);
			put_num(ws, row, c++, x->cand, F->num);
			put_num(ws, row, c++, x->delta_pct / 100, F->pct);
			pd_xlsx_str(ws, row, c++, pd_status_name(x->status),
				    NULL);
		}
	}
	worksheet_freeze_panes(ws, 1, 1);
	worksheet_autofilter(ws, 0, 0, (lxw_row_t)(t->rows.n ? t->rows.n : 1),
			     (lxw_col_t)(c - 1));
	worksheet_set_column(ws, 0, 0, 40, NULL);
	worksheet_set_column(ws, 1, (lxw_col_t)(c - 1), 14, NULL);
}

int pd_report_xlsx(const char *path, const struct pd_diff *d,
		   struct pd_err *err)
{
	lxw_workbook *wb = workbook_new(path);
	lxw_worksheet *sum;
	struct fmts F;
	double scale = pd_unit_display_scale(d->base.unit);
	const char *unit = pd_unit_display(d->base.unit);
	struct pd_buf b = PD_BUF_INIT;
	int r, nreg, nself = 0;
	size_t i;

	if (!wb)
		return pd_err_set(err, PD_EIO, "%s: cannot create the workbook",
				  path);
	make_formats(wb, &F);
	sum = workbook_add_worksheet(wb, "Summary");
	worksheet_set_landscape(sum);
	worksheet_fit_to_pages(sum, 1, 0);
	worksheet_set_column(sum, 0, 0, 22, NULL);
	worksheet_set_column(sum, 1, 1, 90, NULL);
	r = summary_rows(sum, &F, d, &b);
	nreg = sheet_of(wb, &F, d, "Regressions", PD_REGRESSED, scale, unit);
	/* The chart shows own-time regressions; they come first (by self Δ). */
	for (i = 0; i < d->funcs.n; i++)
		nself += d->funcs.v[i].self.status == PD_REGRESSED;
	if (nself)
		nreg = nself < nreg ? nself : nreg;
	sheet_of(wb, &F, d, "Improvements", PD_IMPROVED, scale, unit);
	sheet_of(wb, &F, d, "All functions", -1, scale, unit);
	if (nreg > 0)
		top_chart(wb, sum, r, nreg < 10 ? nreg : 10, unit, &b);
	for (i = 0; i < d->tables.n && i < 20; i++) {
		table_sheet(wb, &F, &d->tables.v[i], i, &b);
		pd_xlsx_str(sum, r, 0, "Table", F.head);
		pd_xlsx_str(sum, r++, 1, d->tables.v[i].base->name, NULL);
	}
	pd_buf_release(&b);
	return pd_xlsx_close(wb, path, err);
}

/* Whether libxlsxwriter's error is a failed file operation (errno says). */
static int file_error(lxw_error rc)
{
	switch (rc) {
	case LXW_ERROR_CREATING_XLSX_FILE:
	case LXW_ERROR_CREATING_TMPFILE:
	case LXW_ERROR_READING_TMPFILE:
	case LXW_ERROR_ZIP_FILE_OPERATION:
	case LXW_ERROR_ZIP_FILE_ADD:
	case LXW_ERROR_ZIP_CLOSE:
		return 1;
	default:
		return 0;
	}
}

/*
 * libxlsxwriter writes the file when the workbook closes and says what
 * went wrong on stderr itself, in lines of its own that name the
 * temporary file: its stderr is /dev/null for that call, and the one
 * line is ours (docs/style.md, "Errors").
 */
int pd_xlsx_close(lxw_workbook *wb, const char *path, struct pd_err *err)
{
	int saved, quiet, e;
	lxw_error rc;

	fflush(stderr);
	saved = dup(STDERR_FILENO);
	quiet = open("/dev/null", O_WRONLY);
	if (saved >= 0 && quiet >= 0)
		dup2(quiet, STDERR_FILENO);
	errno = 0;
	rc = workbook_close(wb);
	e = errno;
	if (saved >= 0 && quiet >= 0) {
		fflush(stderr);
		dup2(saved, STDERR_FILENO);
	}
	if (saved >= 0)
		close(saved);
	if (quiet >= 0)
		close(quiet);
	if (rc == LXW_NO_ERROR)
		return 0;
	return pd_err_set(err, PD_EIO, "%s: write failed: %s", path,
			  file_error(rc) && e ? strerror(e) : lxw_strerror(rc));
}
