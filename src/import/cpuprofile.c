/*
 * Chrome / Node .cpuprofile (docs/formats.md), streamed with yajl: the
 * DevTools shape {nodes, samples, timeDeltas, startTime, endTime} and the
 * old V8 shape {head: nested tree, samples, timestamps, startTime and
 * endTime in seconds}.
 *
 * Keys come in any order, so nodes, samples and times are joined at the
 * end. Weights are summed per leaf node as the second of the two arrays
 * (samples, timeDeltas) streams by: only the first is kept, 4 bytes a
 * sample when samples come first as Chrome and node write them, 8 when
 * timeDeltas do. The old form keeps both (it is small and rare).
 *
 * A sample weighs the time to the next sample (the last one the time to
 * endTime, else the mean); hitCount is not used, as it does not always add
 * up to the samples. (root) is the stack's base and not a frame; (idle)
 * samples are not the program's work and are left out with a note;
 * (program) and (garbage collector) stay as functions of their own.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl_parse.h>

#include "core/limits.h"
#include "core/buf.h"
#include "core/sort.h"
#include "core/xalloc.h"
#include "import/formats.h"
#include "import/json.h"

#define MAX_DEPTH PD_LIMIT_CALL_DEPTH
#define SMALL_ID (1u << 20) /* ids below map to slots through an array */

enum ctx {
	C_TOP,
	C_NODES,    /* array of node maps */
	C_NODE,	    /* a node map */
	C_FRAME,    /* its callFrame */
	C_CHILDREN, /* ids (DevTools) or node maps (old V8) */
	C_SAMPLES,
	C_DELTAS,
	C_STAMPS,
	C_SKIP,
};

struct level {
	struct pd_json_step j; /* first: the walk reads it */
	enum ctx c;
	size_t node; /* C_NODE, C_FRAME, C_CHILDREN: its node */
};

struct cnode {
	long long id, parent_id; /* parent_id -1: not given */
	size_t parent;		 /* index, SIZE_MAX until known */
	uint32_t name, url;	 /* string ids, 0 = none */
	long long line;		 /* 0-based, -1 unknown */
	int has_id;
};

struct edge {
	long long parent, child;
};

struct idx {
	long long id;
	size_t at;
};

struct cp {
	struct pd_profile *p;
	struct pd_input *in;
	struct pd_err *err;
	struct level *lv;
	struct pd_json_walk w;
	int old;
	PD_VEC(struct cnode) nodes;
	PD_VEC(struct edge) edges;
	PD_VEC(uint32_t) samples; /* kept until the times stream by */
	PD_VEC(double) times; /* deltas (DevTools) or timestamps (old), us */
	/* DevTools: weights summed per leaf node id as the arrays join */
	struct pd_intern leaves;       /* decimal node id -> slot */
	PD_VEC(double) leaf_w, leaf_n; /* per slot, us and samples */
	struct pd_blocks leaf_blk;     /* per slot, samples by time */
	double t_at;		       /* time of the sample last added */
	PD_VEC(size_t) leaf_at;	       /* per slot, its first sample */
	PD_VEC(uint32_t) small;	       /* id < SMALL_ID -> slot, 0 unknown */
	size_t nsamples, ndeltas;      /* elements seen */
	double rel;		       /* sum of deltas so far */
	double gaps;		       /* sum of deltas after the first */
	int done_samples, done_deltas;
	uint32_t last_leaf;
	int have_nodes, have_samples, have_times;
	double start, end;
	int have_start, have_end;
};

static int fail(struct cp *s, const char *what)
{
	return pd_json_walk_fail(&s->w, what);
}

static struct level *top(struct cp *s)
{
	return &s->lv[s->w.depth];
}

static int is_key(const struct level *l, const char *k)
{
	return l->j.is_map && !strcmp(l->j.key, k);
}

/* A new node, child of parent (SIZE_MAX for none). */
static size_t new_node(struct cp *s, size_t parent)
{
	struct cnode n;

	memset(&n, 0, sizeof(n));
	n.parent_id = -1;
	n.parent = parent;
	n.line = -1;
	PD_VEC_PUSH(&s->nodes, n);
	return s->nodes.n - 1;
}

