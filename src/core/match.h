/*
 * Which functions a --function pattern picks (docs/cli.md, "--function"):
 * the pattern is tried on the name alone and on "name [module]", and a
 * match of either picks the function, so '^parse$' and 'parse \[app\]'
 * both find parse in app.
 */
#ifndef PD_MATCH_H
#define PD_MATCH_H

#include <regex.h>

#include "core/buf.h"

/* 1 when re matches name, or name and its module; scratch is reused. */
int pd_match_func(const regex_t *re, const char *name, const char *module,
		  struct pd_buf *scratch);

#endif
