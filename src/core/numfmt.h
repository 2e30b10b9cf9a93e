#ifndef PD_NUMFMT_H
#define PD_NUMFMT_H

#include <stddef.h>

/* Room for any double pd_fmt_double writes, with its terminator. */
#define PD_FMT_DOUBLE_MAX 32

/*
 * d as the shortest of its correctly rounded 15-, 16- and 17-digit
 * decimals that reads back exactly, in printf's %g layout ("0.1",
 * "1e-300", "-0"); finite d only. Writes out and returns its length.
 */
size_t pd_fmt_double(char *out, double d);

/* The same by printf and strtod: slower, the reference for the tests. */
size_t pd_fmt_double_ref(char *out, double d);

#endif
