/*
 * Profile storage. The stack tree is a prefix tree keyed by (parent, frame)
 * in an open-addressing table; children always get larger indices than their
 * parents, which the aggregation in func.c relies on.
 */
#include <assert.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/limits.h"
#include "core/buf.h"
#include "core/xalloc.h"
#include "model/profile.h"

static uint64_t node_key(uint32_t parent, uint32_t frame)
{
	return (uint64_t)parent << 32 | frame;
}

void pd_profile_init(struct pd_profile *p)
{
	struct pd_node root = { PD_ROOT, PD_NO_FRAME, 0, 0 };

	memset(p, 0, sizeof(*p));
	pd_intern_init(&p->strs);
	p->strs.text = 1;
	PD_VEC_PUSH(&p->nodes, root);
	p->unit = PD_UNIT_SAMPLES;
}

void pd_profile_add_waits(struct pd_profile *p, uint32_t frame, double n)
{
	size_t have = p->frame_waits ? p->frame_waits_n : 0, i;

	assert(frame < p->frames.n);
	if (frame >= have) {
		p->frame_waits = pd_xreallocarray(p->frame_waits, p->frames.n,
						  sizeof(*p->frame_waits));
		for (i = have; i < p->frames.n; i++)
			p->frame_waits[i] = 0;
		p->frame_waits_n = p->frames.n;
	}
	p->frame_waits[frame] += n;
}

void pd_profile_release(struct pd_profile *p)
{
	size_t i;

	pd_intern_release(&p->strs);
	PD_VEC_FREE(&p->frames);
	PD_VEC_FREE(&p->nodes);
	free(p->frame_slots);
	free(p->node_slots);
	free(p->lc_frame);
	free(p->lc_child);
	free(p->source);
	free(p->exporter);
	free(p->event);
	free(p->count_rule);
	free(p->frame_waits);
	PD_VEC_FREE(&p->threads);
	for (i = 0; i < p->notes.n; i++)
		free(p->notes.v[i]);
	PD_VEC_FREE(&p->notes);
	for (i = 0; i < p->tables.n; i++) {
		struct pd_mtable *t = p->tables.v[i];
		size_t k;

		for (k = 0; k < t->keys.n; k++)
			free(t->keys.v[k]);
		for (k = 0; k < t->measures.n; k++)
			free(t->measures.v[k]);
		PD_VEC_FREE(&t->keys);
		PD_VEC_FREE(&t->measures);
		PD_VEC_FREE(&t->count_like);
		PD_VEC_FREE(&t->values);
		PD_VEC_FREE(&t->rse);
		PD_VEC_FREE(&t->up);
		pd_intern_release(&t->rowkeys);
		free(t->name);
		free(t);
	}
	PD_VEC_FREE(&p->tables);
	pd_blocks_release(&p->blk);
	memset(p, 0, sizeof(*p));
}

static uint32_t *grow_slots(uint32_t *slots, size_t *nslots, size_t n,
			    uint64_t (*key)(const struct pd_profile *,
					    uint32_t),
			    const struct pd_profile *p)
{
	size_t ns = *nslots ? *nslots * 2 : 4096;
	uint32_t *s = pd_xcalloc(ns, sizeof(*s));
	size_t i;

	for (i = 0; i < n; i++) {
		size_t j = pd_hash_u64(key(p, (uint32_t)i)) & (ns - 1);

		while (s[j])
			j = (j + 1) & (ns - 1);
		s[j] = (uint32_t)i + 1;
	}
	free(slots);
	*nslots = ns;
	return s;
}

static uint64_t frame_key_at(const struct pd_profile *p, uint32_t i)
{
	return (uint64_t)p->frames.v[i].name << 32 | p->frames.v[i].module;
}

static uint64_t node_key_at(const struct pd_profile *p, uint32_t i)
{
	if (i == PD_ROOT) /* the root is not in the table: unreachable key */
		return UINT64_MAX;
	return node_key(p->nodes.v[i].parent, p->nodes.v[i].frame);
}

