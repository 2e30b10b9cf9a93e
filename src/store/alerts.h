/*
 * The alerts a team triages (docs/history.md, "Alerts"): the change points
 * trends find, stored by series with a state, a note, who and when. A
 * change one scenario's series saw at the same commit is one group, which
 * has one state.
 */
#ifndef PD_STORE_ALERTS_H
#define PD_STORE_ALERTS_H

#include <stdint.h>

#include "core/compat.h"
#include "core/vec.h"
#include "stats/trend.h"
#include "store/db.h"

/* One stored alert, as perfdiff alerts lists it. */
struct pd_alert_row {
	int64_t id, group;
	int64_t fixed_by; /* the improvement's group that undid it, or 0 */
	char *scenario, *cache, *tool, *sha, *good_sha, *what;
	char *note, *who, *changed_at, *first_seen; /* NULL when none */
	double change;				    /* NAN when none */
	int improves;
	int state; /* enum pd_alert_state */
};

struct pd_alert_rows {
	PD_VEC(struct pd_alert_row) v;
};

void pd_alert_rows_release(struct pd_alert_rows *r);

/*
 * Marks t's alerts (t->scenario, t->cache, t->tool set) with the stored
 * ones' ids, groups and states. A history without alerts leaves them
 * unstored.
 */
PD_NODISCARD int pd_alerts_mark(struct pd_db *db, struct pd_trend *t,
				struct pd_err *err);

/*
 * Stores t's alerts that its series has not stored yet, in one
 * transaction: each joins the group of the change another series of the
 * scenario stored at the same commit, with that group's state, or starts
 * a group in state new. what[i] is alert i as the reports say it. An
 * improvement is linked to the regressions marked fixed or backed out
 * that moved a function it moved back. Then marks t; *fresh counts the
 * regressions stored now in state new (a group nobody triaged yet).
 */
PD_NODISCARD int pd_alerts_record(struct pd_db *db, struct pd_trend *t,
				  char *const *what, size_t *fresh,
				  struct pd_err *err);

/* Every stored alert, a group's rows together, oldest group first. */
PD_NODISCARD int pd_alerts_list(struct pd_db *db, struct pd_alert_rows *out,
				struct pd_err *err);

/* A new state for the group of alert id. */
struct pd_alert_change {
	int64_t id;
	int state;	  /* enum pd_alert_state, not PD_ALERT_UNSTORED */
	const char *note; /* NULL keeps the group's */
	const char *who;
	int64_t by; /* fixed, backed-out: the improvement alert; 0 none */
};

PD_NODISCARD int pd_alerts_set(struct pd_db *db,
			       const struct pd_alert_change *c,
			       struct pd_err *err);

#endif
