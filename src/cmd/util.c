/* Helpers shared by the subcommands: errors said, output files opened. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "core/buf.h"
#include "core/utf8.h"
#include "core/file.h"
#include "core/xalloc.h"

char *pd_term_dup(const char *s)
{
	struct pd_buf b = PD_BUF_INIT;

	pd_buf_add_term_line(&b, s ? s : "");
	return pd_buf_detach(&b);
}

void pd_error(const char *fmt, ...)
{
	va_list ap;
	char *msg;
	struct pd_buf b = PD_BUF_INIT;

	va_start(ap, fmt);
	msg = pd_vstrf(fmt, ap);
	va_end(ap);
	/* one line, whatever names and paths it quotes (docs/cli.md) */
	pd_buf_adds(&b, "perfdiff: ");
	pd_buf_add_term_line(&b, msg);
	pd_buf_addch(&b, '\n');
	fwrite(b.buf, 1, b.len, stderr);
	pd_buf_release(&b);
	free(msg);
}

int pd_out_open_say(struct pd_out *o, const char *path)
{
	struct pd_err err = PD_ERR_INIT;

	if (pd_out_open(o, path, &err) == 0)
		return 0;
	pd_error("%s", err.msg);
	return -1;
}

int pd_out_close_say(struct pd_out *o, int rc)
{
	struct pd_err err = PD_ERR_INIT;
	int ret = pd_out_close(o, rc, &err);

	if (err.msg[0])
		pd_error("%s", err.msg);
	return ret;
}

int pd_out_check_say(const char *path, int file_only)
{
	struct pd_err err = PD_ERR_INIT;

	if (pd_out_check(path, file_only, &err) == 0)
		return 0;
	pd_error("%s", err.msg);
	return -1;
}

int pd_parse_regex(const char *opt, const char *pattern, regex_t *re)
{
	int rc = regcomp(re, pattern, REG_EXTENDED | REG_NOSUB);
	char msg[200];

	if (!rc)
		return 0;
	regerror(rc, re, msg, sizeof(msg));
	pd_error("error: %s %s: %s", opt, pattern, msg);
	return -1;
}

int pd_open_history(struct pd_db *db, const char *path)
{
	struct pd_err err = PD_ERR_INIT;

	if (pd_db_open_history(db, path, &err) == 0)
		return 0;
	pd_error("%s", err.msg);
	return -1;
}

int pd_write_by_name_say(const char *output,
			 int (*write)(const char *tmp, const void *arg,
				      struct pd_err *err),
			 const void *arg)
{
	struct pd_err err = PD_ERR_INIT;

	if (pd_write_by_name(output, write, arg, &err) == 0)
		return 0;
	pd_error("%s", err.msg);
	return -1;
}

int pd_commit_url_ok(const char *url)
{
	if ((strncmp(url, "https://", 8) && strncmp(url, "http://", 7)) ||
	    !strstr(url, "{sha}")) {
		pd_error("error: --commit-url: want an http(s) address with"
			 " {sha} in it, not '%s'",
			 url);
		return 0;
	}
	return 1;
}
