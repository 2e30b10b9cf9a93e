/*
 * Windows Performance Analyzer CSV exports (docs/formats.md, "Windows
 * Performance Analyzer"), parsed with libcsv. A file is one table; its columns
 * decide what it is:
 *   - CPU Usage (Sampled) with a Stack column of whole stacks, root first,
 *     frames joined by '/';
 *   - the same copied from WPA's tree view: one row per node, indented with
 *     "|-", weights inclusive;
 *   - flat Module + Function rows: self weights only;
 *   - any other table (Disk Usage, File I/O, ...): text columns are the key,
 *     numeric columns with a unit are measures, summed per key.
 * Numbers follow the exporting machine's locale. The decimal separator is
 * decided once per file from the first rows (docs/formats.md, WPA), never per
 * cell.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <csv.h>

#include "core/buf.h"
#include "core/file.h"
#include "import/formats.h"
#include "import/wpa/wpa_int.h"

static void split_unit(struct wpa_column *c)
{
	size_t n = strlen(c->name), i;
	const char *open;

	if (!n || c->name[n - 1] != ')')
		return;
	open = strrchr(c->name, '(');
	if (!open)
		return;
	for (i = 0; units[i]; i++) {
		size_t k = strlen(units[i]);

		if ((size_t)(c->name + n - 1 - open - 1) == k &&
		    !memcmp(open + 1, units[i], k)) {
			snprintf(c->unit, sizeof(c->unit), "%s", units[i]);
			return;
		}
	}
}

static int col_named(const struct wpa *w, const char *prefix)
{
	size_t i, k = strlen(prefix);

	for (i = 0; i < w->cols.n; i++)
		if (!strncmp(w->cols.v[i].name, prefix, k) &&
		    (w->cols.v[i].name[k] == '\0' ||
		     w->cols.v[i].name[k] == ' '))
			return (int)i;
	return -1;
}

/* The stack: CPU tables' "Stack", memory tables' "Commit Stack" ... */
static int stack_col(const struct wpa *w)
{
	int c = col_named(w, "Stack");

	/* CPU Usage (Precise): the thread switched in, where it waited */
	if (c < 0)
		c = col_named(w, "New Thread Stack");
	if (c < 0)
		c = col_named(w, "Commit Stack");
	if (c < 0)
		c = col_named(w, "Alloc Stack");
	return c;
}

static int looks_numeric(const char *s)
{
	int digits = 0;

	if (*s == '-' || *s == '+')
		s++;
	for (; *s; s++) {
		if (isdigit((unsigned char)*s))
			digits++;
		else if (*s != '.' && *s != ',')
			return 0;
	}
	return digits > 0;
}

/* Evidence about the decimal separator from one cleaned numeric cell. */
static void observe(struct wpa *w, const char *s, int *dot, int *comma)
{
	const char *d = strrchr(s, '.'), *c = strrchr(s, ',');
	const char *dd = strchr(s, '.'), *cc = strchr(s, ',');

	if (d && c) { /* both: the last one is the decimal separator */
		if (d > c)
			(*dot)++;
		else
			(*comma)++;
		return;
	}
	if (d && dd != d) { /* "1.048.576": '.' groups thousands */
		(*comma)++;
		return;
	}
	if (c && cc != c) {
		(*dot)++;
		return;
	}
	if (d && strlen(d + 1) != 3)
		(*dot)++;
	else if (c && strlen(c + 1) != 3)
		(*comma)++;
	else if (d || c)
		w->ambiguous++;
}

/* ns per unit of a time column's unit; 0 when it is no unit of time. */
static double time_scale(const char *unit)
{
	if (!strcmp(unit, "ms"))
		return 1e6;
	if (!strcmp(unit, "s"))
		return 1e9;
	if (!strcmp(unit, "µs") || !strcmp(unit, "us"))
		return 1e3;
	return !strcmp(unit, "ns");
}

static double ns_or_one(const char *unit)
{
	double sc = time_scale(unit);

	return sc > 0 ? sc : 1; /* ns or none */
}

static int is_timestamp(const char *name)
{
	static const char *const t[] = { "TimeStamp",	  "Init Time",
					 "Complete Time", "Start Time",
					 "End Time",	  "Stop Time",
					 "Time Stamp",	  NULL };
	size_t i;

	for (i = 0; t[i]; i++)
		if (strstr(name, t[i]))
			return 1;
	return 0;
}

