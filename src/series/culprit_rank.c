/*
 * culprit --repo: the commits between the last good and the first bad
 * stored commit, ranked by what each changed (docs/cli.md, "culprit"):
 * the lines of a function the change moved, then files of its module,
 * then other source, then build and other files, then docs and tests
 * alone. And the merge that brought the first bad commit into the first-
 * parent line. Git runs through core/proc.c, its output read whole.
 */
#include <assert.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/err.h"
#include "core/limits.h"
#include "core/proc.h"
#include "core/utf8.h"
#include "core/xalloc.h"
#include "series/culprit.h"

/* What git prints for one command, at most (a large range's diffs). */
#define GIT_OUT_MAX ((size_t)256 << 20)

int pd_git_out(const char *repo, const char *const *args, struct pd_buf *out,
	       struct pd_err *err)
{
	const char *argv[24];
	int n = 0, i, rc;

	argv[n++] = "git";
	argv[n++] = "-C";
	argv[n++] = repo;
	for (i = 0; args[i] && n < 23; i++)
		argv[n++] = args[i];
	assert(!args[i]); /* every argument fits: none dropped */
	argv[n] = NULL;
	pd_buf_reset(out);
	rc = pd_proc_run((char *const *)(uintptr_t)argv, NULL, NULL, out,
			 GIT_OUT_MAX);
	if (rc != 0)
		return pd_err_set(err, PD_EIO,
				  "%s: git %s failed (is it a git repository?)",
				  repo, args[0]);
	return 0;
}

/* out's non-empty lines into *v, each its own string; their number. */
static size_t split_lines(struct pd_buf *o, char ***v)
{
	PD_VEC(char *) l = PD_VEC_INIT;
	char *line, *next;

	for (line = o->len ? o->buf : NULL; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		line[strcspn(line, "\r")] = '\0';
		if (*line)
			PD_VEC_PUSH(&l, pd_xstrdup(line));
	}
	*v = l.v;
	return l.n;
}

long pd_git_lines(const char *repo, const char *const *args, char ***out,
		  struct pd_err *err)
{
	struct pd_buf o = PD_BUF_INIT;
	long n = -1;

	*out = NULL;
	if (pd_git_out(repo, args, &o, err) == 0)
		n = (long)split_lines(&o, out);
	pd_buf_release(&o);
	return n;
}

