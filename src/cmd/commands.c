/* The command table: sorted by name (a unit test checks). */
#include <stddef.h>
#include <string.h>

#include "cmd/cmd.h"

static const struct pd_cmd commands[] = {
	/* sorted by name; a unit test checks */
	{ "alerts", pd_cmd_alerts, 0, 3, "[set ID STATE]",
	  "list the stored alerts, or set one's state" },
	{ "bundle", pd_cmd_bundle, 2, 2, "init DIR",
	  "create a bundle folder (bundle init)" },
	{ "check", pd_cmd_check, 2, 2, "BASELINE CANDIDATE",
	  "good, bad or skip for git bisect run" },
	{ "compare", pd_cmd_compare, 2, 2, "BASE_REV CAND_REV",
	  "compare two stored commits" },
	{ "completion", pd_cmd_completion, 1, 1, "bash|zsh|fish",
	  "a shell completion script (bash, zsh, fish)" },
	{ "convert", pd_cmd_convert, 1, 1, "INPUT",
	  "write a profile as speedscope JSON or folded stacks" },
	{ "culprit", pd_cmd_culprit, 0, 0, "",
	  "the commits around the latest change point" },
	{ "db", pd_cmd_db, 3, 3, "copy SRC DST",
	  "copy a history between SQLite and PostgreSQL" },
	{ "diff", pd_cmd_diff, 2, 2, "BASELINE CANDIDATE",
	  "compare two profiles (the default)" },
	{ "help", pd_cmd_help, 0, 1, "[COMMAND]",
	  "show help for perfdiff or a command" },
	{ "ingest", pd_cmd_ingest, 1, -1, "BUNDLE...",
	  "store bundles in the history" },
	{ "peek", pd_cmd_peek, 3, 3, "REGEX BASELINE CANDIDATE",
	  "callers and callees of a function, both sides" },
	{ "runs", pd_cmd_runs, 0, 0, "", "list the stored runs" },
	{ "show", pd_cmd_show, 1, 1, "PROFILE",
	  "print one profile's functions" },
	{ "site", pd_cmd_site, 1, 1, "DIR", "the history as a static site" },
	{ "trend", pd_cmd_trend, 0, 0, "",
	  "series and change points over history" },
	{ "version", pd_cmd_version, 0, 0, "", "print the version" },
};

const struct pd_cmd *pd_cmd_table(size_t *n)
{
	*n = sizeof(commands) / sizeof(commands[0]);
	return commands;
}

int pd_operands_ok(const char *cmd, int n)
{
	size_t i;

	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		const struct pd_cmd *c = &commands[i];

		if (strcmp(c->name, cmd))
			continue;
		if (n >= c->min_args && (c->max_args < 0 || n <= c->max_args))
			return 1;
		if (!*c->operands)
			pd_error("error: %s takes no operands (got %d); see"
				 " perfdiff help %s",
				 cmd, n, cmd);
		else
			pd_error("error: %s wants %s (got %d operand%s); see"
				 " perfdiff help %s",
				 cmd, c->operands, n, n == 1 ? "" : "s", cmd);
		return 0;
	}
	return 1;
}
