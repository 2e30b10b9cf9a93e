/* Commit ids through git, run without a shell (core/proc.h). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/proc.h"
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
