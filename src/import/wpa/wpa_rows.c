/*
 * WPA rows (docs/formats.md, WPA): whole stacks, tree-view nodes,
 * flat module/function rows, or rows of a metric table; the numbers
 * of a cell as the file writes them, and a row's error.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "import/wpa/wpa_int.h"
#include "model/func.h"

/* Strips spaces, no-break spaces (U+00A0, U+202F) and quotes into out. */
void pd_wpa_clean_number(const char *s, struct pd_buf *out)
{
	pd_buf_reset(out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == ' ' || c == '"' || c == '\'')
			continue;
		if (c == 0xc2 && (unsigned char)s[1] == 0xa0) {
			s++;
			continue;
		}
		if (c == 0xe2 && (unsigned char)s[1] == 0x80 &&
		    (unsigned char)s[2] == 0xaf) {
			s += 2;
			continue;
		}
		pd_buf_addch(out, c);
	}
}

int pd_wpa_parse_num(struct wpa *w, const char *s, double *out)
{
	char *end;
	size_t i;

	pd_wpa_clean_number(s, &w->tmp);
	if (!w->tmp.len)
		return 0;
	for (i = 0; i < w->tmp.len; i++) {
		char ch = w->tmp.buf[i];

		if (ch == w->thousands) {
			memmove(w->tmp.buf + i, w->tmp.buf + i + 1,
				w->tmp.len - i);
			w->tmp.len--;
			i--;
		} else if (ch == w->decimal) {
			w->tmp.buf[i] = '.';
		}
	}
	*out = strtod(w->tmp.buf, &end);
	return *end == '\0' && end != w->tmp.buf && isfinite(*out);
}

int pd_wpa_fail_at(struct wpa *w, size_t line, int col, const char *what)
{
	if (col >= 0 && (size_t)col < w->cols.n)
		pd_err_set(w->err, PD_EPARSE, "%s: row %zu, column \"%s\": %s",
			   w->in->path, line, w->cols.v[col].name, what);
	else
		pd_err_set(w->err, PD_EPARSE, "%s: row %zu: %s", w->in->path,
			   line, what);
	w->failed = 1;
	return PD_EPARSE;
}

/* "module.dll!Function" -> frame; a frame with no '!' has no module. */
static uint32_t frame_for(struct wpa *w, const char *s, size_t n)
{
	const char *bang = memchr(s, '!', n);
	struct pd_profile *p = w->p;

	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	while (n && (*s == ' ' || *s == '\t')) {
		s++;
		n--;
	}
	bang = memchr(s, '!', n);
	if (bang && bang > s)
		return pd_profile_frame(
		    p,
		    pd_intern(&p->strs, bang + 1, n - (size_t)(bang - s) - 1),
		    pd_intern(&p->strs, s, (size_t)(bang - s)));
	return pd_profile_frame(p, pd_intern(&p->strs, s, n), 0);
}

/* Whether frame f ("module!function") is one of the allocator's. */
static int is_alloc_frame(struct wpa *w, uint32_t f)
{
	struct pd_profile *p = w->p;

	while (w->frame_alloc.n <= f)
		PD_VEC_PUSH(&w->frame_alloc, 0);
	if (!w->frame_alloc.v[f]) {
		const struct pd_frame *fr = &p->frames.v[f];

		pd_buf_reset(&w->key);
		if (fr->module) {
			pd_buf_adds(&w->key,
				    pd_intern_str(&p->strs, fr->module));
			pd_buf_addch(&w->key, '!');
		}
		pd_buf_adds(&w->key, pd_intern_str(&p->strs, fr->name));
		w->frame_alloc.v[f] =
		    regexec(&w->alloc_re, w->key.buf, 0, NULL, 0) ? 1 : 2;
	}
	return w->frame_alloc.v[f] == 2;
}

/*
 * A frame whose own time is its caller's: an allocator's in a memory
 * table, the kernel's or a system library's (ntdll.dll, kernelbase.dll)
 * in a table of waits.
 */
static int passed_frame(struct wpa *w, uint32_t f)
{
	return w->memory ? is_alloc_frame(w, f)
			 : pd_frame_is_below_program(w->p, f);
}

static void note_process(struct wpa *w, const char *proc, double weight)
{
	uint32_t id = pd_intern_cstr(&w->procs, proc);

	while (w->proc_w.n <= id)
		PD_VEC_PUSH(&w->proc_w, 0.0);
	w->proc_w.v[id] += weight;
}

