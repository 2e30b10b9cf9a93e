/*
 * perfdiff: find the functions that got slower between two profiles.
 * Global dispatch: a first argument naming a command runs it; anything else
 * (a file) means `diff`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cJSON.h>

#include "cmd/cmd.h"
#include "core/buf.h"
#include "core/xalloc.h"
#include "store/db.h"

/*
 * A password in a postgresql:// URL among the arguments is used from a
 * copy and hidden in the argument memory itself, which is what ps and
 * /proc/PID/cmdline show (docs/history.md, "Backends"); the copies live
 * as long as the process.
 */
static void hide_passwords(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		char *copy;

		if (!strstr(argv[i], "://"))
			continue;
		copy = pd_xstrdup(argv[i]);
		if (pd_db_hide_password(argv[i]))
			argv[i] = copy;
		else
			free(copy);
	}
}

int main(int argc, char **argv)
{
	size_t n, i;
	const struct pd_cmd *t = pd_cmd_table(&n);
	const char *name;
	struct stat st;
	/*
	 * cJSON allocates through xalloc: out of memory ends with one line
	 * and exit 2 instead of a JSON report silently missing keys.
	 */
	static cJSON_Hooks hooks = { pd_xmalloc, free };

	cJSON_InitHooks(&hooks);
	hide_passwords(argc, argv);
	if (argc < 2)
		return pd_cmd_help(1, argv) ? 2 : 2;
	name = argv[1];
	if (!strcmp(name, "--help") || !strcmp(name, "-h"))
		return pd_cmd_help(1, argv);
	if (!strcmp(name, "--version") || !strcmp(name, "-V"))
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
			size_t d = pd_edit_distance(name, t[i].name);

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