/*
 * Adds sample number at, of leaf node id, to its sums: us microseconds
 * long, at time t (us; NAN unknown) for the time blocks.
 */
static void add_leaf(struct cp *s, uint32_t id, double us, size_t at, double t)
{
	char key[16];
	uint32_t slot;

	/* node ids are small and dense in practice: skip the hashing */
	if (id < SMALL_ID && id < s->small.n && s->small.v[id]) {
		slot = s->small.v[id];
	} else {
		int n = snprintf(key, sizeof(key), "%u", id);

		slot = pd_intern(&s->leaves, key, (size_t)n);
		if (id < SMALL_ID) {
			while (s->small.n <= id)
				PD_VEC_PUSH(&s->small, 0);
			s->small.v[id] = slot;
		}
	}

	while (s->leaf_w.n <= slot) {
		PD_VEC_PUSH(&s->leaf_w, 0);
		PD_VEC_PUSH(&s->leaf_n, 0);
		PD_VEC_PUSH(&s->leaf_at, at);
	}
	s->leaf_w.v[slot] += us > 0 ? us : 0; /* out-of-order: clamped */
	s->leaf_n.v[slot] += 1;
	pd_blocks_add(&s->leaf_blk, slot, t, 1);
}

/*
 * Every scalar: counted in its array. Returns the level to read it in, or
 * NULL when it is skipped (*rc 1) or wrong here (*rc 0, error recorded).
 */
static struct level *scalar_at(struct cp *s, int *rc)
{
	*rc = 1;
	if (s->w.skip)
		return NULL;
	if (s->w.depth < 0) {
		*rc = fail(s, "JSON of an unknown shape (not an object)");
		return NULL;
	}
	pd_json_walk_value(&s->w);
	return top(s);
}

static int on_number(void *arg, double v, int integral)
{
	struct cp *s = arg;
	int rc;
	struct level *l = scalar_at(s, &rc);

	if (!l)
		return rc;
	switch (l->c) {
	case C_TOP:
		if (is_key(l, "startTime")) {
			s->start = v;
			s->have_start = 1;
		} else if (is_key(l, "endTime")) {
			s->end = v;
			s->have_end = 1;
		}
		return 1;
	case C_NODE:
	case C_FRAME: {
		struct cnode *n = &s->nodes.v[l->node];

		if (is_key(l, "id") && l->c == C_NODE) {
			if (!integral)
				return fail(s, "a node id must be an integer");
			n->id = (long long)v;
			n->has_id = 1;
		} else if (is_key(l, "parent") && l->c == C_NODE) {
			if (!integral || v < 0)
				return fail(s,
					    "a parent id must be an integer");
			n->parent_id = (long long)v;
		} else if (is_key(l, "lineNumber")) {
			n->line = integral ? (long long)v : -1;
		}
		return 1;
	}
	case C_CHILDREN: {
		struct edge e;

		if (!integral)
			return fail(s, "a child id must be an integer");
		if (!s->nodes.v[l->node].has_id)
			return fail(s, "\"children\" before the node's \"id\"");
		e.parent = s->nodes.v[l->node].id;
		e.child = (long long)v;
		PD_VEC_PUSH(&s->edges, e);
		return 1;
	}
	case C_SAMPLES:
		if (!integral || v < 0 || v > 4294967295.0)
			return fail(s, "a sample must be a node id");
		if (s->old || !s->done_deltas) {
			PD_VEC_PUSH(&s->samples, (uint32_t)v);
			return 1;
		}
		/* timeDeltas came first: sample k lasts delta k + 1 */
		if (s->nsamples + 1 < s->times.n) {
			/* sample k comes at the sum of deltas 0 .. k */
			s->t_at += s->times.v[s->nsamples];
			add_leaf(s, (uint32_t)v, s->times.v[s->nsamples + 1],
				 s->nsamples, s->t_at);
		} else
			s->last_leaf = (uint32_t)v;
		s->nsamples++;
		return 1;
	case C_STAMPS:
		PD_VEC_PUSH(&s->times, v);
		return 1;
	case C_DELTAS:
		if (s->ndeltas)
			s->gaps += v;
		s->rel += v;
		if (!s->done_samples) {
			PD_VEC_PUSH(&s->times, v);
		} else if (s->ndeltas >= 1 && s->ndeltas <= s->samples.n) {
			/* samples came first: delta k ends sample k - 1 */
			add_leaf(s, s->samples.v[s->ndeltas - 1], v,
				 s->ndeltas - 1, s->rel - v);
		}
		s->ndeltas++;
		return 1;
	default:
		return 1;
	}
}

