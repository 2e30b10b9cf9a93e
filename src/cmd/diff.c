/*
 * `perfdiff BASELINE CANDIDATE`: import both sides (in parallel), compute
 * the diff, render it, and exit like diff(1): 0 no regression, 1 regression,
 * 2 error.
 */
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "import/import.h"
#include "report/report.h"
#include "stats/diff.h"

static const char diff_usage[] =
    "usage: perfdiff [diff] BASELINE CANDIDATE [options]\n"
    "\n"
    "Inputs (format sniffed from the content; .gz read transparently):\n"
    "  --from FORMAT        force the format: speedscope, perf-script, folded\n"
    "  --event NAME         perf script: the event to use (default: the "
    "first)\n"
    "  --process NAME       keep samples whose process name contains NAME\n"
    "  --thread NAME        keep samples whose thread name contains NAME\n"
    "  --sample-weight W    weight of one sample (folded; default: derived)\n"
    "  --interval MS        sampling interval of evented data (default 1 ms)\n"
    "Matching:\n"
    "  --no-normalize       match raw names (keep +0x.., .constprop.N, ...)\n"
    "  --no-module          match functions by name alone, ignoring modules\n"
    "Statistics:\n"
    "  --threshold PCT      smallest ratio change that counts (default 5)\n"
    "  --min-impact PCT     smallest change as %% of the baseline total (0.5)\n"
    "  --alpha A            false discovery rate (default 0.05)\n"
    "  --dispersion PHI     overdispersion floor phi0 (default 2)\n"
    "  --share              compare shares of the total, not absolute weights\n"
    "Output:\n"
    "  -f, --format FMT     text (default), md, json, folded\n"
    "  -o, --output FILE    write to FILE (atomically) instead of stdout\n"
    "  --top N              rows per table in text output (default 20)\n"
    "  --color WHEN         auto (default), always, never\n"
    "\n"
    "Exit status: 0 no regression, 1 regression found, 2 error.\n";

enum {
	OPT_FROM = 256,
	OPT_EVENT,
	OPT_PROCESS,
	OPT_THREAD,
	OPT_SAMPLE_WEIGHT,
	OPT_INTERVAL,
	OPT_NO_NORMALIZE,
	OPT_NO_MODULE,
	OPT_THRESHOLD,
	OPT_MIN_IMPACT,
	OPT_ALPHA,
	OPT_DISPERSION,
	OPT_SHARE,
	OPT_TOP,
	OPT_COLOR,
};

static const struct option diff_options[] = {
	{ "from", required_argument, NULL, OPT_FROM },
	{ "event", required_argument, NULL, OPT_EVENT },
	{ "process", required_argument, NULL, OPT_PROCESS },
	{ "thread", required_argument, NULL, OPT_THREAD },
	{ "sample-weight", required_argument, NULL, OPT_SAMPLE_WEIGHT },
	{ "interval", required_argument, NULL, OPT_INTERVAL },
	{ "no-normalize", no_argument, NULL, OPT_NO_NORMALIZE },
	{ "no-module", no_argument, NULL, OPT_NO_MODULE },
	{ "threshold", required_argument, NULL, OPT_THRESHOLD },
	{ "min-impact", required_argument, NULL, OPT_MIN_IMPACT },
	{ "alpha", required_argument, NULL, OPT_ALPHA },
	{ "dispersion", required_argument, NULL, OPT_DISPERSION },
	{ "share", no_argument, NULL, OPT_SHARE },
	{ "format", required_argument, NULL, 'f' },
	{ "output", required_argument, NULL, 'o' },
	{ "top", required_argument, NULL, OPT_TOP },
	{ "color", required_argument, NULL, OPT_COLOR },
	{ "colour", required_argument, NULL, OPT_COLOR },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

struct job {
	const char *path;
	const struct pd_import_opts *o;
	struct pd_profile p;
	struct pd_err err;
	int rc;
};

static void *import_job(void *arg)
{
	struct job *j = arg;

	j->rc = pd_import(&j->p, j->path, j->o, &j->err);
	return NULL;
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
	}
	return 0;
}