uint32_t pd_profile_frame(struct pd_profile *p, uint32_t name, uint32_t module)
{
	uint64_t k = (uint64_t)name << 32 | module;
	struct pd_frame f;
	size_t j;

	/* string ids of this profile's own table */
	assert(name < p->strs.n && module < p->strs.n);
	if ((p->frames.n + 1) * 2 > p->frame_nslots)
		p->frame_slots = grow_slots(p->frame_slots, &p->frame_nslots,
					    p->frames.n, frame_key_at, p);
	for (j = pd_hash_u64(k) & (p->frame_nslots - 1); p->frame_slots[j];
	     j = (j + 1) & (p->frame_nslots - 1)) {
		uint32_t id = p->frame_slots[j] - 1;

		if (p->frames.v[id].name == name &&
		    p->frames.v[id].module == module)
			return id;
	}
	f.name = name;
	f.module = module;
	if (module)
		p->has_modules = 1;
	PD_VEC_PUSH(&p->frames, f);
	p->frame_slots[j] = (uint32_t)p->frames.n;
	return (uint32_t)p->frames.n - 1;
}

static uint32_t child_lookup(struct pd_profile *p, uint32_t parent,
			     uint32_t frame, uint64_t k)
{
	struct pd_node n;
	size_t j;

	if ((p->nodes.n + 1) * 2 > p->node_nslots)
		p->node_slots = grow_slots(p->node_slots, &p->node_nslots,
					   p->nodes.n, node_key_at, p);
	for (j = pd_hash_u64(k) & (p->node_nslots - 1); p->node_slots[j];
	     j = (j + 1) & (p->node_nslots - 1)) {
		uint32_t id = p->node_slots[j] - 1;

		if (p->nodes.v[id].parent == parent &&
		    p->nodes.v[id].frame == frame)
			return id;
	}
	if (p->node_cap && p->nodes.n >= p->node_cap) {
		p->nodes_over = 1;
		return parent;
	}
	if (p->nodes.n >= PD_LIMIT_IDS)
		pd_die_limit(PD_LIMIT_IDS, "stack-tree nodes", "PD_LIMIT_IDS");
	n.parent = parent;
	n.frame = frame;
	n.weight = 0;
	n.count = 0;
	PD_VEC_PUSH(&p->nodes, n);
	p->node_slots[j] = (uint32_t)p->nodes.n;
	return (uint32_t)p->nodes.n - 1;
}

uint32_t pd_profile_child(struct pd_profile *p, uint32_t parent, uint32_t frame)
{
	uint64_t k = node_key(parent, frame);
	uint32_t id;

	/*
	 * The tree's invariant (debug builds): a real parent. (Frames are
	 * not checked: importers build provisional trees whose frames are
	 * their own indices, speedscope's PROFILE_ROOT marks among them.)
	 */
	assert(parent < p->nodes.n);
	if (parent < p->lc_cap && p->lc_frame[parent] == frame)
		return p->lc_child[parent];
	id = child_lookup(p, parent, frame, k);
	if (parent >= p->lc_cap) {
		size_t cap = p->lc_cap ? p->lc_cap : 1024, old = p->lc_cap;

		while (cap <= parent)
			cap *= 2;
		p->lc_frame =
		    pd_xreallocarray(p->lc_frame, cap, sizeof(*p->lc_frame));
		p->lc_child =
		    pd_xreallocarray(p->lc_child, cap, sizeof(*p->lc_child));
		memset(p->lc_frame + old, 0xff, (cap - old) * sizeof(uint32_t));
		p->lc_cap = cap;
	}
	p->lc_frame[parent] = frame;
	p->lc_child[parent] = id;
	return id;
}

void pd_profile_note(struct pd_profile *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	PD_VEC_PUSH(&p->notes, pd_vstrf(fmt, ap));
	va_end(ap);
}

uint32_t pd_profile_thread_root(struct pd_profile *p, const char *name,
				size_t len)
{
	/* a module no real frame has: a control character leads it */
	if (!p->thread_module)
		p->thread_module = pd_intern_cstr(&p->strs, "\001thread");
	return pd_profile_child(p, PD_ROOT,
				pd_profile_frame(p,
						 pd_intern(&p->strs, name, len),
						 p->thread_module));
}