void pd_git_lines_free(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/*
 * The commit whose ancestry orders the history: HEAD, or during a git
 * bisect the branch it started from (HEAD is then an old commit, whose
 * ancestry would leave out every stored commit after it); NULL after an
 * error.
 */
static char *order_tip(const char *repo, struct pd_err *err)
{
	static const char *const where[] = { "rev-parse", "--git-path",
					     "BISECT_START", NULL };
	struct pd_buf o = PD_BUF_INIT, path = PD_BUF_INIT;
	char **lines = NULL, *tip = NULL;
	long n = pd_git_lines(repo, where, &lines, err);
	FILE *f;

	if (n < 0)
		return NULL;
	if (n > 0) {
		if (lines[0][0] != '/')
			pd_buf_addf(&path, "%s/", repo);
		pd_buf_adds(&path, lines[0]);
	}
	pd_git_lines_free(lines, (size_t)n);
	f = path.len ? fopen(path.buf, "r") : NULL;
	if (f) {
		char ref[512];

		if (fgets(ref, sizeof(ref), f)) {
			ref[strcspn(ref, "\r\n")] = '\0';
			if (*ref && *ref != '-')
				tip = pd_xstrdup(ref);
		}
		fclose(f);
	}
	pd_buf_release(&path);
	if (tip) { /* a branch since deleted: HEAD after all */
		const char *verify[] = { "rev-parse", "--verify", "-q", tip,
					 NULL };
		struct pd_err quiet = PD_ERR_INIT;

		if (pd_git_out(repo, verify, &o, &quiet) < 0) {
			free(tip);
			tip = NULL;
		}
	}
	pd_buf_release(&o);
	return tip ? tip : pd_xstrdup("HEAD");
}

long pd_git_order(const char *repo, char ***out, struct pd_err *err)
{
	char *tip = order_tip(repo, err);
	const char *rl[] = { "rev-list", "--topo-order", "--reverse", tip,
			     NULL };
	long n = -1;

	*out = NULL;
	if (tip)
		n = pd_git_lines(repo, rl, out, err);
	free(tip);
	return n;
}

/* Evidence kinds, strongest first. */
enum {
	EV_FUNCTION,
	EV_MODULE,
	EV_SOURCE,
	EV_OTHER,
	EV_DOCS,
	EV_NONE /* an empty commit */
};

struct rank_commit {
	char sha[41];
	char *subject;
	int kind;
	struct pd_buf why; /* the evidence, as printed */
};

struct rank_commits {
	PD_VEC(struct rank_commit) v;
};

/* The regressed functions: bare names and modules ("" none). */
struct rank_funcs {
	PD_VEC(char *) name;
	PD_VEC(char *) module;
};

static int is_ident(int c)
{
	return isalnum(c) || c == '_';
}

/* Whether s (n bytes) holds name as a whole identifier. */
static int names(const char *s, size_t n, const char *name)
{
	size_t k = strlen(name), i;

	for (i = 0; k && i + k <= n; i++)
		if (!memcmp(s + i, name, k) &&
		    (i == 0 || !is_ident((unsigned char)s[i - 1])) &&
		    (i + k == n || !is_ident((unsigned char)s[i + k])))
			return 1;
	return 0;
}

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && !strcmp(s + n - k, suffix);
}

/* Documentation or a test, by its path. */
static int docs_or_test(const char *path)
{
	static const char *const dirs[] = { "doc/",   "docs/", "test/",
					    "tests/", "spec/", "examples/" };
	static const char *const ext[] = { ".md",   ".rst",  ".txt",
					   ".adoc", ".html", ".png" };
	const char *base = strrchr(path, '/'), *at;
	size_t i;

	base = base ? base + 1 : path;
	/* build files that end like prose */
	if (!strcmp(base, "CMakeLists.txt") ||
	    !strncmp(base, "requirements", 12))
		return 0;
	for (i = 0; i < PD_ARRAY_SIZE(dirs); i++) {
		/* the folder at the top, or below another */
		at = strstr(path, dirs[i]);
		if (at && (at == path || at[-1] == '/'))
			return 1;
	}
	for (i = 0; i < PD_ARRAY_SIZE(ext); i++)
		if (ends_with(path, ext[i]))
			return 1;
	return !strncmp(base, "README", 6) || !strncmp(base, "LICENSE", 7) ||
	       !strncmp(base, "CHANGELOG", 9) || !strncmp(base, "test_", 5) ||
	       strstr(base, "_test.") != NULL;
}

static int source_file(const char *path)
{
	static const char *const ext[] = {
		".c",	  ".h",	  ".cc",   ".cpp", ".cxx", ".hpp", ".hh", ".rs",
		".go",	  ".cs",  ".java", ".py",  ".js",  ".ts",  ".m",  ".mm",
		".swift", ".zig", ".kt",   ".s",   ".S",   ".asm", ".inl"
	};
	size_t i;

	for (i = 0; i < PD_ARRAY_SIZE(ext); i++)
		if (ends_with(path, ext[i]))
			return 1;
	return 0;
}

/* One hunk of a diff: its file, new lines [lo, hi], header and text. */
struct hunk {
	const char *file; /* in the diff's buffer, NUL-ended */
	long lo, hi;
	const char *head, *body; /* header after "@@ ... @@", changed lines */
	size_t head_n, body_n;
};

/* Adds "changed NAME (FILE:LO-HI)" for the functions hunk h touches. */
static int hunk_evidence(const struct hunk *h, const struct rank_funcs *f,
			 struct rank_commit *c)
{
	size_t k;
	int hit = 0;

