/*
 * `perf stat` output: run-level counters, not stacks. All three shapes:
 * the human table (with "( +- 1.23% )" after each counter when run with
 * -r N), -x, CSV (a variance column with -r), and -j JSON lines. Each
 * counter becomes a row of the table "perf stat" (keys event and unit,
 * measure value) with its relative standard error when perf gave one:
 * perf's "+-" is the standard deviation of the mean over the -r runs.
 * IPC is derived from instructions and cycles (higher is better); the
 * table form adds elapsed, user and sys seconds.
 */
#include <cJSON.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/buf.h"
#include "core/intern.h"
#include "core/xalloc.h"
#include "import/formats.h"

enum shape { S_TABLE, S_CSV, S_JSON };

struct counter {
	char *event, *unit;
	double value, rse; /* rse: fraction, -1 unknown */
	size_t line;
};

struct pstat {
	struct pd_profile *p;
	struct pd_input *in;
	struct pd_err *err;
	PD_VEC(struct counter) c;
	int runs;
	size_t not_counted;
	char first_missing[64];
	size_t lineno, headers;
	size_t unusable; /* nan, inf or negative values */
	char first_unusable[64];
};

int pd_perfstat_sniff(const char *head, size_t len)
{
	const char *s = head, *end = head + len;

	if (pd_filter_match("Performance counter stats for", head, len) ||
	    pd_filter_match("{\"counter-value\"", head, len))
		return 1;
	/* CSV: the first line that is not a comment has value,unit,event */
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *e = nl ? nl : end;
		const char *c1, *c2;

		if (e == s || *s == '#') {
			s = e + 1;
			continue;
		}
		c1 = memchr(s, ',', (size_t)(e - s));
		c2 = c1 ? memchr(c1 + 1, ',', (size_t)(e - c1 - 1)) : NULL;
		if (!c2)
			return 0;
		if (!(isdigit((unsigned char)*s) ||
		      (*s == '<' &&
		       pd_filter_match("<not ", s, (size_t)(c1 - s)))))
			return 0;
		/* the event: a name, no blanks */
		{
			const char *c3 =
			    memchr(c2 + 1, ',', (size_t)(e - c2 - 1));
			const char *q;

			if (!c3 || c3 == c2 + 1)
				return 0;
			for (q = c2 + 1; q < c3; q++)
				if (*q == ' ' || *q == '\t')
					return 0;
		}
		return 1;
	}
	return 0;
}

/*
 * A number as perf prints it: digits with ',' grouping (the table form
 * in most locales) and '.' as the decimal point. Returns 0 when s is not
 * one (with *missing set for "<not counted>" and "<not supported>").
 */
static int parse_value(const char *s, size_t n, double *v, int *missing)
{
	char buf[64];
	size_t i, k = 0;
	char *end;

	*missing = 0;
	if (n && s[0] == '<') {
		*missing = 1;
		return 0;
	}
	if (!n || n >= sizeof(buf))
		return 0;
	for (i = 0; i < n; i++) {
		if (s[i] == ',')
			continue;
		if (!isdigit((unsigned char)s[i]) && s[i] != '.')
			return 0;
		buf[k++] = s[i];
	}
	buf[k] = '\0';
	*v = strtod(buf, &end);
	return *end == '\0' && k > 0;
}

static void add(struct pstat *st, const char *event, size_t elen,
		const char *unit, size_t ulen, double v, double rse)
{
	struct counter c;

	c.event = pd_xstrndup(event, elen);
	c.unit = pd_xstrndup(unit, ulen);
	c.value = v;
	c.rse = rse;
	c.line = st->lineno;
	PD_VEC_PUSH(&st->c, c);
}

/* "nan", "-nan", "inf", "-1": a value perf could not measure. */
static int unusable_value(const char *s, size_t n)
{
	if (n && s[0] == '-')
		return 1;
	return (n == 3 &&
		(!strncasecmp(s, "nan", 3) || !strncasecmp(s, "inf", 3))) ||
	       (n == 8 && !strncasecmp(s, "infinity", 8));
}

static void unusable(struct pstat *st, const char *event, size_t elen)
{
	if (!st->unusable++)
		snprintf(st->first_unusable, sizeof(st->first_unusable), "%.*s",
			 (int)(elen < 60 ? elen : 60), event);
}

static void missing(struct pstat *st, const char *event, size_t elen)
{
	if (!st->not_counted++)
		snprintf(st->first_missing, sizeof(st->first_missing), "%.*s",
			 (int)(elen < 60 ? elen : 60), event);
}

static int bad_line(struct pstat *st, size_t lineno, const char *why)
{
	return pd_err_set(st->err, PD_EPARSE, "%s:%zu: perf stat: %s",
			  st->in->path, lineno, why);
}

