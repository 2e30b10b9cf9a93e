/*
 * Diffs of profiles: matching functions across builds (module pairing for
 * renamed binaries; on aggregates, modules.c), sides from profiles,
 * cost-shift labels, and the entry points that import nothing but compare
 * what was imported.
 */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/intern.h"
#include "core/xalloc.h"
#include "stats/diff_int.h"
#include "stats/stats.h"

/* Module basename of a frame, as a slice of the profile's string. */
static const char *frame_module(const struct pd_profile *p, uint32_t f,
				size_t *len)
{
	const char *m = pd_intern_str(&p->strs, p->frames.v[f].module);
	size_t n = pd_intern_len(&p->strs, p->frames.v[f].module);
	size_t b = pd_module_basename(m, n);

	*len = n - b;
	return m + b;
}

/* Counts baseline functions of module ma that candidate module mb also has. */
static size_t common_names(const struct pd_profile *a, const char *ma,
			   const char *mb, const struct pd_intern *keys,
			   const unsigned char *kbits)
{
	struct pd_buf k = PD_BUF_INIT;
	size_t f, n = 0, mal = strlen(ma);

	for (f = 0; f < a->frames.n; f++) {
		size_t ml;
		const char *m = frame_module(a, (uint32_t)f, &ml);
		const struct pd_frame *fr = &a->frames.v[f];
		uint32_t kid;

		if (ml != mal || memcmp(m, ma, ml))
			continue;
		pd_buf_reset(&k);
		pd_buf_adds(&k, mb);
		pd_buf_addch(&k, 0);
		pd_buf_add(&k, pd_intern_str(&a->strs, fr->name),
			   pd_intern_len(&a->strs, fr->name));
		kid = pd_intern_find(keys, k.buf, k.len);
		if (kid != UINT32_MAX && (kbits[kid] & 2))
			n++;
	}
	pd_buf_release(&k);
	return n;
}

/*
 * Builds often name their binary differently (app-old, app-new). A module
 * seen on one side only is paired with the other side's one-sided module
 * that shares most of its function names, when at least half of the
 * smaller one's functions match.
 */
static void pair_modules(struct pd_diff *d, const struct pd_profile *a,
			 const struct pd_profile *b, struct pd_funcs *fn)
{
	const struct pd_profile *side[2] = { a, b };
	struct pd_intern mods, keys;
	PD_VEC(unsigned char) mbits = PD_VEC_INIT, kbits = PD_VEC_INIT;
	PD_VEC(uint32_t) nfun[2] = { PD_VEC_INIT, PD_VEC_INIT };
	struct pd_buf k = PD_BUF_INIT;
	size_t i, j, s;

	pd_intern_init(&mods);
	pd_intern_init(&keys);
	for (s = 0; s < 2; s++) {
		for (i = 0; i < side[s]->frames.n; i++) {
			size_t ml;
			const char *m = frame_module(side[s], (uint32_t)i, &ml);
			const struct pd_frame *fr = &side[s]->frames.v[i];
			uint32_t mid, kid;

			if (!ml)
				continue;
			mid = pd_intern(&mods, m, ml);
			while (mbits.n <= mid)
				PD_VEC_PUSH(&mbits, 0);
			mbits.v[mid] |= (unsigned char)(1u << s);
			pd_buf_reset(&k);
			pd_buf_add(&k, m, ml);
			pd_buf_addch(&k, 0);
			pd_buf_add(&k, pd_intern_str(&side[s]->strs, fr->name),
				   pd_intern_len(&side[s]->strs, fr->name));
			kid = pd_intern(&keys, k.buf, k.len);
			while (kbits.n <= kid)
				PD_VEC_PUSH(&kbits, 0);
			if (!(kbits.v[kid] & (1u << s))) {
				while (nfun[s].n <= mid)
					PD_VEC_PUSH(&nfun[s], 0);
				nfun[s].v[mid]++;
			}
			kbits.v[kid] |= (unsigned char)(1u << s);
		}
	}
	for (s = 0; s < 2; s++)
		while (nfun[s].n < mods.n)
			PD_VEC_PUSH(&nfun[s], 0);
	for (i = 1; i < mods.n; i++) {
		size_t best = 0, best_common = 0, small;

		if (mbits.v[i] != 1) /* baseline-only modules */
			continue;
		for (j = 1; j < mods.n; j++) {
			size_t c;

			if (mbits.v[j] != 2)
				continue;
			c = common_names(a, pd_intern_str(&mods, (uint32_t)i),
					 pd_intern_str(&mods, (uint32_t)j),
					 &keys, kbits.v);
			if (c > best_common) {
				best_common = c;
				best = j;
			}
		}
		if (!best)
			continue;
		small = nfun[0].v[i] < nfun[1].v[best] ? nfun[0].v[i]
						       : nfun[1].v[best];
		if (best_common * 2 < small)
			continue;
		pd_funcs_alias(fn, pd_intern_str(&mods, (uint32_t)best),
			       pd_intern_str(&mods, (uint32_t)i));
		pd_diff_warn(
		    d,
		    "module %s (candidate) is matched to %s (baseline):"
		    " %zu functions in common",
		    pd_intern_str(&mods, (uint32_t)best),
		    pd_intern_str(&mods, (uint32_t)i), best_common);
		mbits.v[best] = 3;
	}
	pd_buf_release(&k);
	pd_intern_release(&mods);
	pd_intern_release(&keys);
	PD_VEC_FREE(&mbits);
	PD_VEC_FREE(&kbits);
	PD_VEC_FREE(&nfun[0]);
	PD_VEC_FREE(&nfun[1]);
}

