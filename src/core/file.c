/* Whole small files (core/file.h). */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/limits.h"
#include "core/buf.h"
#include "core/file.h"

int pd_is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int pd_is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

const char *pd_file_kind(mode_t m)
{
	return S_ISFIFO(m)   ? "a FIFO"
	       : S_ISSOCK(m) ? "a socket"
	       : S_ISCHR(m)  ? "a character device"
	       : S_ISBLK(m)  ? "a block device"
	       : S_ISDIR(m)  ? "a folder"
	       : S_ISREG(m)  ? "a file"
			     : "not a regular file";
}

char *pd_read_file(const char *path, size_t max, const char *limit,
		   struct pd_err *err)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK);
	struct pd_buf b = PD_BUF_INIT;
	struct stat st;
	char chunk[65536];
	ssize_t n;

	if (fd < 0) {
		if (errno != ENOENT)
			pd_err_set(err, PD_EIO, "%s: %s", path,
				   strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st)) {
		pd_err_set(err, PD_EIO, "%s: %s", path, strerror(errno));
		close(fd);
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		pd_err_set(err, PD_EFORMAT, "%s: %s, not a file; refused", path,
			   pd_file_kind(st.st_mode));
		close(fd);
		return NULL;
	}
	while ((n = read(fd, chunk, sizeof(chunk))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			pd_err_set(err, PD_EIO, "%s: %s", path,
				   strerror(errno));
			break;
		}
		pd_buf_add(&b, chunk, (size_t)n);
		if (b.len > max) {
			pd_err_limit(err, path, max, "bytes", limit);
			break;
		}
	}
	close(fd);
	if (err->code) {
		pd_buf_release(&b);
		return NULL;
	}
	return pd_buf_detach(&b);
}

int pd_pread_full(int fd, void *buf, size_t n, uint64_t off)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r =
		    pread(fd, (char *)buf + got, n - got, (off_t)(off + got));

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		got += (size_t)r;
	}
	return 0;
}

const char *pd_path_sep(const char *path)
{
	const char *s = strrchr(path, '/');
#ifdef _WIN32
	const char *b = strrchr(path, '\\');

	if (b && (!s || b > s))
		s = b;
#endif
	return s;
}

const char *pd_path_base(const char *path)
{
	const char *s = pd_path_sep(path);

	return s ? s + 1 : path;
}
