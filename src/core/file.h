/*
 * Reading a whole small file (build_meta.json, a symbol sidecar, a
 * compile_commands.json): regular files only, opened without blocking (a
 * FIFO in the way never hangs us), and a size cap that is an error, never
 * a silent cut.
 */
#ifndef PD_FILE_H
#define PD_FILE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/err.h"

/*
 * The bytes of path, NUL-terminated (owned). NULL with err unset when the
 * file does not exist; NULL with err set when it is not a regular file,
 * cannot be read, or holds more than max bytes (limit names the cap in
 * core/limits.h).
 */
PD_NODISCARD char *pd_read_file(const char *path, size_t max, const char *limit,
				struct pd_err *err);
/* Whether path is (or links to) a folder; a regular file. */
int pd_is_dir(const char *path);
int pd_is_file(const char *path);
/*
 * n bytes of fd at off, all of them (pread again after a short read or
 * EINTR): 0, or -1 at the end of the file or on an error.
 */
PD_NODISCARD int pd_pread_full(int fd, void *buf, size_t n, uint64_t off);
/*
 * The last separator of path (a '/'; on Windows a '\\' too), or NULL; and
 * what follows it, the file's own name (path itself without one).
 */
const char *pd_path_sep(const char *path);
const char *pd_path_base(const char *path);
/* "a FIFO", "a socket", "a folder", ...: what a file of mode m is. */
const char *pd_file_kind(mode_t m);

#endif