const char pd_wpa_alloc_default[] =
    "^((ntdll|kernelbase|kernel32)\\.dll!(Rtl[A-Za-z]*Heap[A-Za-z]*|"
    "Rtlp[A-Za-z]*Heap[A-Za-z]*|RtlpLowFragHeap[A-Za-z]*|HeapAlloc|"
    "HeapReAlloc|LocalAlloc|GlobalAlloc|VirtualAlloc[A-Za-z0-9]*|"
    "NtAllocateVirtualMemory|ZwAllocateVirtualMemory)|"
    "(ucrtbased?|msvcrt|msvcr[0-9]+d?|vcruntime[0-9_]+d?|"
    "msvcp[0-9_]+d?)\\.dll!(malloc|_malloc_base|calloc|_calloc_base|"
    "realloc|_realloc_base|_aligned_malloc|_malloc_dbg|"
    "_nh_malloc[a-z_]*|operator new.*)|"
    "[^!]*!operator new(\\[\\])?(\\(.*)?|"
    "ntoskrnl\\.exe!.*)$";

/*
 * A table of waits or I/O with a stack: File I/O's and Disk Usage's
 * "Duration (µs)", "I/O Time", "Service Time", CPU Usage (Precise)'s
 * "Waits (µs)". Its time is the profile's weight, not its bytes: four
 * times the reads of the same bytes is four times the waiting. The
 * column (said in a note), or -1 when the table has none with a unit of
 * time.
 */
static int io_time_col(struct wpa *w)
{
	static const char *const names[] = { "Duration",     "I/O Time",
					     "Service Time", "Elapsed Time",
					     "Waits",	     NULL };
	size_t i;

	for (i = 0; names[i]; i++) {
		int c = col_named(w, names[i]);
		const char *u = c >= 0 ? w->cols.v[c].unit : "";

		if (!(time_scale(u) > 0))
			continue;
		pd_profile_note(w->p,
				"%s: a table of waits or I/O: its weight is"
				" the time in \"%s\", not the bytes",
				w->in->path, w->cols.v[c].name);
		w->waits = 1;
		return c;
	}
	return -1;
}

/*
 * A table with a stack and a size but no Weight is a memory table:
 * WPA's Heap Allocations (Stack, Size, Impacting Size, Count, Type) or
 * VirtualAlloc Commit LifeTimes (Commit Stack, Size, Impacting Size,
 * Count). Bytes are the Impacting Size (what is outstanding at the end of
 * the selection) when there is one, else the Size; --metric blocks counts
 * allocations instead. Returns 0, or < 0 with the error set.
 */
static int memory_columns(struct wpa *w)
{
	static const char *const sizes[] = { "Impacting Size", "Size",
					     "Outstanding Size", NULL };
	const char *rx =
	    w->o->alloc_frames ? w->o->alloc_frames : pd_wpa_alloc_default;
	const char *u;
	size_t i;

	w->c_bytes = -1;
	for (i = 0; sizes[i] && w->c_bytes < 0; i++)
		w->c_bytes = col_named(w, sizes[i]);
	if (w->c_bytes < 0)
		return 0; /* a stack and counts: samples, as before */
	if (w->o->metric && strcmp(w->o->metric, "bytes") &&
	    strcmp(w->o->metric, "blocks"))
		return pd_err_set(w->err, PD_EUSAGE,
				  "%s: a WPA memory table has --metric bytes"
				  " or blocks, not %s",
				  w->in->path, w->o->metric);
	w->memory = 1;
	w->by_count = w->o->metric && !strcmp(w->o->metric, "blocks");
	u = w->cols.v[w->c_bytes].unit;
	w->bytes_scale = !strcmp(u, "KB")   ? 1024.0
			 : !strcmp(u, "MB") ? 1048576.0
			 : !strcmp(u, "GB") ? 1073741824.0
					    : 1.0;
	if (regcomp(&w->alloc_re, rx, REG_EXTENDED | REG_NOSUB | REG_ICASE))
		return pd_err_set(w->err, PD_EUSAGE,
				  "--alloc-frames: not a regular expression:"
				  " %s",
				  rx);
	w->alloc_re_set = 1;
	return 0;
}

