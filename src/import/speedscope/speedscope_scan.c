/*
 * The events of a speedscope evented profile read directly, without
 * yajl (docs/architecture.md, "Streaming"): the bulk of a PerfView export.
 * The stream hands over (import/json.c, pd_json_events.scan) and takes
 * back at any element this scanner does not read.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "import/json.h"
#include "import/speedscope/speedscope_int.h"

#define SKIP_SPACE(p, end) ((p) = pd_json_skip_space((p), (end)))

/* A frame index of at most nine digits at *q; 0 when it is not one. */
static int frame_index(const char **q, const char *end, long long *out)
{
	const char *d = *q, *e = *q;
	long long v = 0;

	while (e < end && *e >= '0' && *e <= '9' && e - d < 10)
		v = v * 10 + (*e++ - '0');
	if (e >= end || e == d || e - d > 9 || (*d == '0' && e - d > 1) ||
	    *e == '.' || *e == 'e' || *e == 'E' || (*e >= '0' && *e <= '9'))
		return 0;
	*out = v;
	*q = e;
	return 1;
}

/*
 * The event object at p ("{"): the position after it, p itself when it
 * is not one read here (yajl reads it then), NULL when the input
 * ends inside it.
 */
static const char *scan_event(struct ss_state *s, const char *p,
			      const char *end)
{
	const char *q = p + 1, *k;
	int type = 0, open, has_frame = 0, has_at = 0;
	long long frame = 0;
	double at = 0;
	size_t kn, n;

	for (;;) {
		SKIP_SPACE(q, end);
		if (q >= end)
			return NULL;
		if (*q != '"')
			return p;
		for (k = ++q; q < end && *q != '"' && *q != '\\'; q++)
			;
		if (q >= end)
			return NULL;
		if (*q == '\\')
			return p;
		kn = (size_t)(q++ - k);
		SKIP_SPACE(q, end);
		if (q >= end)
			return NULL;
		if (*q++ != ':')
			return p;
		SKIP_SPACE(q, end);
		if (end - q < 3)
			return NULL;
		if (kn == 4 && !memcmp(k, "type", 4)) {
			if (q[0] != '"' || (q[1] != 'O' && q[1] != 'C') ||
			    q[2] != '"')
				return p;
			type = q[1];
			q += 3;
		} else if (kn == 5 && !memcmp(k, "frame", 5)) {
			if (!frame_index(&q, end, &frame))
				return end - q < 12 ? NULL : p;
			has_frame = 1;
		} else if (kn == 2 && !memcmp(k, "at", 2)) {
			n = pd_json_number_scan(q, end, &at, &open);
			if (!n)
				return open ? NULL : p;
			if (n >= 64 || !isfinite(at))
				return p; /* yajl's path says what is wrong */
			has_at = 1;
			q += n;
		} else {
			return p;
		}
		SKIP_SPACE(q, end);
		if (q >= end)
			return NULL;
		if (*q == '}')
			break;
		if (*q++ != ',')
			return p;
	}
	if (!type || !has_frame || !has_at)
		return p; /* yajl's path says which is missing */
	s->ev_type = type;
	s->ev_frame = frame;
	s->ev_at = at;
	s->ev_has_at = s->ev_has_frame = 1;
	return q + 1;
}

/*
 * The elements of an "events" array read directly (pd_json_events.scan):
 * most of a PerfView export is events of "type", "frame" and "at", and
 * yajl's callbacks cost three times this per event. An event with
 * anything else (another key, an escape, a frame index as 12.0) is left
 * to yajl, which then reads the array from there on.
 */
static const char *read_event(void *arg, const char *p, const char *end)
{
	return *p == '{' ? scan_event(arg, p, end) : p;
}

static int take_event(void *arg)
{
	struct ss_state *s = arg;

	pd_json_walk_value(&s->w);
	return pd_ss_close_event(s);
}

static int scan_number(void *arg, const char *v, size_t n, double d)
{
	(void)d;
	return pd_ss_events.number_text(arg, v, n);
}

static int scan_literal(void *arg, int v)
{
	return pd_ss_events.literal(arg, v);
}

static const struct pd_json_scalars scalars = { scan_number, scan_literal };

size_t pd_ss_scan(void *arg, const char *buf, size_t n, uint64_t off, int *more)
{
	struct ss_state *s = arg;

	static const struct pd_json_elem events = { read_event, take_event };

	if (s->lv[s->w.depth].st == S_EVENTS)
		return pd_json_scan_array(&s->w, buf, n, off, more, &events, s);
	/* weights and counts: numbers */
	return pd_json_scan_scalars(&s->w, buf, n, off, more, &scalars, s);
}
