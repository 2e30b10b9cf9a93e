/*
 * What a trend's alerts and length say (stats/trend.h): whether an alert
 * is an improvement, the names of the states a team gives alerts, and
 * what a history too short to show any change point would need.
 */
#include <assert.h>
#include <math.h>
#include <string.h>

#include "stats/trend.h"

static const char *const state_names[PD_ALERT_STATES] = {
	"", "new", "acknowledged", "expected", "invalid", "fixed", "backed-out"
};

const char *pd_alert_state_name(int state)
{
	return state >= 0 && state < PD_ALERT_STATES ? state_names[state] : "";
}

int pd_alert_state_parse(const char *name)
{
	size_t n = strlen(name);
	int i, found = -1;

	if (!n)
		return -1;
	for (i = PD_ALERT_NEW; i < PD_ALERT_STATES; i++) {
		if (!strcmp(name, state_names[i]))
			return i;
		if (!strncmp(name, state_names[i], n))
			found = found < 0 ? i : PD_ALERT_STATES;
	}
	return found == PD_ALERT_STATES ? -1 : found;
}

int pd_alert_states_parse(const char *list, unsigned *bits)
{
	const char *p = list;

	*bits = 0;
	if (!strcmp(list, "all")) {
		*bits = ~0u;
		return 0;
	}
	while (*p) {
		size_t n = strcspn(p, ",");
		char name[32];
		int st;

		if (!n || n >= sizeof(name))
			return -1;
		memcpy(name, p, n);
		name[n] = '\0';
		if ((st = pd_alert_state_parse(name)) < 0)
			return -1;
		*bits |= 1u << st;
		p += n + (p[n] == ',');
	}
	return *bits ? 0 : -1;
}

int pd_alert_state_open(int state)
{
	return state == PD_ALERT_UNSTORED || state == PD_ALERT_NEW ||
	       state == PD_ALERT_ACKNOWLEDGED;
}

int pd_alert_improves(const struct pd_trend *t, size_t alert)
{
	const struct pd_alert *al = &t->alerts.v[alert];
	size_t k, worse = 0, better = 0;

	assert(alert < t->alerts.n && al->moved.n == al->series.n);

	if (!isnan(al->total))
		return al->total < 0;
	for (k = 0; k < al->series.n; k++) {
		const struct pd_tseries *s = &t->series.v[al->series.v[k]];
		double m =
		    s->counter && s->up ? -al->moved.v[k] : al->moved.v[k];

		worse += m > 0;
		better += m < 0;
	}
	return better && !worse;
}

/* 2 / C(n, n/2): the smallest two-sided p of a split of n values. */
static double smallest_p(size_t n)
{
	double c = 1;
	size_t k;

	for (k = 1; k <= n / 2; k++)
		c = c * (double)(n - n / 2 + k) / (double)k;
	return 2 / c;
}

int pd_trend_blind(const struct pd_trend *t, struct pd_trend_need *nd)
{
	size_t i, short_runs, more;

	memset(nd, 0, sizeof(*nd));
	if (t->series.n)
		for (i = 0; i < t->series.v[0].pts.n; i++) {
			nd->runs += t->series.v[0].pts.v[i].n;
			nd->commits += t->series.v[0].pts.v[i].n > 0;
		}
	/* E-Divisive needs 3 values a side, and a small enough p */
	for (nd->runs_need = 6;
	     smallest_p(nd->runs_need) > t->pmax && nd->runs_need < 200;
	     nd->runs_need++)
		;
	/* the commit means: PD_TREND_BEFORE commits before, persist after */
	nd->commits_need = PD_TREND_BEFORE + (t->persist ? t->persist : 3);
	if (t->exact) { /* no test: one commit before, persist after */
		nd->runs_need = 0;
		nd->commits_need = 1 + (t->persist ? t->persist : 3);
	}
	/* more commits of as many runs as the history has a commit */
	nd->runs_a_commit =
	    nd->commits ? (nd->runs + nd->commits - 1) / nd->commits : 1;
	short_runs = nd->runs < nd->runs_need ? nd->runs_need - nd->runs : 0;
	more = (short_runs + nd->runs_a_commit - 1) / nd->runs_a_commit;
	if (nd->commits + more < nd->commits_need)
		more = nd->commits_need - nd->commits;
	nd->more_commits = more;
	return more > 0;
}
