/*
 * The Markdown of several series in one comment (docs/reports.md,
 * "Several series"): which series come first, and which parts of each are
 * shortened, in turn, to stay under PD_LIMIT_MARKDOWN_BYTES.
 */
#include <stdlib.h>
#include <string.h>

#include "core/blob.h"
#include "core/limits.h"
#include "core/sort.h"
#include "core/xalloc.h"
#include "report/md_int.h"
#include "report/report.h"

/* Names in the first line: at most this many a series, and in all. */
#define HEAD_NAMES_SERIES 3
#define HEAD_NAMES 12
/* Characters of one name there. */
#define HEAD_NAME_CHARS 80
/* Bytes kept free under the limit, for what is not measured beforehand. */
#define SLACK 200

/* One series as shown: its report, each part in a buffer of its own. */
struct shown {
	const struct pd_md_series *s;
	struct md_report r;
	char *how; /* where the rest is, for the notes of cut tables */
	struct pd_buf part[MD_NPARTS];
	int dropped[MD_NPARTS]; /* part left out whole */
	int rank;		/* 0 regressed, 1 improved, 2 the rest */
	int hidden;		/* the whole series left out */
};

/* One part in a turn of share(): what it would take, and in what order. */
struct slot {
	struct shown *x;
	enum md_part k;
	size_t want, shown, order;
};

/* What each part is called in the line saying what was left out. */
static const char *const part_noun[MD_NPARTS] = {
	[MD_REGRESSED] = "regressions",
	[MD_IMPROVED] = "improvements",
	[MD_ONE_SIDED] = "added and removed functions",
	[MD_SYSTEM] = "system frames",
	[MD_TABLES] = "metric tables",
	[MD_ALL] = "all functions",
	[MD_TAIL] = "settings and provenance",
};

/* The parts shortened in the turns after the regressions, in order. */
static const enum md_part other_parts[] = { MD_IMPROVED, MD_ONE_SIDED,
					    MD_SYSTEM, MD_TABLES, MD_TAIL };

static int rank_of(const struct pd_diff *d)
{
	return d->verdict == PD_REGRESSED  ? 0
	       : d->verdict == PD_IMPROVED ? 1
					   : 2;
}

/* "warm perfview", escaped. */
static void series_name(struct pd_buf *b, const struct pd_md_series *s)
{
	pd_md_text(b, s->cache, 60);
	pd_buf_addch(b, ' ');
	pd_md_text(b, s->tool, 60);
}

/* Part k of x rendered again within limit; returns the rows shown. */
static size_t render(struct shown *x, enum md_part k, size_t limit)
{
	size_t left;

	pd_buf_reset(&x->part[k]);
	return pd_md_part(&x->part[k], &x->r, k, limit, &left);
}

static int cmp_slot(const void *pa, const void *pb)
{
	const struct slot *a = pa, *b = pb;

	if (a->want != b->want)
		return a->want < b->want ? -1 : 1;
	return (a->order > b->order) - (a->order < b->order);
}

/*
 * One turn: the parts v share *budget, the smallest first, each taking
 * what it needs up to an equal share of what is left, so that one long
 * table cannot crowd out the others. A part that would show none of its
 * rows, or whose headings alone do not fit, is left out whole.
 */
static void share(struct slot *v, size_t n, size_t *budget)
{
	size_t i;

	for (i = 0; i < n; i++) {
		v[i].shown = render(v[i].x, v[i].k, *budget);
		v[i].want = v[i].x->part[v[i].k].len;
		v[i].order = i;
	}
	pd_sort(v, n, sizeof(*v), cmp_slot);
	for (i = 0; i < n; i++) {
		struct shown *x = v[i].x;
		struct pd_buf *p = &x->part[v[i].k];
		size_t give = *budget / (n - i);

		if (v[i].want > give)
			v[i].shown = render(x, v[i].k, give);
		if (p->len > give || (x->r.nrows[v[i].k] && !v[i].shown)) {
			pd_buf_reset(p);
			x->dropped[v[i].k] = 1;
		}
		*budget -= p->len;
	}
}

/*
 * The turn of parts k (n of them) of the series of rank (-1: any), in
 * the order the series are shown.
 */
