/*
 * perfdiff: find the functions that got slower between two profiles.
 * Global dispatch: a first argument naming a command runs it; anything else
 * (a file) means `diff`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	size_t row[64], prev, tmp;

	if (lb >= 64 || la >= 64)
		return 99;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = i;
		for (j = 1; j <= lb; j++) {
			size_t best = prev + (a[i - 1] != b[j - 1]);

			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			tmp = row[j];
			row[j] = best;
			prev = tmp;
		}
	}
	return row[lb];
}

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

int main(int argc, char **argv)
{
	size_t n, i;
	const struct pd_cmd *t = pd_cmd_table(&n);
	const char *name;
	struct stat st;

	if (argc < 2)
		return pd_cmd_help(1, argv) ? 2 : 2;
	name = argv[1];
	if (!strcmp(name, "--help") || !strcmp(name, "-h"))
		return pd_cmd_help(1, argv);
	if (!strcmp(name, "--version"))
		return pd_cmd_version(1, argv);
	for (i = 0; i < n; i++)
		if (!strcmp(t[i].name, name))
			return t[i].fn(argc - 1, argv + 1);
	/* Not a command: a file, an option, or a typo of a command. */
	if (name[0] != '-' && stat(name, &st) != 0 && !strchr(name, '/') &&
	    !strchr(name, '.')) {
		const char *best = NULL;
		size_t bd = 3;

		for (i = 0; i < n; i++) {
			size_t d = edit_distance(name, t[i].name);

			if (d < bd) {
				bd = d;
				best = t[i].name;
			}
		}
		if (best) {
			pd_error(
			    "error: '%s' is not a command or a file; did you"
			    " mean '%s'?",
			    name, best);
			return 2;
		}
	}
	return pd_cmd_diff(argc, argv);
}
