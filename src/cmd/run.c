/*
 * The machinery of the comparison commands: options, parallel import,
 * bundle operands, metadata warnings, rendering and exit statuses.
 */
#include <ctype.h>
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

void pd_unknown_option(const char *arg, const struct option *opts,
		       const char *cmd)
{
	char name[64];
	const char *best = NULL;
	size_t bd = 0, i, n;

	if (!strncmp(arg, "--", 2)) {
		n = strcspn(arg + 2, "=");
		if (n < sizeof(name)) {
			memcpy(name, arg + 2, n);
			name[n] = 0;
			/* two edits in a long name, one in a short one */
			bd = n >= 6 ? 3 : 2;
			for (i = 0; opts[i].name; i++) {
				size_t d = pd_edit_distance(name, opts[i].name);

				if (d < bd) {
					bd = d;
					best = opts[i].name;
				}
			}
		}
	}
	if (best && cmd)
		pd_error("error: unknown option %s; did you mean --%s?"
			 " (perfdiff help %s)",
			 arg, best, cmd);
	else if (best)
		pd_error("error: unknown option %s; did you mean --%s?", arg,
			 best);
	else if (cmd)
		pd_error("error: unknown option %s (perfdiff help %s)", arg,
			 cmd);
	else
		pd_error("error: unknown option %s", arg);
}

/* Shared by diff and show: parses the import options; 1 if consumed. */
static int import_option(int c, struct pd_import_opts *io)
{
	double v;

	switch (c) {
	case OPT_FROM:
		if (!pd_format_find(optarg)) {
			pd_error("error: unknown format '%s' (supported: %s)",
				 optarg, pd_format_list());
			return -1;
		}
		io->from = optarg;
		return 1;
	case OPT_EVENT:
		io->event = optarg;
		return 1;
	case OPT_PROCESS:
		io->process = optarg;
		return 1;
	case OPT_THREAD:
		io->thread = optarg;
		return 1;
	case OPT_SAMPLE_WEIGHT:
		if (pd_parse_double("--sample-weight", optarg, 1e-300, 1e300,
				    &v))
			return -1;
		io->sample_weight = v;
		return 1;
	case OPT_INTERVAL:
		if (pd_parse_double("--interval", optarg, 1e-9, 1e9, &v))
			return -1;
		io->interval_ms = v;
		return 1;
	case OPT_WEIGHT:
		if (!strcmp(optarg, "cpu"))
			io->weight_mode = 2;
		else if (!strcmp(optarg, "wall"))
			io->weight_mode = 1;
		else {
			pd_error("error: --weight wants cpu or wall");
			return -1;
		}
		return 1;
	case OPT_DECIMAL:
		if ((optarg[0] != '.' && optarg[0] != ',') || optarg[1]) {
			pd_error("error: --decimal wants . or ,");
			return -1;
		}
		io->decimal = optarg[0];
		return 1;
	case OPT_SAMPLE_TYPE:
		io->sample_type = optarg;
		return 1;
	case OPT_METRIC:
		if (!pd_dhat_metric_ok(optarg)) {
			pd_error("error: --metric wants one of %s",
				 pd_dhat_metric_names());
			return -1;
		}
		io->metric = optarg;
		return 1;
	case OPT_PERF:
		io->perf = optarg;
		return 1;
	case OPT_FOCUS:
	case OPT_IGNORE:
	case OPT_HIDE: {
		regex_t re;
		const char *name = c == OPT_FOCUS    ? "--focus"
				   : c == OPT_IGNORE ? "--ignore"
						     : "--hide";

		if (pd_parse_regex(name, optarg, &re))
			return -1;
		regfree(&re);
		*(c == OPT_FOCUS    ? &io->focus
		  : c == OPT_IGNORE ? &io->ignore
				    : &io->hide) = optarg;
		return 1;
	}
	case OPT_ALLOC_FRAMES: {
		regex_t re;

		if (pd_parse_regex("--alloc-frames", optarg, &re))
			return -1;
		regfree(&re);
		io->alloc_frames = optarg;
		return 1;
	}
	case OPT_SYMBOLS: {
		/* Repeatable: a growing NULL-terminated list. */
		static const char **dirs;
		static size_t n;

		dirs = pd_xreallocarray(dirs, n + 2, sizeof(*dirs));
		dirs[n++] = optarg;
		dirs[n] = NULL;
		io->symbol_dirs = dirs;
		return 1;
	}
	case OPT_SYMBOLIZER:
		io->symbolizer = optarg;
		return 1;
	}
	return 0;
}