static int keep_row(struct wpa *w, char **f)
{
	const struct pd_import_opts *o = w->o;

	if (o->process && w->c_process >= 0 &&
	    !pd_filter_match(o->process, f[w->c_process],
			     strlen(f[w->c_process])))
		return 0;
	if (o->thread && w->c_thread >= 0 &&
	    !pd_filter_match(o->thread, f[w->c_thread], strlen(f[w->c_thread])))
		return 0;
	return 1;
}

static int row_weight(struct wpa *w, char **f, size_t line, double *wt,
		      double *cnt)
{
	double v;

	*cnt = 1;
	if (w->c_count >= 0 && *f[w->c_count]) {
		if (!pd_wpa_parse_num(w, f[w->c_count], &v) || v < 0)
			return pd_wpa_fail_at(w, line, w->c_count,
					      "not a count");
		*cnt = v;
	}
	if (w->memory) {
		if (w->by_count) {
			*wt = *cnt;
			return 0;
		}
		if (!*f[w->c_bytes] || !pd_wpa_parse_num(w, f[w->c_bytes], &v))
			return pd_wpa_fail_at(w, line, w->c_bytes,
					      "not a size");
		/*
		 * WPA gives memory freed in the selection but allocated
		 * before it (AOFI) a negative Impacting Size: summed, a
		 * function could hold more than the whole.
		 */
		if (v < 0)
			return pd_wpa_fail_at(
			    w, line, w->c_bytes,
			    "a negative size (an allocation made before the"
			    " selection and freed in it): export the"
			    " allocations made inside it (Type AIFI and"
			    " AIFO, docs/formats.md)");
		*wt = v * w->bytes_scale;
		return 0;
	}
	if (w->c_weight >= 0 && *f[w->c_weight]) {
		if (!pd_wpa_parse_num(w, f[w->c_weight], &v))
			return pd_wpa_fail_at(w, line, w->c_weight,
					      "not a number");
		/* a negative time would give a function more than the whole */
		if (v < 0 || !(v * w->weight_scale < HUGE_VAL))
			return pd_wpa_fail_at(w, line, w->c_weight,
					      v < 0 ? "a negative weight"
						    : "a weight too large");
		*wt = v * w->weight_scale;
	} else {
		*wt = *cnt;
	}
	return 0;
}

/*
 * What every row with stacks or functions starts with: its weight and
 * count, its process noted for the process summary, then the filters.
 * Returns 1 to keep the row, 0 when a filter drops it, < 0 on error.
 */
static int row_begin(struct wpa *w, char **f, size_t line, double *wt,
		     double *cnt)
{
	int rc = row_weight(w, f, line, wt, cnt);

	if (rc < 0)
		return rc;
	if (w->c_process >= 0)
		note_process(w, f[w->c_process], *wt);
	return keep_row(w, f);
}

static int do_table_row(struct wpa *w, char **f, size_t line);

static int do_stack_row(struct wpa *w, char **f, size_t line)
{
	const char *st = f[w->c_stack];
	size_t n = strlen(st), i, start = 0;
	uint32_t node = PD_ROOT;
	double wt, cnt;
	int rc = row_begin(w, f, line, &wt, &cnt);

	if (rc <= 0)
		return rc;
	w->frames.n = 0;
	if (strcmp(st, "n/a") && n) {
		/*
		 * Frames are joined with '/', but a C++ name may hold one
		 * (operator/): a piece without '!' belongs to the one before.
		 */
		size_t cur = 0, end = 0;
		int open = 0;

		for (i = 0; i <= n; i++) {
			if (i < n && st[i] != '/')
				continue;
			if (open && !memchr(st + start, '!', i - start)) {
				end = i; /* glue to the frame before */
			} else {
				if (open)
					PD_VEC_PUSH(
					    &w->frames,
					    frame_for(w, st + cur, end - cur));
				cur = start;
				end = i;
				open = 1;
			}
			start = i + 1;
		}
		if (open && end > cur)
			PD_VEC_PUSH(&w->frames,
				    frame_for(w, st + cur, end - cur));
	}
	/* a stack written from the tree's top starts at "[Root]" */
	if (w->frames.n &&
	    !strcmp(
		pd_intern_str(&w->p->strs, w->p->frames.v[w->frames.v[0]].name),
		"[Root]") &&
	    !w->p->frames.v[w->frames.v[0]].module) {
		memmove(w->frames.v, w->frames.v + 1,
			(w->frames.n - 1) * sizeof(*w->frames.v));
		w->frames.n--;
	}
	/* the allocator's frames, or a wait's kernel and system library's,
	 * cut from the leaf end */
	if (w->memory || w->waits)
		while (w->frames.n > 1 &&
		       passed_frame(w, w->frames.v[w->frames.n - 1]))
			w->frames.n--;
	for (i = 0; i < w->frames.n; i++)
		node = pd_profile_child(w->p, node, w->frames.v[i]);
	if (w->waits && node != PD_ROOT) {
		/*
		 * cnt waits of wt ns: counted as µs of time, in cnt waits,
		 * so that waits twice as long are twice the count and their
		 * spread is of cnt waits (docs/statistics.md, "Waiting
		 * time"); a unit below any wait's length, so that the
		 * spread is the waits', not the unit's
		 */
		pd_profile_add(w->p, node, wt, wt / 1e3);
		pd_profile_add_waits(w->p, w->p->nodes.v[node].frame, cnt);
	} else {
		pd_profile_add(w->p, node, wt, cnt);
	}
	w->p->nsamples++;
	return w->table ? do_table_row(w, f, line) : 0;
}

