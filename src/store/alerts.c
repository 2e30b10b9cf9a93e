/*
 * Alerts in the history (store/alerts.h, docs/history.md, "Alerts").
 */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/xalloc.h"
#include "store/alerts.h"
#include "store/store.h"

void pd_alert_rows_release(struct pd_alert_rows *r)
{
	size_t i;

	for (i = 0; i < r->v.n; i++) {
		struct pd_alert_row *a = &r->v.v[i];

		free(a->scenario);
		free(a->cache);
		free(a->tool);
		free(a->sha);
		free(a->good_sha);
		free(a->what);
		free(a->note);
		free(a->who);
		free(a->changed_at);
		free(a->first_seen);
	}
	PD_VEC_FREE(&r->v);
}

/* A state as stored; a name no perfdiff writes reads as new. */
static int stored_state(const char *s)
{
	int st = pd_alert_state_parse(s);

	return st > 0 && !strcmp(pd_alert_state_name(st), s) ? st
							     : PD_ALERT_NEW;
}

static const char *alert_sha(const struct pd_trend *t, size_t i)
{
	assert(i < t->alerts.n && t->series.n &&
	       t->alerts.v[i].at < t->series.v[0].pts.n);
	return t->series.v[0].pts.v[t->alerts.v[i].at].sha;
}

int pd_alerts_mark(struct pd_db *db, struct pd_trend *t, struct pd_err *err)
{
	struct pd_st *st;
	int s;
	size_t i;

	if (!t->alerts.n || !t->series.n)
		return 0;
	st = pd_db_stmt(db, "q_alert_series", err);
	if (!st)
		return PD_EIO;
	pd_st_text(st, 1, t->scenario);
	pd_st_text(st, 2, t->cache);
	pd_st_text(st, 3, t->tool);
	/* the series' own rows come first: they win over the group's */
	while ((s = pd_st_step(st)) == PD_ST_ROW) {
		const char *sha = pd_st_col_text(st, 0);

		for (i = 0; i < t->alerts.n; i++) {
			struct pd_alert *al = &t->alerts.v[i];

			if (al->group || strcmp(alert_sha(t, i), sha))
				continue;
			al->id =
			    pd_st_col_i64(st, 4) ? pd_st_col_i64(st, 1) : 0;
			al->group = pd_st_col_i64(st, 2);
			al->state = stored_state(pd_st_col_text(st, 3));
		}
	}
	pd_st_reset(st);
	return s == PD_ST_DONE ? 0 : pd_db_fail(db, err, "reading the alerts");
}

/* The names of the series alert i moved, one a line, in b. */
static void moved_names(struct pd_buf *b, const struct pd_trend *t, size_t i)
{
	const struct pd_alert *al = &t->alerts.v[i];
	size_t k;

	pd_buf_reset(b);
	for (k = 0; k < al->series.n; k++) {
		assert(al->series.v[k] < t->series.n);
		pd_buf_adds(b, t->series.v[al->series.v[k]].name);
		pd_buf_addch(b, '\n');
	}
}

/*
 * Whether two lists of names (one a line) share a function's: the total
 * moves with every change, so it links nothing by itself.
 */
static int share_function(const char *a, const char *b)
{
	const char *p, *e;

	for (p = a; *p; p = *e ? e + 1 : e) {
		size_t n;
		const char *q, *f;

		e = strchr(p, '\n');
		if (!e)
			e = p + strlen(p);
		n = (size_t)(e - p);
		if (!n || (n == 5 && !strncmp(p, "total", 5)))
			continue;
		for (q = b; *q; q = *f ? f + 1 : f) {
			f = strchr(q, '\n');
			if (!f)
				f = q + strlen(q);
			if ((size_t)(f - q) == n && !strncmp(p, q, n))
				return 1;
		}
	}
	return 0;
}

/* Links improvement group g (names moved) to the regressions it undid. */
static int link_fixes(struct pd_db *db, const char *scenario, int64_t g,
		      const char *names, struct pd_err *err)
{
	struct pd_st *st = pd_db_stmt(db, "q_alert_unlinked", err), *up;
	PD_VEC(int64_t) undone = PD_VEC_INIT;
	size_t k;
	int s, rc = 0;

	if (!st)
		return PD_EIO;
	pd_st_text(st, 1, scenario);
	while ((s = pd_st_step(st)) == PD_ST_ROW)
		if (share_function(pd_st_col_text(st, 1), names) &&
		    (!undone.n ||
		     undone.v[undone.n - 1] != pd_st_col_i64(st, 0)))
			PD_VEC_PUSH(&undone, pd_st_col_i64(st, 0));
	pd_st_reset(st);
	if (s != PD_ST_DONE)
		rc = pd_db_fail(db, err, "reading the alerts");
	for (k = 0; rc == 0 && k < undone.n; k++) {
		up = pd_db_stmt(db, "q_alert_link", err);
		if (!up) {
			rc = PD_EIO;
			break;
		}
		pd_st_i64(up, 1, undone.v[k]);
		pd_st_i64(up, 2, g);
		if (pd_st_step(up) < 0)
			rc = pd_db_fail(db, err, "linking a fix");
		pd_st_reset(up);
	}
	PD_VEC_FREE(&undone);
	return rc;
}

