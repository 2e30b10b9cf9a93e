/*
 * A stored series read for trend, culprit and site (series/trend.h):
 * loading and analysing, alert states, the commit an option names and
 * the alert a command answers for.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/out.h"
#include "core/vec.h"
#include "core/xalloc.h"
#include "report/report.h"
#include "series/trend.h"
#include "store/alerts.h"
#include "store/commit.h"

int pd_series_trend(struct pd_db *db, const struct pd_trend_query *q,
		    double pmax, struct pd_trend *t, struct pd_err *err)
{
	int rc = pd_store_trend(db, q, t, err);

	if (rc) {
		pd_trend_release(t);
		return rc;
	}
	t->pmax = pmax;
	pd_trend_analyse(t, PD_TREND_REPS, PD_TREND_PERSIST);
	rc = pd_series_mark_alerts(db, t, err);
	if (rc)
		pd_trend_release(t);
	return rc;
}

int pd_series_mark_alerts(struct pd_db *db, struct pd_trend *t,
			  struct pd_err *err)
{
	size_t i, w = 0, hidden = 0;
	int rc = pd_alerts_mark(db, t, err);

	if (rc < 0)
		return rc;
	for (i = 0; i < t->alerts.n; i++) {
		struct pd_alert *al = &t->alerts.v[i];

		if (al->state == PD_ALERT_INVALID) {
			PD_VEC_FREE(&al->series);
			PD_VEC_FREE(&al->moved);
			PD_VEC_FREE(&al->delta);
			hidden++;
			continue;
		}
		t->alerts.v[w++] = *al;
	}
	t->alerts.n = w;
	if (hidden) {
		struct pd_buf b = PD_BUF_INIT;

		pd_buf_addf(&b,
			    "%zu change point%s marked invalid %s not shown"
			    " (perfdiff alerts --state invalid lists %s)",
			    hidden, hidden == 1 ? "" : "s",
			    hidden == 1 ? "is" : "are",
			    hidden == 1 ? "it" : "them");
		PD_VEC_PUSH(&t->notes, pd_buf_detach(&b));
	}
	return 0;
}

int pd_series_record_alerts(const char *path, struct pd_trend *t, size_t *fresh,
			    struct pd_err *err)
{
	struct pd_db db;
	char **what = pd_xcalloc(t->alerts.n + 1, sizeof(*what));
	size_t i;
	int rc;

	for (i = 0; i < t->alerts.n; i++) {
		struct pd_buf b = PD_BUF_INIT;

		pd_fmt_alert(&b, t, i, 5);
		what[i] = pd_buf_detach(&b);
	}
	rc = pd_db_open(&db, path, PD_DB_WRITE, err);
	if (rc == 0) {
		rc = pd_alerts_record(&db, t, what, fresh, err);
		pd_db_close(&db);
	}
	for (i = 0; i < t->alerts.n; i++)
		free(what[i]);
	free(what);
	return rc < 0 ? rc : 0;
}

/*
 * Index of the commit whose sha starts with rev (or is a prefix of it);
 * -1 with err naming the revision as given when none or several.
 */
static long find_commit(const struct pd_trend *t, const char *rev,
			const char *given, struct pd_err *err)
{
	const struct pd_tseries *s = &t->series.v[0];
	size_t i, n = strlen(rev);
	long found = -1;

	for (i = 0; i < s->pts.n; i++)
		if (!strncmp(s->pts.v[i].sha, rev, n) ||
		    !strncmp(rev, s->pts.v[i].sha, strlen(s->pts.v[i].sha))) {
			if (found >= 0) {
				pd_err_set(err, PD_EINVAL,
					   "error: %s is ambiguous in the"
					   " series",
					   given);
				return -1;
			}
			found = (long)i;
		}
	if (found < 0)
		pd_err_set(err, PD_EINVAL,
			   "error: %s is not among the series' commits", given);
	return found;
}

long pd_series_commit(const struct pd_trend *t, const char *repo,
		      const char *rev, struct pd_err *err)
{
	struct pd_err gerr = PD_ERR_INIT;
	char full[41];

	if (repo) {
		if (pd_git_rev(repo, rev, full, &gerr) < 0) {
			pd_err_set(err, gerr.code, "error: --alert-after: %s",
				   gerr.msg);
			return -1;
		}
		return find_commit(t, full, rev, err);
	}
	if (strspn(rev, "0123456789abcdefABCDEF") != strlen(rev)) {
		pd_err_set(err, PD_EINVAL,
			   "error: --alert-after %s: not a stored sha prefix;"
			   " a name such as HEAD~1 needs --repo DIR",
			   rev);
		return -1;
	}
	return find_commit(t, rev, rev, err);
}

int pd_series_alerting(const struct pd_trend *t, long after)
{
	size_t i;

	for (i = t->alerts.n; i-- > 0;)
		if ((long)t->alerts.v[i].at > after &&
		    !pd_alert_improves(t, i) &&
		    pd_alert_state_open(t->alerts.v[i].state))
			return 1;
	return 0;
}

const struct pd_alert *pd_series_latest(const struct pd_trend *t, long after,
					int improvements, int by_function)
{
	size_t i, k;

	for (i = t->alerts.n; i-- > 0;) {
		const struct pd_alert *x = &t->alerts.v[i];

		if ((long)x->at <= after)
			continue;
		if (!improvements && pd_alert_improves(t, i))
			continue;
		/* an intended shift has nothing to bisect */
		if (x->state == PD_ALERT_EXPECTED)
			continue;
		for (k = 0; k < x->series.n; k++)
			if (!by_function || x->series.v[k] != 0)
				return x;
	}
	return NULL;
}

int pd_series_state_update(const char *path, const struct pd_trend *t,
			   int recorded, struct pd_err *err)
{
	PD_VEC(char *) seen = PD_VEC_INIT;
	struct pd_out out;
	char line[512];
	FILE *f = fopen(path, "r");
	size_t i, k, fresh = 0, added = 0;
	int status = 0;

	if (!f && errno != ENOENT) {
		pd_err_set(err, PD_EIO, "error: %s: %s", path, strerror(errno));
		return -1;
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

		/* remembered and reported as regressions only */
		if (pd_alert_improves(t, i))
			continue;
		for (k = 0; k < seen.n; k++)
			if (!strcmp(seen.v[k], sha))
				break;
		if (k == seen.n) {
			PD_VEC_PUSH(&seen, pd_xstrdup(sha));
			/* with --record, news only if the history had none */
			fresh += !recorded || t->alerts.v[i].fresh;
			added++;
		}
	}
	if (added) {
		status = fresh > 0;
		if (pd_out_open(&out, path, err) != 0) {
			status = -1;
		} else {
			int rc = 0;

			for (k = 0; k < seen.n; k++)
				rc |= fprintf(out.f, "%s\n", seen.v[k]) < 0;
			if (pd_out_close(&out, rc ? PD_EIO : 0, err) != 0)
				status = -1;
		}
	}
	for (k = 0; k < seen.n; k++)
		free(seen.v[k]);
	PD_VEC_FREE(&seen);
	return status;
}