static void turn(struct shown *x, size_t nx, int rank, const enum md_part *k,
		 size_t n, size_t *budget)
{
	struct slot *v = pd_xmalloc((nx * n + 1) * sizeof(*v));
	size_t i, j, m = 0;

	for (i = 0; i < nx; i++)
		for (j = 0; j < n; j++)
			if (rank < 0 || x[i].rank == rank) {
				v[m].x = &x[i];
				v[m++].k = k[j];
			}
	share(v, m, budget);
	free(v);
}

/*
 * The line saying what of x was left out and how to get it; with all,
 * as if every part that can be were (the room to keep for it).
 */
static void left_note(struct pd_buf *b, const struct shown *x, int all)
{
	size_t k, said = 0;

	for (k = MD_REGRESSED; k < MD_NPARTS; k++) {
		int none = !x->r.nrows[k] && k != MD_TAIL &&
			   (k != MD_TABLES || !x->r.d->tables.n);

		if (all ? none : !x->dropped[k])
			continue;
		pd_buf_adds(b,
			    said++ ? ", " : "\n_Left out to fit a comment: ");
		pd_buf_adds(b, part_noun[k]);
		if (x->r.nrows[k])
			pd_buf_addf(b, " (%zu rows)", x->r.nrows[k]);
	}
	if (said)
		pd_buf_addf(b, "; %s._\n", x->how);
}

/* The regressed rows the first line names: regressed, else added. */
static size_t named_rows(const struct shown *x, const struct pd_row **rows)
{
	size_t n = x->r.nrows[MD_REGRESSED], i = 0;

	*rows = x->r.rows[MD_REGRESSED];
	if (n || x->rank)
		return n;
	*rows = x->r.rows[MD_ONE_SIDED];
	while (i < x->r.nrows[MD_ONE_SIDED] && (*rows)[i].m->status == PD_ADDED)
		i++;
	return i;
}

/*
 * "**4 series compared (cache, tool): warm perf regressed, ...** —
 * regressed: warm perf: NAME +50.0 % (self), NAME +12.1 % (total) …and
 * 3 more; ...": each series' verdict, then its regressed functions.
 */
static void first_line(struct pd_buf *b, const struct shown *x, size_t n,
		       const char *only)
{
	const char *lead = " — regressed: ";
	size_t i, j, m, named = 0;

	pd_buf_addf(b, "**%zu series compared (cache, tool):", n);
	for (i = 0; i < n; i++) {
		pd_buf_adds(b, i ? ", " : " ");
		series_name(b, x[i].s);
		pd_buf_addf(b, " %s", pd_status_name(x[i].r.d->verdict));
	}
	pd_buf_adds(b, "**");
	if (*only) {
		pd_buf_adds(b, "; not compared, one side has no such runs: ");
		pd_md_text(b, only, 1000);
	}
	for (i = 0; i < n; i++) {
		const struct pd_row *rows;

		if (!(m = named_rows(&x[i], &rows)))
			continue;
		pd_buf_adds(b, lead);
		lead = "; ";
		series_name(b, x[i].s);
		pd_buf_adds(b, ":");
		for (j = 0;
		     j < m && j < HEAD_NAMES_SERIES && named < HEAD_NAMES;
		     j++, named++) {
			pd_buf_adds(b, j ? ", " : " ");
			pd_md_func(b, x[i].r.d, rows[j].f->func,
				   HEAD_NAME_CHARS);
			pd_buf_adds(b, " ");
			if (rows[j].m->status == PD_ADDED) {
				pd_buf_adds(b, "added");
				continue;
			}
			pd_fmt_pct(b, rows[j].m->delta_pct);
			pd_buf_addf(b, " (%s)", rows[j].metric);
		}
		if (j < m)
			pd_buf_addf(b, " …and %zu more", m - j);
	}
	pd_buf_adds(b, "\n");
}

/*
 * Under the first line, what regressed cold while warm held (docs/cli.md,
 * "Bundles"): the cold start got slower, not the work.
 */
