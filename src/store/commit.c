/* Commit ids through git, run without a shell (core/proc.h). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/proc.h"
#include "core/vec.h"
#include "core/xalloc.h"
#include "store/commit.h"

int pd_sha_is_hex(const char *s)
{
	size_t n = 0;

	for (; s[n]; n++)
		if (!isxdigit((unsigned char)s[n]))
			return 0;
	return n >= 4 && n <= 40;
}

/* git ARGS... in repo; its first line of output (owned) or NULL. */
static char *git_line(const char *repo, const char *a1, const char *a2,
		      const char *a3, const char *a4, const char *a5)
{
	char git[] = "git", c[] = "-C";
	char *argv[9] = { git, c, NULL };
	const char *rest[5] = { a1, a2, a3, a4, a5 };
	struct pd_buf out = PD_BUF_INIT;
	size_t i, k = 3;
	char *line = NULL;

	argv[2] = pd_xstrdup(repo);
	for (i = 0; i < 5 && rest[i]; i++)
		argv[k++] = pd_xstrdup(rest[i]);
	argv[k] = NULL;
	if (pd_proc_run(argv, NULL, NULL, &out, 1 << 16) == 0 && out.len) {
		size_t n = strcspn(out.buf, "\r\n");

		if (n)
			line = pd_xstrndup(out.buf, n);
	}
	for (i = 2; i < k; i++)
		free(argv[i]);
	pd_buf_release(&out);
	return line;
}

char *pd_git_toplevel(const char *dir)
{
	return git_line(dir, "rev-parse", "--show-toplevel", NULL, NULL, NULL);
}

int pd_git_resolve(const char *repo, const char *rev, char full[41],
		   char **date)
{
	struct pd_buf spec = PD_BUF_INIT;
	char *id;
	size_t i;

	*date = NULL;
	full[0] = '\0';
	/* An option-like revision is never handed to git. */
	if (!repo || !rev || !*rev || rev[0] == '-')
		return -1;
	pd_buf_addf(&spec, "%s^{commit}", rev);
	id = git_line(repo, "rev-parse", "--verify", "--quiet",
		      "--end-of-options", spec.buf);
	pd_buf_release(&spec);
	if (!id || strlen(id) != 40) {
		free(id);
		return -1;
	}
	for (i = 0; i < 40; i++)
		full[i] = (char)tolower((unsigned char)id[i]);
	full[40] = '\0';
	free(id);
	*date = git_line(repo, "log", "-1", "--format=%cI", full, "--");
	return 0;
}

/* One side of A...B resolved, or the error naming it. */
static int side_of(const char *repo, const char *rev, const char *range,
		   char full[41], struct pd_err *err)
{
	char *date = NULL;

	if (pd_git_resolve(repo, rev, full, &date) < 0)
		return pd_err_set(err, PD_EINVAL,
				  "%s: '%s' (in %s) is not a commit there",
				  repo, rev, range);
	free(date);
	return 0;
}

int pd_git_rev(const char *repo, const char *rev, char full[41],
	       struct pd_err *err)
{
	const char *dots = strstr(rev, "...");
	char a[41], b[41], *left, *base;
	int rc;

	if (!dots) {
		char *date = NULL;

		if (pd_git_resolve(repo, rev, full, &date) < 0)
			return pd_err_set(err, PD_EINVAL,
					  "%s: '%s' is not a commit there",
					  repo, rev);
		free(date);
		return 0;
	}
	left = dots > rev ? pd_xstrndup(rev, (size_t)(dots - rev))
			  : pd_xstrdup("HEAD");
	rc = side_of(repo, left, rev, a, err);
	free(left);
	if (rc == 0)
		rc = side_of(repo, dots[3] ? dots + 3 : "HEAD", rev, b, err);
	if (rc < 0)
		return rc;
	/* full ids only reach git: no option, no pathspec */
	base = git_line(repo, "merge-base", a, b, NULL, NULL);
	if (!base || strlen(base) != 40 || !pd_sha_is_hex(base)) {
		free(base);
		return pd_err_set(
		    err, PD_EINVAL,
		    "%s: '%s': the two commits have no merge base", repo, rev);
	}
	memcpy(full, base, 41);
	free(base);
	return 0;
}

int pd_git_first_parents(const char *repo, const char *full, size_t max,
			 char ***shas, size_t *n, struct pd_err *err)
{
	char git[] = "git", c[] = "-C", rl[] = "rev-list",
	     fp[] = "--first-parent", dd[] = "--";
	char *argv[9] = { git, c, NULL, rl, fp, NULL, NULL, dd, NULL };
	struct pd_buf out = PD_BUF_INIT, count = PD_BUF_INIT;
	PD_VEC(char *) v = PD_VEC_INIT;
	const char *p;
	int rc = 0;

	*shas = NULL;
	*n = 0;
	/* a full id only: never an option or a pathspec */
	if (strlen(full) != 40 || !pd_sha_is_hex(full))
		return pd_err_set(err, PD_EINVAL, "%s: '%s' is not a full id",
				  repo, full);
	pd_buf_addf(&count, "--max-count=%zu", max);
	argv[2] = pd_xstrdup(repo);
	argv[5] = count.buf;
	argv[6] = pd_xstrdup(full);
	if (pd_proc_run(argv, NULL, NULL, &out, max * 41 + 1) != 0)
		rc = pd_err_set(err, PD_EINVAL,
				"%s: git rev-list --first-parent %.12s failed",
				repo, full);
	for (p = out.buf; rc == 0 && *p;) {
		size_t len = strcspn(p, "\r\n");

		if (len == 40)
			PD_VEC_PUSH(&v, pd_xstrndup(p, len));
		p += len;
		p += strspn(p, "\r\n");
	}
	free(argv[2]);
	free(argv[6]);
	pd_buf_release(&count);
	pd_buf_release(&out);
	*shas = v.v;
	*n = v.n;
	return rc;
}