/*
 * The table of rows keyed by their text columns, each with its numeric
 * ones summed (pd_mtable): a table that is no stacks, or beside a table
 * of waits' stacks its operations, bytes and time per file and type
 * (suffix " operations"; its stack is no key). 0, or < 0 with the error.
 */
static int table_columns(struct wpa *w, const char *suffix)
{
	const char *base = pd_path_base(w->in->path);
	struct pd_buf name = PD_BUF_INIT;
	size_t i;

	pd_buf_add(&name, base, strcspn(base, "."));
	for (i = 0; i < name.len; i++)
		if (name.buf[i] == '_')
			name.buf[i] = ' ';
	pd_buf_adds(&name, suffix);
	w->table = pd_mtable_new(w->p, name.buf);
	pd_buf_release(&name);
	for (i = 0; i < w->cols.n; i++) {
		struct wpa_column *c = &w->cols.v[i];

		/* stacks are no keys: a table of waits is by file and type */
		if ((int)i == w->c_stack || (int)i == w->c_thread ||
		    (w->c_stack >= 0 && strstr(c->name, "Stack")))
			continue;
		if ((c->unit[0] || !strcmp(c->name, "Count")) && c->numeric &&
		    !c->text && !is_timestamp(c->name) &&
		    strcmp(c->unit, "%")) {
			c->kind = WPA_MEASURE;
			PD_VEC_PUSH(&w->measure_cols, (int)i);
			PD_VEC_PUSH(&w->table->measures, pd_xstrdup(c->name));
			PD_VEC_PUSH(&w->table->count_like,
				    !strcmp(c->name, "Count") ||
					    !strcmp(c->unit, "B")
					? 1
					: 0);
		} else if (c->text && !c->numeric && !c->hex) {
			c->kind = WPA_KEY;
			PD_VEC_PUSH(&w->key_cols, (int)i);
			PD_VEC_PUSH(&w->table->keys, pd_xstrdup(c->name));
		}
	}
	if (!w->measure_cols.n || w->measure_cols.n > 64)
		return pd_err_set(w->err, PD_EFORMAT,
				  "%s: row 1: no WPA columns perfdiff"
				  " knows: no Stack, Module/Function,"
				  " or numeric column with a unit in"
				  " parentheses (supported: %s)",
				  w->in->path, pd_format_list());
	return 0;
}

