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
	int rc = pd_parse(cmd, NULL, argc, argv, a);

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

/* Every command's usage lines, as docs/cli.md opens with them. */
static void synopsis(void)
{
	size_t i, n;
	const struct pd_cmd *t = pd_cmd_table(&n);
	struct pd_buf b = PD_BUF_INIT;

	/* the everyday command first */
	pd_opts_usage(&b, pd_cmd_find("diff"), "");
	for (i = 0; i < n; i++)
		if (strcmp(t[i].name, "diff"))
			pd_opts_usage(&b, &t[i], "");
	fputs(b.buf, stdout);
	pd_buf_release(&b);
}

/*
 * What help --man, --markdown CMD, --options-table and --synopsis
 * write.
 */
static int docs(const struct pd_args *a)
{
	if (a->synopsis)
		synopsis();
	else if (a->options_table)
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

	if (rc < 0 && (a.options_table || a.man || a.markdown || a.synopsis))
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
		struct pd_buf u = PD_BUF_INIT;

		pd_opts_usage(&u, pd_cmd_find("completion"), "error: usage: ");
		pd_error("%.*s", (int)u.len - 1, u.buf);
		pd_buf_release(&u);
		rc = 2;
	}
	pd_args_release(&a);
	return rc >= 0 ? rc : flushed();
}
