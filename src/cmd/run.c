/*
 * The comparison commands' printing half: the import pool's first error,
 * the warnings, the report written and the exit status said.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/run.h"
#include "compare/status.h"
#include "core/xalloc.h"
#include "store/store.h"

/* XLSX: libxlsxwriter writes a file; give it a temporary name. */
static int write_xlsx(const char *tmp, const void *d, struct pd_err *err)
{
	return pd_report_xlsx(tmp, d, err);
}

static int render_xlsx(struct pd_diff *d, const char *output)
{
	if (pd_write_by_name_say(output, write_xlsx, d) < 0)
		return 2;
	return d->verdict == PD_REGRESSED ? 1 : 0;
}

/* Whether stdout and stderr are one terminal, pipe or file. */
static int same_sink(void)
{
	struct stat o, e;

	if (isatty(1) && isatty(2))
		return 1;
	/* Windows' C library gives every file inode 0: nothing to tell */
	return !fstat(1, &o) && !fstat(2, &e) && o.st_ino != 0 &&
	       o.st_dev == e.st_dev && o.st_ino == e.st_ino;
}

void pd_render_warnings(const struct pd_diff *d, struct pd_args *r,
			const char *series)
{
	size_t i;

	/*
	 * Warnings go to stderr; the text report repeats them, unless stdout
	 * and stderr are the same terminal, pipe or file (2>&1), where they
	 * would show twice.
	 */
	r->ro.warnings = !(r->fmt == PD_FMT_TEXT && !r->output && same_sink());
	for (i = 0; i < d->warnings.n; i++)
		if (r->ro.warnings)
			pd_error("warning: %s%s%s", series ? series : "",
				 series ? ": " : "", d->warnings.v[i]);
}

int pd_render_body(FILE *f, struct pd_diff *d, struct pd_args *r,
		   const struct pd_profile *pa, const struct pd_profile *pb,
		   struct pd_funcs *fn)
{
	switch (r->fmt) {
	case PD_FMT_TEXT:
		return pd_report_text(f, d, &r->ro);
	case PD_FMT_MD:
		return pd_report_md(f, d, &r->ro);
	case PD_FMT_JSON:
		return pd_report_json(f, d, &r->ro);
	case PD_FMT_HTML:
		return pd_report_html(f, d, &r->ro, pa, pb, fn);
	default:
		return pd_report_folded(f, pa, pb);
	}
}

int pd_render_status(const struct pd_diff *d, struct pd_args *r)
{
	int unmatched, status = pd_compare_status(d, r->check, r->function,
						  &r->fre, &unmatched);

	if (unmatched)
		fprintf(stderr,
			"perfdiff: no function matches --function %s:"
			" skipping\n",
			r->function);
	return status;
}

/* Writes the report; returns the exit status (0, 1, 2; check: 125). */
int pd_render(struct pd_diff *d, struct pd_args *r, const struct pd_profile *pa,
	      const struct pd_profile *pb, struct pd_funcs *fn)
{
	struct pd_out out;
	int rc, status = 2;

	pd_render_warnings(d, r, NULL);
	if (r->fmt == PD_FMT_FOLDED && (!pa || !pb)) {
		pd_error("error: folded output compares one profile per side");
		return 2;
	}
	if (r->fmt == PD_FMT_XLSX) {
		if (!r->output) {
			pd_error("error: -f xlsx needs -o FILE.xlsx");
			return 2;
		}
		return render_xlsx(d, r->output);
	}
	if (pd_out_open_say(&out, r->output) != 0)
		return 2;
	rc = pd_render_body(out.f, d, r, pa, pb, fn);
	if (rc < 0 && r->output && !ferror(out.f))
		pd_error("error: %s: write failed", r->output);
	if (pd_out_close_say(&out, rc) == 0 && rc == 0)
		status = pd_render_status(d, r);
	return status;
}

/* Imports paths on two threads; prints the first error; 0 or -1. */
int pd_import_all(const char *const *paths, size_t n,
		  const struct pd_import_opts *io, struct pd_import_job *jobs)
{
	struct pd_err err = PD_ERR_INIT;

	if (pd_import_pool(paths, n, io, jobs, &err) < 0) {
		pd_error("%s", err.msg);
		return -1;
	}
	return 0;
}

int pd_folded_plan_say(const struct pd_profile *p, int counts)
{
	struct pd_err err = PD_ERR_INIT;
	double per;
	int plan = pd_folded_plan(p, &per, &err);
	struct pd_buf b = PD_BUF_INIT;

	if (plan < 0 && counts && !p->exact) {
		/* asked for: what stackcollapse-perf writes */
		pd_error("warning: folded stacks of sample counts, as asked:"
			 " the weights (%s) stay behind, and shares read back"
			 " by samples",
			 pd_unit_name(p->unit));
		return 1;
	}
	if (plan < 0) {
		pd_error("%s", err.msg);
		return -1;
	}
	if (plan == 1) {
		pd_fmt_weight(&b, per, p->unit);
		pd_error("warning: folded stacks hold sample counts: one sample"
			 " here is %s %s, which the file cannot say; shares"
			 " and verdicts read back the same",
			 b.buf, pd_unit_display(p->unit));
		pd_buf_release(&b);
	}
	return plan;
}

int pd_write_one(const char *path, const struct pd_import_opts *io,
		 const struct pd_one_out *o)
{
	struct pd_profile p;
	struct pd_err err = PD_ERR_INIT;
	struct pd_out out;
	size_t i;
	int rc, plan = 0, status = 2;

	pd_profile_init(&p);
	if (pd_import(&p, path, io, &err) < 0) {
		pd_error("%s", err.msg);
		goto out;
	}
	if (o->stacks_only && p.nodes.n <= 1 && p.tables.n) {
		pd_error("%s: only metric tables (%s), no stacks to convert",
			 path, p.tables.v[0]->name);
		goto out;
	}
	for (i = 0; o->notes && i < p.notes.n; i++)
		pd_error("warning: %s", p.notes.v[i]);
	if (o->fmt == PD_FMT_FOLDED &&
	    (plan = pd_folded_plan_say(&p, o->counts)) < 0)
		goto out;
	if (pd_out_open_say(&out, o->output) == 0) {
		if (o->fmt == PD_FMT_JSON)
			rc = pd_report_profile_json(out.f, &p);
		else if (o->fmt == PD_FMT_FOLDED)
			rc = plan ? pd_report_folded_counts(out.f, &p)
				  : pd_report_folded(out.f, &p, NULL);
		else if (o->fmt == PD_FMT_SPEEDSCOPE)
			rc = pd_report_speedscope(out.f, &p,
						  "perfdiff " PD_VERSION);
		else
			rc = pd_report_profile_text(out.f, &p, o->top,
						    o->text_notes);
		if (pd_out_close_say(&out, rc) == 0 && rc == 0)
			status = 0;
	}
out:
	pd_profile_release(&p);
	return status;
}