static void side_from(struct pd_side *s, const struct pd_profile *p)
{
	memset(s, 0, sizeof(*s));
	s->source = p->source;
	s->format = p->format;
	s->exporter = p->exporter;
	s->event = p->event;
	s->count_rule = p->count_rule;
	s->unit = p->unit;
	s->total = p->total_weight;
	s->samples = p->total_count;
	s->interval = p->interval;
	s->runs = 1;
	s->exact = p->exact;
	s->self_only = p->self_only;
	s->profile = p;
}

/* Matching decisions that need the profiles, then aggregates. */
void pd_side_of_profiles(struct pd_side *s, const struct pd_profile *const *p,
			 size_t n)
{
	size_t i;

	assert(n > 0 && p); /* the side is the mean of its runs */
	side_from(s, p[0]);
	s->runs = (int)n;
	for (i = 1; i < n; i++) {
		s->total += p[i]->total_weight;
		s->samples += p[i]->total_count;
	}
	s->total /= (double)n;
	s->samples /= (double)n;
}

/* What names of p look like: bit 0 argument lists, bit 1 Java 'L'. */
static unsigned name_styles(const struct pd_profile *p)
{
	unsigned st = 0;
	size_t i;

	for (i = 0; i < p->frames.n && st != 3; i++) {
		uint32_t nm = p->frames.v[i].name;
		const char *s = pd_intern_str(&p->strs, nm);
		size_t n = pd_intern_len(&p->strs, nm);

		st |= (unsigned)pd_name_has_args(s, n);
		st |= (unsigned)pd_name_is_java_l(s, n) << 1;
	}
	return st;
}

/*
 * A folded side tidied by a collapser (stackcollapse-perf cuts argument
 * lists and Java's 'L') meets the other side's names tidied alike, when
 * the folded names show no such thing and the others do.
 */
static void tidy_like_folded(struct pd_diff *d,
			     const struct pd_profile *const *a, size_t na,
			     const struct pd_profile *const *b, size_t nb,
			     struct pd_funcs *fn)
{
	unsigned folded = 0, other = 0;
	size_t i;

	for (i = 0; i < na + nb; i++) {
		const struct pd_profile *p = i < na ? a[i] : b[i - na];

		if (p->format && !strcmp(p->format, "folded"))
			folded |= name_styles(p);
		else
			other |= name_styles(p);
	}
	if ((other & 1) && !(folded & 1))
		fn->flags |= PD_FUNCS_NO_ARGS;
	if ((other & 2) && !(folded & 2))
		fn->flags |= PD_FUNCS_NO_JAVA_L;
	if (fn->flags & (PD_FUNCS_NO_ARGS | PD_FUNCS_NO_JAVA_L))
		pd_diff_warn(
		    d,
		    "the folded side's names are tidied as collapsers"
		    " write them (%s%s%s): the other side's are"
		    " matched tidied alike",
		    (fn->flags & PD_FUNCS_NO_ARGS) ? "no argument lists" : "",
		    (fn->flags & PD_FUNCS_NO_ARGS) &&
			    (fn->flags & PD_FUNCS_NO_JAVA_L)
			? ", "
			: "",
		    (fn->flags & PD_FUNCS_NO_JAVA_L)
			? "no leading 'L' in Java names"
			: "");
}

static void prepare(struct pd_diff *d, const struct pd_profile *const *a,
		    size_t na, const struct pd_profile *const *b, size_t nb,
		    struct pd_funcs *fn)
{
	int ma = 1, mb = 1;
	size_t i, j;

