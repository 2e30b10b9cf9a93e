/*
 * `perfdiff trend` and `perfdiff culprit`: change points over the stored
 * commits of a scenario, and the bisect range of the latest one.
 */
#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/parse.h"
#include "cmd/site.h"
#include "core/buf.h"
#include "core/utf8.h"
#include "core/xalloc.h"
#include "import/bundle.h"
#include "report/report.h"
#include "store/commit.h"
#include "store/trend.h"

/*
 * The options (pd_parse), then what trend and culprit need of them: the
 * query's keys and --function's ERE. -1 to go on, else the exit status.
 */
static int parse(int argc, char **argv, struct pd_args *a, const char *usage,
		 const char *cmd)
{
	int rc = pd_parse(cmd, usage, argc, argv, a);

	if (rc >= 0)
		return rc;
	if (!pd_operands_ok(cmd, a->nops))
		return 2;
	if (!a->scenario) {
		pd_error("error: --scenario is required (perfdiff runs lists"
			 " them)");
		return 2;
	}
	a->q.scenario = a->scenario;
	a->q.cache = a->cache;
	a->q.tool = a->tool;
	if (a->function) {
		if (pd_parse_regex("--function", a->function, &a->fre))
			return 2;
		a->have_fre = 1;
		a->q.function = &a->fre;
	}
	return -1;
}

/*
 * Output lines of `git -C repo args...`, run without a shell. Returns the
 * number of lines, or -1 with a message printed.
 */
static long git_lines(const char *repo, const char *const *args, char ***out)
{
	int fd[2], status;
	pid_t pid;
	FILE *f;
	char line[512];
	PD_VEC(char *) v = PD_VEC_INIT;

	if (pipe(fd) < 0) {
		pd_error("error: pipe: %s", strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		pd_error("error: fork: %s", strerror(errno));
		close(fd[0]);
		close(fd[1]);
		return -1;
	}
	if (pid == 0) {
		const char *argv[16];
		int i, n = 0;

		argv[n++] = "git";
		argv[n++] = "-C";
		argv[n++] = repo;
		for (i = 0; args[i] && n < 15; i++)
			argv[n++] = args[i];
		argv[n] = NULL;
		dup2(fd[1], 1);
		close(fd[0]);
		close(fd[1]);
		execvp("git", (char *const *)(uintptr_t)argv);
		_exit(127);
	}
	close(fd[1]);
	f = fdopen(fd[0], "r");
	if (!f) {
		close(fd[0]);
		waitpid(pid, &status, 0);
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\r\n")] = '\0';
		if (*line)
			PD_VEC_PUSH(&v, pd_xstrdup(line));
	}
	fclose(f);
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0) {
		size_t i;

		pd_error("error: %s: git %s failed (is it a git repository?)",
			 repo, args[0]);
		for (i = 0; i < v.n; i++)
			free(v.v[i]);
		PD_VEC_FREE(&v);
		return -1;
	}
	*out = v.v;
	return (long)v.n;
}