/* A string (v), or null or a boolean (v NULL): names, or misplaced. */
static int other_scalar(void *arg, const unsigned char *v, size_t n)
{
	struct cp *s = arg;
	int rc;
	struct level *l = scalar_at(s, &rc);

	if (!l)
		return rc;
	if (l->c == C_SAMPLES || l->c == C_DELTAS || l->c == C_STAMPS ||
	    l->c == C_CHILDREN)
		return fail(s, "a number was expected");
	if (v && (l->c == C_NODE || l->c == C_FRAME)) {
		struct cnode *nd = &s->nodes.v[l->node];

		if (is_key(l, "functionName"))
			nd->name = pd_intern(&s->p->strs, (const char *)v, n);
		else if (is_key(l, "url"))
			nd->url = pd_intern(&s->p->strs, (const char *)v, n);
	}
	return 1;
}

static int cb_map_key(void *ctx, const unsigned char *k, size_t n)
{
	struct cp *s = ctx;

	if (!s->w.skip)
		pd_json_walk_key(&s->w, k, n);
	return 1;
}

static int open_container(void *arg, int is_map)
{
	struct cp *s = arg;
	struct level *l, *up;
	enum ctx c = C_SKIP;
	size_t node = 0;
	int rc;

	if (pd_json_walk_enter(&s->w, is_map, &rc))
		return rc;
	if (s->w.depth < 0) {
		c = C_TOP;
	} else {
		up = top(s);
		node = up->node;
		switch (up->c) {
		case C_TOP:
			if (is_key(up, "nodes") && !is_map) {
				c = C_NODES;
				s->have_nodes = 1;
			} else if (is_key(up, "head") && is_map) {
				c = C_NODE;
				s->old = 1;
				s->have_nodes = 1;
				node = new_node(s, SIZE_MAX);
			} else if (is_key(up, "samples") && !is_map) {
				c = C_SAMPLES;
				s->have_samples = 1;
			} else if (is_key(up, "timeDeltas") && !is_map) {
				c = C_DELTAS;
				s->have_times = 1;
			} else if (is_key(up, "timestamps") && !is_map) {
				c = C_STAMPS;
				s->have_times = 1;
				s->old = 1;
			}
			break;
		case C_NODES:
			if (is_map) {
				c = C_NODE;
				node = new_node(s, SIZE_MAX);
			}
			break;
		case C_NODE:
			if (is_key(up, "callFrame") && is_map)
				c = C_FRAME;
			else if (is_key(up, "children") && !is_map)
				c = C_CHILDREN;
			break;
		case C_CHILDREN:
			if (is_map) { /* old V8: the child itself */
				c = C_NODE;
				node = new_node(s, up->node);
			}
			break;
		default:
			break;
		}
		if (c == C_SKIP)
			return pd_json_walk_skip(&s->w);
	}
	l = pd_json_walk_push(&s->w, is_map);
	if (!l)
		return 0;
	l->c = c;
	l->node = node;
	return 1;
}

static int close_container(void *arg)
{
	struct cp *s = arg;
	if (pd_json_walk_skip_close(&s->w))
		return 1;
	if (top(s)->c == C_SAMPLES) {
		s->done_samples = 1;
		if (!s->done_deltas)
			s->nsamples = s->samples.n;
	} else if (top(s)->c == C_DELTAS) {
		s->done_deltas = 1;
	}
	return pd_json_walk_pop(&s->w);
}

static const struct pd_json_events events = {
	on_number,	 other_scalar, cb_map_key, open_container,
	close_container, NULL,	       NULL,	   NULL,
};

