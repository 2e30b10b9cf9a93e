/* `perfdiff help` and `perfdiff version`. */
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"

int pd_cmd_version(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	printf("perfdiff %s\n", PD_VERSION);
	return fflush(stdout) || ferror(stdout) ? 2 : 0;
}

int pd_cmd_help(int argc, char **argv)
{
	size_t i, n;
	const struct pd_cmd *t = pd_cmd_table(&n);

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
	printf("\nRun 'perfdiff help diff' for the options of a comparison.\n");
	return fflush(stdout) || ferror(stdout) ? 2 : 0;
}
