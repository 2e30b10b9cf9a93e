/* `perfdiff compare`: two stored commits with all their repeat runs. */
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/run.h"
#include "cmd/side.h"
#include "core/buf.h"
#include "core/xalloc.h"
#include "store/commit.h"
#include "store/load.h"

static const char compare_about[] =
    "Compares two stored commits (sha prefixes; with --repo any revision\n"
    "git reads: HEAD~1, a branch, a tag, A...B for their merge base) with\n"
    "every repeat run on each side, using noise learned from the history.\n"
    "With --base-of REF the baseline is where CAND_REV left REF: their\n"
    "merge base, or its nearest stored first-parent ancestor.\n";

/*
 * How far back from a merge base --base-of looks for a stored commit:
 * further than any nightly series leaves a gap, short enough that a
 * scenario never stored on this branch fails at once.
 */
enum { BASE_WALK = 1000 };

static void free_shas(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/*
 * The first of shas (a first-parent walk) stored for r's scenario, cache
 * and tool: its index, its stored sha in *sha (owned); -1 when none, -2
 * after a message.
 */
static long first_stored(char **shas, size_t n, const struct pd_args *r,
			 char **sha)
{
	struct pd_db db;
	struct pd_err err = PD_ERR_INIT;
	long found = -1;
	size_t i;
	int rc = 0;

	if (pd_open_history(&db, r->db) < 0)
		return -2;
	for (i = 0; i < n && found < 0 && rc >= 0; i++) {
		const struct pd_hkey k = { shas[i], r->scenario, r->cache,
					   r->tool };

		rc = pd_store_has_runs(&db, &k, sha, &err);
		if (rc > 0)
			found = (long)i;
	}
	pd_db_close(&db);
	if (rc < 0) {
		pd_error("error: %s", err.msg);
		return -2;
	}
	return found;
}

/*
 * The baseline of --base-of: the merge base of r->base_of and cand, or
 * its nearest stored first-parent ancestor, set up as side s with why it
 * was chosen. 0, or -1 after a message.
 */
static int base_of(struct pd_run_side *s, const struct pd_args *r,
		   const char *cand)
{
	struct pd_err err = PD_ERR_INIT;
	struct pd_buf range = PD_BUF_INIT;
	char ref[41], c[41], mb[41], **shas = NULL, *sha = NULL;
	size_t n = 0;
	long at = -2;

	if (pd_git_rev(r->repo, r->base_of, ref, &err) < 0 ||
	    pd_git_rev(r->repo, cand, c, &err) < 0)
		goto out;
	pd_buf_addf(&range, "%s...%s", ref, c);
	if (pd_git_rev(r->repo, range.buf, mb, &err) < 0) {
		pd_err_set(&err, PD_EINVAL, "%s: %s and %s have no merge base",
			   r->repo, r->base_of, cand);
		goto out;
	}
	if (pd_git_first_parents(r->repo, mb, BASE_WALK, &shas, &n, &err) < 0)
		goto out;
	at = first_stored(shas, n, r, &sha);
	if (at == -1)
		pd_error("error: %s: neither merge base %.7s of %s and %s nor"
			 " any of its %zu first-parent ancestors%s has runs of"
			 " %s%s%s%s%s",
			 r->repo, mb, r->base_of, cand, n ? n - 1 : 0,
			 n == BASE_WALK ? " looked at" : "", r->scenario,
			 r->cache ? "/" : "", r->cache ? r->cache : "",
			 r->tool ? " with tool " : "", r->tool ? r->tool : "");
	if (at < 0)
		goto out;
	if (pd_run_side_stored(s, r->base_of, sha, r) < 0) {
		at = -2;
		goto out;
	}
	pd_buf_reset(&range);
	if (at == 0)
		pd_buf_addf(&range, "the merge base of %s and %s", r->base_of,
			    cand);
	else
		pd_buf_addf(&range,
			    "merge base %.7s of %s and %s has no runs; nearest"
			    " stored ancestor %.7s, %ld commit%s back",
			    mb, r->base_of, cand, shas[at], at,
			    at == 1 ? "" : "s");
	s->why = pd_xstrdup(range.buf);
out:
	if (err.msg[0] && at == -2)
		pd_error("error: %s", err.msg);
	free_shas(shas, n);
	free(sha);
	pd_buf_release(&range);
	return at >= 0 ? 0 : -1;
}

int pd_cmd_compare(int argc, char **argv)
{
	struct pd_args r;
	struct pd_run_side s[2];
	struct pd_funcs fn;
	struct pd_diff d;
	int status, i;

	memset(s, 0, sizeof(s));
	status = pd_parse("compare", compare_about, argc, argv, &r);
	if (status >= 0)
		goto out_opts;
	status = 2;
	if (r.base_of && (!r.repo || r.nops != 1)) {
		pd_error(
		    "error: compare --base-of REF wants --repo DIR and one"
		    " operand, CAND_REV (got %d); see perfdiff help compare",
		    r.nops);
		goto out_opts;
	}
	if (!r.base_of && !pd_operands_ok("compare", r.nops))
		goto out_opts;
	if (!r.scenario) {
		pd_error("error: compare wants --scenario S (perfdiff runs"
			 " lists them)");
		goto out_opts;
	}
	pd_funcs_init(&fn, r.flags);
	if (r.base_of && base_of(&s[0], &r, r.ops[0]) < 0)
		goto out;
	for (i = r.base_of ? 1 : 0; i < 2; i++) {
		const char *rev = r.ops[i - (r.base_of ? 1 : 0)];
		struct pd_err err = PD_ERR_INIT;
		char full[41];

		/* any revision git reads, else a stored sha prefix */
		if (r.repo && pd_git_rev(r.repo, rev, full, &err) < 0) {
			pd_error("error: %s", err.msg);
			goto out;
		}
		if (pd_run_side_stored(&s[i], rev, r.repo ? full : rev, &r) < 0)
			goto out;
	}
	status = pd_run_sides_diff(s, &r, &fn, &d);
	if (status < 0) {
		/* the flame graph of each side's mean run, from stored trees */
		status = pd_render(&d, &r, s[0].loaded ? s[0].l.mean : NULL,
				   s[1].loaded ? s[1].l.mean : NULL, &fn);
		pd_diff_release(&d);
	}
out:
	pd_run_side_release(&s[0]);
	pd_run_side_release(&s[1]);
	pd_funcs_release(&fn);
out_opts:
	pd_args_release(&r);
	return status;
}