static int parse_format(const char *s, enum fmt *f)
{
	if (!strcmp(s, "text"))
		*f = FMT_TEXT;
	else if (!strcmp(s, "md") || !strcmp(s, "markdown"))
		*f = FMT_MD;
	else if (!strcmp(s, "json"))
		*f = FMT_JSON;
	else if (!strcmp(s, "folded"))
		*f = FMT_FOLDED;
	else if (!strcmp(s, "html"))
		*f = FMT_HTML;
	else if (!strcmp(s, "xlsx"))
		*f = FMT_XLSX;
	else {
		pd_error("error: unknown output format '%s' (text, md, json,"
			 " folded, html, xlsx)",
			 s);
		return -1;
	}
	return 0;
}

/*
 * Options that diff and show share: input options, -f, -o, -h and getopt's
 * errors. Returns 1 when c was handled, 0 when it is the caller's, or
 * 100 + an exit status when the command must stop now.
 */
int pd_shared_option(int c, char **argv, struct pd_import_opts *io,
		     enum fmt *fmt, const char **output, const char *usage,
		     const char *cmd)
{
	int r = import_option(c, io);

	if (r)
		return r < 0 ? 102 : 1;
	switch (c) {
	case 'f':
		return parse_format(optarg, fmt) ? 102 : 1;
	case 'o':
		*output = optarg;
		return 1;
	case 'h':
		fputs(usage, stdout);
		pd_opts_help(stdout, pd_opts_cmd(cmd));
		return 100;
	case ':':
		pd_error("error: option %s needs a value", argv[optind - 1]);
		return 102;
	case '?':
		pd_unknown_option(argv[optind - 1],
				  pd_opts_getopt(pd_opts_cmd(cmd)), cmd);
		return 102;
	}
	return 0;
}

static int run_option(int c, struct run_opts *r)
{
	double v;

	switch (c) {
	case OPT_NO_NORMALIZE:
		r->flags |= PD_FUNCS_NO_NORMALIZE;
		return 1;
	case OPT_NO_MODULE:
		r->flags |= PD_FUNCS_NO_MODULE;
		return 1;
	case OPT_SYSTEM:
		if (!strcmp(optarg, "include"))
			r->flags |= PD_FUNCS_SYSTEM;
		else if (!strcmp(optarg, "exclude"))
			r->flags &= ~(unsigned)PD_FUNCS_SYSTEM;
		else {
			pd_error("error: --system wants include or exclude");
			return -1;
		}
		return 1;
	case OPT_THRESHOLD:
		return pd_parse_double("--threshold", optarg, 0, 1000,
				       &r->set.threshold_pct)
			   ? -1
			   : 1;
	case OPT_MIN_IMPACT:
		return pd_parse_double("--min-impact", optarg, 0, 100,
				       &r->set.min_impact_pct)
			   ? -1
			   : 1;
	case OPT_ALPHA:
		return pd_parse_double("--alpha", optarg, 1e-12, 0.5,
				       &r->set.alpha)
			   ? -1
			   : 1;
	case OPT_DISPERSION:
		return pd_parse_double("--dispersion", optarg, 0.01, 1000,
				       &r->set.dispersion)
			   ? -1
			   : 1;
	case OPT_RUN_CV:
		if (pd_parse_double("--run-cv", optarg, 0, 100, &v))
			return -1;
		r->set.run_cv = v / 100;
		return 1;
	case OPT_PAIRED:
		r->set.paired = 1;
		return 1;
	case OPT_TREAT:
		r->set.treat = 1;
		return 1;
	case OPT_SHARE:
		r->set.share = 1;
		return 1;
	case OPT_TOP:
		if (pd_parse_double("--top", optarg, 1, 1000000, &v))
			return -1;
		r->ro.top = (int)v;
		return 1;
	case OPT_SORT: {
		static const char *const keys[] = { "impact", "self", "total",
						    "cum" };
		size_t k;

		for (k = 0; k < 4 && strcmp(optarg, keys[k]); k++)
			;
		if (k == 4) {
			pd_error("error: --sort wants impact, self, total or"
				 " cum");
			return -1;
		}
		r->ro.sort = (enum pd_sort)k;
		return 1;
	}
	case OPT_COLOR:
		if (strcmp(optarg, "auto") && strcmp(optarg, "always") &&
		    strcmp(optarg, "never")) {
			pd_error("error: --color wants auto, always or never");
			return -1;
		}
		r->color = optarg;
		return 1;
	case 'b':
		PD_VEC_PUSH(&r->base, optarg);
		return 1;
	case 'c':
		PD_VEC_PUSH(&r->cand, optarg);
		return 1;
	case OPT_DB:
		r->db = optarg;
		return 1;
	case OPT_SCENARIO:
		r->scenario = optarg;
		return 1;
	case OPT_CACHE: /* the runbook's spellings; others are checked later */
		r->cache = pd_cache_state(optarg, strlen(optarg));
		if (!r->cache)
			r->cache = optarg;
		return 1;
	case OPT_TOOL:
		r->tool = optarg;
		return 1;
	case OPT_REPO:
		r->repo = optarg;
		return 1;
	case OPT_BASE_OF:
		r->base_of = optarg;
		return 1;
	case OPT_FUNCTION:
		r->function = optarg;
		return 1;
	}
	return 0;
}

