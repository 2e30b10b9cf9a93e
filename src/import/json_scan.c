/*
 * Importers' own scanners for the large arrays of a JSON document, the
 * fast path beside yajl (docs/architecture.md, "Streaming"): yajl reads
 * the document, stops after the "[" of an array given as a key's value,
 * and when the importer asks for it, a scanner reads that array's plain
 * elements directly and hands the rest back (pd_json_events.scan).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "import/json.h"

/*
 * The digits from q, the first 15 of all *nd so far into *m (more do not
 * fit a double exactly); where they end.
 */
static const char *digits_at(const char *q, const char *end, uint64_t *m,
			     int *nd)
{
	uint64_t x = *m;
	int n = *nd;

	for (; q < end; q++, n++) {
		unsigned d = (unsigned char)(*q - '0');

		if (d > 9)
			break;
		if (n < 15)
			x = x * 10 + d;
	}
	*m = x;
	*nd = n;
	return q;
}

/*
 * The JSON number at p and its value (v may be NULL): its length, or 0
 * when none is there. whole: the number ends at end (a token yajl
 * gave); else it may go on past end, which *open says.
 */
static size_t number_at(const char *p, const char *end, double *v, int *open,
			int whole)
{
	static const double pow10[] = { 1,    1e1,  1e2,  1e3,	1e4,  1e5,
					1e6,  1e7,  1e8,  1e9,	1e10, 1e11,
					1e12, 1e13, 1e14, 1e15, 1e16, 1e17,
					1e18, 1e19, 1e20, 1e21, 1e22 };
	const char *q = p;
	uint64_t m = 0;
	int digits = 0, frac = 0, exact = 1;
	size_t len;
	char tmp[64];

#define DIGIT(q) ((q) < end && (unsigned char)(*(q) - '0') < 10)
	*open = 0;
	if (q < end && *q == '-')
		q++;
	if (q < end && *q == '0') {
		q++;
		digits = 1;
	} else if (DIGIT(q)) {
		q = digits_at(q, end, &m, &digits);
	} else {
		goto none;
	}
	if (q < end && *q == '.') {
		const char *f = ++q;

		if (!DIGIT(q))
			goto none;
		q = digits_at(q, end, &m, &digits);
		frac = (int)(q - f);
	}
	if (q < end && (*q == 'e' || *q == 'E')) {
		exact = 0;
		q++;
		if (q < end && (*q == '+' || *q == '-'))
			q++;
		if (!DIGIT(q))
			goto none;
		while (DIGIT(q))
			q++;
	}
	if (q >= end && !whole)
		goto none; /* it may go on */
	len = (size_t)(q - p);
	if (!v)
		return len;
	if (exact && digits <= 15 && frac <= 22) {
		/* m / 10^frac is correctly rounded: both are exact doubles */
		*v = frac ? (double)m / pow10[frac] : (double)m;
		if (*p == '-')
			*v = -*v;
	} else if (len < sizeof(tmp)) {
		memcpy(tmp, p, len);
		tmp[len] = '\0';
		*v = strtod(tmp, NULL);
	} else {
		*v = 0; /* the callers leave numbers this long to yajl */
	}
	return len;
none:
	*open = !whole && q >= end;
	return 0;
#undef DIGIT
}

size_t pd_json_number_scan(const char *p, const char *end, double *v, int *open)
{
	return number_at(p, end, v, open, 0);
}

int pd_json_number(const char *v, size_t n, double *out)
{
	char tmp[64], *end;
	int open;

	if (n && number_at(v, v + n, out, &open, 1) == n)
		return n < sizeof(tmp) && isfinite(*out);
	/*
	 * Not JSON's grammar (a string "at": "12.5 ", "+1"): as strtod reads
	 * it whole.
	 */
	if (n == 0 || n >= sizeof(tmp))
		return 0;
	memcpy(tmp, v, n);
	tmp[n] = '\0';
	*out = strtod(tmp, &end);
	return *end == '\0' && isfinite(*out);
}

/*
 * At p, a "]" just after a comma the scanner took: reports it as a
 * syntax error at its byte and returns 1; else 0.
 */
