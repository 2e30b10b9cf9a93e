/*
 * perf.data read directly (docs/formats.md, "perf.data read directly").
 */
#ifndef PD_PERFDATA_H
#define PD_PERFDATA_H

#include "core/buf.h"
#include "core/err.h"
#include "import/formats.h"
#include "model/profile.h"

/* pd_perfdata_import's answer for what perf script must read instead. */
#define PDD_USE_PERF 1000

/*
 * Reads a perf.data file into p from fd, an open descriptor of a regular
 * file that it closes (path names it in messages): 0, an error code with err
 * set, or PDD_USE_PERF with why saying what only perf itself reads (DWARF call
 * graphs, LBR call stacks, compressed or piped recordings).
 */
PD_NODISCARD int pd_perfdata_import(struct pd_profile *p, const char *path,
				    int fd, const struct pd_import_opts *o,
				    struct pd_err *err, struct pd_buf *why);

#endif