	for (k = 0; k < f->name.n; k++) {
		if (!names(h->head, h->head_n, f->name.v[k]) &&
		    !names(h->body, h->body_n, f->name.v[k]))
			continue;
		pd_buf_adds(&c->why, c->why.len ? ", changed " : "changed ");
		pd_buf_adds(&c->why, f->name.v[k]);
		pd_buf_addf(&c->why, " (%s:%ld", h->file, h->lo);
		if (h->hi > h->lo)
			pd_buf_addf(&c->why, "-%ld", h->hi);
		pd_buf_addch(&c->why, ')');
		hit = 1;
	}
	return hit;
}

/* The file a "+++ b/path" (or "--- a/path" of a removal) line names. */
static const char *diff_path(char *line)
{
	char *p = line + 4;

	if (!strncmp(p, "b/", 2) || !strncmp(p, "a/", 2))
		p += 2;
	return p;
}

/* Classifies one commit from its diff (git show -U0), in d (modified). */
static void classify(char *d, const struct rank_funcs *f, struct rank_commit *c)
{
	struct hunk h;
	char *line = d, *next;
	const char *file = NULL;
	int any = 0, src = 0, module = 0, other = 0, func = 0;
	size_t k;

	memset(&h, 0, sizeof(h));
	for (; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (!strncmp(line, "+++ ", 4) || !strncmp(line, "--- ", 4)) {
			const char *p = diff_path(line);

			if (!strcmp(p, "/dev/null"))
				continue;
			file = p;
			any = 1;
			if (!docs_or_test(file)) {
				src |= source_file(file);
				other |= !source_file(file);
				for (k = 0; k < f->module.n; k++)
					module |= *f->module.v[k] &&
						  names(file, strlen(file),
							f->module.v[k]);
			}
			continue;
		}
		if (!strncmp(line, "@@ ", 3) && file) {
			char *plus = strchr(line, '+'), *end = line;
			long a = plus ? strtol(plus + 1, &end, 10) : 0, n = 1;

			func |= h.file && hunk_evidence(&h, f, c);
			if (plus && *end == ',')
				n = strtol(end + 1, NULL, 10);
			memset(&h, 0, sizeof(h));
			h.file = file;
			h.lo = a;
			h.hi = n > 0 ? a + n - 1 : a;
			end = strstr(line + 3, "@@");
			h.head = end ? end + 2 : "";
			h.head_n = strlen(h.head);
			h.body = next ? next : "";
			continue;
		}
		if (h.file && (*line == '+' || *line == '-'))
			h.body_n = (size_t)(line + strlen(line) - h.body);
	}
	func |= h.file && hunk_evidence(&h, f, c);
	if (func)
		c->kind = EV_FUNCTION;
	else if (module)
		c->kind = EV_MODULE;
	else if (src)
		c->kind = EV_SOURCE;
	else if (other)
		c->kind = EV_OTHER;
	else
		c->kind = any ? EV_DOCS : EV_NONE;
}

static const char *const kind_text[] = {
	"",
	"changed files of the function's module",
	"changed other source",
	"changed build or other files",
	"docs and tests only",
	"no changes"
};

static int by_kind(const void *a, const void *b)
{
	const struct rank_commit *x = a, *y = b;

	assert(x->kind >= 0 && y->kind >= 0 &&
	       (size_t)x->kind < PD_ARRAY_SIZE(kind_text) &&
	       (size_t)y->kind < PD_ARRAY_SIZE(kind_text));
	return x->kind - y->kind;
}

static void funcs_of(const struct pd_trend *t, const struct pd_alert *al,
		     struct rank_funcs *f)
{
	struct pd_buf b = PD_BUF_INIT;
	size_t k;

