/* The command table: sorted by name (a unit test checks). */
#include <stddef.h>

#include "cmd/cmd.h"

static const struct pd_cmd commands[] = {
	/* sorted by name; a unit test checks */
	{ "bundle", pd_cmd_bundle, 2, 2,
	  "create a bundle folder (bundle init)" },
	{ "check", pd_cmd_check, 2, 2, "good, bad or skip for git bisect run" },
	{ "compare", pd_cmd_compare, 2, 2, "compare two stored commits" },
	{ "completion", pd_cmd_completion, 1, 1,
	  "a shell completion script (bash, zsh, fish)" },
	{ "convert", pd_cmd_convert, 1, 1,
	  "write a profile as speedscope JSON or folded stacks" },
	{ "culprit", pd_cmd_culprit, 0, 0,
	  "the commits around the latest change point" },
	{ "diff", pd_cmd_diff, 2, 2, "compare two profiles (the default)" },
	{ "help", pd_cmd_help, 0, 1, "show help for perfdiff or a command" },
	{ "ingest", pd_cmd_ingest, 1, -1, "store bundles in the history" },
	{ "runs", pd_cmd_runs, 0, 0, "list the stored runs" },
	{ "show", pd_cmd_show, 1, 1, "print one profile's functions" },
	{ "trend", pd_cmd_trend, 0, 0,
	  "series and change points over history" },
	{ "version", pd_cmd_version, 0, 0, "print the version" },
};

const struct pd_cmd *pd_cmd_table(size_t *n)
{
	*n = sizeof(commands) / sizeof(commands[0]);
	return commands;
}
