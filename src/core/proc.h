/*
 * Running a helper program (git, a symbolizer) without a shell: argv as
 * given, so that no argument is ever parsed as shell syntax.
 */
#ifndef PD_PROC_H
#define PD_PROC_H

#include <stddef.h>

#include "core/buf.h"
#include "core/compat.h"

/*
 * Runs argv[0] (searched on PATH when it has no '/') with argv, in cwd
 * when not NULL, stdin from in_path (NULL: /dev/null), stdout appended to
 * out (at most max bytes kept; the rest is read and dropped), stderr to
 * /dev/null. Returns the exit status, or -1 when it could not run or died
 * of a signal.
 */
PD_NODISCARD int pd_proc_run(char *const argv[], const char *cwd,
			     const char *in_path, struct pd_buf *out,
			     size_t max);
/* The same with stdout written to the open file out_fd. */
PD_NODISCARD int pd_proc_run_fd(char *const argv[], const char *cwd,
				const char *in_path, int out_fd);
/* Whether path is a program this process may run. */
int pd_proc_is_program(const char *path);
/*
 * The program name on PATH (its list separator ':', on Windows ';', where
 * name.exe is tried too), or NULL; the caller frees it.
 */
char *pd_proc_find(const char *name);
/* Whether a program name is a path (has a directory separator). */
int pd_proc_has_dir(const char *name);

#endif