	for (k = 0; k < al->series.n && f->name.n < 8; k++) {
		const char *s = t->series.v[al->series.v[k]].name;
		const char *m = strrchr(s, '[');
		size_t n = strcspn(s, " (<");
		const char *c, *p = s;

		if (al->series.v[k] == 0 ||
		    t->series.v[al->series.v[k]].counter)
			continue;
		while ((c = strstr(p, "::")) && (size_t)(c - s) < n)
			p = c + 2;
		n -= (size_t)(p - s);
		if (n < 3)
			continue;
		PD_VEC_PUSH(&f->name, pd_xstrndup(p, n));
		pd_buf_reset(&b);
		if (m && strchr(m, ']'))
			pd_buf_add(&b, m + 1, (size_t)(strchr(m, ']') - m - 1));
		/* "app.exe", "libfoo.so.1": the stem names the module */
		if (b.len)
			pd_buf_setlen(&b, strcspn(b.buf, "."));
		m = b.len > 3 && !strncmp(b.buf, "lib", 3) ? b.buf + 3 : b.buf;
		PD_VEC_PUSH(&f->module, pd_xstrdup(b.len ? m : ""));
	}
	pd_buf_release(&b);
}

/* The commits of good..bad, oldest first, with their subjects. */
static int range_commits(const char *repo, const char *good, const char *bad,
			 struct rank_commits *out, struct pd_err *err)
{
	struct pd_buf range = PD_BUF_INIT, o = PD_BUF_INIT;
	const char *args[] = { "log", "--reverse", "--format=%H %s", NULL,
			       NULL };
	char *line, *next;
	int rc;

	pd_buf_addf(&range, "%s..%s", good, bad);
	args[3] = range.buf;
	rc = pd_git_out(repo, args, &o, err);
	for (line = o.buf; rc == 0 && line && *line; line = next) {
		struct rank_commit c;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (strlen(line) < 41 || line[40] != ' ')
			continue;
		memset(&c, 0, sizeof(c));
		memcpy(c.sha, line, 40);
		c.subject = pd_xstrdup(line + 41);
		PD_VEC_PUSH(&out->v, c);
	}
	pd_buf_release(&range);
	pd_buf_release(&o);
	return rc;
}

int pd_culprit_rank(const char *repo, const struct pd_trend *t,
		    const struct pd_alert *al, const char *good,
		    const char *bad, char likeliest[41], struct pd_buf *text,
		    struct pd_err *err)
{
	struct rank_commits cs;
	struct rank_funcs f;
	struct pd_buf d = PD_BUF_INIT;
	size_t i;
	int rc;

	memset(&f, 0, sizeof(f));
	memset(&cs, 0, sizeof(cs));
	likeliest[0] = '\0';
	funcs_of(t, al, &f);
	rc = range_commits(repo, good, bad, &cs, err);
	for (i = 0; rc == 0 && i < cs.v.n; i++) {
		const char *args[] = {
			"show",		 "--format=",
			"-U0",		 "--no-color",
			"--no-ext-diff", "--diff-merges=first-parent",
			cs.v.v[i].sha,	 NULL
		};

		rc = pd_git_out(repo, args, &d, err);
		if (rc == 0 && d.buf)
			classify(d.buf, &f, &cs.v.v[i]);
		else if (rc == 0)
			cs.v.v[i].kind = EV_NONE;
	}
	if (rc == 0 && cs.v.n) {
		/* stable: commits of one kind stay oldest first */
		for (i = 1; i < cs.v.n; i++) {
			size_t j = i;

			while (j > 0 &&
			       by_kind(&cs.v.v[j - 1], &cs.v.v[j]) > 0) {
				struct rank_commit x = cs.v.v[j];

				cs.v.v[j] = cs.v.v[j - 1];
				cs.v.v[j - 1] = x;
				j--;
			}
		}
		pd_buf_adds(text,
			    "ranked by what they changed, likeliest first:\n");
		for (i = 0; i < cs.v.n; i++) {
			struct pd_buf line = PD_BUF_INIT;

			pd_buf_addf(&line, "  %zu. %.10s ", i + 1,
				    cs.v.v[i].sha);
			pd_buf_add_term_line(&line, cs.v.v[i].subject);
			pd_buf_adds(&line, ": ");
			pd_buf_add_term_line(&line,
					     cs.v.v[i].kind == EV_FUNCTION
						 ? cs.v.v[i].why.buf
						 : kind_text[cs.v.v[i].kind]);
			pd_buf_addf(text, "%s\n", line.buf);
			pd_buf_release(&line);
		}
		memcpy(likeliest, cs.v.v[0].sha, 41);
	}
	for (i = 0; i < cs.v.n; i++) {
		free(cs.v.v[i].subject);
		pd_buf_release(&cs.v.v[i].why);
	}
	PD_VEC_FREE(&cs.v);
	for (i = 0; i < f.name.n; i++) {
		free(f.name.v[i]);
		free(f.module.v[i]);
	}
	PD_VEC_FREE(&f.name);
	PD_VEC_FREE(&f.module);
	pd_buf_release(&d);
	return rc;
}

