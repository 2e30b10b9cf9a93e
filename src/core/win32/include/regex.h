/*
 * POSIX regular expressions for the Windows build (core/win32/posix.h):
 * extended syntax, matched by core/win32/regex.c.
 */
#ifndef PD_WIN32_REGEX_H
#define PD_WIN32_REGEX_H

#include <stddef.h>

#define REG_EXTENDED 1
#define REG_ICASE 2
#define REG_NOSUB 4
#define REG_NEWLINE 8
#define REG_NOMATCH 1
#define REG_BADPAT 2
#define REG_ESPACE 12

typedef struct {
	size_t re_nsub;
	void *prog; /* the compiled expression (core/win32/regex.c) */
} regex_t;

typedef long regoff_t;
typedef struct {
	regoff_t rm_so, rm_eo;
} regmatch_t;

int regcomp(regex_t *re, const char *pattern, int flags);
int regexec(const regex_t *re, const char *s, size_t n, regmatch_t *m,
	    int flags);
size_t regerror(int code, const regex_t *re, char *buf, size_t n);
void regfree(regex_t *re);

#endif
