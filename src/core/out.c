/* Output files written whole or not at all (core/out.h). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/file.h"
#include "core/out.h"
#include "core/xalloc.h"

void pd_tmp_perms(int fd)
{
	/* mkstemp makes 0600; a report should get the usual permissions. */
	mode_t m = umask(0);

	umask(m);
	fchmod(fd, 0666 & ~m);
}

/*
 * The temporary file being written, removed if a signal ends us first
 * (unlink is safe in a handler); "" when none. With it go the files
 * SQLite keeps beside a database (db copy writes one under a temporary
 * name): its write-ahead log, shared memory and journal.
 */
static char pending[4][4096];

static void drop_pending(int sig)
{
	size_t i;

	for (i = 0; i < 4 && pending[0][0]; i++)
		unlink(pending[i]);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void watch(const char *tmp)
{
	static int installed;
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	static const char *const beside[] = { "", "-wal", "-shm", "-journal" };
	size_t i;

	for (i = 0; i < 4; i++)
		if (snprintf(pending[i], sizeof(pending[i]), "%s%s",
			     tmp ? tmp : "",
			     tmp ? beside[i] : "") >= (int)sizeof(pending[i]))
			pending[0][0] = '\0'; /* too long to name: not ours */
	if (tmp && !installed) {
		for (i = 0; i < sizeof(sigs) / sizeof(*sigs); i++)
			signal(sigs[i], drop_pending);
		installed = 1;
	}
}

/*
 * What -o may replace: a new name or a regular file. A device, a FIFO, a
 * folder or a symbolic link is refused (as root, -o /dev/null would have
 * replaced /dev/null; a link in a shared folder is not written through).
 * *st gets the file's mode and owner to keep; 0 or -1.
 */
static int out_target(const char *path, struct stat *st, int *exists,
		      struct pd_err *err)
{
	*exists = 0;
	if (lstat(path, st)) {
		if (errno == ENOENT)
			return 0;
		pd_err_set(err, PD_EIO, "error: %s: %s", path, strerror(errno));
		return -1;
	}
	if (S_ISLNK(st->st_mode)) {
		pd_err_set(err, PD_EINVAL,
			   "error: %s is a symbolic link: -o does not write"
			   " through links; name the file itself",
			   path);
		return -1;
	}
	if (!S_ISREG(st->st_mode)) {
		pd_err_set(err, PD_EINVAL,
			   "error: %s is %s, not a file: -o writes files (-"
			   " for standard output)",
			   path, pd_file_kind(st->st_mode));
		return -1;
	}
	*exists = 1;
	return 0;
}

int pd_out_check(const char *path, int file_only, struct pd_err *err)
{
	struct stat st;
	int exists;

	if (!strcmp(path, "-")) {
		if (!file_only)
			return 0;
		pd_err_set(err, PD_EUSAGE,
			   "error: -o -: this format is a file, not a stream;"
			   " name one (-o FILE.xlsx)");
		return -1;
	}
	return out_target(path, &st, &exists, err);
}

/* A new file's permissions, or the mode and owner of the one replaced. */
static void out_perms(int fd, const struct stat *st, int exists)
{
	if (!exists) {
		pd_tmp_perms(fd);
		return;
	}
	if (fchown(fd, st->st_uid, st->st_gid)) { /* not ours to give */
	}
	fchmod(fd, st->st_mode & 07777);
}

int pd_out_open(struct pd_out *o, const char *path, struct pd_err *err)
{
	struct stat st;
	int fd, exists;

	memset(o, 0, sizeof(*o));
	if (!path || !strcmp(path, "-")) {
		o->f = stdout;
		return 0;
	}
	if (out_target(path, &st, &exists, err))
		return -1;
	o->path = pd_xstrdup(path);
	o->tmp = pd_xmalloc(strlen(path) + 16);
	sprintf(o->tmp, "%s.tmp.XXXXXX", path);
	fd = mkstemp(o->tmp);
	if (fd < 0) {
		pd_err_set(err, PD_EIO, "error: %s: cannot create: %s", path,
			   strerror(errno));
		free(o->path);
		free(o->tmp);
		return -1;
	}
	out_perms(fd, &st, exists);
	watch(o->tmp);
	o->f = fdopen(fd, "w");
	if (!o->f) {
		pd_err_set(err, PD_EIO, "error: %s: %s", path, strerror(errno));
		close(fd);
		unlink(o->tmp);
		free(o->path);
		free(o->tmp);
		return -1;
	}
	return 0;
}

int pd_out_close(struct pd_out *o, int rc, struct pd_err *err)
{
	int ret = 0, e = errno; /* a failed write's reason, if one failed */

	if (o->f == stdout) {
		if (fflush(stdout) || ferror(stdout)) {
			pd_err_set(err, PD_EIO,
				   "error: writing standard output: %s",
				   strerror(errno));
			ret = -1;
		}
		return ret;
	}
	if (!o->f)
		return rc ? -1 : 0;
	if (rc != 0 && ferror(o->f))
		/* the one line of a full disk: the file and the reason */
		pd_err_set(err, PD_EIO, "error: %s: write failed: %s", o->path,
			   strerror(e ? e : EIO));
	if (rc == 0 && (fflush(o->f) || ferror(o->f) || fsync(fileno(o->f)))) {
		pd_err_set(err, PD_EIO, "error: %s: write failed: %s", o->path,
			   strerror(errno));
		ret = -1;
	}
	if (fclose(o->f) && !ret && rc == 0) {
		pd_err_set(err, PD_EIO, "error: %s: write failed: %s", o->path,
			   strerror(errno));
		ret = -1;
	}
	if (rc == 0 && ret == 0 && rename(o->tmp, o->path)) {
		pd_err_set(err, PD_EIO,
			   "error: %s: cannot rename into place: %s", o->path,
			   strerror(errno));
		ret = -1;
	}
	if (rc != 0 || ret != 0)
		unlink(o->tmp);
	watch(NULL);
	free(o->path);
	free(o->tmp);
	o->f = NULL;
	return rc ? -1 : ret;
}

int pd_write_by_name(const char *output,
		     int (*write)(const char *tmp, const void *arg,
				  struct pd_err *err),
		     const void *arg, struct pd_err *err)
{
	struct pd_err werr = PD_ERR_INIT;
	struct stat st;
	char *tmp;
	int fd, rc, exists;

	if (pd_out_check(output, 1, err) ||
	    out_target(output, &st, &exists, err))
		return -1;
	tmp = pd_xmalloc(strlen(output) + 16);
	sprintf(tmp, "%s.tmp.XXXXXX", output);
	fd = mkstemp(tmp);
	if (fd < 0) {
		pd_err_set(err, PD_EIO, "error: %s: cannot create: %s", output,
			   strerror(errno));
		free(tmp);
		return -1;
	}
	out_perms(fd, &st, exists);
	close(fd);
	watch(tmp);
	rc = write(tmp, arg, &werr);
	if (rc < 0 || rename(tmp, output)) {
		size_t n = strlen(tmp);

		if (rc < 0 && !strncmp(werr.msg, tmp, n))
			/* the file asked for, not its temporary name */
			pd_err_set(err, werr.code, "error: %s%s", output,
				   werr.msg + n);
		else if (rc < 0)
			pd_err_set(err, werr.code, "%s", werr.msg);
		else
			pd_err_set(err, PD_EIO,
				   "error: %s: cannot rename into place: %s",
				   output, strerror(errno));
		unlink(tmp);
		watch(NULL);
		free(tmp);
		return -1;
	}
	watch(NULL);
	free(tmp);
	return 0;
}
