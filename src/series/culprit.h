/*
 * culprit --repo's reading of the repository (docs/cli.md, "culprit"):
 * the commits of the range ranked by what they changed, and the merge
 * that brought the first bad commit in.
 */
#ifndef PD_SERIES_CULPRIT_H
#define PD_SERIES_CULPRIT_H

#include "core/buf.h"
#include "core/compat.h"
#include "core/err.h"
#include "stats/trend.h"

/*
 * Runs git -C repo args... (no shell), its output into out; 0, or an
 * error code with err set.
 */
PD_NODISCARD int pd_git_out(const char *repo, const char *const *args,
			    struct pd_buf *out, struct pd_err *err);
/*
 * The repository's commits in the order trend, culprit and site give a
 * history (docs/cli.md, --repo): `git rev-list --topo-order` of HEAD, or
 * during a git bisect of the branch it started from, oldest first, into
 * *out (each line and the array malloc'ed; pd_git_lines_free). Their
 * number, or -1 with err set.
 */
PD_NODISCARD long pd_git_order(const char *repo, char ***out,
			       struct pd_err *err);
/* git -C repo args...'s non-empty output lines, as pd_git_order gives. */
PD_NODISCARD long pd_git_lines(const char *repo, const char *const *args,
			       char ***out, struct pd_err *err);
void pd_git_lines_free(char **v, size_t n);
/*
 * The commits of good..bad ranked by their evidence for alert al of t,
 * likeliest first, each with what it changed ("changed parse
 * (app.c:40-58)", "docs and tests only"), as lines appended to text;
 * likeliest gets the first one's sha ("" for an empty range). 0, or an
 * error code with err set. Nothing is printed.
 */
PD_NODISCARD int pd_culprit_rank(const char *repo, const struct pd_trend *t,
				 const struct pd_alert *al, const char *good,
				 const char *bad, char likeliest[41],
				 struct pd_buf *text, struct pd_err *err);
/*
 * The line "merged by: SHA SUBJECT" appended to text when bad reached
 * HEAD's first-parent line through a merge; nothing when bad is on that
 * line. 0, or an error code with err set.
 */
PD_NODISCARD int pd_culprit_merge(const char *repo, const char *bad,
				  struct pd_buf *text, struct pd_err *err);

#endif
