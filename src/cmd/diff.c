/*
 * `perfdiff BASELINE CANDIDATE`: import both sides (in parallel), compute
 * the diff, render it, and exit like diff(1): 0 no regression, 1 regression,
 * 2 error. Also `perfdiff check` (its exit statuses for git bisect run) and
 * `perfdiff show`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/run.h"
#include "cmd/side.h"
#include "compare/cold.h"
#include "compare/section.h"
#include "core/utf8.h"
#include "core/xalloc.h"
#include "report/jsonw.h"

static const char check_about[] =
    "A verdict for git bisect run. BASELINE and CANDIDATE are profiles,\n"
    "bundle folders, or stored commits db:REV[:SCENARIO[:CACHE]] (with\n"
    "--db FILE). Exit status: 0 good (same or improved), 1 bad (regressed),\n"
    "125 skip (inconclusive), 128 error (stops the bisect).\n";

static const char diff_about[] =
    "Compares two profiles (or bundle folders, or several runs a side),\n"
    "function by function. The format of each file is sniffed from its\n"
    "content; .gz and .bz2 are read transparently. Exit status: 0 no\n"
    "regression, 1 regression found, 2 error.\n";

/*
 * The two sides' files: -b/-c lists, or two operands, a folder being a
 * bundle whose profiles are that side's runs. 0, or -1 after the message.
 */
static int collect_sides(struct pd_args *r, struct pd_run_side *s)
{
	size_t i, k, n;

	if (r->base.n || r->cand.n) {
		if (!r->base.n || !r->cand.n || r->nops) {
			pd_error(
			    "error: with -b/-c give every profile that way:"
			    " -b BASE... -c CAND...");
			return -1;
		}
		for (i = 0; i < r->base.n; i++)
			PD_VEC_PUSH(&s[0].files, r->base.v[i]);
		for (i = 0; i < r->cand.n; i++)
			PD_VEC_PUSH(&s[1].files, r->cand.v[i]);
	} else {
		if (!pd_operands_ok(r->check ? "check" : "diff", r->nops))
			return -1;
		for (i = 0; i < 2; i++)
			if (pd_run_side_add(&s[i], r->ops[i]) < 0)
				return -1;
	}
	n = s[0].files.n + s[1].files.n;
	for (i = 0; i < n; i++)
		for (k = i + 1; k < n; k++) {
			const char *x = i < s[0].files.n
					    ? s[0].files.v[i]
					    : s[1].files.v[i - s[0].files.n];
			const char *y = k < s[0].files.n
					    ? s[0].files.v[k]
					    : s[1].files.v[k - s[0].files.n];

			if (!strcmp(x, "-") && !strcmp(y, "-")) {
				pd_error("error: only one profile can be"
					 " standard input (-)");
				return -1;
			}
		}
	return 0;
}

/*
 * Renders d. With several runs a side, the HTML's flame graph and "where
 * the time went" show each side's mean run.
 */
static int render_sides(struct pd_diff *d, struct pd_args *r,
			const struct pd_profile **pa, size_t na,
			const struct pd_profile **pb, size_t nb,
			struct pd_funcs *fn)
{
	struct pd_profile mean[2];
	size_t k, i;
	int status;

	for (k = 0; k < 2; k++) {
		size_t m = k ? nb : na;

		pd_profile_init(&mean[k]);
		if (m > 1 && r->fmt == PD_FMT_HTML) {
			for (i = 0; i < m; i++)
				pd_profile_merge(&mean[k], k ? pb[i] : pa[i],
						 1.0 / (double)m, NULL);
			pd_profile_finish(&mean[k]);
		}
	}
	status = pd_render(d, r,
			   na == 1	    ? pa[0]
			   : mean[0].format ? &mean[0]
					    : NULL,
			   nb == 1	    ? pb[0]
			   : mean[1].format ? &mean[1]
					    : NULL,
			   fn);
	pd_profile_release(&mean[0]);
	pd_profile_release(&mean[1]);
	return status;
}

