/*
 * `perfdiff help`, `perfdiff version` and `perfdiff completion`. The
 * options in help, the man page (help --man), docs/cli.md's option
 * tables (help --markdown CMD) and the completions all come from the
 * option table (cmd/options.c).
 */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/options.h"
#include "cmd/parse.h"
#include "core/buf.h"

/*
 * The arguments of a command without options (pd_parse: -h prints the
 * usage line and summary from the command table): -1 to go on, else the
 * exit status.
 */
static int parse(const char *cmd, int argc, char **argv, struct pd_args *a)
{
	const struct pd_cmd *c = pd_cmd_find(cmd);
	struct pd_buf usage = PD_BUF_INIT;
	int rc;

	pd_buf_addf(&usage, "usage: perfdiff %s%s%s\n\n%c%s.\n", cmd,
		    *c->operands ? " " : "", c->operands,
		    toupper((unsigned char)c->summary[0]), c->summary + 1);
	rc = pd_parse(cmd, usage.buf, argc, argv, a);
	pd_buf_release(&usage);
	if (rc < 0 && !pd_operands_ok(cmd, a->nops))
		rc = 2;
	return rc;
}

static int flushed(void)
{
	return fflush(stdout) || ferror(stdout) ? 2 : 0;
}

int pd_cmd_version(int argc, char **argv)
{
	struct pd_args a;
	int rc = parse("version", argc, argv, &a);

	pd_args_release(&a);
	if (rc >= 0)
		return rc;
	printf("perfdiff %s\n", PD_VERSION);
	return flushed();
}

/* perfdiff help COMMAND: the command's own -h. */
static int command_help(const char *name)
{
	static char help_opt[] = "--help";
	const struct pd_cmd *c = pd_cmd_find(name);
	char *args[] = { NULL, help_opt, NULL };

	if (!c) {
		pd_error("error: no command '%s'", name);
		return 2;
	}
	args[0] = (char *)(uintptr_t)c->name;
	return c->fn(2, args);
}

/* What help --man, --markdown CMD and --options-table write. */
static int docs(const struct pd_args *a)
{
	if (a->options_table)
		pd_opts_dump(stdout);
	else if (a->man)
		pd_opts_man(stdout);
	else if (!pd_opts_cmd(a->markdown)) {
		pd_error("error: no command '%s' with options", a->markdown);
		return 2;
	} else
		pd_opts_markdown(stdout, pd_opts_cmd(a->markdown));
	return flushed();
}

int pd_cmd_help(int argc, char **argv)
{
	size_t i, n;
	const struct pd_cmd *t = pd_cmd_table(&n);
	struct pd_args a;
	int rc = parse("help", argc, argv, &a);

	if (rc < 0 && (a.options_table || a.man || a.markdown))
		rc = docs(&a);
	else if (rc < 0 && a.nops)
		rc = command_help(a.ops[0]);
	pd_args_release(&a);
	if (rc >= 0)
		return rc;
	printf(
	    "usage: perfdiff BASELINE CANDIDATE [options]\n"
	    "       perfdiff <command> [options] [args]\n\n"
	    "Finds the functions that got slower (or faster) between two"
	    " profiles and\nsays whether the change is real or noise."
	    " Exit status: 0 no regression,\n1 regression found, 2 error.\n\n"
	    "Commands:\n");
	for (i = 0; i < n; i++)
		printf("  %-10s %s\n", t[i].name, t[i].summary);
	printf("\nRun 'perfdiff help diff' for the options of a comparison,"
	       " 'perfdiff help\nCOMMAND' for a command's, 'perfdiff help"
	       " --man' for the manual page.\n");
	return flushed();
}

int pd_cmd_completion(int argc, char **argv)
{
	struct pd_args a;
	int rc = parse("completion", argc, argv, &a);

	if (rc < 0 && pd_opts_completion(stdout, a.ops[0]) < 0) {
		pd_error("error: usage: perfdiff completion bash|zsh|fish");
		rc = 2;
	}
	pd_args_release(&a);
	return rc >= 0 ? rc : flushed();
}