static void cold_line(struct pd_buf *b, const struct pd_md_cold *c, size_t n)
{
	size_t i;

	if (!n)
		return;
	pd_buf_adds(b, "\nCold cache only (regressed cold, warm held):");
	for (i = 0; i < n && i < HEAD_NAMES; i++) {
		pd_buf_adds(b, i ? ", " : " ");
		pd_md_name_module(b, c[i].func, c[i].module, " ",
				  HEAD_NAME_CHARS);
		pd_buf_adds(b, " ");
		pd_fmt_pct(b, c[i].delta_pct);
		pd_buf_adds(b, " (");
		pd_md_text(b, c[i].tool, 60);
		pd_buf_adds(b, ")");
	}
	if (i < n)
		pd_buf_addf(b, " …and %zu more", n - i);
	pd_buf_adds(b, "\n");
}

/*
 * Then the functions whose cold-cache cost changed between the builds,
 * on one line.
 */
static void cost_line(struct pd_buf *b, const struct pd_cold_cost *c, size_t n)
{
	size_t i;

	for (i = 0; i < n && c[i].status != PD_SAME; i++) {
		if (i == HEAD_NAMES)
			break;
		pd_buf_adds(b, i ? ", "
				 : "\nCold-cache cost (cold less warm"
				   " self time) changed: ");
		pd_md_name_module(b, c[i].func, c[i].module, " ",
				  HEAD_NAME_CHARS);
		pd_buf_adds(b, c[i].delta > 0 ? " +" : " ");
		pd_fmt_weight(b, c[i].delta, c[i].unit);
		pd_buf_addf(b, " %s, ", pd_unit_display(c[i].unit));
		pd_fmt_weight(b, c[i].base, c[i].unit);
		pd_buf_adds(b, " → ");
		pd_fmt_weight(b, c[i].cand, c[i].unit);
		pd_buf_adds(b, " (");
		pd_md_text(b, c[i].tool, 60);
		pd_buf_adds(b, ")");
	}
	if (i == HEAD_NAMES && i < n && c[i].status != PD_SAME) {
		size_t m = i;

		while (m < n && c[m].status != PD_SAME)
			m++;
		pd_buf_addf(b, " …and %zu more", m - i);
	}
	if (i)
		pd_buf_adds(b, "\n");
}

/* x for s: its rank, where the rest of it is, its heading and head. */
static void shown_init(struct shown *x, const struct pd_md_series *s)
{
	struct pd_buf how = PD_BUF_INIT;
	size_t k, left;

	memset(x, 0, sizeof(*x));
	x->s = s;
	x->rank = rank_of(s->d);
	pd_buf_adds(&how, "see <code>-f json</code>, or this series alone:"
			  " <code>--cache ");
	pd_md_text(&how, s->cache, 60);
	pd_buf_adds(&how, " --tool ");
	pd_md_text(&how, s->tool, 60);
	pd_buf_adds(&how, "</code>");
	x->how = pd_buf_detach(&how);
	pd_md_report_init(&x->r, s->d, x->how, 0);
	for (k = 0; k < MD_NPARTS; k++)
		pd_buf_init(&x->part[k]);
	pd_buf_adds(&x->part[MD_HEAD], "\n### ");
	pd_md_text(&x->part[MD_HEAD], s->cache, 60);
	pd_buf_adds(&x->part[MD_HEAD], ", ");
	pd_md_text(&x->part[MD_HEAD], s->tool, 60);
	pd_buf_adds(&x->part[MD_HEAD], "\n\n");
	(void)pd_md_part(&x->part[MD_HEAD], &x->r, MD_HEAD, SIZE_MAX, &left);
}

static void shown_release(struct shown *x)
{
	size_t k;

	for (k = 0; k < MD_NPARTS; k++)
		pd_buf_release(&x->part[k]);
	pd_md_report_release(&x->r);
	free(x->how);
}

/* Appends x as shown: its parts in order, then what was left out. */
static void put_shown(struct pd_buf *b, const struct shown *x)
{
	size_t k;

	for (k = 0; k < MD_NPARTS; k++)
		pd_buf_add(b, x->part[k].buf, x->part[k].len);
	left_note(b, x, 0);
}

/* The bytes put_shown appends for x. */
static size_t shown_len(const struct shown *x)
{
	struct pd_buf b = PD_BUF_INIT;
	size_t n;

	put_shown(&b, x);
	n = b.len;
	pd_buf_release(&b);
	return n;
}

/*
 * The line naming the series left out whole; with all, as if every one
 * that may be were (the room to keep for it).
 */