	for (i = 0; i < na; i++)
		ma &= a[i]->has_modules;
	for (i = 0; i < nb; i++)
		mb &= b[i]->has_modules;
	for (i = 0; i < na + nb; i++) {
		const struct pd_profile *p = i < na ? a[i] : b[i - na];

		for (j = 0; j < p->notes.n; j++)
			pd_diff_warn(d, "%s: %s",
				     i < na ? "baseline" : "candidate",
				     p->notes.v[j]);
	}
	/*
	 * samply/Firefox profiles weigh by CPU time or by wall clock, one
	 * rule per profile: two rules do not compare. (Other formats' rules
	 * only differ in numbers, such as a folded file's divisor.)
	 */
	for (i = 1; i < na + nb; i++) {
		const struct pd_profile *p = i < na ? a[i] : b[i - na];

		if (a[0]->count_rule && p->count_rule &&
		    !strcmp(a[0]->format, "firefox") &&
		    !strcmp(p->format, "firefox") &&
		    strcmp(a[0]->count_rule, p->count_rule)) {
			pd_diff_warn(d,
				     "the profiles weigh samples differently"
				     " (%s; %s): their times do not compare;"
				     " give both the same --weight",
				     a[0]->count_rule, p->count_rule);
			d->no_verdict = "the profiles weigh samples"
					" differently";
			break;
		}
	}
	for (i = 0; i < na + nb; i++) {
		const char *f = (i < na ? a[i] : b[i - na])->format;

		if (f && !strcmp(f, "folded"))
			fn->flags |= PD_FUNCS_FOLDED_NAMES;
	}
	if (fn->flags & PD_FUNCS_FOLDED_NAMES)
		tidy_like_folded(d, a, na, b, nb, fn);
	if (!(fn->flags & PD_FUNCS_NO_MODULE) && ma != mb) {
		fn->flags |= PD_FUNCS_NO_MODULE;
		d->name_only = 1;
		pd_diff_warn(d,
			     "the %s has no module names: functions are matched"
			     " by name alone",
			     ma ? "candidate" : "baseline");
	}
	if (!(fn->flags & PD_FUNCS_NO_MODULE))
		pair_modules(d, a[0], b[0], fn);
}

/*
 * Two profiles whose common functions hold little of either's time are
 * hardly of one program (or one side lacks symbols): every function then
 * looks added or removed, and that is no finding. Say so, first: 1 when
 * they are such (the verdict is then none, docs/cli.md "no_verdict").
 */
static int shared_warning(struct pd_diff *d, const struct pd_agg *a,
			  const struct pd_agg *b)
{
	double sa = 0, sb = 0, fa = 0, fb = 0;
	size_t i, n = a->n < b->n ? a->n : b->n;

	if (!(a->all_w > 0) || !(b->all_w > 0))
		return 0;
	for (i = 0; i < n; i++) {
		fa += a->self_w[i];
		fb += b->self_w[i];
		if (a->total_w[i] > 0 && b->total_w[i] > 0) {
			sa += a->self_w[i];
			sb += b->self_w[i];
		}
	}
	for (; i < a->n; i++)
		fa += a->self_w[i];
	for (; i < b->n; i++)
		fb += b->self_w[i];
	/* Tables alone (a WPA disk table, perf stat): no function to match. */
	if (!(fa > 0) || !(fb > 0))
		return 0;
	if (!(sa < 0.5 * a->all_w && sb < 0.5 * b->all_w))
		return 0;
	pd_diff_warn(d,
		     "the functions both profiles have hold only %.0f %%"
		     " of the baseline's time and %.0f %% of the"
		     " candidate's: are they of one program, with"
		     " symbols on both sides? (other module names: try"
		     " --no-module)",
		     sa / a->all_w * 100, sb / b->all_w * 100);
	return 1;
}

/* x and y differ (exact weights are compared, not estimates) */
static int differ(double x, double y)
{
	return x < y || x > y;
}

/* Whether two aggregates hold the same weights, function by function. */
static int same_weights(const struct pd_agg *a, const struct pd_agg *b)
{
	size_t i, n = a->n > b->n ? a->n : b->n;

	if (differ(a->all_w, b->all_w) || differ(a->all_c, b->all_c) ||
	    differ(a->sys_w, b->sys_w))
		return 0;
	for (i = 0; i < n; i++) {
		double sa = i < a->n ? a->self_w[i] : 0;
		double sb = i < b->n ? b->self_w[i] : 0;
		double ta = i < a->n ? a->total_w[i] : 0;
		double tb = i < b->n ? b->total_w[i] : 0;

		if (differ(sa, sb) || differ(ta, tb))
			return 0;
	}
	return 1;
}

int pd_diff_profiles(struct pd_diff *d, const struct pd_profile *const *a,
		     size_t na, const struct pd_profile *const *b, size_t nb,
		     struct pd_funcs *fn, const struct pd_settings *set)
{
	struct pd_agg *aa = pd_xcalloc(na + nb, sizeof(*aa));
	struct pd_diff pre;
	struct pd_side sa, sb;
	size_t i;
	int apart;

