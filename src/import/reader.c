/* What the readers share (reader.h): the name filter, the formats named. */
#include <string.h>

#include "import/reader.h"

int pd_filter_match(const char *needle, const char *name, size_t len)
{
	size_t k, i;

	if (!needle)
		return 1;
	k = strlen(needle);
	if (k > len)
		return 0;
	for (i = 0; i + k <= len; i++)
		if (!memcmp(name + i, needle, k))
			return 1;
	return 0;
}

const char *pd_format_list(void)
{
	return "speedscope, firefox (samply), cpuprofile, wpa (CSV),"
	       " instruments, xctrace, perf-script, perf-stat, folded, pprof,"
	       " dhat, callgrind, cachegrind, etl";
}
