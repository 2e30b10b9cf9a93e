/*
 * `perfdiff check` with a stored side (db:REV[:SCENARIO[:CACHE]]): stored
 * runs and files compared as per-run aggregates over one function table,
 * with the noise the history learned (cmd/side.c).
 */
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/run.h"
#include "cmd/side.h"

int pd_check_db(struct run_opts *r, char **operands)
{
	struct pd_run_side s[2];
	struct pd_funcs fn;
	struct pd_diff d;
	int i, status = 2;

	memset(s, 0, sizeof(s));
	pd_funcs_init(&fn, r->flags);
	for (i = 0; i < 2; i++)
		if (strncmp(operands[i], "db:", 3)
			? pd_run_side_add(&s[i], operands[i]) < 0
			: pd_run_side_stored(&s[i], operands[i],
					     operands[i] + 3, r) < 0)
			goto out;
	status = pd_run_sides_diff(s, r, &fn, &d);
	if (status < 0) {
		status = pd_render(&d, r, NULL, NULL, &fn);
		pd_diff_release(&d);
	}
out:
	pd_run_side_release(&s[0]);
	pd_run_side_release(&s[1]);
	pd_funcs_release(&fn);
	return status;
}