void pd_profile_thread(struct pd_profile *p, const char *name, size_t len,
		       double weight)
{
	uint32_t id = pd_intern(&p->strs, name, len);
	struct pd_thread_info t;
	size_t i;

	for (i = 0; i < p->threads.n; i++) {
		if (p->threads.v[i].name == id) {
			p->threads.v[i].weight += weight;
			return;
		}
	}
	t.name = id;
	t.weight = weight;
	PD_VEC_PUSH(&p->threads, t);
}

/*
 * Leaves p with a root alone, its node lookups emptied, its time blocks
 * without rows; the caller owns the old nodes and blocks (taken before)
 * and replays them.
 */
static void restart_tree(struct pd_profile *p)
{
	struct pd_node root = { PD_ROOT, PD_NO_FRAME, 0, 0 };
	struct pd_blocks oldb = p->blk;

	p->nodes.v = NULL;
	p->nodes.n = p->nodes.cap = 0;
	free(p->node_slots);
	free(p->lc_frame);
	free(p->lc_child);
	p->node_slots = p->lc_frame = p->lc_child = NULL;
	p->node_nslots = p->lc_cap = 0;
	PD_VEC_PUSH(&p->nodes, root);
	pd_blocks_restart(&p->blk, &oldb);
}

/*
 * Replays the tree, parents first: a frame with a chain (len[f] > 0)
 * becomes those frames, a root frame marked in drop goes, its children
 * becoming roots and its own weight staying at the root.
 */
static void replay(struct pd_profile *p, size_t nframes, const uint32_t *start,
		   const uint32_t *len, const uint32_t *chain,
		   const unsigned char *drop)
{
	struct pd_node *old = p->nodes.v;
	size_t n = p->nodes.n, i;
	uint32_t *to = pd_xmalloc(n * sizeof(*to));
	struct pd_blocks oldb = p->blk;

	restart_tree(p);
	to[0] = PD_ROOT;
	pd_blocks_carry(&p->blk, &oldb, PD_ROOT, PD_ROOT);
	p->nodes.v[0].weight = old[0].weight;
	p->nodes.v[0].count = old[0].count;
	for (i = 1; i < n; i++) {
		uint32_t f, at, k;

		/* parents first, or to[] is read before it is set */
		assert(old[i].parent < i);
		f = old[i].frame;
		at = to[old[i].parent];

		if (drop && old[i].parent == PD_ROOT && drop[f])
			at = PD_ROOT; /* its own samples: in no function */
		else if (len && f < nframes && len[f])
			for (k = 0; k < len[f]; k++)
				at = pd_profile_child(p, at,
						      chain[start[f] + k]);
		else
			at = pd_profile_child(p, at, f);
		to[i] = at;
		pd_profile_add(p, at, old[i].weight, old[i].count);
		pd_blocks_carry(&p->blk, &oldb, (uint32_t)i, at);
	}
	pd_blocks_release(&oldb);
	free(old);
	free(to);
}

void pd_profile_expand(struct pd_profile *p, size_t nframes,
		       const uint32_t *start, const uint32_t *len,
		       const uint32_t *chain)
{
	replay(p, nframes, start, len, chain, NULL);
}

void pd_profile_drop_roots(struct pd_profile *p, const unsigned char *drop)
{
	replay(p, 0, NULL, NULL, NULL, drop);
}