enum fmt { FMT_TEXT, FMT_MD, FMT_JSON, FMT_FOLDED };

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
	else {
		pd_error("error: unknown output format '%s' (text, md, json,"
			 " folded)",
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
static int shared_option(int c, char **argv, struct pd_import_opts *io,
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
		return 100;
	case ':':
		pd_error("error: option %s needs a value", argv[optind - 1]);
		return 102;
	case '?':
		pd_error("error: unknown option %s (perfdiff help %s)",
			 argv[optind - 1], cmd);
		return 102;
	}
	return 0;
}

int pd_cmd_diff(int argc, char **argv)
{
	struct pd_import_opts io;
	struct pd_settings set;
	struct pd_report_opts ro = { 20, 0, 1 };
	struct job jobs[2];
	struct pd_funcs fn;
	struct pd_diff d;
	struct pd_out out;
	enum fmt fmt = FMT_TEXT;
	const char *output = NULL, *color = "auto";
	unsigned flags = 0;
	pthread_t th;
	int c, i, rc, status = 2, threaded;
	double v;

	memset(&io, 0, sizeof(io));
	pd_settings_default(&set);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":f:o:h", diff_options, NULL)) !=
	       -1) {
		int r = shared_option(c, argv, &io, &fmt, &output, diff_usage,
				      "diff");

		if (r >= 100)
			return r - 100;
		if (r)
			continue;
		switch (c) {
		case OPT_NO_NORMALIZE:
			flags |= PD_FUNCS_NO_NORMALIZE;
			break;
		case OPT_NO_MODULE:
			flags |= PD_FUNCS_NO_MODULE;
			break;
		case OPT_THRESHOLD:
			if (pd_parse_double("--threshold", optarg, 0, 1000,
					    &set.threshold_pct))
				return 2;
			break;
		case OPT_MIN_IMPACT:
			if (pd_parse_double("--min-impact", optarg, 0, 100,
					    &set.min_impact_pct))
				return 2;
			break;
		case OPT_ALPHA:
			if (pd_parse_double("--alpha", optarg, 1e-12, 0.5,
					    &set.alpha))
				return 2;
			break;
		case OPT_DISPERSION:
			if (pd_parse_double("--dispersion", optarg, 0.01, 1000,
					    &set.dispersion))
				return 2;
			break;
		case OPT_SHARE:
			set.share = 1;
			break;
		case OPT_TOP:
			if (pd_parse_double("--top", optarg, 1, 1000000, &v))
				return 2;
			ro.top = (int)v;
			break;
		case OPT_COLOR:
			if (strcmp(optarg, "auto") &&
			    strcmp(optarg, "always") &&
			    strcmp(optarg, "never")) {
				pd_error("error: --color wants auto, always or"
					 " never");
				return 2;
			}
			color = optarg;
			break;
		default:
			pd_error(
			    "error: unknown option %s (perfdiff help diff)",
			    argv[optind - 1]);
			return 2;
		}
	}
	if (argc - optind != 2) {
		pd_error("error: want two profiles, BASELINE and CANDIDATE (got"
			 " %d); see perfdiff help diff",
			 argc - optind);
		return 2;
	}
	if (!strcmp(argv[optind], "-") && !strcmp(argv[optind + 1], "-")) {
		pd_error("error: only one of BASELINE and CANDIDATE can be"
			 " standard input (-)");
		return 2;
	}
	if (!strcmp(color, "always"))
		ro.color = 1;
	else if (!strcmp(color, "auto"))
		ro.color = !output && isatty(1) && !getenv("NO_COLOR");

	for (i = 0; i < 2; i++) {
		jobs[i].path = argv[optind + i];
		jobs[i].o = &io;
		jobs[i].rc = 0;
		memset(&jobs[i].err, 0, sizeof(jobs[i].err));
		pd_profile_init(&jobs[i].p);
	}
	/* The two sides are independent: read them at the same time. */
	threaded = !pthread_create(&th, NULL, import_job, &jobs[1]);
	import_job(&jobs[0]);
	if (threaded)
		pthread_join(th, NULL);
	else
		import_job(&jobs[1]);
	for (i = 0; i < 2; i++) {
		if (jobs[i].rc < 0) {
			pd_error("%s", jobs[i].err.msg);
			goto out_profiles;
		}
	}

	pd_funcs_init(&fn, flags);
	pd_diff_compute(&d, &jobs[0].p, &jobs[1].p, &fn, &set);
	/*
	 * Warnings go to stderr; the text report repeats them, unless stdout
	 * and stderr are the same terminal, where they would show twice.
	 */
	ro.warnings = !(fmt == FMT_TEXT && !output && isatty(1) && isatty(2));
	for (i = 0; i < (int)d.warnings.n; i++)
		if (ro.warnings)
			fprintf(stderr, "perfdiff: warning: %s\n",
				d.warnings.v[i]);

	if (pd_out_open(&out, output) == 0) {
		switch (fmt) {
		case FMT_TEXT:
			rc = pd_report_text(out.f, &d, &ro);
			break;
		case FMT_MD:
			rc = pd_report_md(out.f, &d, &ro);
			break;
		case FMT_JSON:
			rc = pd_report_json(out.f, &d, &ro);
			break;
		default:
			rc = pd_report_folded(out.f, &jobs[0].p, &jobs[1].p);
			break;
		}
		if (rc < 0 && output)
			pd_error("error: %s: write failed", output);
		if (pd_out_close(&out, rc) == 0 && rc == 0)
			status = d.verdict == PD_REGRESSED ? 1 : 0;
	}
	pd_diff_release(&d);
	pd_funcs_release(&fn);
