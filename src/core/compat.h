/* Compiler attributes used across the tree; nothing here allocates. */
#ifndef PD_COMPAT_H
#define PD_COMPAT_H

#include <math.h> /* NAN, for PD_NAN */

#if defined(__GNUC__) || defined(__clang__)
#define PD_NODISCARD __attribute__((warn_unused_result))
#ifdef _WIN32
/* mingw-w64's C99 printf (__USE_MINGW_ANSI_STDIO), not Windows' own */
#define PD_PRINTF(f, a) __attribute__((format(gnu_printf, f, a)))
#else
#define PD_PRINTF(f, a) __attribute__((format(printf, f, a)))
#endif
#define PD_NORETURN __attribute__((noreturn))
#else
#define PD_NODISCARD
#define PD_PRINTF(f, a)
#define PD_NORETURN
#endif

#define PD_NAN ((double)NAN)
#define PD_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif
