/*
 * The sides of diff, compare and check from the options (side.h): what
 * compare/side.c assembles and loads, with its errors said.
 */
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/side.h"

/* Says err's line; -1. */
static int said(const struct pd_err *err)
{
	pd_error("%s", err->msg);
	return -1;
}

int pd_run_side_add(struct pd_run_side *s, const char *arg)
{
	struct pd_err err = PD_ERR_INIT;

	return pd_compare_side_add(s, arg, &err) < 0 ? said(&err) : 0;
}

int pd_run_sides_series(const struct pd_run_side *s, const char *cache,
			const char *tool, struct pd_series_list *common,
			struct pd_buf *only)
{
	struct pd_err err = PD_ERR_INIT;

	if (pd_compare_series(s, cache, tool, common, only, &err) < 0)
		return said(&err);
	return 0;
}

int pd_run_side_stored(struct pd_run_side *s, const char *operand,
		       const char *rev, const struct pd_args *r)
{
	struct pd_err err = PD_ERR_INIT;

	if (pd_compare_stored(s, operand, rev, r->scenario, r->cache, &err) < 0)
		return said(&err);
	return 0;
}

int pd_run_sides_diff(struct pd_run_side *s, struct pd_args *r,
		      struct pd_funcs *fn, struct pd_diff *d)
{
	struct pd_compare_opts o;
	struct pd_err err = PD_ERR_INIT;
	struct pd_db db;
	int rc;

	memset(&o, 0, sizeof(o));
	o.io = &r->io;
	o.db = r->db;
	o.tool = r->tool;
	o.want_mean = r->fmt == PD_FMT_HTML;
	o.set = &r->set;
	if (pd_open_history(&db, r->db) < 0)
		return 2;
	rc = pd_compare_sides(s, &db, &o, fn, d, &err);
	pd_db_close(&db);
	if (rc < 0) {
		said(&err);
		return 2;
	}
	return -1;
}