/* Decimal separator, column kinds and the shape, from the first rows. */
static int decide(struct wpa *w)
{
	int dot = 0, comma = 0, tree = 0, rc;
	size_t i, r;

	for (r = 0; r < w->pending.n; r++) {
		struct wpa_row *row = &w->pending.v[r];

		for (i = 0; i < row->n && i < w->cols.n; i++) {
			struct wpa_column *c = &w->cols.v[i];

			pd_wpa_clean_number(row->f[i], &w->tmp);
			if (!w->tmp.len || !strcmp(w->tmp.buf, "n/a"))
				continue;
			if (looks_numeric(w->tmp.buf)) {
				c->numeric = 1;
				observe(w, w->tmp.buf, &dot, &comma);
			} else if (w->tmp.buf[0] == '0' &&
				   (w->tmp.buf[1] == 'x' ||
				    w->tmp.buf[1] == 'X')) {
				c->hex = 1;
			} else {
				c->text = 1;
			}
		}
		if (w->c_stack >= 0 && (size_t)w->c_stack < row->n &&
		    (row->f[w->c_stack][0] == '|' ||
		     strstr(row->f[w->c_stack], "|-")))
			tree = 1;
	}
	if (w->o->decimal)
		w->decimal = w->o->decimal;
	else if (dot || comma)
		w->decimal = comma > dot ? ',' : '.';
	else {
		w->decimal = '.';
		if (w->ambiguous)
			pd_profile_note(
			    w->p,
			    "%s: numbers like 1,234 could use either"
			    " decimal separator; read '.' as decimal"
			    " (--decimal , to change)",
			    w->in->path);
	}
	w->thousands = w->decimal == ',' ? '.' : ',';

	w->c_stack = stack_col(w);
	w->c_weight = col_named(w, "Weight");
	if (w->c_weight < 0 && w->c_stack >= 0)
		w->c_weight = io_time_col(w);
	w->c_count = col_named(w, "Count");
	w->c_process = col_named(w, "Process");
	if (w->c_process < 0)
		w->c_process = col_named(w, "New Process");
	w->c_thread = col_named(w, "Thread ID");
	if (w->c_thread < 0)
		w->c_thread = col_named(w, "New Thread Id");
	w->c_module = col_named(w, "Module");
	w->c_function = col_named(w, "Function");
	if (w->c_weight >= 0)
		w->weight_scale = ns_or_one(w->cols.v[w->c_weight].unit);
	if (w->c_stack >= 0 && w->c_weight < 0 && memory_columns(w) < 0)
		return PD_EUSAGE;
	if (w->c_stack >= 0)
		w->shape = tree || col_named(w, "Line #") >= 0 ? SHAPE_TREE
							       : SHAPE_STACK;
	else if (w->c_function >= 0 && (w->c_weight >= 0 || w->c_count >= 0))
		w->shape = SHAPE_FLAT;
	else
		w->shape = SHAPE_TABLE;

	if (w->shape == SHAPE_TABLE || (w->waits && w->shape == SHAPE_STACK)) {
		/* a table of waits: its operations and bytes too, judged */
		rc = table_columns(w, w->shape == SHAPE_TABLE ? ""
							      : " operations");
		if (rc < 0)
			return rc;
	} else if (w->shape == SHAPE_FLAT) {
		w->p->self_only = 1;
		pd_profile_note(w->p,
				"%s: a flat Module/Function table has self"
				" weights only: total is left empty",
				w->in->path);
	}
	w->decided = 1;
	for (r = 0; r < w->pending.n && !w->failed; r++)
		if (pd_wpa_row(w, w->pending.v[r].f, w->pending.v[r].n,
			       w->pending.v[r].line) < 0)
			return PD_EPARSE;
	return 0;
}

static void free_row(struct wpa_row *r)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		free(r->f[i]);
	free(r->f);
}

static void on_field(void *s, size_t len, void *data)
{
	struct wpa *w = data;

	PD_VEC_PUSH(&w->cur, pd_xstrndup(s ? s : "", s ? len : 0));
}

static void on_row(int c, void *data)
{
	struct wpa *w = data;
	size_t i;

	(void)c;
	if (w->failed) {
		for (i = 0; i < w->cur.n; i++)
			free(w->cur.v[i]);
		w->cur.n = 0;
		return;
	}
	w->line++;
	if (w->cur.n == 1 && !w->cur.v[0][0]) { /* an empty line */
		free(w->cur.v[0]);
		w->cur.n = 0;
		return;
	}
	if (!w->cols.n) { /* the header */
		for (i = 0; i < w->cur.n; i++) {
			struct wpa_column col;

			memset(&col, 0, sizeof(col));
			col.name = w->cur.v[i];
			split_unit(&col);
			PD_VEC_PUSH(&w->cols, col);
		}
		w->c_stack = stack_col(w);
		w->cur.n = 0;
		return;
	}
	if (!w->decided) {
		struct wpa_row r;

		r.f = pd_xmalloc((w->cur.n + 1) * sizeof(char *));
		memcpy(r.f, w->cur.v, w->cur.n * sizeof(char *));
		r.n = w->cur.n;
		r.line = w->line;
		PD_VEC_PUSH(&w->pending, r);
		w->cur.n = 0;
		if (w->pending.n >= WPA_LOOKAHEAD && decide(w) < 0)
			w->failed = 1;
		return;
	}
	if (pd_wpa_row(w, w->cur.v, w->cur.n, w->line) < 0)
		w->failed = 1;
	for (i = 0; i < w->cur.n; i++)
		free(w->cur.v[i]);
	w->cur.n = 0;
}

