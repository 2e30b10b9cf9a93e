/* perfdiff db copy SRC DST: a history moved between databases. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/cmd.h"
#include "cmd/parse.h"
#include "store/copy.h"

static const char db_about[] =
    "Copies a whole history (a SQLite file or a postgresql:// URL) into an\n"
    "empty one, either backend to either; ids are kept, so answers are the\n"
    "same from both. DST is created (a file) or migrated (a server) when\n"
    "needed and written in one transaction.\n";

struct copy_job {
	struct pd_db *src;
	struct pd_copy_result *res;
	char shown[1024]; /* DST as messages name it (no password) */
};

/* Copies into the database at path (a new file's temporary name). */
static int copy_into(const char *path, const void *arg, struct pd_err *err)
{
	const struct copy_job *j = arg;
	struct pd_db dst;
	int rc;

	size_t n = strlen(path);

	rc = pd_db_open(&dst, path, PD_DB_WRITE, err);
	if (rc == 0) {
		rc = pd_store_copy(j->src, &dst, j->res, err);
		pd_db_close(&dst);
	}
	if (rc < 0 && !strncmp(err->msg, path, n)) {
		/* messages name the file asked for, not its temporary name */
		char rest[sizeof(err->msg)];
		size_t a = strlen(j->shown), b = strlen(err->msg + n);

		memcpy(rest, err->msg + n, b + 1);
		if (a + b < sizeof(err->msg)) {
			memcpy(err->msg, j->shown, a);
			memcpy(err->msg + a, rest, b + 1);
		}
	}
	return rc < 0 ? -1 : 0;
}

/*
 * A new file is made under a temporary name and renamed when the copy is
 * whole: a copy that fails or is stopped leaves no file behind, not even
 * an empty history. A history that exists (a file or a server) is
 * written in one transaction.
 */
static int copy(struct pd_db *src, const char *to, struct copy_job *j)
{
	struct pd_err err = PD_ERR_INIT;
	struct pd_db dst;
	struct stat st;

	j->src = src;
	snprintf(j->shown, sizeof(j->shown), "%s", to);
	if (!pd_db_is_server(to) && stat(to, &st) && errno == ENOENT)
		return pd_write_by_name_say(to, copy_into, j);
	if (pd_db_open(&dst, to, PD_DB_WRITE, &err) < 0) {
		pd_error("%s", err.msg);
		return -1;
	}
	snprintf(j->shown, sizeof(j->shown), "%s", dst.path);
	if (pd_store_copy(src, &dst, j->res, &err) < 0) {
		pd_error("%s", err.msg);
		pd_db_close(&dst);
		return -1;
	}
	pd_db_close(&dst);
	return 0;
}

int pd_cmd_db(int argc, char **argv)
{
	struct pd_args a;
	struct pd_db src;
	struct pd_copy_result res;
	struct copy_job j;
	char *op[3];
	int rc = pd_parse("db", db_about, argc, argv, &a);

	if (rc < 0 && !pd_operands_ok("db", a.nops))
		rc = 2;
	if (rc < 0)
		memcpy(op, a.ops, sizeof(op));
	pd_args_release(&a);
	if (rc >= 0)
		return rc;
	if (strcmp(op[0], "copy")) {
		pd_error("error: db %s: the db command is db copy SRC DST",
			 op[0]);
		return 2;
	}
	if (!strcmp(op[1], op[2])) {
		pd_error("error: db copy: SRC and DST are the same database");
		return 2;
	}
	if (pd_open_history(&src, op[1]) < 0)
		return 2;
	memset(&j, 0, sizeof(j));
	memset(&res, 0, sizeof(res));
	j.res = &res;
	if (copy(&src, op[2], &j) < 0) {
		pd_db_close(&src);
		return 2;
	}
	printf("%s -> %s: %zu bundle%s, %zu run%s, %zu function%s, %zu"
	       " function row%s",
	       src.path, j.shown, res.bundles, res.bundles == 1 ? "" : "s",
	       res.runs, res.runs == 1 ? "" : "s", res.functions,
	       res.functions == 1 ? "" : "s", res.rows,
	       res.rows == 1 ? "" : "s");
	if (res.alerts)
		printf(", %zu alert%s", res.alerts, res.alerts == 1 ? "" : "s");
	putchar('\n');
	pd_db_close(&src);
	return 0;
}
