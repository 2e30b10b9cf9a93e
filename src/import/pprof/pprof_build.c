/*
 * pprof, second half: from the summed stacks to the profile tree. The
 * value index is chosen (--sample-type, default_sample_type, the last),
 * ids are mapped through hash maps (they are arbitrary and sparse), and a
 * location's frames are resolved the first time a stack with weight uses
 * it, so functions only in unused stacks stay out.
 */
#include <stdarg.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/sort.h"
#include "core/xalloc.h"
#include "import/pprof/pprof_int.h"

int pd_pprof_fail(struct pprof_state *s, uint64_t off, const char *fmt, ...)
{
	char what[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return pd_err_set(s->err, PD_EPARSE, "%s: byte %" PRIu64 ": pprof: %s",
			  s->path, off, what);
}

static size_t nstrings(const struct pprof_state *s)
{
	return s->stroff.n ? s->stroff.n - 1 : 0;
}

/* String idx, or NULL (with the error set) when out of range. */
const char *pd_pprof_str(struct pprof_state *s, int64_t idx, size_t *len,
			 uint64_t off, const char *what)
{
	if (idx < 0 || (uint64_t)idx >= nstrings(s)) {
		pd_pprof_fail(s, off,
			      "%s: string index %" PRId64
			      " out of range (the string"
			      " table has %zu entries)",
			      what, idx, nstrings(s));
		return NULL;
	}
	*len = s->stroff.v[idx + 1] - s->stroff.v[idx];
	return s->strs.v + s->stroff.v[idx];
}

int pd_pprof_str_is(struct pprof_state *s, int64_t idx, const char *want)
{
	size_t len;

	if (idx < 0 || (uint64_t)idx >= nstrings(s))
		return 0;
	len = s->stroff.v[idx + 1] - s->stroff.v[idx];
	return len == strlen(want) &&
	       !memcmp(s->strs.v + s->stroff.v[idx], want, len);
}

struct idmap {
	uint64_t *keys;
	uint32_t *vals; /* index + 1, 0 = empty */
	size_t nslots;
};

/* --- dictionaries ------------------------------------------------------ */

static void idmap_release(struct idmap *m)
{
	free(m->keys);
	free(m->vals);
}

/* Builds the map of n records whose id is at *(uint64_t *)(base + i*size). */
static int idmap_build(struct pprof_state *s, struct idmap *m, const void *base,
		       size_t n, size_t size, const char *what)
{
	size_t i;

	m->nslots = 16;
	while (m->nslots < 2 * n)
		m->nslots *= 2;
	m->keys = pd_xcalloc(m->nslots, sizeof(*m->keys));
	m->vals = pd_xcalloc(m->nslots, sizeof(*m->vals));
	for (i = 0; i < n; i++) {
		const char *rec = (const char *)base + i * size;
		uint64_t id, off;
		size_t h;

		memcpy(&id, rec, sizeof(id));
		h = (size_t)pd_hash_u64(id) & (m->nslots - 1);
		while (m->vals[h] && m->keys[h] != id)
			h = (h + 1) & (m->nslots - 1);
		if (m->vals[h]) {
			/* off is each record's last member */
			memcpy(&off, rec + size - sizeof(off), sizeof(off));
			return pd_pprof_fail(
			    s, off, "%s id %" PRIu64 " given twice", what, id);
		}
		m->keys[h] = id;
		m->vals[h] = (uint32_t)(i + 1);
	}
	return 0;
}

/* Index of id, or SIZE_MAX. */
static size_t idmap_get(const struct idmap *m, uint64_t id)
{
	size_t h = (size_t)pd_hash_u64(id) & (m->nslots - 1);

	while (m->vals[h]) {
		if (m->keys[h] == id)
			return m->vals[h] - 1;
		h = (h + 1) & (m->nslots - 1);
	}
	return SIZE_MAX;
}

/* --- from stacks to the profile ----------------------------------------- */

/* A value's unit; counts are samples when the type says "samples". */
static void unit_scale(struct pprof_state *s, int64_t unit, int samples_type,
		       enum pd_unit *u, double *scale)
{
	size_t len = 0;
	const char *name = pd_pprof_str(s, unit, &len, 0, "unit");

	if (name && pd_unit_parse(name, len, u, scale))
		return;
	*u = samples_type ? PD_UNIT_SAMPLES : PD_UNIT_COUNT;
	*scale = 1;
}

/* The value index to use: --sample-type, default_sample_type, the last. */
static int choose(struct pprof_state *s, size_t *out)
{
	const char *want = s->o->sample_type;
	size_t i;

	if (!s->types.n)
		return pd_pprof_fail(s, 0,
				     "no sample_type: the samples' values have"
				     " no meaning");
	if (want) {
		char *end;
		unsigned long k = strtoul(want, &end, 10);

		if (*want && !*end) {
			if (k < s->types.n) {
				*out = k;
				return 0;
			}
		} else {
			for (i = 0; i < s->types.n; i++)
				if (pd_pprof_str_is(s, s->types.v[i].type,
						    want)) {
					*out = i;
					return 0;
				}
		}
		{
			struct pd_buf b = PD_BUF_INIT;

			for (i = 0; i < s->types.n; i++) {
				size_t n;
				const char *t = pd_pprof_str(
				    s, s->types.v[i].type, &n,
				    s->types.v[i].off, "sample_type");

				if (!t) {
					pd_buf_release(&b);
					return -1;
				}
				pd_buf_addf(&b, "%s%.*s", i ? ", " : "", (int)n,
					    t);
			}
			pd_err_set(s->err, PD_EUSAGE,
				   "%s: no sample type '%s' (it has %s)",
				   s->path, want, b.len ? b.buf : "none");
			pd_buf_release(&b);
			return PD_EUSAGE;
		}
	}
	*out = s->types.n - 1;
	if (s->default_type)
		for (i = 0; i < s->types.n; i++)
			if (s->types.v[i].type == s->default_type)
				*out = i;
	return 0;
}

/*
 * Resolves a location's frames, root first, into s->frames, the first time
 * a stack with weight uses it (functions only in unused stacks stay out).
 */
static int resolve_location(struct pprof_state *s, struct pd_profile *p,
			    struct pprof_loc *l, const struct idmap *fm,
			    const struct idmap *mm)
{
	char addr[64];
	size_t k, n;

	{
		uint32_t module = 0;
		size_t mi = l->mapping ? idmap_get(mm, l->mapping) : SIZE_MAX;

		if (l->mapping && mi == SIZE_MAX)
			return pd_pprof_fail(
			    s, l->off,
			    "Location id %" PRIu64
			    " refers to mapping id %" PRIu64
			    ", which the profile does not have",
			    l->id, l->mapping);
		if (mi != SIZE_MAX) {
			const char *m =
			    pd_pprof_str(s, s->maps.v[mi].file, &n,
					 s->maps.v[mi].off, "Mapping.filename");

			if (!m)
				return -1;
			module = pd_intern(&p->strs, m, n);
		}
		l->frame0 = s->frames.n;
		if (!l->nlines) {
			uint64_t a = l->address;
			uint32_t name;

			if (mi != SIZE_MAX)
				a = a - s->maps.v[mi].start +
				    s->maps.v[mi].offset;
			snprintf(addr, sizeof(addr), "0x%" PRIx64, a);
			name = pd_intern_cstr(&p->strs, addr);
			PD_VEC_PUSH(&s->frames,
				    pd_profile_frame(p, name, module));
		}
		for (k = l->nlines; k-- > 0;) {
			uint64_t fid = s->lines.v[l->line0 + k];
			size_t fi = idmap_get(fm, fid);
			const struct pprof_func *fn;
			const char *name;

			if (fi == SIZE_MAX)
				return pd_pprof_fail(
				    s, l->off,
				    "Location id %" PRIu64
				    " has a line in function id %" PRIu64
				    ", which the profile does not have",
				    l->id, fid);
			fn = &s->funcs.v[fi];
			name = pd_pprof_str(s, fn->name, &n, fn->off,
					    "Function.name");
			if (!name)
				return -1;
			if (!n) {
				name = pd_pprof_str(s, fn->sysname, &n, fn->off,
						    "Function.system_name");
				if (!name)
					return -1;
			}
			if (!n) {
				name = "(unknown)";
				n = strlen(name);
			}
			PD_VEC_PUSH(
			    &s->frames,
			    pd_profile_frame(p, pd_intern(&p->strs, name, n),
					     module));
		}
		l->nframes = s->frames.n - l->frame0;
		l->resolved = 1;
		if (module)
			p->has_modules = 1;
	}
	return 0;
}

/* The sample value read (c), the samples/count one (si) and the scale. */
struct pick {
	size_t c, si;
	double scale, per_count;
	const char *tname;
	size_t tlen;
};

/*
 * Chooses the value, names the event "type/unit", and finds how a value
 * becomes sample counts (a samples/count value, else the period). 0 or -1.
 */
static int pick_value(struct pprof_state *s, struct pd_profile *p,
		      struct pick *k)
{
	struct pd_buf b = PD_BUF_INIT;
	const char *uname;
	size_t ulen, i;

	k->si = SIZE_MAX;
	k->per_count = 0;
	if (choose(s, &k->c))
		return -1;
	if (s->nv && s->nv != s->types.n)
		return pd_pprof_fail(
		    s, s->stack_at.v[0],
		    "samples have %zu values but the profile declares"
		    " %zu sample types",
		    s->nv, s->types.n);
	k->tname = pd_pprof_str(s, s->types.v[k->c].type, &k->tlen,
				s->types.v[k->c].off, "sample_type.type");
	uname = pd_pprof_str(s, s->types.v[k->c].unit, &ulen,
			     s->types.v[k->c].off, "sample_type.unit");
	if (!k->tname || !uname)
		return -1;
	/*
	 * The number of events behind each value: samples, or for Go's
	 * mutex and block profiles (delay in ns) the contentions counted.
	 */
	for (i = 0; i < s->types.n; i++)
		if (i != k->c &&
		    (pd_pprof_str_is(s, s->types.v[i].type, "samples") ||
		     pd_pprof_str_is(s, s->types.v[i].type, "contentions")) &&
		    pd_pprof_str_is(s, s->types.v[i].unit, "count") &&
		    (k->si == SIZE_MAX ||
		     pd_pprof_str_is(s, s->types.v[i].type, "samples")))
			k->si = i;
	unit_scale(s, s->types.v[k->c].unit,
		   pd_pprof_str_is(s, s->types.v[k->c].type, "samples"),
		   &p->unit, &k->scale);
	pd_buf_addf(&b, "%.*s/%.*s", (int)k->tlen, k->tname, (int)ulen, uname);
	free(p->event);
	p->event = pd_buf_detach(&b);
	if (s->period > 0 && s->period_type.unit == s->types.v[k->c].unit &&
	    s->period_type.unit) {
		p->interval = (double)s->period * k->scale;
		if (k->si == SIZE_MAX)
			k->per_count = (double)s->period;
	}
	return 0;
}

/* Stack i's location ids, leaf first (unaligned bytes), and their count. */
static const unsigned char *stack_ids(const struct pprof_state *s, size_t i,
				      size_t *nids)
{
	*nids = pd_intern_len(&s->stacks, (uint32_t)i) / 8;
	return (const unsigned char *)pd_intern_str(&s->stacks, (uint32_t)i);
}

static uint64_t id_at(const unsigned char *ids, size_t j)
{
	uint64_t id;

	memcpy(&id, ids + 8 * j, sizeof(id));
	return id;
}

/*
 * Checks and resolves stack i's locations, root first: a location's frames
 * are made the first time a stack with weight uses it, in the samples'
 * order, so the frames' order is the profile's.
 */
static int resolve_stack(struct pprof_state *s, struct pd_profile *p, size_t i,
			 struct idmap *fm, struct idmap *mm, struct idmap *lm)
{
	size_t nids, j, li;
	const unsigned char *ids = stack_ids(s, i, &nids);

	for (j = nids; j-- > 0;) {
		li = idmap_get(lm, id_at(ids, j));
		if (li == SIZE_MAX)
			return pd_pprof_fail(
			    s, s->stack_at.v[i],
			    "Sample refers to location id %" PRIu64
			    ", which the profile does not have",
			    id_at(ids, j));
		if (!s->locs.v[li].resolved &&
		    resolve_location(s, p, &s->locs.v[li], fm, mm))
			return -1;
	}
	return 0;
}

/* The stacks, for the sort below (one import at a time per thread). */
static _Thread_local const struct pprof_state *sort_state;

/* Root first, as on the tree: a stack sorts right after its prefixes. */
static int cmp_root_first(const void *x, const void *y)
{
	size_t na, nb, k;
	const unsigned char *a =
	    stack_ids(sort_state, *(const uint32_t *)x, &na);
	const unsigned char *b =
	    stack_ids(sort_state, *(const uint32_t *)y, &nb);

	for (k = 0; k < na && k < nb; k++) {
		uint64_t u = id_at(a, na - 1 - k), v = id_at(b, nb - 1 - k);

		if (u != v)
			return u < v ? -1 : 1;
	}
	return na < nb ? -1 : na > nb;
}

/*
 * The stacks' nodes on the tree, node_of[i] for stack i. Go merges equal
 * stacks, so a profile holds a million different ones, most sharing all
 * but their last frames: taken in root-first order, each starts from the
 * node where it parts from the one before instead of from the root (the
 * tree look-ups were half of the import).
 */
static void build_nodes(struct pprof_state *s, struct pd_profile *p,
			uint32_t *order, size_t m, struct idmap *lm,
			uint32_t *node_of)
{
	PD_VEC(uint32_t) path = PD_VEC_INIT; /* node after each location */
	const unsigned char *prev = NULL;
	size_t pn = 0, r;

	sort_state = s;
	pd_sort(order, m, sizeof(*order), cmp_root_first);
	for (r = 0; r < m; r++) {
		size_t nids, d = 0, k;
		const unsigned char *ids = stack_ids(s, order[r], &nids);
		uint32_t node;

		while (d < nids && d < pn &&
		       id_at(ids, nids - 1 - d) == id_at(prev, pn - 1 - d))
			d++;
		path.n = d;
		node = d ? path.v[d - 1] : PD_ROOT;
		for (; d < nids; d++) {
			const struct pprof_loc *l =
			    &s->locs.v[idmap_get(lm, id_at(ids, nids - 1 - d))];

			for (k = 0; k < l->nframes; k++)
				node = pd_profile_child(
				    p, node, s->frames.v[l->frame0 + k]);
			PD_VEC_PUSH(&path, node);
		}
		node_of[order[r]] = node;
		prev = ids;
		pn = nids;
	}
	PD_VEC_FREE(&path);
}

/* How the sample counts were had, and the notes. */
static void pprof_notes(struct pprof_state *s, struct pd_profile *p,
			const struct pick *k)
{
	if (s->o->sample_weight > 0) {
		pd_counts_from_weights(p, s->o->sample_weight, "the values");
	} else if (k->si != SIZE_MAX) {
		struct pd_buf b = PD_BUF_INIT;
		size_t n;
		const char *t =
		    pd_pprof_str(s, s->types.v[k->si].type, &n,
				 s->types.v[k->si].off, "sample_type.type");

		pd_buf_addf(&b, "sample counts = the %.*s/count values",
			    (int)(t ? n : 0), t ? t : "");
		free(p->count_rule);
		p->count_rule = pd_buf_detach(&b);
	} else if (k->per_count > 0) {
		struct pd_buf b = PD_BUF_INIT;

		pd_buf_addf(&b,
			    "sample counts = %.*s / %" PRId64 " (the period)",
			    (int)k->tlen, k->tname, s->period);
		free(p->count_rule);
		p->count_rule = pd_buf_detach(&b);
	} else {
		pd_counts_from_weights(p, 0, "the values");
	}
	if (s->nempty)
		pd_profile_note(p,
				"%" PRIu64 " samples without locations left"
				" out",
				s->nempty);
	if (s->ndrop)
		pd_profile_note(p, "the profile asks to hide frames"
				   " (drop_frames); perfdiff keeps them all,"
				   " as pprof -all_frames does");
}

int pd_pprof_build(struct pprof_state *s, struct pd_profile *p)
{
	struct idmap fm = { 0 }, mm = { 0 }, lm = { 0 };
	struct pick k;
	size_t i, n, m = 0;
	uint32_t *node_of = NULL, *order = NULL;
	int rc = -1;

	if (!s->stroff.n)
		return pd_pprof_fail(s, s->off + s->len,
				     "no string table: not a pprof"
				     " profile, or truncated");
	if (pick_value(s, p, &k))
		return -1;
	if (s->nnegative)
		return pd_pprof_fail(
		    s, s->negative_at,
		    "%" PRIu64 " negative sample values: this looks"
		    " like a pprof -diff_base or -base result; give"
		    " perfdiff the two profiles instead",
		    s->nnegative);
	if (idmap_build(s, &fm, s->funcs.v, s->funcs.n, sizeof(*s->funcs.v),
			"Function") ||
	    idmap_build(s, &mm, s->maps.v, s->maps.n, sizeof(*s->maps.v),
			"Mapping") ||
	    idmap_build(s, &lm, s->locs.v, s->locs.n, sizeof(*s->locs.v),
			"Location"))
		goto out;
	n = s->nv ? s->vals.n / s->nv : 0;
	node_of = pd_xcalloc(n + 1, sizeof(*node_of));
	order = pd_xmalloc((n + 1) * sizeof(*order));
	for (i = 1; i < n; i++) {
		if (!(s->vals.v[i * s->nv + k.c] > 0))
			continue;
		if (resolve_stack(s, p, i, &fm, &mm, &lm))
			goto out;
		order[m++] = (uint32_t)i;
	}
	build_nodes(s, p, order, m, &lm, node_of);
	for (i = 1; i < n; i++) {
		const double *v = s->vals.v + i * s->nv;
		double cnt;

		if (!(v[k.c] > 0))
			continue;
		if (k.si != SIZE_MAX)
			cnt = v[k.si];
		else if (k.per_count > 0)
			cnt = v[k.c] / k.per_count;
		else
			cnt = 0;
		pd_profile_add(p, node_of[i], v[k.c] * k.scale, cnt);
		if (k.si != SIZE_MAX)
			p->nsamples += (uint64_t)v[k.si];
	}
	if (k.si == SIZE_MAX)
		p->nsamples = s->nsample_msgs;
	pprof_notes(s, p, &k);
	rc = 0;
out:
	free(node_of);
	free(order);
	idmap_release(&fm);
	idmap_release(&mm);
	idmap_release(&lm);
	return rc;
}
