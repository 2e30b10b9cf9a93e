/*
 * speedscope JSON for one profile (perfdiff convert): the file format of
 * speedscope.app, sampled profiles sharing one frame table. Each distinct
 * stack with weight is one sample row with its summed weight, so the file
 * grows with the stacks, not the samples. What the format cannot say and
 * a verdict needs (each row's sample count, the unit, exactness, the
 * count rule) goes into keys of perfdiff's own, which speedscope ignores
 * and perfdiff reads back (docs/cli.md, "perfdiff convert"). Stacks under a
 * thread frame (pd_profile_thread_root) become one profile per thread; the
 * rest, one profile named after the input. Written as it goes: no document
 * tree.
 */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/numfmt.h"
#include "core/buf.h"
#include "core/file.h"
#include "core/utf8.h"
#include "core/xalloc.h"
#include "report/jsonw.h"
#include "report/report.h"

/* A number as the JSON reports write them (core/numfmt.c). */
static void put_num(FILE *f, double v)
{
	char t[PD_FMT_DOUBLE_MAX];

	if (isfinite(v))
		fwrite(t, 1, pd_fmt_double(t, v), f);
	else
		fputs("null", f);
}

/*
 * A JSON string as the JSON reports write one (report/jsonw.h): a byte
 * that is no UTF-8 becomes U+FFFD (JSON text is UTF-8; a raw 0xff makes
 * the whole file unreadable, to speedscope and to perfdiff).
 */
static void json_str(FILE *f, const char *s, size_t n)
{
	struct pd_buf u = PD_BUF_INIT, b = PD_BUF_INIT;

	pd_utf8_sanitize(s, n, &u);
	pd_json_string(&b, u.len ? u.buf : "", u.len);
	fwrite(b.buf, 1, b.len, f);
	pd_buf_release(&u);
	pd_buf_release(&b);
}

static void json_cstr(FILE *f, const char *s)
{
	json_str(f, s, strlen(s));
}

static const char *unit_name(enum pd_unit u)
{
	switch (u) {
	case PD_UNIT_NS:
		return "nanoseconds";
	case PD_UNIT_BYTES:
		return "bytes";
	default:
		return "none";
	}
}

/*
 * The shared frame table, thread frames left out: fidx maps a profile
 * frame to its index there (UINT32_MAX for a thread frame).
 */
static void write_frames(FILE *f, const struct pd_profile *p, uint32_t *fidx)
{
	uint32_t out = 0;
	size_t i;

	for (i = 0; i < p->frames.n; i++) {
		const struct pd_frame *fr = &p->frames.v[i];

		fidx[i] = UINT32_MAX;
		if (pd_profile_is_thread_frame(p, (uint32_t)i))
			continue;
		fidx[i] = out;
		fputs(out++ ? ",\n{\"name\":" : "\n{\"name\":", f);
		json_str(f, pd_intern_str(&p->strs, fr->name),
			 pd_intern_len(&p->strs, fr->name));
		if (fr->module) {
			fputs(",\"file\":", f);
			json_str(f, pd_intern_str(&p->strs, fr->module),
				 pd_intern_len(&p->strs, fr->module));
		}
		putc('}', f);
	}
}

/*
 * One sampled profile of the rows rows[0 .. n), named name: each row's
 * stack (root first), its weight and its sample count.
 */
static void write_profile(FILE *f, const struct pd_profile *p,
			  const uint32_t *rows, size_t n, const uint32_t *fidx,
			  uint32_t *chain, const char *name, size_t name_len)
{
	double total = 0;
	size_t r;

	for (r = 0; r < n; r++)
		total += p->nodes.v[rows[r]].weight;
	json_str(f, name, name_len);
	fprintf(f, ",\"unit\":\"%s\",\"startValue\":0,\"endValue\":",
		unit_name(p->unit));
	put_num(f, total);
	fputs(",\n\"samples\":[", f);
	for (r = 0; r < n; r++) {
		size_t depth = 0;
		uint32_t j;

		for (j = rows[r]; j != PD_ROOT; j = p->nodes.v[j].parent) {
			/* parents first: at most one entry a node in chain */
			assert(p->nodes.v[j].parent < j && depth < p->nodes.n);
			if (fidx[p->nodes.v[j].frame] != UINT32_MAX)
				chain[depth++] = fidx[p->nodes.v[j].frame];
		}
		fputs(r ? ",[" : "[", f);
		while (depth--)
			fprintf(f, depth ? "%u," : "%u", chain[depth]);
		putc(']', f);
	}
	fputs("],\n\"weights\":[", f);
	for (r = 0; r < n; r++) {
		if (r)
			putc(',', f);
		put_num(f, p->nodes.v[rows[r]].weight);
	}
	/* perfdiff's own: each row's samples (speedscope ignores it) */
	fputs("],\n\"perfdiffCounts\":[", f);
	for (r = 0; r < n; r++) {
		if (r)
			putc(',', f);
		put_num(f, p->nodes.v[rows[r]].count);
	}
	fputs("]}", f);
}

