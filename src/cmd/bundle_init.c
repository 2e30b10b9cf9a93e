/*
 * `perfdiff bundle init DIR`: its options, the commit the bundle is of
 * (resolved through git) and the messages; import/bundle_write.c writes
 * the folder (docs/history.md, "Bundles").
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/options.h"
#include "cmd/parse.h"
#include "core/buf.h"
#include "core/xalloc.h"
#include "import/bundle_write.h"
#include "store/commit.h"

static const char bundle_about[] =
    "Creates a bundle folder (and its parents) with dist/, inputs/,\n"
    "profiles/, run_args.txt and notes templates, and a build_meta.json\n"
    "filled in from git (REV, default HEAD, resolved to its full sha and its\n"
    "own commit date in --repo, default the current folder's repository),\n"
    "the compilers, the compiler flags (from compile_commands.json, else\n"
    "CFLAGS/RUSTFLAGS), the datasets' SHA-256 and this host. Put the\n"
    "profiles under DIR/profiles/, then ingest DIR.\n";

/*
 * The commit a bundle's build is of (--sha, default HEAD) as its full id,
 * and that commit's own date (*cdate, owned, may be NULL); NULL after an
 * error line.
 */
static char *bundle_commit(const struct pd_args *a, char **cdate)
{
	char full[41], *sha = NULL, *repo;
	size_t i;

	*cdate = NULL;
	repo = a->repo ? pd_xstrdup(a->repo) : pd_git_toplevel(".");
	if (repo &&
	    pd_git_resolve(repo, a->sha ? a->sha : "HEAD", full, cdate) == 0)
		sha = pd_xstrdup(full);
	else if (a->sha && !a->repo && pd_sha_is_hex(a->sha)) {
		sha = pd_xstrdup(a->sha);
		for (i = 0; sha[i]; i++)
			sha[i] = (char)tolower((unsigned char)sha[i]);
		pd_error("warning: %s is not a commit of a repository"
			 " here: stored as given, without a commit date",
			 a->sha);
	} else
		pd_error("error: %s%s: not a commit%s%s; pass --sha and --repo",
			 a->sha ? "--sha " : "", a->sha ? a->sha : "HEAD",
			 repo ? " of " : " (no git repository here)",
			 repo ? repo : "");
	free(repo);
	return sha;
}

int pd_cmd_bundle(int argc, char **argv)
{
	struct pd_args a;
	struct pd_bundle_spec spec;
	struct pd_err err = PD_ERR_INIT;
	const char *dir;
	char *sha = NULL, *cdate = NULL;
	int r, status = 2;

	r = pd_parse("bundle", bundle_about, argc, argv, &a);
	if (r >= 0) {
		pd_args_release(&a);
		return r;
	}
	if (!pd_operands_ok("bundle", a.nops)) {
		pd_args_release(&a);
		return 2;
	}
	if (strcmp(a.ops[0], "init")) {
		struct pd_buf u = PD_BUF_INIT;

		pd_opts_usage(&u, pd_cmd_find("bundle"), "error: usage: ");
		pd_error("%.*s", (int)u.len - 1, u.buf);
		pd_buf_release(&u);
		pd_args_release(&a);
		return 2;
	}
	dir = a.ops[1];
	if (!a.scenario || !a.cache) {
		pd_error("error: bundle init needs --scenario and --cache");
		pd_args_release(&a);
		return 2;
	}
	sha = bundle_commit(&a, &cdate);
	if (!sha)
		goto out;
	memset(&spec, 0, sizeof(spec));
	spec.sha = sha;
	spec.commit_date = cdate;
	spec.scenario = a.scenario;
	spec.cache = a.cache;
	spec.cflags_from = a.cflags_from;
	spec.build_cmd = a.build_cmd;
	spec.datasets = (const char *const *)a.datasets.v;
	spec.ndatasets = a.datasets.n;
	if (pd_bundle_write(dir, &spec, &err)) {
		pd_error("%s", err.msg);
		goto out;
	}
	printf("%s: bundle for %.12s (%s, %s); put profiles in %s/profiles/\n",
	       dir, sha, a.scenario, a.cache, dir);
	status = 0;
out:
	free(sha);
	free(cdate);
	pd_args_release(&a);
	return status;
}
