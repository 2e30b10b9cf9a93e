/* --function patterns against function names (core/match.h). */
#include "core/match.h"

#include <assert.h>

int pd_match_func(const regex_t *re, const char *name, const char *module,
		  struct pd_buf *scratch)
{
	assert(re && name);
	if (regexec(re, name, 0, NULL, 0) == 0)
		return 1;
	if (!module || !*module)
		return 0;
	pd_buf_reset(scratch);
	pd_buf_addf(scratch, "%s [%s]", name, module);
	return regexec(re, scratch->buf, 0, NULL, 0) == 0;
}