out_profiles:
	pd_profile_release(&jobs[0].p);
	pd_profile_release(&jobs[1].p);
	return status;
}

static const char show_usage[] =
    "usage: perfdiff show PROFILE [options]\n"
    "\n"
    "Prints one profile's functions with self and total weights.\n"
    "  -f, --format FMT   text (default), json, folded\n"
    "  -o, --output FILE  write to FILE instead of stdout\n"
    "  --top N            rows in text output (default 30)\n"
    "  --from, --event, --process, --thread, --sample-weight, --interval\n"
    "                     as for perfdiff diff\n";

int pd_cmd_show(int argc, char **argv)
{
	struct pd_import_opts io;
	struct pd_profile p;
	struct pd_err err = PD_ERR_INIT;
	struct pd_out out;
	const char *output = NULL;
	enum fmt fmt = FMT_TEXT;
	int c, rc, top = 30, status = 2;
	size_t i;
	double v;

	memset(&io, 0, sizeof(io));
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":f:o:h", diff_options, NULL)) !=
	       -1) {
		int r = shared_option(c, argv, &io, &fmt, &output, show_usage,
				      "show");

		if (r >= 100)
			return r - 100;
		if (r)
			continue;
		switch (c) {
		case OPT_TOP:
			if (pd_parse_double("--top", optarg, 1, 1e9, &v))
				return 2;
			top = (int)v;
			break;
		default:
			pd_error(
			    "error: unknown option %s (perfdiff help show)",
			    argv[optind - 1]);
			return 2;
		}
	}
	if (fmt == FMT_MD) {
		pd_error("error: show writes text, json or folded");
		return 2;
	}
	if (argc - optind != 1) {
		pd_error("error: want one profile; see perfdiff help show");
		return 2;
	}
	pd_profile_init(&p);
	if (pd_import(&p, argv[optind], &io, &err) < 0) {
		pd_error("%s", err.msg);
		goto out;
	}
	if (fmt != FMT_TEXT || output)
		for (i = 0; i < p.notes.n; i++)
			fprintf(stderr, "perfdiff: warning: %s\n",
				p.notes.v[i]);
	if (pd_out_open(&out, output) == 0) {
		if (fmt == FMT_JSON)
			rc = pd_report_profile_json(out.f, &p);
		else if (fmt == FMT_FOLDED)
			rc = pd_report_folded(out.f, &p, NULL);
		else
			rc = pd_report_profile_text(out.f, &p, top);
		if (pd_out_close(&out, rc) == 0 && rc == 0)
			status = 0;
	}
out:
	pd_profile_release(&p);
	return status;
}