/* is_alloc_frame or a wait's system frame, for the row tree. */
static int alloc_frame_cb(void *arg, uint32_t f)
{
	return passed_frame(arg, f);
}

static int do_tree_row(struct wpa *w, char **f, size_t line)
{
	const char *st = f[w->c_stack], *name = st;
	int depth = 0;
	double wt, cnt;
	uint32_t parent, node;
	int rc = row_weight(w, f, line, &wt, &cnt);

	if (rc < 0)
		return rc;
	/* "|    |- ntoskrnl.exe!KiExecuteAllDpcs": depth = number of '|' */
	while (*name == '|' || *name == ' ' || *name == '-' || *name == '\t') {
		depth += *name == '|';
		name++;
	}
	/* memory: an allocator's own bytes are its caller's */
	w->tree.is_alloc = w->memory || w->waits ? alloc_frame_cb : NULL;
	parent = pd_rowtree_begin(&w->tree, depth, wt, cnt);
	if (!strcmp(name, "[Root]") || !*name)
		node = parent;
	else
		node = pd_profile_child(w->p, parent,
					frame_for(w, name, strlen(name)));
	pd_rowtree_push(&w->tree, depth, node, wt, cnt);
	w->p->nsamples++;
	return 0;
}

static int do_flat_row(struct wpa *w, char **f, size_t line)
{
	double wt, cnt;
	struct pd_buf *b = &w->tmp;
	uint32_t fr;
	int rc = row_begin(w, f, line, &wt, &cnt);

	if (rc <= 0)
		return rc;
	pd_buf_reset(b);
	if (w->c_module >= 0 && *f[w->c_module])
		pd_buf_addf(b, "%s!", f[w->c_module]);
	pd_buf_adds(b, f[w->c_function]);
	fr = frame_for(w, b->buf, b->len);
	pd_profile_add(w->p, pd_profile_child(w->p, PD_ROOT, fr), wt, cnt);
	w->p->nsamples++;
	return 0;
}

static int do_table_row(struct wpa *w, char **f, size_t line)
{
	size_t m = w->measure_cols.n, i;
	double v[64];

	pd_buf_reset(&w->key);
	for (i = 0; i < w->key_cols.n; i++) {
		if (i)
			pd_buf_addch(&w->key, '\t');
		pd_buf_adds(&w->key, f[w->key_cols.v[i]]);
	}
	for (i = 0; i < m && i < 64; i++) {
		const char *cell = f[w->measure_cols.v[i]];

		v[i] = 0;
		if (*cell && !pd_wpa_parse_num(w, cell, &v[i]))
			return pd_wpa_fail_at(w, line, w->measure_cols.v[i],
					      "not a number");
	}
	pd_mtable_add(w->table, w->key.buf, w->key.len, v);
	return 0;
}

int pd_wpa_row(struct wpa *w, char **f, size_t n, size_t line)
{
	if (n != w->cols.n)
		return pd_wpa_fail_at(w, line, -1,
				      n < w->cols.n
					  ? "fewer fields than the header"
					  : "more fields than the header");
	switch (w->shape) {
	case SHAPE_STACK:
		return do_stack_row(w, f, line);
	case SHAPE_TREE:
		return do_tree_row(w, f, line);
	case SHAPE_FLAT:
		return do_flat_row(w, f, line);
	default:
		return do_table_row(w, f, line);
	}
}