int pd_cpuprofile_sniff(const char *head, size_t len)
{
	if (pd_filter_match("\"head\"", head, len) &&
	    pd_filter_match("\"functionName\"", head, len) &&
	    pd_filter_match("\"children\"", head, len))
		return 1;
	/* nodes first (Chrome, node), or the sample arrays first */
	return (pd_filter_match("\"nodes\"", head, len) &&
		pd_filter_match("\"callFrame\"", head, len)) ||
	       (pd_filter_match("\"timeDeltas\"", head, len) &&
		pd_filter_match("\"samples\"", head, len));
}

static int by_id(const void *a, const void *b)
{
	const struct idx *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

static size_t find(const struct idx *t, size_t n, long long id)
{
	struct idx key, *hit;

	key.id = id;
	hit = pd_bsearch(&key, t, n, sizeof(*t), by_id);
	return hit ? hit->at : SIZE_MAX;
}

static int err_at(struct cp *s, const char *where, const char *what,
		  long long n)
{
	return pd_err_set(s->err, PD_EPARSE, "%s: %s: %s %lld", s->in->path,
			  where, what, n);
}

/*
 * The last sample lasts until endTime when that is close, else the mean.
 * A lone sample has no mean: endTime is its only measure (it was weighed
 * 0, and the profile refused as empty).
 */
static double last_weight(double end, int have_end, double t_last, double mean)
{
	double w = have_end ? end - t_last : -1;

	if (!(mean > 0))
		return w > 0 ? w : 0;
	return w >= 0 && w <= 10 * mean + 1 ? w : mean;
}

/* DevTools form: checks the counts and adds the last sample. */
static int last_sample(struct cp *s)
{
	size_t n = s->nsamples;
	double mean;

	if (s->ndeltas != n)
		return pd_err_set(s->err, PD_EPARSE,
				  "%s: $.timeDeltas: %zu times for %zu samples",
				  s->in->path, s->ndeltas, n);
	if (!n)
		return 0;
	mean = n > 1 ? s->gaps / (double)(n - 1) : 0;
	add_leaf(s,
		 s->done_deltas && !s->samples.n ? s->last_leaf
						 : s->samples.v[n - 1],
		 last_weight(s->end, s->have_end,
			     (s->have_start ? s->start : 0) + s->rel, mean),
		 n - 1, s->rel);
	return 0;
}

/*
 * Old V8 form: absolute timestamps, one per sample, or one more whose
 * first is the profile's start (it makes the old and new forms of the same
 * recording in the corpus agree). endTime is in seconds.
 */
static int old_times(struct cp *s)
{
	size_t i, n = s->samples.n, off = 0;
	double mean, end = s->end * 1e6;

	if (s->times.n == n + 1)
		off = 1;
	else if (s->times.n != n)
		return pd_err_set(s->err, PD_EPARSE,
				  "%s: $.timestamps: %zu times for %zu samples",
				  s->in->path, s->times.n, n);
	if (!n)
		return 0;
	mean = n > 1 ? (s->times.v[off + n - 1] - s->times.v[off]) /
			   (double)(n - 1)
		     : 0;
	for (i = 0; i < n; i++) {
		double t = s->times.v[off + i];
		double w = i + 1 < n ? s->times.v[off + i + 1] - t
				     : last_weight(end, s->have_end, t, mean);

		add_leaf(s, s->samples.v[i], w, i, t);
	}
	return 0;
}

/* Joins nodes, samples and times into the profile. */
/* Sorted node ids, each node's parent linked; 0 or the error. */
static int link_nodes(struct cp *s, struct idx *ids, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (!s->nodes.v[i].has_id)
			return err_at(s, s->old ? "$.head" : "$.nodes",
				      "no \"id\" in node number", (long long)i);
		ids[i].id = s->nodes.v[i].id;
		ids[i].at = i;
	}
	pd_sort(ids, n, sizeof(*ids), by_id);
	for (i = 1; i < n; i++)
		if (ids[i].id == ids[i - 1].id)
			return err_at(s, s->old ? "$.head" : "$.nodes",
				      "twice the node id", ids[i].id);
	/* parents from children lists and parent fields */
	for (i = 0; i < s->edges.n; i++) {
		size_t c = find(ids, n, s->edges.v[i].child);
		size_t pa = find(ids, n, s->edges.v[i].parent);

		if (c == SIZE_MAX)
			return err_at(
			    s, "$.nodes",
			    "a child id that is no node:", s->edges.v[i].child);
		s->nodes.v[c].parent = pa;
	}
	for (i = 0; i < n; i++)
		if (s->nodes.v[i].parent_id >= 0) {
			size_t pa = find(ids, n, s->nodes.v[i].parent_id);

			if (pa == SIZE_MAX)
				return err_at(s, "$.nodes",
					      "a parent id that is no node:",
					      s->nodes.v[i].parent_id);
			s->nodes.v[i].parent = pa;
		}
	return 0;
}

