/*
 * POSIX extended regular expressions for the Windows build
 * (core/win32/include/regex.h): literals, ., bracket expressions with
 * ranges and [:classes:], ^ $, * + ? {m,n}, | and groups, matched by
 * backtracking over the pattern's text. Enough for --function and the
 * allocator frames' patterns, which are short; no back references.
 */
#include <ctype.h>
#include <stdio.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

struct rx {
	char *pat;
	int icase;
};

struct m {
	const char *s0, *end; /* the subject; where the match ended */
	int icase, steps;
};

/*
 * What is left to match once a sequence ends: the rest [p, pe) of an
 * enclosing sequence, or (rep) another pass of the group [g, ge) that
 * may still run lo to hi times (hi -1: no bound) before [p, pe); then up.
 * NULL: the whole pattern has matched.
 */
struct k {
	const char *p, *pe, *g, *ge, *from;
	int rep, lo, hi;
	const struct k *up;
};

#define MAX_STEPS 10000000

static int alt(struct m *m, const char *p, const char *pe, const char *s,
	       const struct k *k);

/* The end of one atom starting at p (a group, a bracket, an escape). */
static const char *atom_end(const char *p, const char *pe)
{
	int depth = 0;

	if (*p == '\\')
		return p + 2 <= pe ? p + 2 : NULL;
	if (*p == '[') {
		const char *q = p + 1;

		if (q < pe && *q == '^')
			q++;
		if (q < pe && *q == ']')
			q++;
		for (; q < pe && *q != ']'; q++)
			if (*q == '[' && q + 1 < pe && q[1] == ':') {
				const char *c = strstr(q + 2, ":]");

				if (!c || c >= pe)
					return NULL;
				q = c + 1;
			}
		return q < pe ? q + 1 : NULL;
	}
	if (*p != '(')
		return p + 1;
	for (; p < pe; p++) {
		if (*p == '\\' && p + 1 < pe)
			p++;
		else if (*p == '(')
			depth++;
		else if (*p == ')' && --depth == 0)
			return p + 1;
	}
	return NULL;
}

static int fold(const struct m *m, int c)
{
	return m->icase ? tolower((unsigned char)c) : (unsigned char)c;
}

static int in_class(const char *name, size_t n, int c)
{
	static const struct {
		const char *name;
		int (*is)(int);
	} classes[] = { { "alpha", isalpha }, { "digit", isdigit },
			{ "alnum", isalnum }, { "space", isspace },
			{ "upper", isupper }, { "lower", islower },
			{ "punct", ispunct }, { "xdigit", isxdigit },
			{ "print", isprint }, { "graph", isgraph },
			{ "cntrl", iscntrl }, { "blank", isblank } };
	size_t i;

	for (i = 0; i < sizeof(classes) / sizeof(*classes); i++)
		if (strlen(classes[i].name) == n &&
		    !strncmp(classes[i].name, name, n))
			return classes[i].is(c) != 0;
	return 0;
}

/* Does the bracket [p, e) take c? */
static int bracket(const struct m *m, const char *p, const char *e, int c)
{
	int neg = 0, hit = 0;

	p++;
	e--;
	if (*p == '^')
		neg = 1, p++;
	c = fold(m, c);
	for (; p < e; p++) {
		if (*p == '[' && p[1] == ':') {
			const char *q = strstr(p + 2, ":]");

			hit |= in_class(p + 2, (size_t)(q - p - 2), c) ||
			       (m->icase && in_class(p + 2, (size_t)(q - p - 2),
						     toupper(c)));
			p = q + 1;
		} else if (p + 2 < e && p[1] == '-') {
			hit |= fold(m, *p) <= c && c <= fold(m, p[2]);
			p += 2;
		} else {
			hit |= fold(m, *p) == c;
		}
	}
	return hit != neg;
}

/* One character c against the single-character atom [p, e). */
static int one(const struct m *m, const char *p, const char *e, int c)
{
	if (*p == '.')
		return 1;
	if (*p == '[')
		return bracket(m, p, e, c);
	if (*p == '\\')
		p++;
	return fold(m, *p) == fold(m, c);
}

/* The repetition after an atom: *lo, *hi (-1: none) and its end. */
static const char *repeat(const char *q, const char *pe, int *lo, int *hi)
{
	*lo = *hi = 1;
	if (q >= pe)
		return q;
	if (*q == '*' || *q == '+' || *q == '?') {
		*lo = *q == '+';
		*hi = *q == '?' ? 1 : -1;
		return q + 1;
	}
	if (*q == '{' && isdigit((unsigned char)q[1])) {
		char *end;

		*lo = (int)strtol(q + 1, &end, 10);
		*hi = *lo;
		if (*end == ',' && isdigit((unsigned char)end[1]))
			*hi = (int)strtol(end + 1, &end, 10);
		else if (*end == ',')
			*hi = -1, end++;
		if (*end == '}')
			return end + 1;
		*lo = *hi = 1;
	}
	return q;
}

