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
#include "core/xalloc.h"

static const char check_usage[] =
    "usage: perfdiff check BASELINE CANDIDATE [--function REGEX] [options]\n"
    "\n"
    "A verdict for git bisect run. BASELINE and CANDIDATE are profiles,\n"
    "bundle folders, or stored commits db:REV[:SCENARIO[:CACHE]] (with\n"
    "--db FILE). Exit status: 0 good (same or improved), 1 bad (regressed),\n"
    "125 skip (inconclusive), 128 error (stops the bisect).\n"
    "\n";

static const char diff_usage[] =
    "usage: perfdiff [diff] BASELINE CANDIDATE [options]\n"
    "       perfdiff [diff] -b RUN -b RUN ... -c RUN -c RUN ... [options]\n"
    "\n"
    "Compares two profiles (or bundle folders, or several runs a side),\n"
    "function by function. The format of each file is sniffed from its\n"
    "content; .gz and .bz2 are read transparently. Exit status: 0 no\n"
    "regression, 1 regression found, 2 error.\n"
    "\n";

/*
 * The two sides' files: -b/-c lists, or two operands, a folder being a
 * bundle whose profiles are that side's runs. 0, or -1 after the message.
 */
static int collect_sides(int argc, char **argv, struct run_opts *r,
			 struct pd_run_side *s)
{
	size_t i, k, n;

	if (r->base.n || r->cand.n) {
		if (!r->base.n || !r->cand.n || argc != optind) {
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
		if (!pd_operands_ok(r->check ? "check" : "diff", argc - optind))
			return -1;
		for (i = 0; i < 2; i++)
			if (pd_run_side_add(&s[i], argv[optind + i]) < 0)
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
static int render_sides(struct pd_diff *d, struct run_opts *r,
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
		if (m > 1 && r->fmt == FMT_HTML) {
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

/* The profiles imported in jobs, compared and rendered: the status. */
static int compare_jobs(struct run_opts *r, struct job *jobs,
			struct pd_run_side *s)
{
	size_t na = s[0].files.n, nb = s[1].files.n, i;
	const struct pd_profile **pa = pd_xmalloc(na * sizeof(*pa));
	const struct pd_profile **pb = pd_xmalloc(nb * sizeof(*pb));
	struct pd_profile **all = pd_xmalloc((na + nb) * sizeof(*all));
	struct pd_funcs fn;
	struct pd_diff d;
	int status;

	for (i = 0; i < na + nb; i++) {
		all[i] = &jobs[i].p;
		if (i < na)
			pa[i] = &jobs[i].p;
		else
			pb[i - na] = &jobs[i].p;
	}
	pd_align_process_roots(all, na + nb);
	pd_funcs_init(&fn, r->flags);
	pd_diff_profiles(&d, pa, na, pb, nb, &fn, &r->set);
	pd_run_sides_describe(&d, s, NULL, NULL);
	status = render_sides(&d, r, pa, na, pb, nb, &fn);
	pd_diff_release(&d);
	pd_funcs_release(&fn);
	free(all);
	free(pa);
	free(pb);
	return status;
}

/* Both sides' files imported (and their perf stat tables): the status. */
static int import_and_compare(struct run_opts *r, struct pd_run_side *s)
{
	size_t na = s[0].files.n, n = na + s[1].files.n, i;
	const char **paths = pd_xmalloc(n * sizeof(*paths));
	struct job *jobs = pd_xcalloc(n, sizeof(*jobs));
	int status = 2;

	for (i = 0; i < n; i++)
		paths[i] = i < na ? s[0].files.v[i] : s[1].files.v[i - na];
	if (pd_import_all(paths, n, &r->io, jobs) == 0 &&
	    (!s[0].stat ||
	     pd_attach_stat(&jobs[0].p, s[0].stat, &r->io) == 0) &&
	    (!s[1].stat || pd_attach_stat(&jobs[na].p, s[1].stat, &r->io) == 0))
		status = compare_jobs(r, jobs, s);
	for (i = 0; i < n; i++)
		pd_profile_release(&jobs[i].p);
	free(jobs);
	free(paths);
	return status;
}

static int diff_run(int argc, char **argv, int check)
{
	struct run_opts r;
	struct pd_run_side s[2];
	int status, have_re = 0;

	memset(s, 0, sizeof(s));
	status = pd_parse_run(argc, argv, &r, check ? check_usage : diff_usage,
			      check ? "check" : "diff");
	if (status >= 0)
		goto out_opts;
	status = 2;
	r.check = check;
	if (r.function) {
		if (pd_parse_regex("--function", r.function, &r.fre))
			goto out_opts;
		have_re = 1;
	}
	if (check && argc - optind == 2 &&
	    (!strncmp(argv[optind], "db:", 3) ||
	     !strncmp(argv[optind + 1], "db:", 3))) {
		status = pd_check_db(&r, argv + optind);
		goto out_opts;
	}
	if (collect_sides(argc, argv, &r, s) == 0)
		status = import_and_compare(&r, s);
out_opts:
	pd_run_side_release(&s[0]);
	pd_run_side_release(&s[1]);
	if (have_re)
		regfree(&r.fre);
	PD_VEC_FREE(&r.base);
	PD_VEC_FREE(&r.cand);
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

static const char show_usage[] =
    "usage: perfdiff show PROFILE [options]\n"
    "\n"
    "Prints one profile's functions with self and total weights.\n"
    "\n";

int pd_cmd_show(int argc, char **argv)
{
	struct pd_import_opts io;
	struct pd_one_out o;
	const char *output = NULL;
	enum fmt fmt = FMT_TEXT;
	int c;
	double v;

	memset(&io, 0, sizeof(io));
	memset(&o, 0, sizeof(o));
	o.top = 30;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":f:o:h", pd_opts_getopt(PD_C_SHOW),
				NULL)) != -1) {
		int r = pd_shared_option(c, argv, &io, &fmt, &output,
					 show_usage, "show");

		if (r >= 100)
			return r - 100;
		if (r)
			continue;
		switch (c) {
		case OPT_TOP:
			if (pd_parse_double("--top", optarg, 1, 1e9, &v))
				return 2;
			o.top = (int)v;
			break;
		case OPT_COUNTS:
			o.counts = 1;
			break;
		default:
			pd_unknown_option(argv[optind - 1],
					  pd_opts_getopt(PD_C_SHOW), "show");
			return 2;
		}
	}
	if (fmt != FMT_TEXT && fmt != FMT_JSON && fmt != FMT_FOLDED) {
		/* a profile alone has no verdict to put in md, html or xlsx */
		pd_error("error: show writes text, json or folded");
		return 2;
	}
	if (!pd_operands_ok("show", argc - optind))
		return 2;
	o.fmt = fmt == FMT_JSON	    ? PD_ONE_JSON
		: fmt == FMT_FOLDED ? PD_ONE_FOLDED
				    : PD_ONE_TEXT;
	o.output = output;
	/*
	 * Warnings go to stderr, as diff's do; the text report repeats them,
	 * unless stdout and stderr are the same terminal.
	 */
	o.notes = 1;
	o.text_notes = output || !(isatty(1) && isatty(2));
	return pd_write_one(argv[optind], &io, &o);
}
