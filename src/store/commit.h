/*
 * Commits as the history keys them (docs/history.md, "Bundles": Commits): every
 * revision a bundle names, short or symbolic, becomes the full id and its
 * own commit date through git when a repository is at hand; without one a
 * hex prefix is kept as given and merged into the full id later.
 */
#ifndef PD_COMMIT_H
#define PD_COMMIT_H

#include <stddef.h>

#include "core/err.h"

/* Whether s is 4 to 40 hex digits (either case). */
int pd_sha_is_hex(const char *s);
/* The top of the git work tree holding dir, or NULL (owned). */
char *pd_git_toplevel(const char *dir);
/*
 * Resolves rev (a sha, a prefix, HEAD~3, a tag) to a commit of repo:
 * full gets the 40-digit id, *date its committer date in ISO 8601 (owned,
 * NULL when git gives none). 0 when resolved, -1 when not.
 */
PD_NODISCARD int pd_git_resolve(const char *repo, const char *rev,
				char full[41], char **date);

/*
 * A revision as git rev-parse reads it in repo (a sha or a prefix of one,
 * HEAD~1, a branch, a tag), or A...B for the merge base of A and B (a side
 * left out is HEAD), into full (40 digits). 0, or PD_EINVAL with one line
 * naming the revision and the repository.
 */
PD_NODISCARD int pd_git_rev(const char *repo, const char *rev, char full[41],
			    struct pd_err *err);

/*
 * The first-parent ancestry of full (a 40-digit id) in repo as git
 * rev-list --first-parent gives it, full itself first, at most max
 * commits: *shas (owned, each string owned), their number in *n. 0, or
 * PD_EINVAL naming the commit and the repository.
 */
PD_NODISCARD int pd_git_first_parents(const char *repo, const char *full,
				      size_t max, char ***shas, size_t *n,
				      struct pd_err *err);

#endif
