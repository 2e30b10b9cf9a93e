/*
 * perf's read and write system-call tracepoints as I/O (docs/formats.md,
 * "Linux perf", "Read and write calls"): each event is one call of the
 * stack it was recorded with; the bytes are the call's own, from the
 * text perf script prints after the event's name: a sys_enter_* event's
 * count field (the bytes asked for) or a sys_exit_* event's return value
 * (the bytes moved; an error moved none).
 */
#include <stdlib.h>
#include <string.h>

#include "core/compat.h"
#include "core/err.h"
#include "core/xalloc.h"
#include "import/perf/perf_int.h"
#include "model/profile.h"

/* The calls whose bytes an event says: on entry by count, on exit all. */
static const char *const enter_calls[] = { "read", "pread64", "write",
					   "pwrite64" };
static const char *const exit_calls[] = { "read",   "pread64", "readv",
					  "preadv", "write",   "pwrite64",
					  "writev", "pwritev" };

static int named(const char *const *v, size_t nv, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < nv; i++)
		if (strlen(v[i]) == n && !memcmp(v[i], s, n))
			return 1;
	return 0;
}

int pd_perf_io_event(const char *e, size_t n)
{
	static const char pre[] = "syscalls:sys_";
	size_t k = sizeof(pre) - 1;

	if (n <= k + 6 || memcmp(e, pre, k))
		return PERF_IO_NONE;
	if (!memcmp(e + k, "enter_", 6) &&
	    named(enter_calls, PD_ARRAY_SIZE(enter_calls), e + k + 6,
		  n - k - 6))
		return PERF_IO_ENTER;
	if (n > k + 5 && !memcmp(e + k, "exit_", 5) &&
	    named(exit_calls, PD_ARRAY_SIZE(exit_calls), e + k + 5, n - k - 5))
		return PERF_IO_EXIT;
	return PERF_IO_NONE;
}

/* The hexadecimal number at s ("0x" and digits); -1 when there is none. */
static double hex_at(const char *s, int is_ret)
{
	char *end;
	unsigned long long v;

	while (*s == ' ' || *s == '\t')
		s++;
	if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
		return -1;
	v = strtoull(s + 2, &end, 16);
	if (end == s + 2)
		return -1;
	/* a return value is a long: one with its top bit set is an error */
	if (is_ret && v >> 63)
		return 0;
	return (double)v;
}

double pd_perf_io_bytes(int kind, const char *rest)
{
	const char *c;

	if (!rest)
		return -1;
	if (kind == PERF_IO_EXIT)
		return hex_at(rest, 1);
	for (c = strstr(rest, "count:"); c; c = strstr(c + 1, "count:"))
		if (c == rest || c[-1] == ' ' || c[-1] == ',')
			return hex_at(c + 6, 0);
	return -1;
}

void pd_perf_io_sample(struct perf_state *st, const struct perf_hdr *h)
{
	double b = pd_perf_io_bytes(st->io_kind, h->rest);

	st->io_calls++;
	if (b < 0)
		st->io_unsaid++;
	else
		st->io_bytes += b;
	if (st->io_by_bytes)
		st->weight = b > 0 ? b : 0;
}

int pd_perf_io_check(const struct perf_state *st, const char *path,
		     struct pd_err *err)
{
	const char *m = st->o->metric;

	if (!st->io_kind || !m)
		return 0;
	if (strcmp(m, "bytes"))
		return pd_err_set(err, PD_EUSAGE,
				  "%s: --metric %s: a read or write call's"
				  " event gives its calls (the default) or"
				  " --metric bytes",
				  path, m);
	if (st->io_calls && st->io_unsaid == st->io_calls)
		return pd_err_set(err, PD_EFORMAT,
				  "%s: --metric bytes: no call of the event"
				  " says its bytes (perf script prints a"
				  " sys_enter_ event's count field and a"
				  " sys_exit_ event's return value)",
				  path);
	return 0;
}

void pd_perf_io_weigh(const struct perf_state *st, struct pd_profile *p,
		      const char *path)
{
	const char *how = st->io_kind == PERF_IO_ENTER ? "asked for" : "moved";
	size_t i;

	/*
	 * perf record takes every event of a tracepoint unless told to
	 * sample (-c N): then the calls are counts, exact as callgrind's
	 */
	p->exact = !st->any_period ||
		   (st->all_period && st->const_period &&
		    !(st->first_period < 1) && !(st->first_period > 1));

	if (st->io_by_bytes) {
		p->unit = PD_UNIT_BYTES;
		p->interval = 0;
		p->count_rule = pd_xstrdup(
		    st->io_kind == PERF_IO_ENTER
			? "weights = bytes the calls asked for; sample counts"
			  " = calls"
			: "weights = bytes the calls moved; sample counts ="
			  " calls");
	} else {
		for (i = 0; i < p->nodes.n; i++)
			p->nodes.v[i].weight = p->nodes.v[i].count;
		p->unit = PD_UNIT_COUNT;
		p->interval = 1;
		p->count_rule =
		    pd_xstrdup("sample counts = calls; weights = calls");
	}
	pd_profile_note(
	    p, "%s: %s: %llu calls, %.1f MiB (%.0f bytes) %s%s (%s)", path,
	    p->event, (unsigned long long)st->io_calls, st->io_bytes / 1048576,
	    st->io_bytes, how, st->io_unsaid ? " by those that say" : "",
	    st->io_by_bytes ? "weights are the bytes"
			    : "--metric bytes weighs the bytes");
}