int pd_wpa_sniff(const char *head, size_t len)
{
	static const char *const titles[] = { "Stack",
					      "Count",
					      "Module",
					      "Function",
					      "Process",
					      "Weight",
					      "Thread ID",
					      "IO Type",
					      "Commit Stack",
					      "Impacting Size",
					      "Outstanding Size",
					      NULL };
	static const char *const unit_ends[] = { " (ms)",	 " (s)",
						 " (\xc2\xb5s)", " (B)",
						 " (ns)",	 NULL };
	const char *nl = memchr(head, '\n', len), *p, *e;
	size_t n = nl ? (size_t)(nl - head) : len, semi = 0, comma = 0, tab = 0,
	       i, k, fields = 1;
	char delim;
	int hits = 0;

	if (n && head[n - 1] == '\r')
		n--;
	/* Folded stacks end in a number; a header does not. */
	if (!n || isdigit((unsigned char)head[n - 1]) || head[0] == '{')
		return 0;
	for (i = 0; i < n; i++) {
		semi += head[i] == ';';
		comma += head[i] == ',';
		tab += head[i] == '\t';
	}
	delim = semi > comma && semi >= tab ? ';' : tab > comma ? '\t' : ',';
	for (p = head, e = head + n; p <= e;) {
		const char *q = memchr(p, delim, (size_t)(e - p));
		size_t fl;

		if (!q)
			q = e;
		fl = (size_t)(q - p);
		/* a lone quote is no quoted field: "" at least */
		if (fl >= 2 && *p == '"' && p[fl - 1] == '"') {
			p++;
			fl -= 2;
		}
		for (k = 0; titles[k]; k++)
			hits += fl == strlen(titles[k]) &&
				!memcmp(p, titles[k], fl);
		for (k = 0; unit_ends[k]; k++) {
			size_t ul = strlen(unit_ends[k]);

			hits +=
			    fl > ul && !memcmp(p + fl - ul, unit_ends[k], ul);
		}
		if (q == e)
			break;
		fields++;
		p = q + 1;
	}
	return fields >= 2 && hits >= 1;
}

/* The delimiter: the most common of ; , and tab in the header line. */
static char delimiter(const struct pd_input *in)
{
	const char *h = in->head;
	size_t i, semi = 0, comma = 0, tab = 0;

	for (i = 0; i < in->head_len && h[i] != '\n'; i++) {
		semi += h[i] == ';';
		comma += h[i] == ',';
		tab += h[i] == '\t';
	}
	return semi > comma && semi >= tab ? ';' : tab > comma ? '\t' : ',';
}

/* Every row through libcsv into w; 0, or the error code. */
static int read_rows(struct wpa *w, struct pd_input *in, struct pd_err *err)
{
	struct csv_parser csv;
	char *buf = pd_xmalloc(1u << 20);
	int rc = 0;

	if (csv_init(&csv, CSV_APPEND_NULL) != 0)
		pd_die_oom(0);
	csv_set_delim(&csv, (unsigned char)delimiter(in));
	for (;;) {
		ssize_t n = pd_input_read(in, buf, 1u << 20, err);

		if (n <= 0) {
			rc = (int)n;
			break;
		}
		if (csv_parse(&csv, buf, (size_t)n, on_field, on_row, w) !=
			(size_t)n &&
		    !w->failed) {
			rc = pd_err_set(err, PD_EPARSE, "%s: row %zu: %s",
					in->path, w->line + 1,
					csv_strerror(csv_error(&csv)));
			break;
		}
		if (w->failed)
			break;
	}
	if (rc == 0 && !w->failed)
		csv_fini(&csv, on_field, on_row, w);
	csv_free(&csv);
	free(buf);
	if (rc == 0 && !w->failed && !w->decided) {
		if (!w->cols.n)
			return pd_err_set(err, PD_EEMPTY, "%s: empty table",
					  in->path);
		rc = decide(w);
	}
	if (w->failed || rc < 0)
		return err->code ? err->code : PD_EPARSE;
	return 0;
}

