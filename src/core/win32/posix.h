/*
 * POSIX for the Windows build (docs/architecture.md, "Platforms"). The
 * build with mingw-w64 includes this before every file of src/
 * (CMakeLists.txt), so that the code keeps calling POSIX: the few calls
 * mingw-w64 lacks, or has with Windows' meaning (rename does not replace,
 * open reads text), become perfdiff's own in core/win32/compat.c. The
 * headers mingw-w64 has not (poll.h, regex.h, sys/utsname.h, ...) are in
 * core/win32/include. Never used by the POSIX builds.
 */
#ifndef PD_WIN32_POSIX_H
#define PD_WIN32_POSIX_H

#ifdef _WIN32
#include <direct.h>
#include <fcntl.h>
#include <io.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

/* Files are read and written as bytes, never as text (no CRLF, no ^Z). */
#define O_NONBLOCK 0
#define S_ISLNK(m) ((void)(m), 0)
#define S_ISSOCK(m) ((void)(m), 0)
/*
 * No SIGHUP on Windows: a handler for it is one for SIGTERM again (the
 * C runtime may treat a signal it does not know as a fatal error).
 */
#define SIGHUP SIGTERM
#define _SC_NPROCESSORS_ONLN 84

#define lstat(p, st) stat(p, st)
#define mkdir(p, mode) ((void)(mode), _mkdir(p))
#define fsync(fd) _commit(fd)
#define fchmod(fd, mode) pd_win_fchmod(fd, mode)
#define fchown(fd, uid, gid) pd_win_fchown(fd, uid, gid)
#define pipe(fds) _pipe(fds, 65536, _O_BINARY)
#define realpath(p, r) pd_win_realpath(p, r)
#define pread(fd, b, n, off) pd_win_pread(fd, b, n, off)
#define rename(from, to) pd_win_rename(from, to)
#define symlink(target, link) pd_win_symlink(target, link)
#define mkdtemp(t) pd_win_mkdtemp(t)
#define sysconf(name) pd_win_sysconf(name)
#define gethostname(b, n) pd_win_gethostname(b, n)
#define tmpfile() pd_win_tmpfile()
#define getenv(name) pd_win_getenv(name)
#define open_memstream(p, n) pd_win_open_memstream(p, n)
#define fclose(f) pd_win_fclose(f)

/* Files have no POSIX modes or owners: 0, nothing done. */
static inline int pd_win_fchmod(int fd, int mode)
{
	(void)fd;
	(void)mode;
	return 0;
}

static inline int pd_win_fchown(int fd, int uid, int gid)
{
	(void)fd;
	(void)uid;
	(void)gid;
	return 0;
}

/* realpath(): the full path of an existing file, into r (PATH_MAX). */
char *pd_win_realpath(const char *path, char *r);
/* pread(): at offset off, without moving the file's position. */
ssize_t pd_win_pread(int fd, void *buf, size_t n, int64_t off);
/* rename(): replacing the destination, as POSIX's does. */
int pd_win_rename(const char *from, const char *to);
/*
 * symlink(): a hard link, else a copy (symbolic links need privileges on
 * Windows); perfdiff only reads files through the links it makes.
 */
int pd_win_symlink(const char *target, const char *link);
/* mkdtemp(): its XXXXXX replaced and the folder made; NULL if not. */
char *pd_win_mkdtemp(char *templ);
/* sysconf(): the number of processors; -1 for anything else. */
long pd_win_sysconf(int name);
int pd_win_gethostname(char *buf, int n);
/*
 * getenv(): TMPDIR is Windows' TEMP (or TMP), HOME the user's profile
 * folder, when they are not set themselves.
 */
char *pd_win_getenv(const char *name);
/*
 * tmpfile(): in the user's temporary folder (Windows' own writes to the
 * drive's root, which users cannot), removed when closed.
 */
FILE *pd_win_tmpfile(void);
/*
 * open_memstream(): a temporary file whose bytes pd_win_fclose hands
 * over in *p (malloc'd, NUL-terminated) and *n when it is closed.
 */
FILE *pd_win_open_memstream(char **p, size_t *n);
/* fclose(), which completes an open_memstream's buffer. */
int pd_win_fclose(FILE *f);
#endif

#endif