/* A node's frame name: an unnamed function by its script and line. */
static uint32_t node_name(struct cp *s, const struct cnode *c)
{
	struct pd_profile *p = s->p;
	struct pd_buf b = PD_BUF_INIT;
	const char *u = c->url ? pd_intern_str(&p->strs, c->url) : "";
	uint32_t name;

	if (c->name && *pd_intern_str(&p->strs, c->name))
		return c->name;
	/*
	 * the script's base name: paths differ between machines, names
	 * should not; a script of a Windows checkout (G:\src\main.js, or
	 * file:///G:/src/main.js) too
	 */
	{
		const char *sl = strrchr(u, '/'), *bs = strrchr(u, '\\');

		if (bs && (!sl || bs > sl))
			sl = bs;
		if (sl)
			u = sl + 1;
	}
	if (*u)
		pd_buf_addf(&b, "(anonymous %s:%lld)", u, c->line + 1);
	else
		pd_buf_adds(&b, "(anonymous)");
	name = pd_intern_cstr(&p->strs, b.buf);
	pd_buf_release(&b);
	return name;
}

/*
 * The profile's node of every input node (pnode), parents first; the
 * root "(root)" is the tree's root, "(idle)" its parent's. 0 or the error.
 */
static int place_nodes(struct cp *s, uint32_t *pnode, uint32_t *stack, size_t n)
{
	struct pd_profile *p = s->p;
	uint32_t root_name = pd_intern_cstr(&p->strs, "(root)");
	uint32_t idle_name = pd_intern_cstr(&p->strs, "(idle)");
	size_t i;

	for (i = 0; i < n; i++)
		pnode[i] = UINT32_MAX;
	for (i = 0; i < n; i++) {
		size_t sp = 0, j = i;

		while (j != SIZE_MAX && pnode[j] == UINT32_MAX) {
			if (sp > n)
				return err_at(s, "$.nodes",
					      "a cycle of parents through node",
					      s->nodes.v[i].id);
			stack[sp++] = (uint32_t)j;
			j = s->nodes.v[j].parent;
		}
		while (sp) {
			const struct cnode *c = &s->nodes.v[stack[--sp]];
			uint32_t up =
			    c->parent == SIZE_MAX ? PD_ROOT : pnode[c->parent];

			if (c->parent == SIZE_MAX && c->name == root_name)
				pnode[stack[sp]] = PD_ROOT;
			else if (c->name == idle_name) /* samples left out */
				pnode[stack[sp]] = up;
			else
				pnode[stack[sp]] = pd_profile_child(
				    p, up,
				    pd_profile_frame(
					p, node_name(s, c),
					c->url &&
						*pd_intern_str(&p->strs, c->url)
					    ? c->url
					    : 0));
		}
	}
	return 0;
}

