/* `perfdiff compare`: two stored commits with all their repeat runs. */
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/run.h"
#include "cmd/side.h"
#include "store/commit.h"
#include "store/load.h"

static const char compare_usage[] =
    "usage: perfdiff compare BASE_REV CAND_REV --scenario S [--cache C]\n"
    "                        [--tool T] [--db FILE] [--repo DIR] [options]\n"
    "\n"
    "Compares two stored commits (sha prefixes; with --repo any revision\n"
    "git reads: HEAD~1, a branch, a tag, A...B for their merge base) with\n"
    "every repeat run on each side, using noise learned from the history.\n"
    "\n";

int pd_cmd_compare(int argc, char **argv)
{
	struct run_opts r;
	struct pd_run_side s[2];
	struct pd_funcs fn;
	struct pd_diff d;
	int status, i;

	memset(s, 0, sizeof(s));
	status = pd_parse_run(argc, argv, &r, compare_usage, "compare");
	if (status >= 0)
		goto out_opts;
	status = 2;
	if (!pd_operands_ok("compare", argc - optind))
		goto out_opts;
	if (!r.scenario) {
		pd_error("error: compare wants --scenario S (perfdiff runs"
			 " lists them)");
		goto out_opts;
	}
	pd_funcs_init(&fn, r.flags);
	for (i = 0; i < 2; i++) {
		const char *rev = argv[optind + i];
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
	PD_VEC_FREE(&r.base);
	PD_VEC_FREE(&r.cand);
	return status;
}