int pd_culprit_merge(const char *repo, const char *bad, struct pd_buf *text,
		     struct pd_err *err)
{
	const char *chain[] = { "rev-list", "--first-parent", "HEAD", NULL };
	struct pd_buf o = PD_BUF_INIT, one = PD_BUF_INIT;
	PD_VEC(char *) fp = PD_VEC_INIT;
	char *line, *next;
	size_t lo, hi;
	int rc = pd_git_out(repo, chain, &o, err);

	for (line = o.buf; rc == 0 && line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		PD_VEC_PUSH(&fp, line); /* newest first */
	}
	/*
	 * The oldest first-parent commit that has bad as an ancestor: the
	 * line is ordered, so a binary search over "is bad its ancestor"
	 */
	lo = 0;
	hi = fp.n;
	while (rc == 0 && lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const char *args[] = { "merge-base", "--is-ancestor", bad,
				       fp.v[mid], NULL };
		const char *argv[8];
		int k, s;

		argv[0] = "git";
		argv[1] = "-C";
		argv[2] = repo;
		for (k = 0; args[k]; k++)
			argv[3 + k] = args[k];
		argv[3 + k] = NULL;
		s = pd_proc_run((char *const *)(uintptr_t)argv, NULL, NULL,
				&one, 0);
		if (s == 0)
			lo = mid + 1; /* an ancestor of this one: look older */
		else if (s == 1)
			hi = mid;
		else
			rc = -1;
		assert(lo <= hi && hi <= fp.n); /* the search narrows */
	}
	/* fp[lo - 1] is the oldest with bad in it: a merge, or bad itself */
	if (rc == 0 && lo > 0) {
		const char *args[] = { "log", "-1", "--format=%P%n%s",
				       fp.v[lo - 1], NULL };

		rc = pd_git_out(repo, args, &one, err);
		if (rc == 0 && one.len) {
			struct pd_buf l = PD_BUF_INIT;
			size_t parents = strcspn(one.buf, "\n");

			/* "%P": the parents' shas, a space between */
			if (!memchr(one.buf, ' ', parents))
				; /* bad itself, not a merge */
			else if (!strncmp(fp.v[lo - 1], bad, strlen(bad)))
				pd_buf_adds(
				    &l, "the first bad commit is a merge: ");
			else
				pd_buf_addf(&l, "merged by: %.10s ",
					    fp.v[lo - 1]);
			if (l.len) {
				line = one.buf + parents;
				if (*line)
					line++;
				line[strcspn(line, "\n")] = '\0';
				pd_buf_add_term_line(&l, line);
				pd_buf_addf(text, "%s\n", l.buf);
			}
			pd_buf_release(&l);
		}
	}
	PD_VEC_FREE(&fp);
	pd_buf_release(&o);
	pd_buf_release(&one);
	return rc;
}
