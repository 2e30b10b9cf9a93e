/*
 * `perfdiff peek REGEX BASELINE CANDIDATE`: the callers and callees of the
 * functions a pattern matches, on both sides (report/peek.c). The sides
 * are profiles or bundle folders, compared as diff compares them, so the
 * function's own verdict is the diff's.
 */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/run.h"
#include "cmd/side.h"
#include "core/xalloc.h"

static const char peek_about[] =
    "For each function whose name or \"name [module]\" matches REGEX\n"
    "(POSIX extended): its callers (its total under each) and its\n"
    "callees (its own time and each callee's total under it), baseline\n"
    "and candidate.\n"
    "BASELINE and CANDIDATE are profiles or bundle folders. Exit status:\n"
    "0, or 2 on error or when no function matches.\n";

/* Both sides imported, compared and peeked at: the exit status. */
static int peek_sides(struct pd_args *r, const regex_t *re,
		      struct pd_run_side *s)
{
	size_t na = s[0].files.n, n = na + s[1].files.n, i;
	const char **paths = pd_xmalloc(n * sizeof(*paths));
	struct pd_import_job *jobs = pd_xcalloc(n, sizeof(*jobs));
	const struct pd_profile **all = pd_xmalloc(n * sizeof(*all));
	struct pd_profile **mut = pd_xmalloc(n * sizeof(*mut));
	int status = 2;

	for (i = 0; i < n; i++)
		paths[i] = i < na ? s[0].files.v[i] : s[1].files.v[i - na];
	if (pd_import_all(paths, n, &r->io, jobs) == 0) {
		struct pd_funcs fn;
		struct pd_diff d;
		struct pd_peek_in pk;
		struct pd_out out;
		int rc;

		for (i = 0; i < n; i++) {
			all[i] = &jobs[i].p;
			mut[i] = &jobs[i].p;
		}
		pd_align_process_roots(mut, n);
		pd_funcs_init(&fn, r->flags);
		pd_diff_profiles(&d, all, na, all + na, n - na, &fn, &r->set);
		for (i = 0; i < d.warnings.n; i++)
			pd_error("warning: %s", d.warnings.v[i]);
		pk.re = re;
		pk.pa = all;
		pk.na = na;
		pk.pb = all + na;
		pk.nb = n - na;
		pk.fn = &fn;
		if (pd_out_open_say(&out, r->output) == 0) {
			rc = pd_report_peek(out.f, &d, &pk,
					    r->fmt == PD_FMT_JSON);
			if (rc == 0)
				pd_error("error: no function matches %s",
					 r->function);
			if (pd_out_close_say(&out, rc > 0 ? 0 : -1) == 0 &&
			    rc > 0)
				status = 0;
		}
		pd_diff_release(&d);
		pd_funcs_release(&fn);
	}
	for (i = 0; i < n; i++)
		pd_profile_release(&jobs[i].p);
	free(jobs);
	free(paths);
	free(all);
	free(mut);
	return status;
}

/*
 * Bundles: the one series (cache state and tool) both sides have, or the
 * one --cache and --tool choose; 0, or -1 after a message.
 */
static int pick_series(struct pd_args *r, struct pd_run_side *s)
{
	struct pd_series_list c = PD_VEC_INIT;
	struct pd_buf only = PD_BUF_INIT, b = PD_BUF_INIT;
	size_t i;
	int rc = pd_run_sides_series(s, r->cache, r->tool, &c, &only);

	if (rc == 0 && c.n > 1) {
		for (i = 0; i < c.n; i++)
			pd_buf_addf(&b, "%s%s %s", i ? ", " : "", c.v[i].cache,
				    c.v[i].tool);
		pd_error("error: the bundles hold %zu series (%s): peek shows"
			 " one; choose it with --cache and --tool",
			 c.n, b.buf);
		rc = -1;
	} else if (rc == 0 && c.n == 1) {
		for (i = 0; i < 2; i++)
			pd_run_side_keep(&s[i], c.v[0].cache, c.v[0].tool);
	}
	PD_VEC_FREE(&c);
	pd_buf_release(&only);
	pd_buf_release(&b);
	return rc;
}

int pd_cmd_peek(int argc, char **argv)
{
	struct pd_args r;
	struct pd_run_side s[2];
	regex_t re;
	int status, i;

	memset(s, 0, sizeof(s));
	status = pd_parse("peek", peek_about, argc, argv, &r);
	if (status >= 0)
		goto out;
	status = 2;
	if (r.base.n || r.cand.n) { /* -b/-c: the pattern alone remains */
		size_t k;

		if (!r.base.n || !r.cand.n || r.nops != 1) {
			pd_error("error: peek -b BASE... -c CAND... REGEX");
			goto out;
		}
		for (k = 0; k < r.base.n; k++)
			PD_VEC_PUSH(&s[0].files, r.base.v[k]);
		for (k = 0; k < r.cand.n; k++)
			PD_VEC_PUSH(&s[1].files, r.cand.v[k]);
		i = 2;
	} else if (!pd_operands_ok("peek", r.nops)) {
		goto out;
	} else {
		for (i = 0; i < 2 && pd_run_side_add(&s[i], r.ops[1 + i]) == 0;
		     i++)
			;
	}
	if (pd_parse_regex("peek", r.ops[0], &re))
		goto out;
	r.function = r.ops[0];
	if (i == 2 && pick_series(&r, s) == 0)
		status = peek_sides(&r, &re, s);
	regfree(&re);
out:
	pd_run_side_release(&s[0]);
	pd_run_side_release(&s[1]);
	pd_args_release(&r);
	return status;
}
