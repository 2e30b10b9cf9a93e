/*
 * `perfdiff alerts`: the alerts stored by trend --record, by group, with
 * their states; `perfdiff alerts set ID STATE` triages one.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cJSON.h>

#include "cmd/cmd.h"
#include "cmd/parse.h"
#include "core/buf.h"
#include "core/utf8.h"
#include "core/xalloc.h"
#include "report/jsonw.h"
#include "report/report.h"
#include "store/alerts.h"

static const char alerts_about[] =
    "The alerts trend --record stored, one entry per change (the same\n"
    "commit of a scenario seen by several tools and cache states is one),\n"
    "with its state; set gives a change a state: new, acknowledged,\n"
    "expected, invalid, fixed or backed-out.\n";

/* Who sets a state: --who, else the login name. */
static const char *who_default(const char *who)
{
	const char *e;

	if (who && *who)
		return who;
	e = getenv("USER");
	if (!e || !*e)
		e = getenv("LOGNAME");
	return e && *e ? e : "unknown";
}

static int alerts_set(const struct pd_args *a, int argc, char **argv)
{
	struct pd_alert_change c;
	struct pd_err err = PD_ERR_INIT;
	struct pd_db db;
	unsigned long long id;
	char *end;
	int rc;

	if (argc != 3) {
		pd_error("error: alerts set wants ID STATE (got %d operand%s);"
			 " see perfdiff help alerts",
			 argc - 1, argc == 2 ? "" : "s");
		return 2;
	}
	memset(&c, 0, sizeof(c));
	errno = 0;
	id = strtoull(argv[1], &end, 10);
	if (!isdigit((unsigned char)*argv[1]) || *end || errno || !id ||
	    id > (unsigned long long)INT64_MAX) {
		pd_error("error: alerts set %s: an alert's number, as perfdiff"
			 " alerts lists it (#3: 3)",
			 argv[1]);
		return 2;
	}
	c.id = (int64_t)id;
	c.state = pd_alert_state_parse(argv[2]);
	if (c.state < 0) {
		pd_error("error: alerts set %s %s: want new, acknowledged,"
			 " expected, invalid, fixed or backed-out",
			 argv[1], argv[2]);
		return 2;
	}
	if (a->alert_by && c.state != PD_ALERT_FIXED &&
	    c.state != PD_ALERT_BACKED_OUT) {
		pd_error("error: --by names the improvement that fixed or"
			 " backed out a regression: only with fixed or"
			 " backed-out");
		return 2;
	}
	c.note = a->note;
	c.who = who_default(a->who);
	c.by = (int64_t)a->alert_by;
	if (!pd_db_is_server(a->db) && access(a->db, F_OK) != 0) {
		pd_error("error: %s: no such database (perfdiff ingest creates"
			 " it)",
			 a->db);
		return 2;
	}
	if (pd_db_open(&db, a->db, PD_DB_WRITE, &err) < 0) {
		pd_error("%s", err.msg);
		return 2;
	}
	rc = pd_alerts_set(&db, &c, &err);
	pd_db_close(&db);
	if (rc < 0) {
		pd_error("%s", err.msg);
		return 2;
	}
	printf("alert #%lld: %s\n", (long long)c.id,
	       pd_alert_state_name(c.state));
	return 0;
}

/* The rows [lo, hi) of one group that the filters keep. */
static int group_shown(const struct pd_args *a, unsigned states,
		       const struct pd_alert_row *r)
{
	if (!(states & (1u << r->state)))
		return 0;
	if (a->scenario && strcmp(a->scenario, r->scenario))
		return 0;
	return !a->q.since || strcmp(r->first_seen, a->q.since) >= 0;
}

/* The series (cache/tool) of rows [lo, hi), ", " between, into b. */
static void seen_in(struct pd_buf *b, const struct pd_alert_rows *rows,
		    size_t lo, size_t hi)
{
	size_t i;

	for (i = lo; i < hi; i++) {
		if (i > lo)
			pd_buf_adds(b, ", ");
		pd_buf_adds(b, rows->v.v[i].cache);
		pd_buf_addch(b, '/');
		pd_buf_adds(b, rows->v.v[i].tool);
	}
}