static int scan_comma(struct pd_json_walk *w, const char *buf, const char *p,
		      uint64_t off)
{
	if (*p != ']' || !w->scan_comma)
		return 0;
	pd_json_walk_fail_at(w, off + (size_t)(p - buf),
			     "JSON syntax error: a comma before \"]\"");
	return 1;
}

/* null, false or true at p: -1, 0 or 1; 2 when none, 3 when cut short. */
static int word_at(const char *p, const char *end, size_t *len)
{
	static const char *const names[] = { "null", "false", "true" };
	int i;

	for (i = 0; i < 3; i++) {
		size_t n = strlen(names[i]);

		if (*p != names[i][0])
			continue;
		if ((size_t)(end - p) <= n)
			return 3;
		if (memcmp(p, names[i], n) || (p[n] >= 'a' && p[n] <= 'z'))
			return 2;
		*len = n;
		return i - 1;
	}
	return 2;
}

/*
 * pd_json_scan_array's loop, given its element reader as two functions:
 * inline, so that the scalars' scanner (below) calls its own directly,
 * two calls a value fewer on the columns that are most of a profile.
 */
static inline size_t
scan_elems(struct pd_json_walk *w, const char *buf, size_t n, uint64_t off,
	   int *more, const char *(*read)(void *, const char *, const char *),
	   int (*take)(void *), void *arg)
{
	const char *p = buf, *end = buf + n, *q;
	size_t took = 0;

	*more = 0;
	for (;;) {
		p = pd_json_skip_space(p, end);
		if (p >= end)
			goto more;
		if (scan_comma(w, buf, p, off))
			return took;
		q = read(arg, p, end);
		if (q == p)
			break; /* yajl reads it, or says what is wrong */
		if (q)
			q = pd_json_skip_space(q, end);
		if (!q || q >= end)
			goto more;
		if (*q != ',' && *q != ']')
			break;
		if (!take(arg))
			break;
		if (*q == ']') {
			took = (size_t)(q - buf);
			break;
		}
		p = q + 1;
		took = (size_t)(p - buf);
		w->scan_comma = 1;
	}
	w->scan_comma = 0;
	return took;
more:
	*more = 1; /* w->scan_comma kept for the next piece */
	return took;
}

size_t pd_json_scan_array(struct pd_json_walk *w, const char *buf, size_t n,
			  uint64_t off, int *more, const struct pd_json_elem *e,
			  void *arg)
{
	return scan_elems(w, buf, n, off, more, e->read, e->take, arg);
}

/* The scalar being read by pd_json_scan_scalars. */
struct scalar_scan {
	const struct pd_json_scalars *cb;
	void *arg;
	int skip; /* in a value skipped whole: checked, not given to cb */
	const char *p;
	size_t len;
	int lit; /* -1 null, 0 false, 1 true, 2 a number */
	double v;
};

static const char *read_scalar(void *arg, const char *p, const char *end)
{
	struct scalar_scan *c = arg;
	int open;

	c->p = p;
	/* a number, by far the most common element, starts so */
	c->lit = (*p >= '0' && *p <= '9') || *p == '-'
		     ? 2
		     : word_at(p, end, &c->len);
	if (c->lit == 3)
		return NULL;
	if (c->lit == 2) {
		c->len =
		    pd_json_number_scan(p, end, c->skip ? NULL : &c->v, &open);
		if (!c->len)
			return open ? NULL : p;
		if (c->len >= 64)
			return p;
	}
	return p + c->len;
}

static int take_scalar(void *arg)
{
	struct scalar_scan *c = arg;

	if (c->skip)
		return 1;
	return c->lit == 2 ? c->cb->number(c->arg, c->p, c->len, c->v)
			   : c->cb->literal(c->arg, c->lit);
}

size_t pd_json_scan_scalars(struct pd_json_walk *w, const char *buf, size_t n,
			    uint64_t off, int *more,
			    const struct pd_json_scalars *cb, void *arg)
{
	struct scalar_scan c;

	memset(&c, 0, sizeof(c));
	c.cb = cb;
	c.arg = arg;
	c.skip = w->skip > 0;
	return scan_elems(w, buf, n, off, more, read_scalar, take_scalar, &c);
}
