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