static void free_lines(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static void args_release(struct pd_args *a)
{
	free_lines((char **)(uintptr_t)a->q.order, a->q.norder);
	pd_args_release(a);
}

/* Loads and analyses; 0 or 2 (message printed). */
static int load_trend(struct pd_args *a, struct pd_trend *t)
{
	struct pd_db db;
	struct pd_err err = PD_ERR_INIT;
	int rc;

	if (a->repo) {
		static const char *const rl[] = { "rev-list", "--topo-order",
						  "--reverse", "HEAD", NULL };
		char **lines = NULL;
		long n = git_lines(a->repo, rl, &lines);

		if (n < 0)
			return 2;
		a->q.order = lines;
		a->q.norder = (size_t)n;
	}
	if (pd_open_history(&db, a->db) < 0)
		return 2;
	rc = pd_store_trend(&db, &a->q, t, &err);
	pd_db_close(&db);
	if (rc) {
		pd_error("%s", err.msg);
		pd_trend_release(t);
		return 2;
	}
	t->pmax = a->pmax;
	pd_trend_analyse(t, PD_TREND_REPS, PD_TREND_PERSIST);
	return 0;
}

/*
 * Index of the commit whose sha starts with rev (or is a prefix of it);
 * -1 (printed, naming the revision as given) if none.
 */
static long find_commit(const struct pd_trend *t, const char *rev,
			const char *given)
{
	const struct pd_tseries *s = &t->series.v[0];
	size_t i, n = strlen(rev);
	long found = -1;

	for (i = 0; i < s->pts.n; i++)
		if (!strncmp(s->pts.v[i].sha, rev, n) ||
		    !strncmp(rev, s->pts.v[i].sha, strlen(s->pts.v[i].sha))) {
			if (found >= 0) {
				pd_error("error: %s is ambiguous in the series",
					 given);
				return -1;
			}
			found = (long)i;
		}
	if (found < 0)
		pd_error("error: %s is not among the series' commits", given);
	return found;
}

/*
 * --alert-after REV's index in the series: REV resolved by git in --repo
 * when given, else a stored sha prefix; -1 (printed) when not found.
 */
static long after_index(const struct pd_args *a, const struct pd_trend *t)
{
	struct pd_err err = PD_ERR_INIT;
	const char *rev = a->alert_after;
	char full[41];

	if (a->repo) {
		if (pd_git_rev(a->repo, rev, full, &err) < 0) {
			pd_error("error: --alert-after: %s", err.msg);
			return -1;
		}
		return find_commit(t, full, rev);
	}
	if (strspn(rev, "0123456789abcdefABCDEF") != strlen(rev)) {
		pd_error("error: --alert-after %s: not a stored sha prefix; a"
			 " name such as HEAD~1 needs --repo DIR",
			 rev);
		return -1;
	}
	return find_commit(t, rev, rev);
}

/*
 * --state: the alerts already reported, by first bad sha. Returns 1 when
 * the trend has others (and records them, atomically), 0 when not, 2 on
 * error.
 */
static int state_update(const char *path, const struct pd_trend *t)
{
	PD_VEC(char *) seen = PD_VEC_INIT;
	struct pd_out out;
	char line[512];
	FILE *f = fopen(path, "r");
	size_t i, k, fresh = 0;
	int status = 0;

	if (!f && errno != ENOENT) {
		pd_error("error: %s: %s", path, strerror(errno));
		return 2;
	}
	while (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\r\n")] = '\0';
		if (*line)
			PD_VEC_PUSH(&seen, pd_xstrdup(line));
	}
	if (f)
		fclose(f);
	for (i = 0; i < t->alerts.n; i++) {
		const char *sha = t->series.v[0].pts.v[t->alerts.v[i].at].sha;

		if (pd_alert_improves(t, i))
			continue; /* remembered and reported as regressions only
				   */
		for (k = 0; k < seen.n; k++)
			if (!strcmp(seen.v[k], sha))
				break;
		if (k == seen.n) {
			PD_VEC_PUSH(&seen, pd_xstrdup(sha));
			fresh++;
		}
	}
	if (fresh) {
		status = 1;
		if (pd_out_open(&out, path) != 0) {
			status = 2;
		} else {
			int rc = 0;

			for (k = 0; k < seen.n; k++)
				rc |= fprintf(out.f, "%s\n", seen.v[k]) < 0;
			if (pd_out_close(&out, rc ? PD_EIO : 0) != 0)
				status = 2;
		}
	}
	for (k = 0; k < seen.n; k++)
		free(seen.v[k]);
	PD_VEC_FREE(&seen);
	return status;
}

static int write_xlsx(const char *tmp, const void *t, struct pd_err *err)
{
	return pd_trend_xlsx(tmp, t, err);
}

static const char trend_usage[] =
    "usage: perfdiff trend --scenario S [--cache C] [--tool T] [--db FILE]\n"
    "                      [--last N | --since DATE] [--repo PATH]\n"
    "                      [--function REGEX] [--top K] [-f FMT] [-o FILE]\n"
    "\n"
    "The series of the scenario's total, of its top-K functions and of its\n"
    "perf stat counters over the stored commits, with change points\n"
    "(E-Divisive means). Exits 1 when the window has an alert (after\n"
    "--alert-after REV if given). --state FILE lists the first bad shas\n"
    "already reported, one a line.\n"
    "\n";

int pd_cmd_trend(int argc, char **argv)
{
	struct pd_args a;
	struct pd_trend t;
	struct pd_out out;
	long after = -1;
	int rc, status;

	status = parse(argc, argv, &a, trend_usage, "trend");
	if (status >= 0) {
		args_release(&a);
		return status;
	}
	if (load_trend(&a, &t)) {
		args_release(&a);
		return 2;
	}
	status = 2;
	if (a.alert_after && (after = after_index(&a, &t)) < 0)
		goto out;
	if (a.fmt == PD_FMT_XLSX) {
		if (pd_write_by_name(a.output, write_xlsx, &t) < 0)
			goto out;
	} else {
		if (pd_out_open(&out, a.output) != 0)
			goto out;
		t.commit_url = a.commit_url;
		if (a.fmt == PD_FMT_MD)
			rc = pd_trend_md(out.f, &t);
		else if (a.fmt == PD_FMT_JSON)
			rc = pd_trend_json(out.f, &t);
		else if (a.fmt == PD_FMT_HTML)
			rc = pd_trend_html(out.f, &t);
		else
			rc = pd_trend_text(out.f, &t, a.ro.color);
		if (rc && a.output && !ferror(out.f))
			pd_error("error: %s: write failed", a.output);
		if (pd_out_close(&out, rc) != 0 || rc)
			goto out;
	}
	status = 0;
	if (a.state)
		status = state_update(a.state, &t);
	else {
		size_t i;

		for (i = t.alerts.n; i-- > 0 && !status;)
			/* an improvement is news, not a failure */
			status = (long)t.alerts.v[i].at > after &&
				 !pd_alert_improves(&t, i);
	}
out:
	pd_trend_release(&t);
	args_release(&a);
	return status;
}

static const char culprit_usage[] =
    "usage: perfdiff culprit --scenario S [--cache C] [--tool T] [--db FILE]\n"
    "                        [--function REGEX] [--repo PATH] [--last N]\n"
    "                        [--alert-after REV]\n"
    "\n"
    "Finds the latest change point of the scenario (or of the functions\n"
    "matching --function; with --alert-after, the latest after commit REV,\n"
    "which --repo resolves as git does) and prints the last good and first\n"
    "bad stored commits and the git bisect command between them. With --repo\n"
    "it also says when the two are adjacent, so no bisect is needed.\n"
    "Improvements are passed over unless --improvements. Exits 0 when a\n"
    "change was found, 1 when none, 2 on error.\n"
    "\n";

/*
 * The latest alert after commit index after (-1: any) of a regression
 * (or, with --improvements, of any change) that involves a function
 * matching --function when given (the total does not decide then), or
 * NULL.
 */
static const struct pd_alert *latest_alert(const struct pd_args *a,
					   const struct pd_trend *t, long after)
{
	size_t i, k;

	for (i = t->alerts.n; i-- > 0;) {
		const struct pd_alert *x = &t->alerts.v[i];

		if ((long)x->at <= after)
			continue;
		if (!a->improvements && pd_alert_improves(t, i))
			continue;
		for (k = 0; k < x->series.n; k++)
			if (!a->function || x->series.v[k] != 0)
				return x;
	}
	return NULL;
}

/*
 * A function's bare name, as source code spells it: "parse_record" of
 * "parse_record [app]", "method" of "ns::Class::method(int) [lib]",
 * escaped for a basic regular expression, into b; 0 when too short to
 * search for.
 */
static int bare_name(const char *series, struct pd_buf *b)
{
	size_t n = strcspn(series, " (<");
	const char *s = series, *c;
	size_t i;

	/* the last component of a path: ns::Class::method, crate::f */
	while ((c = strstr(s, "::")) && (size_t)(c - series) < n)
		s = c + 2;
	n -= (size_t)(s - series);
	if (n < 3)
		return 0;
	pd_buf_reset(b);
	for (i = 0; i < n; i++) {
		if (strchr(".[]*^$\\", s[i]))
			pd_buf_addch(b, '\\');
		pd_buf_addch(b, s[i]);
	}
	return 1;
}

/*
 * The commits of good..bad whose changes add or remove a line naming a
 * function of the change (git log -G), listed first: the likeliest
 * culprits (docs/cli.md, "culprit"). 0, or -1 after a message.
 */
static int touching(const struct pd_args *a, const struct pd_trend *t,
		    const struct pd_alert *al, const char *good,
		    const char *bad)
{
	struct pd_buf range = PD_BUF_INIT, re = PD_BUF_INIT, arg = PD_BUF_INIT,
		      names = PD_BUF_INIT;
	PD_VEC(char *) hits = PD_VEC_INIT;
	size_t k, i, j;
	int rc = 0;

	pd_buf_addf(&range, "%s..%s", good, bad);
	for (k = 0; k < al->series.n && k < 5 && rc == 0; k++) {
		const struct pd_tseries *se = &t->series.v[al->series.v[k]];
		const char *args[] = { "log", "--format=%h %s", NULL, NULL,
				       NULL };
		char **lines = NULL;
		long n;

		if (al->series.v[k] == 0 || se->counter ||
		    !bare_name(se->name, &re))
			continue;
		if (names.len)
			pd_buf_adds(&names, ", ");
		/* names from the profiles: safe for a terminal */
		pd_buf_add_term_line(&names, se->name);
		pd_buf_reset(&arg);
		pd_buf_addf(&arg, "-G%s", re.buf);
		args[2] = arg.buf;
		args[3] = range.buf;
		n = git_lines(a->repo, args, &lines);
		if (n < 0) {
			rc = -1;
			break;
		}
		for (i = 0; i < (size_t)n; i++) {
			for (j = 0; j < hits.n && strcmp(hits.v[j], lines[i]);
			     j++)
				;
			if (j == hits.n)
				PD_VEC_PUSH(&hits, pd_xstrdup(lines[i]));
		}
		free_lines(lines, (size_t)n);
	}
	if (rc == 0 && names.len) {
		if (!hits.n)
			printf("no commit between them changes a line naming"
			       " %s\n",
			       names.buf);
		else
			printf("likeliest first: %zu commit%s between them"
			       " change%s lines naming %s:\n",
			       hits.n, hits.n == 1 ? "" : "s",
			       hits.n == 1 ? "s" : "", names.buf);
		for (i = 0; i < hits.n; i++) {
			char *safe = pd_term_dup(hits.v[i]);

			printf("  %s\n", safe);
			free(safe);
		}
	}
	for (i = 0; i < hits.n; i++)
		free(hits.v[i]);
	PD_VEC_FREE(&hits);
	pd_buf_release(&range);
	pd_buf_release(&re);
	pd_buf_release(&arg);
	pd_buf_release(&names);
	return rc;
}

int pd_cmd_culprit(int argc, char **argv)
{
	struct pd_args a;
	struct pd_trend t;
	const struct pd_alert *al = NULL;
	const char *good, *bad;
	char *safe[2] = { NULL, NULL };
	struct pd_buf b = PD_BUF_INIT;
	long after = -1;
	size_t i;
	int status;

	status = parse(argc, argv, &a, culprit_usage, "culprit");
	if (status >= 0) {
		args_release(&a);
		return status;
	}
	if (load_trend(&a, &t)) {
		args_release(&a);
		return 2;
	}
	if (a.alert_after && (after = after_index(&a, &t)) < 0) {
		status = 2;
		goto out;
	}
	al = latest_alert(&a, &t, after);
	for (i = 0; i < t.notes.n; i++)
		pd_error("note: %s", t.notes.v[i]);
	if (!al) {
		struct pd_trend_need nd;

		/* names from build_meta.json: safe for a terminal */
		pd_buf_add_term_line(&b, t.scenario);
		pd_buf_addch(&b, '/');
		pd_buf_add_term_line(&b, t.cache);
		if (after >= 0) {
			pd_buf_adds(&b, " after ");
			pd_buf_add_term_line(&b, a.alert_after);
		}
		printf("no change point in %s over %zu commits", b.buf,
		       t.ncommits);
		/* none could have been found: say what it would take */
		if (pd_trend_blind(&t, &nd))
			printf(" (too few to tell: %zu more commit%s of %zu"
			       " run%s)",
			       nd.more_commits, nd.more_commits == 1 ? "" : "s",
			       nd.runs_a_commit,
			       nd.runs_a_commit == 1 ? "" : "s");
		putchar('\n');
		status = 1;
		goto out;
	}
	good = t.series.v[0].pts.v[al->at - 1].sha;
	bad = t.series.v[0].pts.v[al->at].sha;
	/* shas as build_meta.json gave them: safe for a terminal */
	safe[0] = pd_term_dup(good);
	safe[1] = pd_term_dup(bad);
	pd_fmt_alert(&b, &t, (size_t)(al - t.alerts.v), 5);
	printf("change: %s\n", b.buf);
	printf("last good: %s\nfirst bad: %s\n", safe[0], safe[1]);
	status = 0;
	/* stored shas as build_meta.json gave them: git gets hex alone */
	if (a.repo && pd_sha_is_hex(good) && pd_sha_is_hex(bad)) {
		const char *args[] = { "rev-list", "--count", NULL, NULL };
		struct pd_buf range = PD_BUF_INIT;
		char **lines = NULL;
		long n;

		pd_buf_addf(&range, "%s..%s", good, bad);
		args[2] = range.buf;
		n = git_lines(a.repo, args, &lines);
		pd_buf_release(&range);
		if (n < 0) {
			status = 2;
			goto out;
		}
		if (n >= 1 && !strcmp(lines[0], "1")) {
			printf("adjacent: %s is the first bad commit; no bisect"
			       " needed\n",
			       safe[1]);
			free_lines(lines, (size_t)n);
			goto out;
		}
		if (n >= 1)
			printf("%s commits to test between them\n", lines[0]);
		free_lines(lines, (size_t)n);
		if (touching(&a, &t, al, good, bad) < 0) {
			status = 2;
			goto out;
		}
	}
	printf("git bisect start %s %s\n", safe[1], safe[0]);
out:
	free(safe[0]);
	free(safe[1]);
	pd_buf_release(&b);
	pd_trend_release(&t);
	args_release(&a);
	return status;
}
