/* The command table, made from the list in cmd/cmdlist.h. */
#include <stddef.h>
#include <string.h>

#include "cmd/cmd.h"

static const struct pd_cmd commands[] = {
#define PD_CMD_ROW(id, name, fn, min, max, operands, other, summary, opts)     \
	{ name, fn, min, max, operands, other, summary, PD_C_##id, opts },
	PD_COMMANDS(PD_CMD_ROW)
#undef PD_CMD_ROW
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

const struct pd_cmd *pd_cmd_find(const char *name)
{
	size_t i;

	for (i = 0; i < PD_ARRAY_SIZE(commands); i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}