void pd_profile_filter(struct pd_profile *p, const unsigned char *focus,
		       const unsigned char *ignore, const unsigned char *hide)
{
	struct pd_node *old = p->nodes.v;
	size_t n = p->nodes.n, i;
	unsigned char *on = pd_xcalloc(n, 1); /* 1 focus, 2 ignore on path */
	double *keep = pd_xcalloc(n, sizeof(*keep));
	uint32_t *to = pd_xmalloc(n * sizeof(*to));
	struct pd_blocks oldb = p->blk;

	/* What each node's own samples carry on their stack, parents first. */
	for (i = 1; i < n; i++) {
		uint32_t f = old[i].frame;

		/* the marks have one entry a frame */
		assert(old[i].parent < i && f < p->frames.n);
		on[i] = on[old[i].parent];
		if (focus && focus[f])
			on[i] |= 1;
		if (ignore && ignore[f])
			on[i] |= 2;
	}
	/* Kept samples below each node, children first. */
	for (i = n; i-- > 1;) {
		if ((!focus || (on[i] & 1)) && !(on[i] & 2) &&
		    (old[i].weight > 0 || old[i].weight < 0 ||
		     old[i].count > 0))
			keep[i] += 1;
		if (keep[i] > 0)
			keep[old[i].parent] += keep[i];
	}
	restart_tree(p);
	to[0] = PD_ROOT;
	if (!focus && !ignore) {
		p->nodes.v[0].weight = old[0].weight;
		p->nodes.v[0].count = old[0].count;
		pd_blocks_carry(&p->blk, &oldb, PD_ROOT, PD_ROOT);
	}
	for (i = 1; i < n; i++) {
		uint32_t f = old[i].frame;

		if (!(keep[i] > 0))
			continue; /* nothing kept here or below */
		to[i] = hide && hide[f]
			    ? to[old[i].parent]
			    : pd_profile_child(p, to[old[i].parent], f);
		if ((!focus || (on[i] & 1)) && !(on[i] & 2)) {
			pd_profile_add(p, to[i], old[i].weight, old[i].count);
			pd_blocks_carry(&p->blk, &oldb, (uint32_t)i, to[i]);
		}
	}
	pd_blocks_release(&oldb);
	free(old);
	free(on);
	free(keep);
	free(to);
}

void pd_profile_merge(struct pd_profile *dst, const struct pd_profile *src,
		      double scale, uint32_t **nodes)
{
	uint32_t *smap = pd_xmalloc((src->strs.n + 1) * sizeof(*smap));
	uint32_t *fmap = pd_xmalloc((src->frames.n + 1) * sizeof(*fmap));
	uint32_t *to = pd_xmalloc((src->nodes.n + 1) * sizeof(*to));
	size_t i;

	assert(src->nodes.n > 0 && dst->nodes.n > 0); /* both have a root */
	assert(scale > 0); /* a mean's share: a NaN would pass every weight */
	if (!dst->format) {
		dst->format = src->format;
		dst->unit = src->unit;
		dst->interval = src->interval;
	}
	/* strings in src's order: new ones get the ids one import gives */
	for (i = 0; i < src->strs.n; i++)
		smap[i] = pd_intern(&dst->strs,
				    pd_intern_str(&src->strs, (uint32_t)i),
				    pd_intern_len(&src->strs, (uint32_t)i));
	if (src->thread_module)
		dst->thread_module = smap[src->thread_module];
	for (i = 0; i < src->frames.n; i++)
		fmap[i] = pd_profile_frame(dst, smap[src->frames.v[i].name],
					   smap[src->frames.v[i].module]);
	for (i = 0; i < src->frame_waits_n; i++) /* as the counts, scaled */
		if (src->frame_waits[i] > 0)
			pd_profile_add_waits(dst, fmap[i],
					     src->frame_waits[i] * scale);
	to[0] = PD_ROOT;
	pd_profile_add(dst, PD_ROOT, src->nodes.v[0].weight * scale,
		       src->nodes.v[0].count * scale);
	for (i = 1; i < src->nodes.n; i++) {
		const struct pd_node *nd = &src->nodes.v[i];

		/* parents first, frames of src: to[] and fmap[] are set */
		assert(nd->parent < i && nd->frame < src->frames.n);
		to[i] = pd_profile_child(dst, to[nd->parent], fmap[nd->frame]);
		pd_profile_add(dst, to[i], nd->weight * scale,
			       nd->count * scale);
	}
	free(smap);
	free(fmap);
	if (nodes)
		*nodes = to;
	else
		free(to);
}