/*
 * Several series in Markdown, one comment that fits (docs/reports.md,
 * "Several series"): the report layer orders and shortens them.
 */
static int render_md_sections(FILE *f, const struct pd_section *x, size_t n,
			      const char *only, const pd_cold_only_vec *cold,
			      const pd_cold_cost_vec *cost)
{
	struct pd_md_colds c;
	struct pd_md_series *s = pd_xmalloc((n + 1) * sizeof(*s));
	size_t i;
	int rc;

	for (i = 0; i < n; i++) {
		s[i].cache = x[i].key.cache;
		s[i].tool = x[i].key.tool;
		s[i].d = &x[i].d;
	}
	c.only = cold->v;
	c.nonly = cold->n;
	c.cost = cost->v;
	c.ncost = cost->n;
	rc = pd_report_md_series(f, s, n, only, &c);
	free(s);
	return rc;
}

/*
 * The functions that regressed cold while warm held, under the first
 * line: the candidate's cold start got slower, not its work.
 */
static void cold_line(FILE *f, const pd_cold_only_vec *c)
{
	struct pd_buf b = PD_BUF_INIT;
	size_t i;

	if (!c->n)
		return;
	fputs("cold cache only (regressed cold, warm held):", f);
	for (i = 0; i < c->n; i++) {
		pd_buf_reset(&b);
		pd_buf_add_term_line(&b, c->v[i].func);
		pd_buf_addf(&b, " %+.1f %%", c->v[i].delta_pct);
		pd_buf_adds(&b, " (");
		pd_buf_add_term_line(&b, c->v[i].tool);
		fprintf(f, "%s %s)", i ? "," : "", b.buf);
	}
	fputs("\n", f);
	pd_buf_release(&b);
}

/*
 * Under the first line, each function whose cold-cache cost (cold less
 * warm self time) changed between the builds (docs/cli.md, "Cold against
 * warm"): one line a function, the largest change first.
 */
static void cost_lines(FILE *f, const pd_cold_cost_vec *c)
{
	struct pd_buf b = PD_BUF_INIT;
	size_t i;

	for (i = 0; i < c->n && c->v[i].status != PD_SAME; i++) {
		const struct pd_cold_cost *o = &c->v[i];
		const char *u = pd_unit_display(o->unit);

		pd_buf_reset(&b);
		pd_buf_addf(&b,
			    "cold-cache cost %s: ", pd_status_name(o->status));
		pd_buf_add_term_line(&b, o->func);
		pd_buf_adds(&b, o->delta > 0 ? " +" : " ");
		pd_fmt_weight(&b, o->delta, o->unit);
		pd_buf_addf(&b, " %s (cold less warm self time ", u);
		pd_fmt_weight(&b, o->base, o->unit);
		pd_buf_adds(&b, " -> ");
		pd_fmt_weight(&b, o->cand, o->unit);
		pd_buf_addf(&b, " %s, 95 %% CI ", u);
		pd_fmt_weight(&b, o->lo, o->unit);
		pd_buf_adds(&b, " .. ");
		pd_fmt_weight(&b, o->hi, o->unit);
		pd_buf_addf(&b, ", q %.2g; ", o->q);
		pd_buf_add_term_line(&b, o->tool);
		fprintf(f, "%s)\n", b.buf);
	}
	pd_buf_release(&b);
}