static void text_group(struct pd_buf *b, const struct pd_alert_rows *rows,
		       size_t lo, size_t hi)
{
	const struct pd_alert_row *r = &rows->v.v[lo];
	struct pd_buf s = PD_BUF_INIT;

	pd_buf_addf(b, "#%lld %s %s ", (long long)r->group,
		    pd_alert_state_name(r->state),
		    r->improves ? "improvement" : "regression");
	pd_buf_add_term_line(b, r->what);
	pd_buf_adds(b, "\n  first bad ");
	pd_buf_add_term_line(b, r->sha);
	pd_buf_adds(b, ", last good ");
	pd_buf_add_term_line(b, r->good_sha);
	pd_buf_adds(b, "; seen in ");
	seen_in(&s, rows, lo, hi);
	pd_buf_add_term_line(b, s.buf);
	pd_buf_adds(b, "; first seen ");
	pd_buf_add_term_line(b, r->first_seen);
	if (r->who) {
		pd_buf_adds(b, "\n  set by ");
		pd_buf_add_term_line(b, r->who);
		pd_buf_adds(b, " at ");
		pd_buf_add_term_line(b, r->changed_at ? r->changed_at : "");
	}
	if (r->fixed_by)
		pd_buf_addf(b, "; undone by #%lld", (long long)r->fixed_by);
	if (r->note) {
		pd_buf_adds(b, "\n  note: ");
		pd_buf_add_term_line(b, r->note);
	}
	pd_buf_addch(b, '\n');
	pd_buf_release(&s);
}

static void md_group(struct pd_buf *b, const struct pd_alert_rows *rows,
		     size_t lo, size_t hi)
{
	const struct pd_alert_row *r = &rows->v.v[lo];
	struct pd_buf s = PD_BUF_INIT;

	pd_buf_addf(b, "| #%lld | %s | ", (long long)r->group,
		    pd_alert_state_name(r->state));
	pd_md_text(b, r->what, 500);
	pd_buf_adds(b, " | ");
	pd_md_text(b, r->sha, 80);
	pd_buf_adds(b, " | ");
	seen_in(&s, rows, lo, hi);
	pd_md_text(b, s.buf, 500);
	pd_buf_adds(b, " | ");
	if (r->fixed_by)
		pd_buf_addf(b, "undone by #%lld ", (long long)r->fixed_by);
	if (r->note)
		pd_md_text(b, r->note, 500);
	pd_buf_adds(b, " |\n");
	pd_buf_release(&s);
}

static cJSON *json_group(const struct pd_alert_rows *rows, size_t lo, size_t hi)
{
	const struct pd_alert_row *r = &rows->v.v[lo];
	cJSON *o = cJSON_CreateObject(), *seen;
	size_t i;

	cJSON_AddNumberToObject(o, "alert", (double)r->group);
	cJSON_AddStringToObject(o, "state", pd_alert_state_name(r->state));
	cJSON_AddBoolToObject(o, "improvement", r->improves);
	cJSON_AddItemToObject(o, "scenario", pd_json_text(r->scenario));
	cJSON_AddItemToObject(o, "first_bad", pd_json_text(r->sha));
	cJSON_AddItemToObject(o, "last_good", pd_json_text(r->good_sha));
	cJSON_AddItemToObject(o, "change", pd_json_text(r->what));
	cJSON_AddItemToObject(o, "total_change_pct",
			      isnan(r->change)
				  ? cJSON_CreateNull()
				  : cJSON_CreateNumber(100 * r->change));
	cJSON_AddItemToObject(o, "note", pd_json_text(r->note));
	cJSON_AddItemToObject(o, "who", pd_json_text(r->who));
	cJSON_AddItemToObject(o, "changed_at", pd_json_text(r->changed_at));
	cJSON_AddItemToObject(o, "first_seen", pd_json_text(r->first_seen));
	cJSON_AddItemToObject(o, "undone_by",
			      r->fixed_by
				  ? cJSON_CreateNumber((double)r->fixed_by)
				  : cJSON_CreateNull());
	seen = cJSON_AddArrayToObject(o, "series");
	for (i = lo; i < hi; i++) {
		cJSON *x = cJSON_CreateObject();

		cJSON_AddNumberToObject(x, "id", (double)rows->v.v[i].id);
		cJSON_AddItemToObject(x, "cache",
				      pd_json_text(rows->v.v[i].cache));
		cJSON_AddItemToObject(x, "tool",
				      pd_json_text(rows->v.v[i].tool));
		cJSON_AddItemToArray(seen, x);
	}
	return o;
}

