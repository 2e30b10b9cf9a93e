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
	struct pd_one_out o;
	const char *output = NULL;
	enum fmt fmt = FMT_TEXT; /* unused: -f is read here */
	int c;

	memset(&io, 0, sizeof(io));
	memset(&o, 0, sizeof(o));
	o.fmt = PD_ONE_SPEEDSCOPE;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, pd_opts_short(PD_C_CONVERT),
				pd_opts_getopt(PD_C_CONVERT), NULL)) != -1) {
		int r;

		if (c == 'f') {
			if (!strcmp(optarg, "speedscope")) {
				o.fmt = PD_ONE_SPEEDSCOPE;
			} else if (!strcmp(optarg, "folded") ||
				   !strcmp(optarg, "collapsed")) {
				o.fmt = PD_ONE_FOLDED;
			} else {
				pd_error("error: convert writes speedscope or"
					 " folded, not '%s'",
					 optarg);
				return 2;
			}
			continue;
		}
		if (c == OPT_COUNTS) {
			o.counts = 1;
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
	io.thread_roots = o.fmt == PD_ONE_SPEEDSCOPE;
	o.output = output;
	o.notes = 1;
	o.stacks_only = 1;
	return pd_write_one(argv[optind], &io, &o);
}
