/* perfdiff db copy SRC DST: a history moved between databases. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/options.h"
#include "store/copy.h"

static const char db_usage[] =
    "usage: perfdiff db copy SRC DST\n"
    "\n"
    "Copies a whole history (a SQLite file or a postgresql:// URL) into an\n"
    "empty one, either backend to either; ids are kept, so answers are the\n"
    "same from both. DST is created (a file) or migrated (a server) when\n"
    "needed and written in one transaction.\n"
    "\n";

int pd_cmd_db(int argc, char **argv)
{
	const struct option *opts = pd_opts_getopt(pd_opts_cmd("db"));
	struct pd_db src, dst;
	struct pd_copy_result res;
	struct pd_err err = PD_ERR_INIT;
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		if (c == 'h') {
			fputs(db_usage, stdout);
			pd_opts_help(stdout, pd_opts_cmd("db"));
			return 0;
		}
		pd_error("error: db: unknown option %s; see perfdiff help db",
			 argv[optind - 1]);
		return 2;
	}
	if (!pd_operands_ok("db", argc - optind))
		return 2;
	if (strcmp(argv[optind], "copy")) {
		pd_error("error: db %s: the db command is db copy SRC DST",
			 argv[optind]);
		return 2;
	}
	if (!strcmp(argv[optind + 1], argv[optind + 2])) {
		pd_error("error: db copy: SRC and DST are the same database");
		return 2;
	}
	if (pd_open_history(&src, argv[optind + 1]) < 0)
		return 2;
	if (pd_db_open(&dst, argv[optind + 2], PD_DB_WRITE, &err) < 0) {
		pd_error("%s", err.msg);
		pd_db_close(&src);
		return 2;
	}
	if (pd_store_copy(&src, &dst, &res, &err) < 0) {
		pd_error("%s", err.msg);
		pd_db_close(&src);
		pd_db_close(&dst);
		return 2;
	}
	printf("%s -> %s: %zu bundle%s, %zu run%s, %zu function%s, %zu"
	       " function row%s\n",
	       src.path, dst.path, res.bundles, res.bundles == 1 ? "" : "s",
	       res.runs, res.runs == 1 ? "" : "s", res.functions,
	       res.functions == 1 ? "" : "s", res.rows,
	       res.rows == 1 ? "" : "s");
	pd_db_close(&src);
	pd_db_close(&dst);
	return 0;
}
