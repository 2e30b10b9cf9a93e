/*
 * `perfdiff check` with a stored side (db:REV[:SCENARIO[:CACHE]]): stored
 * runs and files compared as per-run aggregates over one function table,
 * with the noise the history learned (compare/side.c).
 */
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/run.h"
#include "cmd/side.h"
#include "core/buf.h"
#include "core/xalloc.h"
#include "store/commit.h"

/*
 * A stored side's db:REV[:SCENARIO[:CACHE]] with REV resolved in --repo
 * when given (into spec); 0, or -1 after a message.
 */
static int stored_side(struct pd_run_side *s, const char *operand,
		       const struct pd_args *r, struct pd_buf *spec)
{
	const char *rev = operand + 3;
	struct pd_err err = PD_ERR_INIT;
	char full[41], *name;
	size_t n = strcspn(rev, ":");
	int rc;

	if (!r->repo || !n)
		return pd_run_side_stored(s, operand, rev, r);
	name = pd_xstrndup(rev, n);
	rc = pd_git_rev(r->repo, name, full, &err);
	free(name);
	if (rc < 0) {
		pd_error("error: %s", err.msg);
		return -1;
	}
	pd_buf_addf(spec, "%s%s", full, rev + n);
	return pd_run_side_stored(s, operand, spec->buf, r);
}

int pd_check_db(struct pd_args *r, char **operands)
{
	struct pd_run_side s[2];
	struct pd_funcs fn;
	struct pd_diff d;
	struct pd_buf spec = PD_BUF_INIT;
	int i, status = 2;

	memset(s, 0, sizeof(s));
	pd_funcs_init(&fn, r->flags);
	for (i = 0; i < 2; i++) {
		pd_buf_reset(&spec);
		if (strncmp(operands[i], "db:", 3)
			? pd_run_side_add(&s[i], operands[i]) < 0
			: stored_side(&s[i], operands[i], r, &spec) < 0)
			goto out;
	}
	status = pd_run_sides_diff(s, r, &fn, &d);
	if (status < 0) {
		status = pd_render(&d, r, NULL, NULL, &fn);
		pd_diff_release(&d);
	}
out:
	pd_buf_release(&spec);
	pd_run_side_release(&s[0]);
	pd_run_side_release(&s[1]);
	pd_funcs_release(&fn);
	return status;
}
