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