static const char *skip_blank(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

static const char *word_end(const char *s)
{
	while (*s && *s != ' ' && *s != '\t')
		s++;
	return s;
}

/* "( +- 1.23% )" anywhere after the event: the relative error. */
static double table_rse(const char *s)
{
	const char *pm = strstr(s, "+-");
	double v;

	if (!pm)
		return -1;
	v = strtod(skip_blank(pm + 2), NULL);
	return v >= 0 ? v / 100 : -1;
}

static int table_line(struct pstat *st, char *line, size_t lineno)
{
	const char *s = skip_blank(line), *ve, *u, *ue, *ev, *ee;
	double v;
	int miss;

	if (!*s)
		return 0;
	if (strstr(s, "Performance counter stats for")) {
		const char *r = strstr(s, " runs):");

		if (st->headers++)
			return bad_line(st, lineno,
					"a second \"Performance counter stats\""
					" table: the file holds several perf"
					" stat runs; keep one run per file");
		if (r) {
			const char *b = r;

			while (b > s && isdigit((unsigned char)b[-1]))
				b--;
			st->runs = atoi(b);
		}
		return 0;
	}
	if (*s == '<') { /* <not counted> cycles */
		const char *gt = strchr(s, '>');

		if (!gt)
			return bad_line(st, lineno, "an unclosed <...>");
		ev = skip_blank(gt + 1);
		missing(st, ev, (size_t)(word_end(ev) - ev));
		return 0;
	}
	ve = word_end(s);
	if (unusable_value(s, (size_t)(ve - s))) {
		ev = skip_blank(ve);
		unusable(st, ev, (size_t)(word_end(ev) - ev));
		return 0;
	}
	if (!isdigit((unsigned char)*s))
		return 0; /* headers, blank lines, comments */
	if (!parse_value(s, (size_t)(ve - s), &v, &miss))
		return 0;
	u = skip_blank(ve);
	ue = word_end(u);
	/* "1.2 +- 0.1 seconds time elapsed", "0.9 seconds user" */
	if (!strncmp(u, "+-", 2) || !strncmp(u, "seconds ", 8)) {
		const char *what = strstr(u, "seconds ");
		double rse = -1;

		if (!what)
			return bad_line(st, lineno, "a time without seconds");
		what += 8;
		if (!strncmp(u, "+-", 2)) {
			double sd = strtod(skip_blank(u + 2), NULL);

			rse = v > 0 ? sd / v : -1;
		}
		if (!strncmp(what, "time elapsed", 12))
			add(st, "time elapsed", 12, "s", 1, v, rse);
		else if (!strncmp(what, "user", 4))
			add(st, "user time", 9, "s", 1, v, -1);
		else if (!strncmp(what, "sys", 3))
			add(st, "sys time", 8, "s", 1, v, -1);
		return 0;
	}
	/* a unit word (msec, Joules, ...) may come between value and event */
	ev = u;
	ee = ue;
	{
		const char *n2 = skip_blank(ue);
		const char *n2e = word_end(n2);

		if (*n2 && *n2 != '#' && *n2 != '(' && n2e > n2) {
			ev = n2;
			ee = n2e;
		} else {
			u = ue;
		}
	}
	if (ee == ev)
		return bad_line(st, lineno, "a value without an event name");
	add(st, ev, (size_t)(ee - ev), u, (size_t)(ev == u ? 0 : ue - u), v,
	    table_rse(ee));
	return 0;
}

/* CSV: value,unit,event[,variance%],run-time,pct[,metric,metric-unit] */
static int csv_line(struct pstat *st, char *line, size_t lineno)
{
	char *f[10];
	size_t n = 0;
	char *s = line;
	double v, rse = -1;
	int miss;

	if (!*line || *line == '#')
		return 0;
	while (n < 10) {
		char *c = strchr(s, ',');

		f[n++] = s;
		if (!c)
			break;
		*c = '\0';
		s = c + 1;
	}
	if (n < 3)
		return bad_line(st, lineno,
				"fewer than 3 fields (want"
				" value,unit,event,...)");
	if (!parse_value(f[0], strlen(f[0]), &v, &miss)) {
		if (miss) {
			missing(st, f[2], strlen(f[2]));
			return 0;
		}
		if (unusable_value(f[0], strlen(f[0]))) {
			unusable(st, f[2], strlen(f[2]));
			return 0;
		}
		return bad_line(st, lineno, "the first field is not a number");
	}
	if (n > 3 && *f[3] && f[3][strlen(f[3]) - 1] == '%')
		rse = strtod(f[3], NULL) / 100;
	if (!*f[2])
		return bad_line(st, lineno, "an empty event name");
	add(st, f[2], strlen(f[2]), f[1], strlen(f[1]), v, rse);
	return 0;
}

static int json_line(struct pstat *st, const char *line, size_t lineno)
{
	cJSON *o;
	const cJSON *cv, *ev, *un, *var;
	double v;
	int miss, rc = 0;

	if (!*skip_blank(line) || *line == '#')
		return 0;
	o = cJSON_Parse(line);
	if (!o || !cJSON_IsObject(o)) {
		cJSON_Delete(o);
		return bad_line(st, lineno, "not a JSON object");
	}
	cv = cJSON_GetObjectItemCaseSensitive(o, "counter-value");
	ev = cJSON_GetObjectItemCaseSensitive(o, "event");
	un = cJSON_GetObjectItemCaseSensitive(o, "unit");
	var = cJSON_GetObjectItemCaseSensitive(o, "variance");
	if (!cv && !ev)
		goto out; /* other records (interval headers, ...) */
	if (!cJSON_IsString(ev) || !*ev->valuestring) {
		rc = bad_line(st, lineno, "$.event: not a string");
		goto out;
	}
	if (cJSON_IsString(cv) &&
	    parse_value(cv->valuestring, strlen(cv->valuestring), &v, &miss)) {
		const char *u = cJSON_IsString(un) ? un->valuestring : "";

		add(st, ev->valuestring, strlen(ev->valuestring), u, strlen(u),
		    v, cJSON_IsNumber(var) ? var->valuedouble / 100 : -1);
	} else if (cJSON_IsNumber(cv)) {
		const char *u = cJSON_IsString(un) ? un->valuestring : "";

		add(st, ev->valuestring, strlen(ev->valuestring), u, strlen(u),
		    cv->valuedouble,
		    cJSON_IsNumber(var) ? var->valuedouble / 100 : -1);
	} else if (cJSON_IsString(cv) && cv->valuestring[0] == '<') {
		missing(st, ev->valuestring, strlen(ev->valuestring));
	} else {
		rc = bad_line(st, lineno, "$.counter-value: not a number");
	}
out:
	cJSON_Delete(o);
	return rc;
}

/* The event name without a ":u"-style modifier, and the modifier. */
static int base_is(const char *ev, const char *want, const char **mod)
{
	size_t n = strlen(want);

	if (strncmp(ev, want, n) || (ev[n] && ev[n] != ':'))
		return 0;
	*mod = ev + n;
	return 1;
}

/*
 * IPC per modifier: instructions / cycles, with the first cycles counter
 * of the same modifier that counted something. Modifiers are looked up,
 * not searched for: a file of many counters stays linear.
 */
static void ipc(struct pstat *st)
{
	struct pd_intern mods; /* a cycles counter's modifier -> id */
	PD_VEC(size_t) cyc = PD_VEC_INIT; /* id -> that counter + 1 */
	size_t i, n = st->c.n;
	const char *m;

	pd_intern_init(&mods);
	for (i = 0; i < n; i++) {
		uint32_t id;

		if (!base_is(st->c.v[i].event, "cycles", &m) ||
		    !(st->c.v[i].value > 0))
			continue;
		id = pd_intern_cstr(&mods, m);
		while (cyc.n <= id)
			PD_VEC_PUSH(&cyc, 0);
		if (!cyc.v[id])
			cyc.v[id] = i + 1;
	}
	for (i = 0; i < n; i++) {
		struct pd_buf name = PD_BUF_INIT;
		struct counter in, cy;
		uint32_t id;
		double rse = -1;

		if (!base_is(st->c.v[i].event, "instructions", &m))
			continue;
		id = pd_intern_find(&mods, m, strlen(m));
		if (id == UINT32_MAX || id >= cyc.n || !cyc.v[id])
			continue;
		/* copies: add() may move the counters */
		in = st->c.v[i];
		cy = st->c.v[cyc.v[id] - 1];
		if (in.rse >= 0 && cy.rse >= 0)
			rse = sqrt(in.rse * in.rse + cy.rse * cy.rse);
		pd_buf_addf(&name, "IPC%s", m);
		add(st, name.buf, name.len, "insn per cycle", 14,
		    in.value / cy.value, rse);
		pd_buf_release(&name);
	}
	PD_VEC_FREE(&cyc);
	pd_intern_release(&mods);
}

static void build(struct pstat *st)
{
	struct pd_profile *p = st->p;
	struct pd_mtable *t = pd_mtable_new(p, "perf stat");
	struct pd_buf key = PD_BUF_INIT;
	size_t i;

	PD_VEC_PUSH(&t->keys, pd_xstrdup("event"));
	PD_VEC_PUSH(&t->keys, pd_xstrdup("unit"));
	PD_VEC_PUSH(&t->measures, pd_xstrdup("value"));
	PD_VEC_PUSH(&t->count_like, 0);
	t->independent = 1;
	t->runs = st->runs;
	ipc(st);
	for (i = 0; i < st->c.n; i++) {
		const struct counter *c = &st->c.v[i];

		pd_buf_reset(&key);
		pd_buf_addf(&key, "%s\t%s", c->event, c->unit);
		pd_mtable_add(t, key.buf, key.len, &c->value);
		pd_mtable_set_rse(t, key.buf, key.len, &c->rse,
				  pd_counter_up(c->event));
	}
	pd_buf_release(&key);
	p->unit = PD_UNIT_COUNT;
	p->interval = 0;
	free(p->count_rule);
	p->count_rule = pd_xstrdup("perf stat counters (no samples)");
	if (st->not_counted)
		pd_profile_note(p,
				"%zu counters not counted or not supported"
				" (first: %s)",
				st->not_counted, st->first_missing);
	if (st->unusable)
		pd_profile_note(p,
				"%zu counters without a usable value (nan, inf"
				" or negative: perf could not measure them;"
				" first: %s)",
				st->unusable, st->first_unusable);
}

/*
 * One run per file: an event counted twice means runs were appended
 * (CSV and JSON have no table header to tell them apart), and summing
 * them would make the counters and IPC of no run at all.
 */
static int once_each(struct pstat *st)
{
	struct pd_intern seen;		    /* "event\0unit" -> id */
	PD_VEC(size_t) first = PD_VEC_INIT; /* id -> its first counter */
	struct pd_buf key = PD_BUF_INIT;
	size_t i;
	int rc = 0;

	pd_intern_init(&seen);
	for (i = 0; i < st->c.n && !rc; i++) {
		const struct counter *c = &st->c.v[i];
		size_t known = seen.n;
		uint32_t id;

		pd_buf_reset(&key);
		pd_buf_add(&key, c->event, strlen(c->event) + 1);
		pd_buf_adds(&key, c->unit);
		id = pd_intern(&seen, key.buf, key.len);
		if (seen.n > known) {
			while (first.n <= id)
				PD_VEC_PUSH(&first, 0);
			first.v[id] = i;
			continue;
		}
		rc = pd_err_set(st->err, PD_EPARSE,
				"%s:%zu: perf stat: %s counted again (first"
				" at line %zu): the file holds several perf"
				" stat runs; keep one run per file",
				st->in->path, c->line, c->event,
				st->c.v[first.v[id]].line);
	}
	pd_buf_release(&key);
	PD_VEC_FREE(&first);
	pd_intern_release(&seen);
	return rc;
}

int pd_perfstat_import(struct pd_input *in, struct pd_profile *p,
		       const struct pd_import_opts *o, struct pd_err *err)
{
	struct pstat st;
	struct pd_lines l;
	enum shape shape = S_CSV;
	char *line;
	size_t len, i;
	int rc;

	(void)o;
	memset(&st, 0, sizeof(st));
	st.p = p;
	st.in = in;
	st.err = err;
	if (pd_filter_match("Performance counter stats for", in->head,
			    in->head_len))
		shape = S_TABLE;
	else if (pd_filter_match("{\"counter-value\"", in->head, in->head_len))
		shape = S_JSON;
	pd_lines_init(&l, in);
	while ((rc = pd_lines_next(&l, &line, &len, err)) > 0) {
		st.lineno = l.lineno;
		if (shape == S_TABLE)
			rc = table_line(&st, line, l.lineno);
		else if (shape == S_CSV)
			rc = csv_line(&st, line, l.lineno);
		else
			rc = json_line(&st, line, l.lineno);
		if (rc < 0)
			break;
	}
	pd_lines_release(&l);
	if (rc == 0)
		rc = once_each(&st);
	if (rc == 0 && !st.c.n)
		rc = pd_err_set(err, PD_EEMPTY,
				"%s: perf stat output with no counted events%s",
				in->path,
				st.not_counted ? " (all <not counted> or"
						 " <not supported>)"
					       : "");
	if (rc == 0) {
		build(&st);
		free(p->exporter);
		p->exporter = pd_xstrdup(shape == S_TABLE ? "perf stat"
					 : shape == S_CSV ? "perf stat -x,"
							  : "perf stat -j");
	}
	for (i = 0; i < st.c.n; i++) {
		free(st.c.v[i].event);
		free(st.c.v[i].unit);
	}
	PD_VEC_FREE(&st.c);
	return rc;
}