static int seq(struct m *m, const char *p, const char *pe, const char *s,
	       const struct k *k);

/*
 * The group [g, ge) taken lo to hi more times, greedily, then [q, qe),
 * then k.
 */
static int group(struct m *m, const char *g, const char *ge, int lo, int hi,
		 const char *q, const char *qe, const char *s,
		 const struct k *k)
{
	struct k again = { q, qe, g, ge, s, 1, lo, hi, k };

	if (hi != 0 && alt(m, g, ge, s, &again))
		return 1;
	return lo == 0 && seq(m, q, qe, s, k);
}

/* Where a sequence that ended at s goes on: k, or the end of the match. */
static int next(struct m *m, const char *s, const struct k *k)
{
	if (!k) {
		m->end = s;
		return 1;
	}
	if (!k->rep)
		return seq(m, k->p, k->pe, s, k->up);
	if (s == k->from) /* an empty pass: no more of them */
		return seq(m, k->p, k->pe, s, k->up);
	return group(m, k->g, k->ge, k->lo > 0 ? k->lo - 1 : 0,
		     k->hi < 0 ? -1 : k->hi - 1, k->p, k->pe, s, k->up);
}

/* Matches the sequence [p, pe) (no top-level |) at s, then k. */
static int seq(struct m *m, const char *p, const char *pe, const char *s,
	       const struct k *k)
{
	const char *ae, *q;
	int lo, hi, n;

	if (++m->steps > MAX_STEPS)
		return 0;
	if (p >= pe)
		return next(m, s, k);
	if (*p == '^')
		return s == m->s0 && seq(m, p + 1, pe, s, k);
	if (*p == '$')
		return !*s && seq(m, p + 1, pe, s, k);
	ae = atom_end(p, pe);
	if (!ae)
		return 0;
	q = repeat(ae, pe, &lo, &hi);
	if (*p == '(')
		return group(m, p + 1, ae - 1, lo, hi, q, pe, s, k);
	for (n = 0; (hi < 0 || n < hi) && s[n] && one(m, p, ae, s[n]); n++)
		;
	for (; n >= lo; n--)
		if (seq(m, q, pe, s + n, k))
			return 1;
	return 0;
}

/* Matches one of the |-separated sequences of [p, pe) at s, then k. */
static int alt(struct m *m, const char *p, const char *pe, const char *s,
	       const struct k *k)
{
	const char *a = p, *q = p;

	while (q < pe) {
		const char *e = atom_end(q, pe);

		if (!e)
			return 0;
		if (*q == '|') {
			if (seq(m, a, q, s, k))
				return 1;
			a = q + 1;
			e = q + 1;
		}
		q = e;
	}
	return seq(m, a, pe, s, k);
}

int regcomp(regex_t *re, const char *pattern, int flags)
{
	struct rx *x;
	const char *p, *pe = pattern + strlen(pattern);

	for (p = pattern; p < pe;) {
		const char *e = atom_end(p, pe);

		if (!e || *p == ')')
			return REG_BADPAT;
		p = e;
	}
	x = malloc(sizeof(*x));
	if (!x)
		return REG_ESPACE;
	x->pat = strdup(pattern);
	x->icase = (flags & REG_ICASE) != 0;
	re->prog = x;
	re->re_nsub = 0;
	return 0;
}

int regexec(const regex_t *re, const char *s, size_t n, regmatch_t *mt,
	    int flags)
{
	const struct rx *x = re->prog;
	struct m m = { s, s, x->icase, 0 };
	const char *p;

	(void)flags;
	for (p = s;; p++) {
		if (alt(&m, x->pat, x->pat + strlen(x->pat), p, NULL)) {
			if (n) {
				mt[0].rm_so = (regoff_t)(p - s);
				mt[0].rm_eo = (regoff_t)(m.end - s);
			}
			return 0;
		}
		if (!*p || m.steps > MAX_STEPS)
			return REG_NOMATCH;
	}
}

size_t regerror(int code, const regex_t *re, char *buf, size_t n)
{
	const char *msg = code == REG_BADPAT   ? "invalid regular expression"
			  : code == REG_ESPACE ? "out of memory"
					       : "no match";

	(void)re;
	if (n)
		snprintf(buf, n, "%s", msg);
	return strlen(msg) + 1;
}

void regfree(regex_t *re)
{
	struct rx *x = re->prog;

	if (x)
		free(x->pat);
	free(x);
	re->prog = NULL;
}