	assert(na > 0 && nb > 0);
	/* Warnings from matching are collected first, then carried over. */
	pd_diff_begin(&pre, fn, set);
	prepare(&pre, a, na, b, nb, fn);
	for (i = 0; i < na + nb; i++) {
		pd_agg_init(&aa[i]);
		pd_agg_compute(&aa[i], i < na ? a[i] : b[i - na], fn);
	}
	pd_side_of_profiles(&sa, a, na);
	pd_side_of_profiles(&sb, b, nb);
	for (i = 0; i < na + nb; i++)
		(i < na ? &sa : &sb)->system +=
		    aa[i].sys_w / (double)(i < na ? na : nb);
	pd_diff_aggs(d, &sa, aa, na, &sb, aa + na, nb, fn, set, NULL);
	apart = shared_warning(d, &aa[0], &aa[na]);
	d->identical = na == 1 && nb == 1 && aa[0].all_w > 0 &&
		       same_weights(&aa[0], &aa[1]);
	if (na == 1 && nb == 1)
		pd_label_cost_shifts(d, a[0], &aa[0], b[0], &aa[1]);
	pd_diff_add_tables(d, a, na, b, nb);
	d->name_only = pre.name_only;
	d->no_verdict = pre.no_verdict;
	if (apart && !d->no_verdict)
		d->no_verdict = "the profiles have little of their time in"
				" common functions: are they of one program?";
	if (d->no_verdict)
		d->verdict = PD_INCONCLUSIVE;
	/* Matching notes first, in the order they arose. */
	for (i = 0; i < d->warnings.n; i++)
		PD_VEC_PUSH(&pre.warnings, d->warnings.v[i]);
	PD_VEC_FREE(&d->warnings);
	d->warnings = pre.warnings;
	for (i = 0; i < na + nb; i++)
		pd_agg_release(&aa[i]);
	free(aa);
	return 0;
}

int pd_diff_compute(struct pd_diff *d, const struct pd_profile *a,
		    const struct pd_profile *b, struct pd_funcs *fn,
		    const struct pd_settings *set)
{
	return pd_diff_profiles(d, &a, 1, &b, 1, fn, set);
}

/* Whether root frame name r is process name c, maybe with "-PID[/TID]". */
static int names_process(const char *r, size_t rn, const char *c, size_t cn)
{
	size_t i = cn;

	if (rn < cn || memcmp(r, c, cn))
		return 0;
	if (rn == cn)
		return 1;
	if (r[i++] != '-' || i == rn)
		return 0;
	while (i < rn && r[i] >= '0' && r[i] <= '9')
		i++;
	if (i < rn && r[i] == '?') /* stackcollapse --pid: pid unknown */
		i++;
	if (i < rn && r[i] == '/')
		for (i++; i < rn && r[i] >= '0' && r[i] <= '9'; i++)
			;
	return i == rn && r[i - 1] != '/';
}

static int is_folded(const struct pd_profile *p)
{
	return p->format && !strcmp(p->format, "folded");
}

size_t pd_align_process_roots(struct pd_profile *const *ps, size_t n)
{
	size_t changed = 0, i, j, k, t;

	for (i = 0; i < n; i++) {
		struct pd_profile *p = ps[i];
		unsigned char *drop;
		size_t roots = 0, named = 0;

		if (!is_folded(p))
			continue;
		drop = pd_xcalloc(p->frames.n + 1, 1);
		for (k = 1; k < p->nodes.n; k++) {
			uint32_t f = p->nodes.v[k].frame, nm;
			int hit = 0;

			if (p->nodes.v[k].parent != PD_ROOT || drop[f])
				continue;
			roots++;
			nm = p->frames.v[f].name;
			for (j = 0; j < n && !hit; j++) {
				const struct pd_profile *q = ps[j];

				if (is_folded(q))
					continue;
				for (t = 0; t < q->threads.n && !hit; t++) {
					uint32_t c = q->threads.v[t].name;

					hit = names_process(
					    pd_intern_str(&p->strs, nm),
					    pd_intern_len(&p->strs, nm),
					    pd_intern_str(&q->strs, c),
					    pd_intern_len(&q->strs, c));
				}
			}
			if (hit) {
				drop[f] = 1;
				named++;
			}
		}
		if (roots && named == roots) {
			pd_profile_drop_roots(p, drop);
			pd_profile_note(
			    p,
			    "%s: the first frame of every stack is a"
			    " process name, as stackcollapse writes"
			    " it; left out to match the other side's"
			    " functions",
			    p->source ? p->source : "-");
			changed++;
		}
		free(drop);
	}
	return changed;
}