static void hidden_note(struct pd_buf *b, const struct shown *x, size_t n,
			int all)
{
	size_t i, said = 0;

	for (i = 0; i < n; i++) {
		if (all ? !x[i].rank : !x[i].hidden)
			continue;
		pd_buf_adds(
		    b, said++ ? ", " : "\n_Series left out to fit a comment: ");
		series_name(b, x[i].s);
		pd_buf_addf(b, " (%s)", pd_status_name(x[i].r.d->verdict));
	}
	if (said)
		pd_buf_adds(b, "; see <code>-f json</code>, or one series alone"
			       " with <code>--cache</code> and"
			       " <code>--tool</code>._\n");
}

/*
 * Only when the heads of many series pass the limit on their own: the
 * series that did not regress are left out whole, the last first.
 */
static void hide(struct shown *x, size_t n, size_t fixed)
{
	struct pd_buf note = PD_BUF_INIT;
	size_t i, total = fixed;

	hidden_note(&note, x, n, 1);
	total += note.len;
	for (i = 0; i < n; i++)
		total += shown_len(&x[i]);
	for (i = n; i-- > 0 && total >= PD_LIMIT_MARKDOWN_BYTES;)
		if (x[i].rank) {
			x[i].hidden = 1;
			total -= shown_len(&x[i]);
		}
	pd_buf_release(&note);
}

/* The legend and the version, once for every series. */
static void legend(struct pd_buf *b)
{
	const struct pd_blob *text = pd_blob_get("reports/legend.md");

	pd_buf_adds(b, "\n<details><summary>Legend</summary>\n\n");
	if (text)
		pd_buf_addf(b, "%s\n", text->data);
	pd_buf_addf(b, "<sub>perfdiff %s</sub>\n</details>\n", PD_VERSION);
}

/*
 * The room under the limit for the parts that are shortened: the limit
 * less fixed (the first line and the end), each series' heading and head,
 * the room for each one's note, and some slack.
 */
static size_t room(const struct shown *x, size_t n, size_t fixed)
{
	struct pd_buf note = PD_BUF_INIT;
	size_t i, used = fixed + SLACK;

	hidden_note(&note, x, n, 1);
	for (i = 0; i < n; i++) {
		left_note(&note, &x[i], 1);
		used += x[i].part[MD_HEAD].len;
	}
	used += note.len;
	pd_buf_release(&note);
	return used < PD_LIMIT_MARKDOWN_BYTES ? PD_LIMIT_MARKDOWN_BYTES - used
					      : 0;
}

int pd_report_md_series(FILE *f, const struct pd_md_series *s, size_t n,
			const char *only, const struct pd_md_colds *cold)
{
	static const enum md_part regressed = MD_REGRESSED, all = MD_ALL;
	struct shown *x = pd_xcalloc(n + 1, sizeof(*x));
	struct pd_buf b = PD_BUF_INIT, end = PD_BUF_INIT;
	size_t i, k = 0, budget;
	int rank, rc;

	/* regressed first, then improved, then the rest, each as given */
	for (rank = 0; rank < 3; rank++)
		for (i = 0; i < n; i++)
			if (rank_of(s[i].d) == rank)
				shown_init(&x[k++], &s[i]);
	first_line(&b, x, n, only);
	cold_line(&b, cold->only, cold->nonly);
	cost_line(&b, cold->cost, cold->ncost);
	legend(&end);
	/*
	 * The turns, what matters most first: every regressed table, whole
	 * when they fit together; the other parts of the regressed series,
	 * of the improved, of the rest; last the tables of all functions.
	 */
	budget = room(x, n, b.len + end.len);
	turn(x, n, -1, &regressed, 1, &budget);
	for (rank = 0; rank < 3; rank++)
		turn(x, n, rank, other_parts, PD_ARRAY_SIZE(other_parts),
		     &budget);
	turn(x, n, -1, &all, 1, &budget);
	hide(x, n, b.len + end.len);
	for (i = 0; i < n; i++)
		if (!x[i].hidden)
			put_shown(&b, &x[i]);
	hidden_note(&b, x, n, 0);
	pd_buf_add(&b, end.buf, end.len);
	rc = pd_report_put(f, &b);
	for (i = 0; i < n; i++)
		shown_release(&x[i]);
	free(x);
	pd_buf_release(&b);
	pd_buf_release(&end);
	return rc;
}
