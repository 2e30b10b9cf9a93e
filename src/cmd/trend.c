/*
 * `perfdiff trend` and `perfdiff culprit`: change points over the stored
 * commits of a scenario, and the bisect range of the latest one.
 */
#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/parse.h"
#include "core/buf.h"
#include "core/utf8.h"
#include "core/xalloc.h"
#include "import/bundle.h"
#include "report/report.h"
#include "store/commit.h"
#include "series/culprit.h"
#include "series/trend.h"
#include "stats/trend.h"
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
	a->q.key.scenario = a->scenario;
	a->q.key.cache = a->cache;
	a->q.key.tool = a->tool;
	if (a->function) {
		if (pd_parse_regex("--function", a->function, &a->fre))
			return 2;
		a->have_fre = 1;
		a->q.function = &a->fre;
	}
	return -1;
}

static void args_release(struct pd_args *a)
{
	pd_git_lines_free((char **)(uintptr_t)a->q.order, a->q.norder);
	pd_args_release(a);
}

/* Loads and analyses; 0 or 2 (message printed). */
static int load_trend(struct pd_args *a, struct pd_trend *t)
{
	struct pd_db db;
	struct pd_err err = PD_ERR_INIT;
	int rc;

	if (a->repo) {
		char **lines = NULL;
		long n = pd_git_order(a->repo, &lines, &err);

		if (n < 0) {
			pd_error("error: %s", err.msg);
			return 2;
		}
		a->q.order = lines;
		a->q.norder = (size_t)n;
	}
	if (pd_open_history(&db, a->db) < 0)
		return 2;
	rc = pd_series_trend(&db, &a->q, a->pmax, t, &err);
	pd_db_close(&db);
	if (rc) {
		pd_error("%s", err.msg);
		return 2;
	}
	return 0;
}

/*
 * trend's and culprit's start: the options, then the trend loaded and
 * analysed. -1 to go on (t and a to release), else the exit status (both
 * released).
 */
static int start(int argc, char **argv, struct pd_args *a, struct pd_trend *t,
		 const char *usage, const char *cmd)
{
	int status = parse(argc, argv, a, usage, cmd);

	if (status < 0 && load_trend(a, t))
		status = 2;
	if (status >= 0)
		args_release(a);
	return status;
}

/* --alert-after's index in the series; -1 (printed) when not found. */
static long after_index(const struct pd_args *a, const struct pd_trend *t)
{
	struct pd_err err = PD_ERR_INIT;
	long at = pd_series_commit(t, a->repo, a->alert_after, &err);

	if (at < 0)
		pd_error("%s", err.msg);
	return at;
}

/* --state FILE (pd_series_state_update): the exit status. */
static int state_update(const char *path, const struct pd_trend *t,
			int recorded)
{
	struct pd_err err = PD_ERR_INIT;
	int rc = pd_series_state_update(path, t, recorded, &err);

	if (err.msg[0])
		pd_error("%s", err.msg);
	return rc < 0 ? 2 : rc;
}

static int write_xlsx(const char *tmp, const void *t, struct pd_err *err)
{
	return pd_trend_xlsx(tmp, t, err);
}

static const char trend_about[] =
    "The series of the scenario's total, of its top-K functions and of its\n"
    "perf stat counters over the stored commits, with change points\n"
    "(E-Divisive means). Exits 1 when the window has an alert (after\n"
    "--alert-after REV if given) that is not marked expected, fixed or\n"
    "backed out; --record stores the alerts in the history and exits 1\n"
    "only for new ones (perfdiff alerts lists them); --state FILE lists\n"
    "the first bad shas already reported, one a line.\n";

