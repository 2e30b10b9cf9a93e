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

static const char convert_about[] =
    "Writes any profile perfdiff reads as speedscope JSON (the default: one\n"
    "profile per thread where the input has threads) or folded stacks, so\n"
    "that it reads back to the same verdicts, or refuses with the reason\n"
    "(docs/cli.md, \"convert\").\n";

int pd_cmd_convert(int argc, char **argv)
{
	struct pd_args a;
	struct pd_one_out o;
	int status = pd_parse("convert", convert_about, argc, argv, &a);

	if (status >= 0)
		goto out;
	status = 2;
	if (!pd_operands_ok("convert", a.nops))
		goto out;
	memset(&o, 0, sizeof(o));
	o.fmt = a.fmt;
	o.counts = a.counts;
	/* speedscope keeps threads apart; folded stacks have no place for
	 * them without changing the functions' numbers */
	a.io.thread_roots = o.fmt == PD_FMT_SPEEDSCOPE;
	o.output = a.output;
	o.notes = 1;
	o.stacks_only = 1;
	status = pd_write_one(a.ops[0], &a.io, &o);
out:
	pd_args_release(&a);
	return status;
}