/* The state, note, who and when of the group al joins, into st's ?11.. */
static int group_fields(struct pd_db *db, const struct pd_trend *t, size_t i,
			struct pd_st *ins, struct pd_err *err)
{
	struct pd_st *st = pd_db_stmt(db, "q_alert_group", err);
	int s, c;

	if (!st)
		return PD_EIO;
	pd_st_text(st, 1, t->scenario);
	pd_st_text(st, 2, alert_sha(t, i));
	s = pd_st_step(st);
	if (s == PD_ST_ROW) {
		pd_st_text(ins, 11, pd_st_col_text(st, 1));
		for (c = 2; c <= 4; c++)
			if (pd_st_isnull(st, c))
				pd_st_null(ins, 10 + c);
			else
				pd_st_text(ins, 10 + c, pd_st_col_text(st, c));
		if (pd_st_isnull(st, 5))
			pd_st_null(ins, 16);
		else
			pd_st_i64(ins, 16, pd_st_col_i64(st, 5));
	}
	pd_st_reset(st);
	return s == PD_ST_ROW ? 0 : pd_db_fail(db, err, "reading the alerts");
}

/* Stores alert i of t, which its series has not stored yet. */
static int record_one(struct pd_db *db, const struct pd_trend *t, size_t i,
		      const char *what, const char *now, int64_t *group,
		      struct pd_err *err)
{
	const struct pd_alert *al = &t->alerts.v[i];
	struct pd_st *st = pd_db_stmt(db, "q_alert_insert", err);
	struct pd_buf names = PD_BUF_INIT;
	int64_t id = 0;
	int rc = 0, c;

	if (!st)
		return PD_EIO;
	/* a change point has the commit before it: the last good one */
	assert(al->at > 0);
	moved_names(&names, t, i);
	if (al->group)
		pd_st_i64(st, 1, al->group);
	else
		pd_st_null(st, 1);
	pd_st_text(st, 2, t->scenario);
	pd_st_text(st, 3, t->cache);
	pd_st_text(st, 4, t->tool);
	pd_st_text(st, 5, alert_sha(t, i));
	pd_st_text(st, 6, t->series.v[0].pts.v[al->at - 1].sha);
	pd_st_text(st, 7, what);
	pd_st_text(st, 8, names.buf ? names.buf : "");
	if (isnan(al->total))
		pd_st_null(st, 9);
	else
		pd_st_f64(st, 9, al->total);
	pd_st_i64(st, 10, pd_alert_improves(t, i));
	if (al->group) {
		rc = group_fields(db, t, i, st, err);
	} else {
		pd_st_text(st, 11, pd_alert_state_name(PD_ALERT_NEW));
		for (c = 12; c <= 14; c++)
			pd_st_null(st, c);
		pd_st_null(st, 16);
	}
	pd_st_text(st, 15, now);
	if (rc == 0)
		rc = pd_st_insert_id(st, &id, err, "storing an alert");
	else
		pd_st_reset(st);
	*group = al->group ? al->group : id;
	if (rc == 0 && !al->group) {
		st = pd_db_stmt(db, "q_alert_own_group", err);
		if (!st)
			rc = PD_EIO;
		else {
			pd_st_i64(st, 1, id);
			if (pd_st_step(st) < 0)
				rc = pd_db_fail(db, err, "storing an alert");
			pd_st_reset(st);
		}
	}
	if (rc == 0 && pd_alert_improves(t, i))
		rc = link_fixes(db, t->scenario, *group,
				names.buf ? names.buf : "", err);
	pd_buf_release(&names);
	return rc;
}

int pd_alerts_record(struct pd_db *db, struct pd_trend *t, char *const *what,
		     size_t *fresh, struct pd_err *err)
{
	char now[32];
	size_t i;
	int rc;

	*fresh = 0;
	if (!t->alerts.n || !t->series.n)
		return 0;
	pd_store_now(now);
	rc = pd_db_begin_write(db, err);
	if (rc == 0)
		rc = pd_alerts_mark(db, t, err);
	for (i = 0; rc == 0 && i < t->alerts.n; i++) {
		struct pd_alert *al = &t->alerts.v[i];
		int64_t g;

		if (al->id)
			continue;
		rc = record_one(db, t, i, what[i], now, &g, err);
		/* a change nobody triaged yet is news in every series */
		if (rc == 0 && (!al->group || al->state == PD_ALERT_NEW) &&
		    !pd_alert_improves(t, i)) {
			al->fresh = 1;
			(*fresh)++;
		}
	}
	if (rc == 0)
		rc = pd_db_exec(db, "COMMIT", err);
	if (rc < 0) {
		pd_db_rollback(db);
		return rc;
	}
	/* again, now that every alert has its row */
	for (i = 0; i < t->alerts.n; i++)
		t->alerts.v[i].id = t->alerts.v[i].group = 0;
	return pd_alerts_mark(db, t, err);
}

