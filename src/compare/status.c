/* The verdict → exit status rule of the comparison commands (status.h). */
#include <assert.h>

#include "compare/status.h"
#include "core/buf.h"
#include "core/match.h"
#include "report/report.h"

/*
 * perfdiff check's answer for git bisect run: 1 (bad) when a deciding
 * function (or, without --function, anything) regressed, 125 (skip) when
 * the evidence cannot tell, 0 (good) when it is the same or better.
 */
static int check_status(const struct pd_diff *d, const char *function,
			const regex_t *fre, int *unmatched)
{
	struct pd_buf name = PD_BUF_INIT;
	size_t i, matched = 0;
	int bad = 0, unsure = 0;

	assert(!function || fre); /* the pattern compiled with it */
	if (!function) {
		if (d->verdict == PD_REGRESSED)
			return 1;
		return d->verdict == PD_INCONCLUSIVE ? 125 : 0;
	}
	for (i = 0; i < d->funcs.n; i++) {
		const struct pd_fdiff *f = &d->funcs.v[i];

		if (!pd_match_func(fre, pd_func_name(d->fn, f->func),
				   pd_func_module(d->fn, f->func), &name))
			continue;
		matched++;
		bad |= f->self.status == PD_REGRESSED ||
		       f->total.status == PD_REGRESSED ||
		       f->self.status == PD_ADDED;
		unsure |= f->self.status == PD_INCONCLUSIVE ||
			  f->total.status == PD_INCONCLUSIVE;
	}
	pd_buf_release(&name);
	if (!matched) {
		*unmatched = 1;
		return 125;
	}
	return bad ? 1 : unsure ? 125 : 0;
}

int pd_compare_status(const struct pd_diff *d, int check, const char *function,
		      const regex_t *fre, int *unmatched)
{
	assert(d->verdict == PD_REGRESSED || d->verdict == PD_IMPROVED ||
	       d->verdict == PD_SAME || d->verdict == PD_INCONCLUSIVE);
	*unmatched = 0;
	if (check)
		return check_status(d, function, fre, unmatched);
	return d->verdict == PD_REGRESSED ? 1 : 0;
}