/* The samples summed per leaf, onto the nodes; 0 or the error. */
static int add_samples(struct cp *s, const struct idx *ids, size_t n,
		       const uint32_t *pnode)
{
	struct pd_profile *p = s->p;
	uint32_t idle_name = pd_intern_cstr(&p->strs, "(idle)");
	size_t i, idle = 0;
	double idle_w = 0;

	pd_blocks_restart(&p->blk, &s->leaf_blk);
	for (i = 1; i < s->leaf_w.n; i++) { /* id 0 is "" */
		const char *key = pd_intern_str(&s->leaves, (uint32_t)i);
		size_t k = find(ids, n, strtoll(key, NULL, 10));

		if (k == SIZE_MAX)
			return pd_err_set(s->err, PD_EPARSE,
					  "%s: $.samples[%zu]: node id %s is"
					  " not in the nodes",
					  s->in->path, s->leaf_at.v[i], key);
		if (s->nodes.v[k].name == idle_name) {
			idle += (size_t)s->leaf_n.v[i];
			idle_w += s->leaf_w.v[i];
			continue;
		}
		if (pnode[k] == PD_ROOT)
			continue; /* no stack at all */
		pd_profile_add(p, pnode[k], s->leaf_w.v[i] * 1e3,
			       s->leaf_n.v[i]);
		pd_blocks_carry(&p->blk, &s->leaf_blk, (uint32_t)i, pnode[k]);
		p->nsamples += (uint64_t)s->leaf_n.v[i];
	}
	if (idle)
		pd_profile_note(p,
				"%zu (idle) samples (%.3g ms) left out: not the"
				" program's work",
				idle, idle_w / 1e3);
	return 0;
}

static int build(struct cp *s)
{
	struct pd_profile *p = s->p;
	struct idx *ids;
	uint32_t *pnode, *stack;
	size_t n = s->nodes.n;
	int rc;

	if (s->have_nodes && !n)
		return pd_err_set(s->err, PD_EEMPTY, "%s: $.%s: no nodes",
				  s->in->path, s->old ? "head" : "nodes");
	if (!s->have_nodes)
		return pd_err_set(s->err, PD_EFORMAT,
				  "%s: JSON of an unknown shape: no .cpuprofile"
				  " \"nodes\" or \"head\" (supported: %s)",
				  s->in->path, pd_format_list());
	if (!s->have_samples || !s->have_times)
		return pd_err_set(
		    s->err, PD_EPARSE, "%s: $: \"samples\" or \"%s\" missing",
		    s->in->path, s->old ? "timestamps" : "timeDeltas");
	ids = pd_xmalloc((n + 1) * sizeof(*ids));
	pnode = pd_xmalloc((n + 1) * sizeof(*pnode));
	stack = pd_xmalloc((n + 1) * sizeof(*stack));
	rc = link_nodes(s, ids, n);
	if (!rc)
		rc = place_nodes(s, pnode, stack, n);
	if (!rc)
		rc = s->old ? old_times(s) : last_sample(s);
	if (!rc)
		rc = add_samples(s, ids, n, pnode);
	if (!rc) {
		p->unit = PD_UNIT_NS;
		/* samples are not evenly spaced: no one interval */
		p->interval = 0;
		free(p->count_rule);
		p->count_rule = pd_xstrdup("sample counts = samples; weights ="
					   " time to the next sample");
		p->format = "cpuprofile";
		pd_profile_finish(p);
	}
	free(pnode);
	free(stack);
	free(ids);
	return rc;
}

int pd_cpuprofile_import(struct pd_input *in, struct pd_profile *p,
			 const struct pd_import_opts *o, struct pd_err *err)
{
	struct cp s;
	struct pd_json_stream js;
	int rc = 0;

	(void)o;
	memset(&s, 0, sizeof(s));
	s.p = p;
	s.in = in;
	s.err = err;
	s.lv = pd_xcalloc(MAX_DEPTH, sizeof(*s.lv));
	pd_json_walk_init(&s.w, s.lv, sizeof(*s.lv), MAX_DEPTH,
			  "PD_LIMIT_CALL_DEPTH", in->path, err);
	s.w.top = "a .cpuprofile object";
	pd_intern_init(&s.leaves);
	pd_json_stream_events(&js, &events, &s, &s.w);
	rc = pd_json_stream_run(&js, in, err);
	if (rc)
		goto out;
	rc = build(&s);
out:
	yajl_free(js.h);
	free(s.lv);
	PD_VEC_FREE(&s.nodes);
	PD_VEC_FREE(&s.edges);
	PD_VEC_FREE(&s.samples);
	PD_VEC_FREE(&s.times);
	pd_intern_release(&s.leaves);
	PD_VEC_FREE(&s.leaf_w);
	pd_blocks_release(&s.leaf_blk);
	PD_VEC_FREE(&s.leaf_n);
	PD_VEC_FREE(&s.leaf_at);
	PD_VEC_FREE(&s.small);
	return rc;
}
