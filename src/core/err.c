/* Error messages: the first one recorded, formatted once. */
#include <stdarg.h>
#include <stdio.h>

#include "core/err.h"

int pd_err_set(struct pd_err *err, int code, const char *fmt, ...)
{
	va_list ap;
	char *p;

	if (!err || err->code)
		return code;
	err->code = code;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	/*
	 * Messages quote file content (keys, names, units): a control
	 * character there must not break the one-line error.
	 */
	for (p = err->msg; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	return code;
}

/* ---- limits (core/limits.h) ---- */

#include <errno.h>
#include <stdlib.h>

#include "core/limits.h"

const char *pd_limit_text(char *buf, size_t size, unsigned long long n,
			  const char *what, const char *name)
{
	snprintf(buf, size,
		 "over perfdiff's limit of %llu %s (%s in src/core/limits.h)",
		 n, what, name);
	return buf;
}

int pd_err_limit(struct pd_err *err, const char *where, unsigned long long n,
		 const char *what, const char *name)
{
	char t[256];

	return pd_err_set(err, PD_ETOOBIG, "%s: %s", where,
			  pd_limit_text(t, sizeof(t), n, what, name));
}

int pd_limit_env(const char *env, unsigned long long dflt,
		 unsigned long long *n, struct pd_err *err)
{
	const char *v = getenv(env);
	char *end;

	*n = dflt;
	if (!v || !*v)
		return 0;
	errno = 0;
	*n = strtoull(v, &end, 10);
	if (*v < '0' || *v > '9' || *end || errno || *n == 0) {
		*n = dflt;
		return pd_err_set(err, PD_EUSAGE,
				  "%s=%s: not a whole number from 1", env, v);
	}
	return 0;
}

uint64_t pd_limit_scaled(uint64_t floor, unsigned long long ratio, uint64_t n)
{
	if (n && ratio > (UINT64_MAX - floor) / n)
		return UINT64_MAX;
	return floor + ratio * n;
}

void pd_die_limit(unsigned long long n, const char *what, const char *name)
{
	char t[256];

	fprintf(stderr, "perfdiff: error: %s\n",
		pd_limit_text(t, sizeof(t), n, what, name));
	exit(2);
}
