/*
 * The machinery of the comparison commands: parallel import,
 * bundle operands, metadata warnings, rendering and exit statuses.
 */
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/run.h"
#include "core/xalloc.h"
#include "store/store.h"

static void *import_job(void *arg)
{
	struct job *j = arg;

	j->rc = pd_import(&j->p, j->path, j->o, &j->err);
	return NULL;
}

/*
 * perfdiff check's answer for git bisect run: 1 (bad) when a deciding
 * function (or, without --function, anything) regressed, 125 (skip) when
 * the evidence cannot tell, 0 (good) when it is the same or better.
 */
static int check_status(const struct pd_diff *d, struct pd_args *r)
{
	struct pd_buf name = PD_BUF_INIT;
	size_t i, matched = 0;
	int bad = 0, unsure = 0;

	if (!r->function) {
		if (d->verdict == PD_REGRESSED)
			return 1;
		return d->verdict == PD_INCONCLUSIVE ? 125 : 0;
	}
	for (i = 0; i < d->funcs.n; i++) {
		const struct pd_fdiff *f = &d->funcs.v[i];

		pd_buf_reset(&name);
		pd_fmt_func(&name, d, f->func);
		if (regexec(&r->fre, name.buf, 0, NULL, 0) != 0)
			continue;
		matched++;
		bad |= f->self.status == PD_REGRESSED ||
		       f->total.status == PD_REGRESSED ||
		       f->self.status == PD_ADDED;
		unsure |= f->self.status == PD_INCONCLUSIVE ||
			  f->total.status == PD_INCONCLUSIVE;
	}
	pd_buf_release(&name);
	if (!matched) {
		fprintf(stderr,
			"perfdiff: no function matches --function %s:"
			" skipping\n",
			r->function);
		return 125;
	}
	return bad ? 1 : unsure ? 125 : 0;
}

/* XLSX: libxlsxwriter writes a file; give it a temporary name. */
static int write_xlsx(const char *tmp, const void *d, struct pd_err *err)
{
	return pd_report_xlsx(tmp, d, err);
}

static int render_xlsx(struct pd_diff *d, const char *output)
{
	if (pd_write_by_name(output, write_xlsx, d) < 0)
		return 2;
	return d->verdict == PD_REGRESSED ? 1 : 0;
}

void pd_render_warnings(const struct pd_diff *d, struct pd_args *r,
			const char *series)
{
	size_t i;

	/*
	 * Warnings go to stderr; the text report repeats them, unless stdout
	 * and stderr are the same terminal, where they would show twice.
	 */
	r->ro.warnings =
	    !(r->fmt == PD_FMT_TEXT && !r->output && isatty(1) && isatty(2));
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
	if (r->check)
		return check_status(d, r);
	return d->verdict == PD_REGRESSED ? 1 : 0;
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
	if (pd_out_open(&out, r->output) != 0)
		return 2;
	rc = pd_render_body(out.f, d, r, pa, pb, fn);
	if (rc < 0 && r->output && !ferror(out.f))
		pd_error("error: %s: write failed", r->output);
	if (pd_out_close(&out, rc) == 0 && rc == 0)
		status = pd_render_status(d, r);
	return status;
}

struct pool {
	struct job *jobs;
	size_t n;
};

static void *pool_odd(void *arg)
{
	struct pool *p = arg;
	size_t i;

	for (i = 1; i < p->n; i += 2)
		import_job(&p->jobs[i]);
	return NULL;
}

/* Imports paths on two threads; prints the first error; 0 or -1. */
int pd_import_all(const char *const *paths, size_t n,
		  const struct pd_import_opts *io, struct job *jobs)
{
	struct pool pool = { jobs, n };
	pthread_t th;
	int threaded;
	size_t i;

	for (i = 0; i < n; i++) {
		jobs[i].path = paths[i];
		jobs[i].o = io;
		jobs[i].rc = 0;
		memset(&jobs[i].err, 0, sizeof(jobs[i].err));
		pd_profile_init(&jobs[i].p);
	}
	/* The files are independent: read two at a time. */
	threaded = n > 1 && !pthread_create(&th, NULL, pool_odd, &pool);
	for (i = 0; i < n; i += threaded ? 2 : 1)
		import_job(&jobs[i]);
	if (threaded)
		pthread_join(th, NULL);
	for (i = 0; i < n; i++) {
		if (jobs[i].rc < 0) {
			pd_error("%s", jobs[i].err.msg);
			return -1;
		}
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
	if (pd_out_open(&out, o->output) == 0) {
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
		if (pd_out_close(&out, rc) == 0 && rc == 0)
			status = 0;
	}
out:
	pd_profile_release(&p);
	return status;
}
