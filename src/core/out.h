/*
 * Output files written whole or not at all (docs/cli.md, "Output"): a
 * report goes to a temporary name beside its target and is renamed into
 * place only once every byte is on disk; a signal that ends the process
 * first removes the temporary file. Errors fill err ("error: FILE: ...");
 * the caller says them.
 */
#ifndef PD_CORE_OUT_H
#define PD_CORE_OUT_H

#include <stdio.h>

#include "core/compat.h"
#include "core/err.h"

struct pd_out {
	FILE *f;
	char *path, *tmp;
};

/* path, or standard output when path is NULL or "-"; 0 or -1. */
PD_NODISCARD int pd_out_open(struct pd_out *o, const char *path,
			     struct pd_err *err);
/*
 * Commits (rc == 0) or discards the file; 0, or -1 when rc was not 0 or
 * the file could not be finished. A write that failed on the stream (a
 * full disk) fills err with the file and the reason, whatever rc.
 */
PD_NODISCARD int pd_out_close(struct pd_out *o, int rc, struct pd_err *err);
/*
 * Whether -o path may be written: "-" (not for a file-only format), a new
 * name or a regular file, never a link, a device or a folder; 0 or -1.
 */
PD_NODISCARD int pd_out_check(const char *path, int file_only,
			      struct pd_err *err);
/* Gives a temporary file the permissions a new file would get (umask). */
void pd_tmp_perms(int fd);
/*
 * For writers that take a file name (libxlsxwriter): write() fills a
 * temporary file next to output, renamed into place on success; 0 or -1.
 */
PD_NODISCARD int pd_write_by_name(const char *output,
				  int (*write)(const char *tmp, const void *arg,
					       struct pd_err *err),
				  const void *arg, struct pd_err *err);

#endif
