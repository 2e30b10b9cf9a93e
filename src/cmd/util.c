/* Helpers shared by the subcommands: errors, numbers, atomic output files. */
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
#include "core/xalloc.h"

void pd_error(const char *fmt, ...)
{
	va_list ap;

	fputs("perfdiff: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int pd_parse_double(const char *opt, const char *s, double lo, double hi,
		    double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end || errno || isnan(v) || v < lo || v > hi) {
		pd_error("error: %s wants a number from %g to %g, not '%s'",
			 opt, lo, hi, s);
		return -1;
	}
	*out = v;
	return 0;
}

void pd_tmp_perms(int fd)
{
	/* mkstemp makes 0600; a report should get the usual permissions. */
	mode_t m = umask(0);

	umask(m);
	fchmod(fd, 0666 & ~m);
}

int pd_out_open(struct pd_out *o, const char *path)
{
	int fd;

	memset(o, 0, sizeof(*o));
	if (!path || !strcmp(path, "-")) {
		o->f = stdout;
		return 0;
	}
	o->path = pd_xstrdup(path);
	o->tmp = pd_xmalloc(strlen(path) + 16);
	sprintf(o->tmp, "%s.tmp.XXXXXX", path);
	fd = mkstemp(o->tmp);
	if (fd < 0) {
		pd_error("error: %s: cannot create: %s", path, strerror(errno));
		free(o->path);
		free(o->tmp);
		return -1;
	}
	pd_tmp_perms(fd);
	o->f = fdopen(fd, "w");
	if (!o->f) {
		pd_error("error: %s: %s", path, strerror(errno));
		close(fd);
		unlink(o->tmp);
		free(o->path);
		free(o->tmp);
		return -1;
	}
	return 0;
}

int pd_out_close(struct pd_out *o, int rc)
{
	int ret = 0;

	if (o->f == stdout) {
		if (fflush(stdout) || ferror(stdout)) {
			pd_error("error: writing standard output: %s",
				 strerror(errno));
			ret = -1;
		}
		return ret;
	}
	if (!o->f)
		return rc ? -1 : 0;
	if (rc == 0 && (fflush(o->f) || ferror(o->f) || fsync(fileno(o->f)))) {
		pd_error("error: %s: write failed: %s", o->path,
			 strerror(errno));
		ret = -1;
	}
	if (fclose(o->f) && !ret && rc == 0) {
		pd_error("error: %s: write failed: %s", o->path,
			 strerror(errno));
		ret = -1;
	}
	if (rc == 0 && ret == 0 && rename(o->tmp, o->path)) {
		pd_error("error: %s: cannot rename into place: %s", o->path,
			 strerror(errno));
		ret = -1;
	}
	if (rc != 0 || ret != 0)
		unlink(o->tmp);
	free(o->path);
	free(o->tmp);
	o->f = NULL;
	return rc ? -1 : ret;
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

	if (access(path, F_OK) != 0) {
		pd_error("error: %s: no such database (perfdiff ingest creates"
			 " it)",
			 path);
		return -1;
	}
	if (pd_db_open(db, path, PD_DB_READ, &err) < 0) {
		pd_error("%s", err.msg);
		return -1;
	}
	return 0;
}

int pd_write_by_name(const char *output,
		     int (*write)(const char *tmp, const void *arg,
				  struct pd_err *err),
		     const void *arg)
{
	struct pd_err err = PD_ERR_INIT;
	char *tmp = pd_xmalloc(strlen(output) + 16);
	int fd, rc;

	sprintf(tmp, "%s.tmp.XXXXXX", output);
	fd = mkstemp(tmp);
	if (fd < 0) {
		pd_error("error: %s: cannot create: %s", output,
			 strerror(errno));
		free(tmp);
		return -1;
	}
	pd_tmp_perms(fd);
	close(fd);
	rc = write(tmp, arg, &err);
	if (rc < 0 || rename(tmp, output)) {
		pd_error("%s",
			 rc < 0 ? err.msg : "error: cannot rename into place");
		unlink(tmp);
		free(tmp);
		return -1;
	}
	free(tmp);
	return 0;
}