static void cost_json(FILE *f, const pd_cold_cost_vec *c, size_t tested)
{
	struct pd_buf b = PD_BUF_INIT;
	size_t i, k = 0;

	fprintf(f, "\"cold_cost\": {\"tested\": %zu, \"changed\": [", tested);
	for (i = 0; i < c->n && c->v[i].status != PD_SAME; i++) {
		const struct pd_cold_cost *o = &c->v[i];

		pd_buf_reset(&b);
		pd_buf_adds(&b, k++ ? ", {\"tool\": " : "{\"tool\": ");
		pd_json_string(&b, o->tool, strlen(o->tool));
		pd_buf_adds(&b, ", \"function\": ");
		pd_json_string(&b, o->func, strlen(o->func));
		pd_buf_adds(&b, ", \"module\": ");
		pd_json_string(&b, o->module, strlen(o->module));
		pd_buf_addf(&b,
			    ", \"status\": \"%s\", \"unit\": \"%s\","
			    " \"base\": %.17g, \"cand\": %.17g,"
			    " \"delta\": %.17g, \"ci_low\": %.17g,"
			    " \"ci_high\": %.17g, \"p\": %.17g, \"q\": %.17g}",
			    pd_status_name(o->status), pd_unit_name(o->unit),
			    o->base, o->cand, o->delta, o->lo, o->hi, o->p,
			    o->q);
		fputs(b.buf, f);
	}
	fputs("]},\n", f);
	pd_buf_release(&b);
}

static void cold_json(FILE *f, const pd_cold_only_vec *c)
{
	struct pd_buf b = PD_BUF_INIT;
	size_t i;

	fputs("\"cold_only\": [", f);
	for (i = 0; i < c->n; i++) {
		pd_buf_reset(&b);
		pd_buf_adds(&b, i ? ", {\"tool\": " : "{\"tool\": ");
		pd_json_string(&b, c->v[i].tool, strlen(c->v[i].tool));
		pd_buf_adds(&b, ", \"function\": ");
		pd_json_string(&b, c->v[i].func, strlen(c->v[i].func));
		pd_buf_adds(&b, ", \"module\": ");
		pd_json_string(&b, c->v[i].module, strlen(c->v[i].module));
		pd_buf_addf(&b, ", \"delta_pct\": %.17g}", c->v[i].delta_pct);
		fputs(b.buf, f);
	}
	fputs("],\n", f);
	pd_buf_release(&b);
}

/*
 * The report of several series: text one after the other under a heading
 * each, after a line naming each verdict; Markdown as render_md_sections
 * writes it; JSON an object {"series": [{"cache", "tool", "report"}],
 * "not_compared", "verdict"}. The exit status is the worst: 1 when any
 * regressed (check: then 125 when any could not tell).
 */