static char *col_dup(struct pd_st *st, int c)
{
	return pd_st_isnull(st, c) ? NULL : pd_xstrdup(pd_st_col_text(st, c));
}

int pd_alerts_list(struct pd_db *db, struct pd_alert_rows *out,
		   struct pd_err *err)
{
	struct pd_st *st = pd_db_stmt(db, "q_alerts_list", err);
	int s;

	memset(out, 0, sizeof(*out));
	if (!st)
		return PD_EIO;
	while ((s = pd_st_step(st)) == PD_ST_ROW) {
		struct pd_alert_row r;

		memset(&r, 0, sizeof(r));
		r.id = pd_st_col_i64(st, 0);
		r.group = pd_st_col_i64(st, 1);
		r.scenario = pd_xstrdup(pd_st_col_text(st, 2));
		r.cache = pd_xstrdup(pd_st_col_text(st, 3));
		r.tool = pd_xstrdup(pd_st_col_text(st, 4));
		r.sha = pd_xstrdup(pd_st_col_text(st, 5));
		r.good_sha = pd_xstrdup(pd_st_col_text(st, 6));
		r.what = pd_xstrdup(pd_st_col_text(st, 7));
		r.change = pd_st_col_f64n(st, 8);
		r.improves = pd_st_col_i64(st, 9) != 0;
		r.state = stored_state(pd_st_col_text(st, 10));
		r.note = col_dup(st, 11);
		r.who = col_dup(st, 12);
		r.changed_at = col_dup(st, 13);
		r.first_seen = pd_xstrdup(pd_st_col_text(st, 14));
		r.fixed_by = pd_st_isnull(st, 15) ? 0 : pd_st_col_i64(st, 15);
		PD_VEC_PUSH(&out->v, r);
	}
	pd_st_reset(st);
	if (s != PD_ST_DONE) {
		pd_alert_rows_release(out);
		return pd_db_fail(db, err, "reading the alerts");
	}
	return 0;
}

/* Alert id's group, and whether it is an improvement; 0 or an error. */
static int alert_group(struct pd_db *db, int64_t id, int64_t *group,
		       int *improves, struct pd_err *err)
{
	struct pd_st *st = pd_db_stmt(db, "q_alert_by_id", err);
	int s;

	if (!st)
		return PD_EIO;
	pd_st_i64(st, 1, id);
	s = pd_st_step(st);
	if (s == PD_ST_ROW) {
		*group = pd_st_col_i64(st, 0);
		*improves = pd_st_col_i64(st, 2) != 0;
	}
	pd_st_reset(st);
	if (s == PD_ST_DONE)
		return pd_err_set(err, PD_EINVAL,
				  "%s: no alert #%lld (perfdiff alerts lists"
				  " them)",
				  db->path, (long long)id);
	return s == PD_ST_ROW ? 0 : pd_db_fail(db, err, "reading the alerts");
}

int pd_alerts_set(struct pd_db *db, const struct pd_alert_change *c,
		  struct pd_err *err)
{
	struct pd_st *st;
	int64_t group = 0, by = 0;
	int improves = 0, by_improves = 0, rc;
	char now[32];

	/* a state a team gives: stored under its name, never "" */
	assert(c->state > PD_ALERT_UNSTORED && c->state < PD_ALERT_STATES);
	pd_store_now(now);
	rc = pd_db_begin_write(db, err);
	if (rc == 0)
		rc = alert_group(db, c->id, &group, &improves, err);
	if (rc == 0 && c->by) {
		rc = alert_group(db, c->by, &by, &by_improves, err);
		if (rc == 0 && !by_improves)
			rc = pd_err_set(err, PD_EINVAL,
					"--by %lld: alert #%lld is a"
					" regression; a fix is an improvement",
					(long long)c->by, (long long)c->by);
	}
	if (rc == 0 && !(st = pd_db_stmt(db, "q_alert_set", err)))
		rc = PD_EIO;
	if (rc == 0) {
		pd_st_i64(st, 1, group);
		pd_st_text(st, 2, pd_alert_state_name(c->state));
		pd_st_text(st, 3, c->note); /* NULL binds NULL: kept */
		pd_st_text(st, 4, c->who);
		pd_st_text(st, 5, now);
		if (by)
			pd_st_i64(st, 6, by);
		else
			pd_st_null(st, 6);
		if (pd_st_step(st) < 0)
			rc = pd_db_fail(db, err, "setting the state");
		pd_st_reset(st);
	}
	if (rc == 0)
		rc = pd_db_exec(db, "COMMIT", err);
	if (rc < 0)
		pd_db_rollback(db);
	return rc;
}