/* What the format has no field for, so a round trip keeps verdicts. */
static void write_extension(FILE *f, const struct pd_profile *p)
{
	fprintf(f, ",\n\"perfdiff\":{\"unit\":\"%s\",\"exact\":%s",
		pd_unit_name(p->unit), p->exact ? "true" : "false");
	if (p->interval > 0) {
		fputs(",\"interval\":", f);
		put_num(f, p->interval);
	}
	if (p->event) {
		fputs(",\"event\":", f);
		json_cstr(f, p->event);
	}
	if (p->count_rule) {
		fputs(",\"countRule\":", f);
		json_cstr(f, p->count_rule);
	}
	putc('}', f);
}

int pd_report_speedscope(FILE *f, const struct pd_profile *p,
			 const char *exporter)
{
	size_t nn = p->nodes.n, i, k, nprof;
	uint32_t *prof = pd_xmalloc((nn + 1) * sizeof(*prof));
	uint32_t *fidx = pd_xmalloc((p->frames.n + 1) * sizeof(*fidx));
	uint32_t *chain = pd_xmalloc((nn + 1) * sizeof(*chain));
	uint32_t *rows_of = pd_xmalloc((nn + 1) * sizeof(*rows_of));
	size_t *start;
	PD_VEC(uint32_t) heads = PD_VEC_INIT; /* a profile's thread node */
	uint32_t out = 0;
	const char *base;

	fputs("{\"$schema\":\"https://www.speedscope.app/"
	      "file-format-schema.json\",\n\"shared\":{\"frames\":[",
	      f);
	write_frames(f, p, fidx);
	fputs("]},\n\"profiles\":[", f);
	/* Which profile each node is in: parents come before children. */
	PD_VEC_PUSH(&heads, PD_ROOT);
	prof[PD_ROOT] = 0;
	for (i = 1; i < nn; i++) {
		const struct pd_node *nd = &p->nodes.v[i];

		if (nd->parent == PD_ROOT &&
		    pd_profile_is_thread_frame(p, nd->frame)) {
			prof[i] = (uint32_t)heads.n;
			PD_VEC_PUSH(&heads, (uint32_t)i);
		} else {
			assert(nd->parent < i); /* its profile is known */
			prof[i] = nd->parent == PD_ROOT ? 0 : prof[nd->parent];
		}
	}
	nprof = heads.n;
	base = pd_path_base(p->source ? p->source : "profile");
	/*
	 * The weighted nodes grouped by profile (a counting sort), so that
	 * each profile is one pass over its own rows, however many threads.
	 */
	start = pd_xcalloc(nprof + 2, sizeof(*start));
	for (i = 1; i < nn; i++)
		if (p->nodes.v[i].weight > 0)
			start[prof[i] + 2]++;
	for (k = 0; k < nprof; k++)
		start[k + 2] += start[k + 1];
	for (i = 1; i < nn; i++)
		if (p->nodes.v[i].weight > 0)
			rows_of[start[prof[i] + 1]++] = (uint32_t)i;
	/* now rows_of[start[k] .. start[k + 1]) are profile k's */
	assert(start[nprof] <= nn);
	for (k = 0; k < nprof; k++) {
		uint32_t nm =
		    k ? p->frames.v[p->nodes.v[heads.v[k]].frame].name : 0;

		if (start[k] == start[k + 1])
			continue;
		fputs(out++ ? ",\n{\"type\":\"sampled\",\"name\":"
			    : "\n{\"type\":\"sampled\",\"name\":",
		      f);
		write_profile(f, p, rows_of + start[k], start[k + 1] - start[k],
			      fidx, chain,
			      k ? pd_intern_str(&p->strs, nm) : base,
			      k ? pd_intern_len(&p->strs, nm) : strlen(base));
	}
	fputs("],\n\"name\":", f);
	json_cstr(f, base);
	fputs(",\"activeProfileIndex\":0,\"exporter\":", f);
	json_cstr(f, exporter);
	write_extension(f, p);
	fputs("}\n", f);
	free(prof);
	free(start);
	free(rows_of);
	free(fidx);
	free(chain);
	PD_VEC_FREE(&heads);
	return ferror(f) ? -1 : 0;
}