static int render_sections(struct pd_section *x, size_t n, struct pd_args *r,
			   const char *only)
{
	struct pd_out out;
	struct pd_buf b = PD_BUF_INIT;
	enum pd_status worst = PD_SAME;
	pd_cold_only_vec cold = PD_VEC_INIT;
	pd_cold_cost_vec cost = PD_VEC_INIT;
	size_t i, tested = 0;
	int rc = 0, status = 0, st;

	pd_sections_cold_only(x, n, &cold);
	if (n)
		pd_sections_cold_cost(x, n, &x[0].d.set, &cost, &tested);

	for (i = 0; i < n; i++) {
		pd_render_warnings(&x[i].d, r, x[i].name);
		if (x[i].d.verdict == PD_REGRESSED ||
		    (x[i].d.verdict == PD_INCONCLUSIVE &&
		     worst != PD_REGRESSED))
			worst = x[i].d.verdict;
	}
	if (pd_out_open_say(&out, r->output) != 0)
		return 2;
	if (r->fmt == PD_FMT_JSON) {
		fputs("{\n\"series\": [", out.f);
		for (i = 0; i < n && rc == 0; i++) {
			fprintf(out.f, "%s{\"cache\": \"%s\", \"tool\": ",
				i ? ", " : "", x[i].key.cache);
			pd_buf_reset(&b);
			pd_json_string(&b, x[i].key.tool,
				       strlen(x[i].key.tool));
			fprintf(out.f, "%s, \"report\":\n", b.buf);
			rc = pd_render_body(out.f, &x[i].d, r, NULL, NULL,
					    &x[i].fn);
			fputs("}", out.f);
		}
		pd_buf_reset(&b);
		pd_json_string(&b, only, strlen(only));
		fprintf(out.f, "],\n\"not_compared\": %s,\n",
			*only ? b.buf : "null");
		cold_json(out.f, &cold);
		cost_json(out.f, &cost, tested);
		fprintf(out.f, "\"verdict\": \"%s\"\n}\n",
			pd_status_name(worst));
	} else if (r->fmt == PD_FMT_MD) {
		rc = render_md_sections(out.f, x, n, only, &cold, &cost);
	} else {
		fprintf(out.f, "%zu series compared (cache, tool):", n);
		for (i = 0; i < n; i++)
			fprintf(out.f, "%s %s %s %s", i ? "," : "",
				x[i].key.cache, x[i].key.tool,
				pd_status_name(x[i].d.verdict));
		fprintf(out.f, "%s%s\n",
			*only ? "; not compared, one side has no such runs: "
			      : "",
			only);
		cold_line(out.f, &cold);
		cost_lines(out.f, &cost);
		for (i = 0; i < n && rc == 0; i++) {
			fputs("\n", out.f);
			fprintf(out.f, "== %zu of %zu: cache %s, tool %s ==\n",
				i + 1, n, x[i].key.cache, x[i].key.tool);
			rc = pd_render_body(out.f, &x[i].d, r, NULL, NULL,
					    &x[i].fn);
		}
	}
	pd_buf_release(&b);
	PD_VEC_FREE(&cold);
	PD_VEC_FREE(&cost);
	if (rc < 0 && r->output && !ferror(out.f))
		pd_error("error: %s: write failed", r->output);
	if (pd_out_close_say(&out, rc) != 0 || rc != 0)
		return 2;
	for (i = 0; i < n; i++) {
		st = pd_render_status(&x[i].d, r);
		if (st == 1 || (st == 125 && status != 1))
			status = st;
	}
	return status;
}

/* The runs imported in jobs, compared per series and rendered: the status. */
static int compare_jobs(struct pd_args *r, struct pd_import_job *jobs,
			struct pd_run_side *s, const struct pd_series_list *c,
			const char *only)
{
	size_t n = c->n ? c->n : 1, i;
	struct pd_section *x = pd_xcalloc(n, sizeof(*x));
	int status, j;

	for (i = 0; i < n; i++) {
		if (c->n) {
			struct pd_buf b = PD_BUF_INIT;

			x[i].key = c->v[i];
			pd_buf_addf(&b, "%s %s", x[i].key.cache, x[i].key.tool);
			x[i].name = pd_buf_detach(&b);
		}
		for (j = 0; j < 2; j++)
			pd_section_runs(&x[i], s, j);
		pd_section_diff(&x[i], r->flags, &r->set, jobs, s,
				n == 1 ? only : NULL);
	}
	if (n == 1)
		status = render_sides(&x[0].d, r, x[0].p[0], x[0].at[0].n,
				      x[0].p[1], x[0].at[1].n, &x[0].fn);
	else
		status = render_sections(x, n, r, only);
	for (i = 0; i < n; i++)
		pd_section_release(&x[i]);
	free(x);
	return status;
}

/*
 * Both sides' files imported (and their perf stat tables), compared per
 * series: the status.
 */