int pd_cmd_trend(int argc, char **argv)
{
	struct pd_args a;
	struct pd_trend t;
	struct pd_out out;
	struct pd_err err = PD_ERR_INIT;
	long after = -1;
	size_t fresh = 0;
	int rc, status;

	status = start(argc, argv, &a, &t, trend_about, "trend");
	if (status >= 0)
		return status;
	status = 2;
	if (a.alert_after && (after = after_index(&a, &t)) < 0)
		goto out;
	/* stored first, so that the reports show the new alerts' numbers */
	if (a.record && pd_series_record_alerts(a.db, &t, &fresh, &err) < 0) {
		pd_error("%s", err.msg);
		goto out;
	}
	if (a.fmt == PD_FMT_XLSX) {
		if (pd_write_by_name_say(a.output, write_xlsx, &t) < 0)
			goto out;
	} else {
		if (pd_out_open_say(&out, a.output) != 0)
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
		if (pd_out_close_say(&out, rc) != 0 || rc)
			goto out;
	}
	status = 0;
	if (a.state)
		status = state_update(a.state, &t, a.record);
	else if (a.record)
		status = fresh > 0;
	else
		status = pd_series_alerting(&t, after);
out:
	pd_trend_release(&t);
	args_release(&a);
	return status;
}

static const char culprit_about[] =
    "Finds the latest change point of the scenario (or of the functions\n"
    "matching --function; with --alert-after, the latest after commit REV,\n"
    "which --repo resolves as git does) and prints the last good and first\n"
    "bad stored commits and the git bisect command between them. With --repo\n"
    "it also says when the two are adjacent, so no bisect is needed, and\n"
    "otherwise ranks the commits between them by what each changed.\n"
    "Improvements are passed over unless --improvements. Exits 0 when a\n"
    "change was found, 1 when none, 2 on error.\n";

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
	char likely[41] = "";

	status = start(argc, argv, &a, &t, culprit_about, "culprit");
	if (status >= 0)
		return status;
	if (a.alert_after && (after = after_index(&a, &t)) < 0) {
		status = 2;
		goto out;
	}
	al = pd_series_latest(&t, after, a.improvements, a.function != NULL);
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
	pd_fmt_alert_state(&b, &t, (size_t)(al - t.alerts.v));
	printf("change: %s\n", b.buf);
	if (pd_alert_improves(&t, (size_t)(al - t.alerts.v)))
		printf("last before: %s\nfirst improved: %s\n", safe[0],
		       safe[1]);
	else
		printf("last good: %s\nfirst bad: %s\n", safe[0], safe[1]);
	status = 0;
	/* stored shas as build_meta.json gave them: git gets hex alone */
	if (a.repo && pd_sha_is_hex(good) && pd_sha_is_hex(bad)) {
		const char *args[] = { "rev-list", "--count", NULL, NULL };
		struct pd_buf range = PD_BUF_INIT;
		char **lines = NULL;
		struct pd_buf text = PD_BUF_INIT;
		struct pd_err err = PD_ERR_INIT;
		long n;

		pd_buf_addf(&range, "%s..%s", good, bad);
		args[2] = range.buf;
		n = pd_git_lines(a.repo, args, &lines, &err);
		pd_buf_release(&range);
		if (n < 0) {
			pd_error("error: %s", err.msg);
			status = 2;
			goto out;
		}
		if (n >= 1 && !strcmp(lines[0], "1")) {
			printf("adjacent: %s is the first bad commit; no bisect"
			       " needed\n",
			       safe[1]);
			pd_git_lines_free(lines, (size_t)n);
			goto out;
		}
		if (n >= 1)
			printf("%s commits to test between them\n", lines[0]);
		pd_git_lines_free(lines, (size_t)n);
		if (pd_culprit_rank(a.repo, &t, al, good, bad, likely, &text,
				    &err) < 0 ||
		    pd_culprit_merge(a.repo, bad, &text, &err) < 0) {
			pd_error("error: %s", err.msg);
			pd_buf_release(&text);
			status = 2;
			goto out;
		}
		fputs(text.buf ? text.buf : "", stdout);
		pd_buf_release(&text);
	}
	printf("git bisect start %s %s\n", safe[1], safe[0]);
	if (*likely)
		/* the likeliest is one git bisect step: bad, with a good parent
		 */
		printf("likeliest first: git bisect bad %s && git bisect good"
		       " %s~1 (scripts/bisect-perf.sh --first %.10s)\n",
		       likely, likely, likely);
out:
	free(safe[0]);
	free(safe[1]);
	pd_buf_release(&b);
	pd_trend_release(&t);
	args_release(&a);
	return status;
}