void pd_profile_finish(struct pd_profile *p)
{
	size_t i;

	p->total_weight = 0;
	p->total_count = 0;
	for (i = 0; i < p->nodes.n; i++) {
		p->total_weight += p->nodes.v[i].weight;
		p->total_count += p->nodes.v[i].count;
	}
}

const char *pd_unit_name(enum pd_unit u)
{
	switch (u) {
	case PD_UNIT_SAMPLES:
		return "samples";
	case PD_UNIT_NS:
		return "ns";
	case PD_UNIT_BYTES:
		return "bytes";
	case PD_UNIT_COUNT:
		return "count";
	}
	return "count";
}

struct pd_mtable *pd_mtable_new(struct pd_profile *p, const char *name)
{
	struct pd_mtable *t = pd_xcalloc(1, sizeof(*t));

	t->name = pd_xstrdup(name);
	pd_intern_init(&t->rowkeys);
	PD_VEC_PUSH(&p->tables, t);
	return t;
}

void pd_mtable_add(struct pd_mtable *t, const char *key, size_t klen,
		   const double *values)
{
	uint32_t id = pd_intern(&t->rowkeys, key, klen);
	size_t m = t->measures.n, i;

	/* id 0 is the empty string: rows are id - 1 with key "" as id 0 too */
	while (t->values.n < ((size_t)id + 1) * m)
		PD_VEC_PUSH(&t->values, 0.0);
	for (i = 0; i < m; i++)
		t->values.v[(size_t)id * m + i] += values[i];
	t->rows_in++;
}

void pd_mtable_set_rse(struct pd_mtable *t, const char *key, size_t klen,
		       const double *rse, int higher_is_better)
{
	uint32_t id = pd_intern(&t->rowkeys, key, klen);
	size_t m = t->measures.n, i;

	while (t->rse.n < ((size_t)id + 1) * m)
		PD_VEC_PUSH(&t->rse, -1.0);
	while (t->up.n <= id)
		PD_VEC_PUSH(&t->up, 0);
	for (i = 0; i < m; i++)
		t->rse.v[(size_t)id * m + i] = rse[i];
	t->up.v[id] = (unsigned char)(higher_is_better != 0);
}

double pd_mtable_rse(const struct pd_mtable *t, const char *key, size_t m)
{
	uint32_t id = pd_intern_find(&t->rowkeys, key, strlen(key));
	size_t at = (size_t)id * t->measures.n + m;

	if (id == UINT32_MAX || at >= t->rse.n)
		return -1;
	return t->rse.v[at];
}

void pd_mtable_key_text(struct pd_buf *b, const char *key)
{
	for (; *key; key++) {
		if (*key == '\t') {
			if (key[1] && key[1] != '\t')
				pd_buf_adds(b, " / ");
		} else {
			pd_buf_addch(b,
				     (unsigned char)*key < 0x20 ? '?' : *key);
		}
	}
}

int pd_counter_up(const char *event)
{
	return !strncmp(event, "IPC", 3);
}

int pd_unit_parse(const char *name, size_t len, enum pd_unit *u, double *scale)
{
	static const struct {
		const char *name;
		enum pd_unit u;
		double scale;
	} units[] = {
		{ "nanoseconds", PD_UNIT_NS, 1 },
		{ "microseconds", PD_UNIT_NS, 1e3 },
		{ "milliseconds", PD_UNIT_NS, 1e6 },
		{ "seconds", PD_UNIT_NS, 1e9 },
		{ "bytes", PD_UNIT_BYTES, 1 },
		{ "kilobytes", PD_UNIT_BYTES, 1024 },
		{ "megabytes", PD_UNIT_BYTES, 1024 * 1024 },
	};
	size_t i;

	for (i = 0; i < PD_ARRAY_SIZE(units); i++)
		if (strlen(units[i].name) == len &&
		    !memcmp(units[i].name, name, len)) {
			*u = units[i].u;
			*scale = units[i].scale;
			return 1;
		}
	return 0;
}