static int import_and_compare(struct pd_args *r, struct pd_run_side *s)
{
	size_t na = s[0].files.n, n = na + s[1].files.n, i;
	const char **paths;
	struct pd_import_job *jobs;
	struct pd_series_list common = PD_VEC_INIT;
	struct pd_buf only = PD_BUF_INIT;
	struct pd_err err = PD_ERR_INIT;
	int status = 2;

	if (pd_run_sides_series(s, r->cache, r->tool, &common, &only) < 0)
		goto out;
	if (!common.n && (r->cache || r->tool)) {
		pd_error("error: --cache and --tool choose among a bundle's"
			 " runs; these are profile files");
		goto out;
	}
	if (common.n > 1 && (r->fmt == PD_FMT_HTML || r->fmt == PD_FMT_XLSX ||
			     r->fmt == PD_FMT_FOLDED)) {
		struct pd_buf b = PD_BUF_INIT;

		for (i = 0; i < common.n; i++)
			pd_buf_addf(&b, "%s%s %s", i ? ", " : "",
				    common.v[i].cache, common.v[i].tool);
		pd_error("error: the bundles hold %zu series (%s): -f %s shows"
			 " one; choose it with --cache and --tool",
			 common.n, b.buf, pd_outfmt_name(r->fmt));
		pd_buf_release(&b);
		goto out;
	}
	paths = pd_xmalloc(n * sizeof(*paths));
	jobs = pd_xcalloc(n, sizeof(*jobs));
	for (i = 0; i < n; i++)
		paths[i] = i < na ? s[0].files.v[i] : s[1].files.v[i - na];
	if (pd_import_all(paths, n, &r->io, jobs) == 0 &&
	    (!s[0].stat ||
	     pd_attach_stat(&jobs[0].p, s[0].stat, &r->io, &err) == 0) &&
	    (!s[1].stat ||
	     pd_attach_stat(&jobs[na].p, s[1].stat, &r->io, &err) == 0))
		status = compare_jobs(r, jobs, s, &common, only.buf);
	else if (err.code)
		pd_error("%s", err.msg);
	for (i = 0; i < n; i++)
		pd_profile_release(&jobs[i].p);
	free(jobs);
	free(paths);
out:
	PD_VEC_FREE(&common);
	pd_buf_release(&only);
	return status;
}

static int diff_run(int argc, char **argv, int check)
{
	struct pd_args r;
	struct pd_run_side s[2];
	int status;

	memset(s, 0, sizeof(s));
	status = pd_parse(check ? "check" : "diff",
			  check ? check_about : diff_about, argc, argv, &r);
	if (status >= 0)
		goto out_opts;
	status = 2;
	r.check = check;
	if (r.function) {
		if (pd_parse_regex("--function", r.function, &r.fre))
			goto out_opts;
		r.have_fre = 1;
	}
	if (check && r.nops == 2 &&
	    (!strncmp(r.ops[0], "db:", 3) || !strncmp(r.ops[1], "db:", 3))) {
		status = pd_check_db(&r, r.ops);
		goto out_opts;
	}
	if (collect_sides(&r, s) == 0)
		status = import_and_compare(&r, s);
out_opts:
	pd_run_side_release(&s[0]);
	pd_run_side_release(&s[1]);
	pd_args_release(&r);
	return status;
}

int pd_cmd_diff(int argc, char **argv)
{
	return diff_run(argc, argv, 0);
}

int pd_cmd_check(int argc, char **argv)
{
	int s = diff_run(argc, argv, 1);

	/* git bisect run stops on 128 and above: errors must not mark */
	return s == 2 ? 128 : s;
}

static const char show_about[] =
    "Prints one profile's functions with self and total weights.\n";

int pd_cmd_show(int argc, char **argv)
{
	struct pd_args a;
	struct pd_one_out o;
	int status = pd_parse("show", show_about, argc, argv, &a);

	if (status >= 0)
		goto out;
	status = 2;
	if (!pd_operands_ok("show", a.nops))
		goto out;
	memset(&o, 0, sizeof(o));
	o.fmt = a.fmt;
	o.top = a.show_top;
	o.counts = a.counts;
	o.output = a.output;
	/*
	 * Warnings go to stderr, as diff's do; the text report repeats them,
	 * unless stdout and stderr are the same terminal.
	 */
	o.notes = 1;
	o.text_notes = a.output || !(isatty(1) && isatty(2));
	status = pd_write_one(a.ops[0], &a.io, &o);
out:
	pd_args_release(&a);
	return status;
}