/* Parses a comparison's options; returns -1 to go on, else an exit status. */
int pd_parse_run(int argc, char **argv, struct run_opts *r, const char *usage,
		 const char *cmd)
{
	int c;

	memset(r, 0, sizeof(*r));
	pd_settings_default(&r->set);
	r->ro.top = 20;
	r->color = "auto";
	r->db = pd_db_default_path();
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, pd_opts_short(pd_opts_cmd(cmd)),
				pd_opts_getopt(pd_opts_cmd(cmd)), NULL)) !=
	       -1) {
		int k = pd_shared_option(c, argv, &r->io, &r->fmt, &r->output,
					 usage, cmd);

		if (k >= 100)
			return k - 100;
		if (k)
			continue;
		k = run_option(c, r);
		if (k < 0)
			return 2;
		if (!k) {
			pd_unknown_option(argv[optind - 1],
					  pd_opts_getopt(pd_opts_cmd(cmd)),
					  cmd);
			return 2;
		}
	}
	if (!strcmp(r->color, "always"))
		r->ro.color = 1;
	else if (!strcmp(r->color, "auto"))
		r->ro.color = !r->output && isatty(1) && !getenv("NO_COLOR");
	/* A bad -o is said before any work, not after it. */
	if (r->output && pd_out_check(r->output, r->fmt == FMT_XLSX))
		return 2;
	return -1;
}

/*
 * perfdiff check's answer for git bisect run: 1 (bad) when a deciding
 * function (or, without --function, anything) regressed, 125 (skip) when
 * the evidence cannot tell, 0 (good) when it is the same or better.
 */
static int check_status(const struct pd_diff *d, struct run_opts *r)
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

void pd_render_warnings(const struct pd_diff *d, struct run_opts *r,
			const char *series)
{
	size_t i;

	/*
	 * Warnings go to stderr; the text report repeats them, unless stdout
	 * and stderr are the same terminal, where they would show twice.
	 */
	r->ro.warnings =
	    !(r->fmt == FMT_TEXT && !r->output && isatty(1) && isatty(2));
	for (i = 0; i < d->warnings.n; i++)
		if (r->ro.warnings)
			pd_error("warning: %s%s%s", series ? series : "",
				 series ? ": " : "", d->warnings.v[i]);
}

int pd_render_body(FILE *f, struct pd_diff *d, struct run_opts *r,
		   const struct pd_profile *pa, const struct pd_profile *pb,
		   struct pd_funcs *fn)
{
	switch (r->fmt) {
	case FMT_TEXT:
		return pd_report_text(f, d, &r->ro);
	case FMT_MD:
		return pd_report_md(f, d, &r->ro);
	case FMT_JSON:
		return pd_report_json(f, d, &r->ro);
	case FMT_HTML:
		return pd_report_html(f, d, &r->ro, pa, pb, fn);
	default:
		return pd_report_folded(f, pa, pb);
	}
}

int pd_render_status(const struct pd_diff *d, struct run_opts *r)
{
	if (r->check)
		return check_status(d, r);
	return d->verdict == PD_REGRESSED ? 1 : 0;
}

/* Writes the report; returns the exit status (0, 1, 2; check: 125). */
int pd_render(struct pd_diff *d, struct run_opts *r,
	      const struct pd_profile *pa, const struct pd_profile *pb,
	      struct pd_funcs *fn)
{
	struct pd_out out;
	int rc, status = 2;

	pd_render_warnings(d, r, NULL);
	if (r->fmt == FMT_FOLDED && (!pa || !pb)) {
		pd_error("error: folded output compares one profile per side");
		return 2;
	}
	if (r->fmt == FMT_XLSX) {
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
	if (o->fmt == PD_ONE_FOLDED &&
	    (plan = pd_folded_plan_say(&p, o->counts)) < 0)
		goto out;
	if (pd_out_open(&out, o->output) == 0) {
		if (o->fmt == PD_ONE_JSON)
			rc = pd_report_profile_json(out.f, &p);
		else if (o->fmt == PD_ONE_FOLDED)
			rc = plan ? pd_report_folded_counts(out.f, &p)
				  : pd_report_folded(out.f, &p, NULL);
		else if (o->fmt == PD_ONE_SPEEDSCOPE)
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
