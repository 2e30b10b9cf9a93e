/*
 * `perfdiff help`, `perfdiff version` and `perfdiff completion`. The
 * options in help, the man page (help --man), docs/cli.md's option
 * tables (help --markdown CMD) and the completions all come from the
 * option table (cmd/options.c).
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/options.h"

/*
 * For the commands with no options: -h or --help prints the usage line
 * and summary from the command table; 1 when it did.
 */
static int short_help(const char *cmd, int argc, char **argv)
{
	size_t i, n;
	const struct pd_cmd *t = pd_cmd_table(&n);

	if (argc < 2 || (strcmp(argv[1], "-h") && strcmp(argv[1], "--help")))
		return 0;
	for (i = 0; i < n; i++)
		if (!strcmp(t[i].name, cmd))
			printf("usage: perfdiff %s%s%s\n\n%c%s.\n", cmd,
			       *t[i].operands ? " " : "", t[i].operands,
			       toupper((unsigned char)t[i].summary[0]),
			       t[i].summary + 1);
	return 1;
}

int pd_cmd_version(int argc, char **argv)
{
	if (short_help("version", argc, argv))
		return fflush(stdout) || ferror(stdout) ? 2 : 0;
	if (!pd_operands_ok("version", argc - 1))
		return 2;
	printf("perfdiff %s\n", PD_VERSION);
	return fflush(stdout) || ferror(stdout) ? 2 : 0;
}

int pd_cmd_help(int argc, char **argv)
{
	size_t i, n;
	const struct pd_cmd *t = pd_cmd_table(&n);

	/* for tests: every (command, option) pair, with its kind */
	if (argc > 1 && !strcmp(argv[1], "--options-table")) {
		pd_opts_dump(stdout);
		return fflush(stdout) || ferror(stdout) ? 2 : 0;
	}
	if (argc > 1 && !strcmp(argv[1], "--man")) {
		pd_opts_man(stdout);
		return fflush(stdout) || ferror(stdout) ? 2 : 0;
	}
	if (argc > 2 && !strcmp(argv[1], "--markdown")) {
		if (!pd_opts_cmd(argv[2])) {
			pd_error("error: no command '%s' with options",
				 argv[2]);
			return 2;
		}
		pd_opts_markdown(stdout, pd_opts_cmd(argv[2]));
		return fflush(stdout) || ferror(stdout) ? 2 : 0;
	}
	if (short_help("help", argc, argv))
		return fflush(stdout) || ferror(stdout) ? 2 : 0;
	if (!pd_operands_ok("help", argc - 1))
		return 2;
	if (argc > 1) {
		static char help_opt[] = "--help";
		char *args[] = { argv[1], help_opt, NULL };

		for (i = 0; i < n; i++)
			if (!strcmp(t[i].name, argv[1]))
				return t[i].fn(2, args);
		pd_error("error: no command '%s'", argv[1]);
		return 2;
	}
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
	return fflush(stdout) || ferror(stdout) ? 2 : 0;
}

int pd_cmd_completion(int argc, char **argv)
{
	if (short_help("completion", argc, argv))
		return fflush(stdout) || ferror(stdout) ? 2 : 0;
	if (!pd_operands_ok("completion", argc - 1))
		return 2;
	if (pd_opts_completion(stdout, argv[1]) < 0) {
		pd_error("error: usage: perfdiff completion bash|zsh|fish");
		return 2;
	}
	return fflush(stdout) || ferror(stdout) ? 2 : 0;
}