static int alerts_list(const struct pd_args *a)
{
	struct pd_err err = PD_ERR_INIT;
	struct pd_alert_rows rows;
	struct pd_db db;
	struct pd_buf b = PD_BUF_INIT;
	cJSON *root = NULL, *arr = NULL;
	size_t lo, hi, shown = 0;
	unsigned states;
	int rc;

	if (pd_open_history(&db, a->db) < 0)
		return 2;
	rc = pd_alerts_list(&db, &rows, &err);
	pd_db_close(&db);
	if (rc < 0) {
		pd_error("%s", err.msg);
		return 2;
	}
	/* by default every state but invalid (--state is checked already) */
	if (!a->state || pd_alert_states_parse(a->state, &states) < 0)
		states = ~(1u << PD_ALERT_INVALID);
	if (a->fmt == PD_FMT_JSON) {
		root = cJSON_CreateObject();
		arr = cJSON_AddArrayToObject(root, "alerts");
	} else if (a->fmt == PD_FMT_MD)
		pd_buf_adds(&b,
			    "| alert | state | change | first bad |"
			    " seen in | note |\n|---|---|---|---|---|---|\n");
	for (lo = 0; lo < rows.v.n; lo = hi) {
		for (hi = lo + 1;
		     hi < rows.v.n && rows.v.v[hi].group == rows.v.v[lo].group;
		     hi++)
			;
		if (!group_shown(a, states, &rows.v.v[lo]))
			continue;
		shown++;
		if (arr)
			cJSON_AddItemToArray(arr, json_group(&rows, lo, hi));
		else if (a->fmt == PD_FMT_MD)
			md_group(&b, &rows, lo, hi);
		else
			text_group(&b, &rows, lo, hi);
	}
	if (root) {
		rc = pd_jw_tree(stdout, root, NULL, 0);
		cJSON_Delete(root);
	} else {
		if (!shown && a->fmt == PD_FMT_TEXT)
			pd_buf_adds(&b, "no alerts\n");
		rc = fwrite(b.buf ? b.buf : "", 1, b.len, stdout) != b.len;
	}
	pd_buf_release(&b);
	pd_alert_rows_release(&rows);
	return rc || fflush(stdout) ? 2 : 0;
}

/* alerts' operands: set ID STATE, or none for the list. */
static int alerts_run(const struct pd_args *a)
{
	if (a->nops && !strcmp(a->ops[0], "set"))
		return alerts_set(a, a->nops, a->ops);
	if (a->nops) {
		pd_error("error: alerts takes no operands but set ID STATE"
			 " (got %s); see perfdiff help alerts",
			 a->ops[0]);
		return 2;
	}
	if (a->note || a->who || a->alert_by) {
		pd_error("error: --note, --who and --by go with alerts set");
		return 2;
	}
	return alerts_list(a);
}

int pd_cmd_alerts(int argc, char **argv)
{
	struct pd_args a;
	int rc = pd_parse("alerts", alerts_about, argc, argv, &a);

	if (rc < 0 && !pd_operands_ok("alerts", a.nops))
		rc = 2;
	if (rc < 0)
		rc = alerts_run(&a);
	pd_args_release(&a);
	return rc;
}