/* The top five processes by weight, so the user can pick one. */
static void note_processes(const struct wpa *w, struct pd_profile *p,
			   const char *path)
{
	struct pd_buf b = PD_BUF_INIT;
	double total = 0;
	size_t k, shown = 0;
	int *used = pd_xcalloc(w->proc_w.n, sizeof(int));

	for (k = 0; k < w->proc_w.n; k++)
		total += w->proc_w.v[k];
	pd_buf_addf(&b, "%s: processes by weight:", path);
	while (shown < 5) {
		size_t best = SIZE_MAX;

		for (k = 1; k < w->proc_w.n; k++)
			if (!used[k] && (best == SIZE_MAX ||
					 w->proc_w.v[k] > w->proc_w.v[best]))
				best = k;
		if (best == SIZE_MAX || w->proc_w.v[best] <= 0)
			break;
		used[best] = 1;
		pd_buf_addf(&b, "%s %s %.1f %%", shown++ ? "," : "",
			    pd_intern_str(&w->procs, (uint32_t)best),
			    total > 0 ? w->proc_w.v[best] / total * 100 : 0);
	}
	pd_buf_adds(&b, " (--process NAME to pick one)");
	pd_profile_note(p, "%s", b.buf);
	pd_buf_release(&b);
	free(used);
}

/* The profile's unit, interval and count rule for what the table was. */
static void settle_units(const struct wpa *w, struct pd_profile *p,
			 const char *path)
{
	size_t i;

	if (w->shape == SHAPE_TABLE) {
		/* A metric table has no samples: give it a nominal total. */
		p->unit = PD_UNIT_COUNT;
		pd_profile_add(p, PD_ROOT, (double)w->table->rows_in,
			       (double)w->table->rows_in);
		p->count_rule = pd_xstrdup("a WPA table (no CPU samples)");
		return;
	}
	if (w->memory) {
		p->unit = w->by_count ? PD_UNIT_COUNT : PD_UNIT_BYTES;
		p->exact = 1;
		p->interval = 1;
		p->event = pd_xstrdup(w->by_count ? "allocations"
						  : w->cols.v[w->c_bytes].name);
		p->count_rule = pd_xstrdup(
		    "exact (WPA traces every allocation); one count per"
		    " allocation");
		return;
	}
	p->unit = w->c_weight >= 0 ? PD_UNIT_NS : PD_UNIT_SAMPLES;
	p->count_rule = pd_xstrdup(
	    w->waits && w->shape == SHAPE_STACK
		? "weights = the time waited; sample counts = us of it, in"
		  " the Count column's waits"
	    : w->c_count >= 0 ? "sample counts = the Count column"
			      : "sample counts = one per row");
	if (w->c_weight >= 0 && w->c_count >= 0) {
		double tw = 0, tc = 0;

		for (i = 0; i < p->nodes.n; i++) {
			tw += p->nodes.v[i].weight;
			tc += p->nodes.v[i].count;
		}
		if (tc > 0)
			p->interval = tw / tc;
	}
	if (w->proc_w.n > 1)
		note_processes(w, p, path);
}

int pd_wpa_import(struct pd_input *in, struct pd_profile *p,
		  const struct pd_import_opts *o, struct pd_err *err)
{
	struct wpa w;
	size_t i;
	int rc;

	memset(&w, 0, sizeof(w));
	w.p = p;
	w.o = o;
	w.in = in;
	w.err = err;
	w.c_stack = -1;
	w.c_bytes = -1;
	pd_rowtree_init(&w.tree, p, 1, NULL, &w);
	pd_intern_init(&w.procs);
	pd_buf_init(&w.tmp);
	pd_buf_init(&w.key);
	rc = read_rows(&w, in, err);
	if (rc == 0) {
		if (w.shape == SHAPE_TREE)
			pd_rowtree_close(&w.tree, 0);
		settle_units(&w, p, in->path);
	}
	for (i = 0; i < w.cur.n; i++)
		free(w.cur.v[i]);
	PD_VEC_FREE(&w.cur);
	for (i = 0; i < w.pending.n; i++)
		free_row(&w.pending.v[i]);
	PD_VEC_FREE(&w.pending);
	for (i = 0; i < w.cols.n; i++)
		free(w.cols.v[i].name);
	PD_VEC_FREE(&w.cols);
	pd_rowtree_release(&w.tree);
	PD_VEC_FREE(&w.measure_cols);
	PD_VEC_FREE(&w.key_cols);
	PD_VEC_FREE(&w.proc_w);
	PD_VEC_FREE(&w.frames);
	PD_VEC_FREE(&w.frame_alloc);
	if (w.alloc_re_set)
		regfree(&w.alloc_re);
	pd_intern_release(&w.procs);
	pd_buf_release(&w.tmp);
	pd_buf_release(&w.key);
	return rc;
}
