/* The command table: sorted by name (a unit test checks). */
#include <stddef.h>

#include "cmd/cmd.h"

static const struct pd_cmd commands[] = {
	/* sorted by name; a unit test checks */
	{ "diff", pd_cmd_diff, 2, 2, "compare two profiles (the default)" },
	{ "help", pd_cmd_help, 0, 1, "show help for perfdiff or a command" },
	{ "show", pd_cmd_show, 1, 1, "print one profile's functions" },
	{ "version", pd_cmd_version, 0, 0, "print the version" },
};

const struct pd_cmd *pd_cmd_table(size_t *n)
{
	*n = sizeof(commands) / sizeof(commands[0]);
	return commands;
}
