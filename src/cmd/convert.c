/*
 * `perfdiff convert INPUT -o OUT`: any input perfdiff reads, written as
 * speedscope JSON (one sampled profile per thread, names and modules
 * kept, the unit carried over) or as folded stacks, so that a WPA export,
 * a samply profile or a perf capture opens in speedscope.app or
 * flamegraph.pl.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/run.h"

static const char convert_usage[] =
    "usage: perfdiff convert INPUT [-o OUT] [-f speedscope|folded]\n"
    "\n"
    "Writes any profile perfdiff reads as speedscope JSON (the default: one\n"
    "profile per thread where the input has threads) or folded stacks, so\n"
    "that it reads back to the same verdicts, or refuses with the reason\n"
    "(docs/cli.md, \"convert\").\n"
    "\n";

int pd_cmd_convert(int argc, char **argv)
{
	struct pd_import_opts io;
	struct pd_profile p;
	struct pd_err err = PD_ERR_INIT;
	struct pd_out out;
	const char *output = NULL;
	enum fmt fmt = FMT_TEXT; /* unused: -f is read here */
	int c, rc, folded = 0, status = 2, plan = 0, counts = 0;
	size_t i;

	memset(&io, 0, sizeof(io));
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":f:o:h",
				pd_opts_getopt(PD_C_CONVERT), NULL)) != -1) {
		int r;

		if (c == 'f') {
			if (!strcmp(optarg, "speedscope")) {
				folded = 0;
			} else if (!strcmp(optarg, "folded") ||
				   !strcmp(optarg, "collapsed")) {
				folded = 1;
			} else {
				pd_error("error: convert writes speedscope or"
					 " folded, not '%s'",
					 optarg);
				return 2;
			}
			continue;
		}
		if (c == OPT_COUNTS) {
			counts = 1;
			continue;
		}
		r = pd_shared_option(c, argv, &io, &fmt, &output, convert_usage,
				     "convert");
		if (r >= 100)
			return r - 100;
		if (r)
			continue;
		pd_unknown_option(argv[optind - 1],
				  pd_opts_getopt(PD_C_CONVERT), "convert");
		return 2;
	}
	if (!pd_operands_ok("convert", argc - optind))
		return 2;
	/* speedscope keeps threads apart; folded stacks have no place for
	 * them without changing the functions' numbers */
	io.thread_roots = !folded;
	pd_profile_init(&p);
	if (pd_import(&p, argv[optind], &io, &err) < 0) {
		pd_error("%s", err.msg);
		goto out;
	}
	if (p.nodes.n <= 1 && p.tables.n) {
		pd_error("%s: only metric tables (%s), no stacks to convert",
			 argv[optind], p.tables.v[0]->name);
		goto out;
	}
	for (i = 0; i < p.notes.n; i++)
		pd_error("warning: %s", p.notes.v[i]);
	if (folded && (plan = pd_folded_plan_say(&p, counts)) < 0)
		goto out;
	if (pd_out_open(&out, output) == 0) {
		if (folded)
			rc = plan ? pd_report_folded_counts(out.f, &p)
				  : pd_report_folded(out.f, &p, NULL);
		else
			rc = pd_report_speedscope(out.f, &p,
						  "perfdiff " PD_VERSION);
		if (pd_out_close(&out, rc) == 0 && rc == 0)
			status = 0;
	}
out:
	pd_profile_release(&p);
	return status;
}
