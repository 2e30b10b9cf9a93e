/*
 * Error codes and the error record a caller passes down. Lower layers fill
 * the record and return the negative code; only main.c and cmd/ print it.
 */
#ifndef PD_ERR_H
#define PD_ERR_H

#include "core/compat.h"

#define PD_ERRORS(X)                                                           \
	X(PD_EIO, "input/output error")                                        \
	X(PD_EPARSE, "malformed input")                                        \
	X(PD_EFORMAT, "unsupported format")                                    \
	X(PD_EEMPTY, "empty profile")                                          \
	X(PD_ETOOBIG, "input too large")                                       \
	X(PD_EUSAGE, "usage error")                                            \
	X(PD_EINVAL, "invalid argument")

enum {
	PD_OK = 0,
#define PD_ERR_ENUM(name, text) name##_,
	PD_ERRORS(PD_ERR_ENUM)
#undef PD_ERR_ENUM
	    PD_ERR_COUNT_
};

#define PD_EIO (-PD_EIO_)
#define PD_EPARSE (-PD_EPARSE_)
#define PD_EFORMAT (-PD_EFORMAT_)
#define PD_EEMPTY (-PD_EEMPTY_)
#define PD_ETOOBIG (-PD_ETOOBIG_)
#define PD_EUSAGE (-PD_EUSAGE_)
#define PD_EINVAL (-PD_EINVAL_)

struct pd_err {
	int code;
	char msg[1024];
};

#define PD_ERR_INIT                                                            \
	{                                                                      \
		0,                                                             \
		{                                                              \
			0                                                      \
		}                                                              \
	}

/* Records the first error only (later ones are consequences); returns code. */
int pd_err_set(struct pd_err *err, int code, const char *fmt, ...)
    PD_PRINTF(3, 4);

#endif
