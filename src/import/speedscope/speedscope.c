/*
 * speedscope JSON (docs/formats.md, "speedscope JSON"), streamed with yajl.
 *
 * Keys may come in any order: py-spy writes "profiles" before "shared", and
 * sorted writers put "unit" after "events". So the parse builds a
 * provisional prefix tree keyed by raw frame index, with one root per
 * profile, and only when the file is done maps it onto real frames: names,
 * modules, PerfView/TraceEvent pseudo-frames (process, thread, CPU_TIME) and
 * units. Memory follows the number of distinct stacks, not the file size;
 * sampled profiles also keep their sample and weight arrays run-length
 * encoded until both are seen.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <yajl_parse.h>

#include "core/buf.h"
#include "import/formats.h"
#include "import/speedscope/speedscope_int.h"
#include "import/json.h"

static int fail(struct ss_state *s, const char *what)
{
	return pd_json_walk_fail(&s->w, what);
}

static enum ss_key key_of(const unsigned char *k, size_t n)
{
#define K(str, val)                                                            \
	if (n == sizeof(str) - 1 && !memcmp(k, str, n))                        \
		return val;
	switch (n) {
	case 2:
		K("at", K_AT);
		break;
	case 4:
		K("name", K_NAME);
		K("file", K_FILE);
		K("type", K_TYPE);
		K("unit", K_UNIT);
		break;
	case 5:
		K("frame", K_FRAME);
		break;
	case 6:
		K("shared", K_SHARED);
		K("frames", K_FRAMES);
		K("events", K_EVENTS);
		break;
	case 7:
		K("$schema", K_SCHEMA);
		K("samples", K_SAMPLES);
		K("weights", K_WEIGHTS);
		break;
	case 8:
		K("profiles", K_PROFILES);
		K("exporter", K_EXPORTER);
		K("perfdiff", K_EXT);
		K("interval", K_INTERVAL);
		break;
	}
	/* perfdiff's own keys (written by perfdiff convert) */
	K("perfdiffCounts", K_COUNTS);
	K("exact", K_EXACT);
	K("event", K_EVENT);
	K("countRule", K_COUNT_RULE);
#undef K
	return K_OTHER;
}

static struct ss_level *top(struct ss_state *s)
{
	return &s->lv[s->w.depth];
}

/* A scalar at the top level is no speedscope file. */
static int top_scalar(struct ss_state *s)
{
	if (s->w.depth >= 0)
		return 0;
	pd_err_set(s->err, PD_EFORMAT,
		   "%s: JSON of an unknown shape (the top level is not an"
		   " object; supported: %s)",
		   s->in->path, pd_format_list());
	s->w.failed = 1;
	return 1;
}

/*
 * What a container holds, from its parent's state, the key it is under
 * and whether it is an object (docs/formats.md, "speedscope JSON"); S_SKIP
 * otherwise. A switch on the parent: this runs for every sample's array.
 */
static enum ss_st child_state(struct ss_state *s, int is_map)
{
	const struct ss_level *l = top(s);

	switch (l->st) {
	case S_TOP:
		if (l->key == K_SHARED && is_map)
			return S_SHARED;
		if (l->key == K_PROFILES && !is_map)
			return S_PROFILES;
		return l->key == K_EXT && is_map ? S_EXT : S_SKIP;
	case S_SHARED:
		return l->key == K_FRAMES && !is_map ? S_FRAMES : S_SKIP;
	case S_FRAMES:
		return is_map ? S_FRAME : S_SKIP;
	case S_PROFILES:
		return is_map ? S_PROFILE : S_SKIP;
	case S_PROFILE:
		if (is_map)
			return S_SKIP;
		return l->key == K_EVENTS    ? S_EVENTS
		       : l->key == K_SAMPLES ? S_SAMPLES
		       : l->key == K_WEIGHTS ? S_WEIGHTS
		       : l->key == K_COUNTS  ? S_COUNTS
					     : S_SKIP;
	case S_EVENTS:
		return is_map ? S_EVENT : S_SKIP;
	case S_SAMPLES:
		return is_map ? S_SKIP : S_SAMPLE;
	default:
		return S_SKIP;
	}
}

static struct ss_profile *cur_prof(struct ss_state *s)
{
	return &s->profs.v[s->profs.n - 1];
}

static int open_container(void *arg, int is_map)
{
	struct ss_state *s = arg;
	enum ss_st st;
	struct ss_level *l;
	int rc;

	if (pd_json_walk_enter(&s->w, is_map, &rc))
		return rc;
	if (s->w.depth < 0) {
		st = S_TOP;
	} else {
		enum ss_st parent = top(s)->st;

		/*
		 * Inside a sample, the weights or the events only numbers
		 * and objects belong: anything else would be skipped, and
		 * its weight land in no function.
		 */
		if (parent == S_SAMPLE)
			return fail(s, "sample entry is not a frame index");
		if (parent == S_WEIGHTS)
			return fail(s, "weight is not a number");
		if (parent == S_COUNTS)
			return fail(s, "sample count is not a number");
		if (parent == S_SAMPLES && is_map)
			return fail(s, "a sample must be an array of frame"
				       " indices");
		if (parent == S_EVENTS && !is_map)
			return fail(s, "an event must be an object");
		st = child_state(s, is_map);
		if (st == S_SKIP)
			return pd_json_walk_skip(&s->w);
	}
	l = pd_json_walk_push(&s->w, is_map);
	if (!l)
		return 0;
	l->st = st;
	l->key = K_OTHER;
	switch (st) {
	case S_FRAME:
		s->cur_frame.name = UINT32_MAX;
		s->cur_frame.file = 0;
		break;
	case S_PROFILE: {
		struct ss_profile sp;

		memset(&sp, 0, sizeof(sp));
		PD_VEC_PUSH(&s->profs, sp);
		cur_prof(s)->root = pd_profile_child(
		    &s->prov, PD_ROOT,
		    SS_PROFILE_ROOT | (uint32_t)(s->profs.n - 1));
		s->open.n = 0;
		s->t_started = 0;
		break;
	}
	case S_EVENTS:
		if (cur_prof(s)->type == 2)
			return fail(s, "\"events\" in a sampled profile");
		cur_prof(s)->type = 1;
		s->w.scan_here = 1; /* pd_ss_scan reads its elements */
		break;
	case S_SAMPLES:
	case S_WEIGHTS:
	case S_COUNTS:
		if (cur_prof(s)->type == 1)
			return fail(s, "samples or weights in an evented"
				       " profile");
		cur_prof(s)->type = 2;
		s->w.scan_here = st != S_SAMPLES; /* numbers for pd_ss_scan */
		break;
	case S_EVENT:
		s->ev_type = 0;
		s->ev_has_at = s->ev_has_frame = 0;
		break;
	case S_SAMPLE:
		s->cur_sample.n = 0;
		break;
	default:
		break;
	}
	return 1;
}

/*
 * Appends val to vec, a vector of runs {v, n}: the last run grows when it
 * holds the same value (long profiles repeat a leaf or a weight).
 */
#define PUSH_RUN(vec, type, val)                                               \
	do {                                                                   \
		type *last_ = (vec)->n ? &(vec)->v[(vec)->n - 1] : NULL;       \
		if (last_ && !(last_->v < (val)) && !(last_->v > (val)) &&     \
		    last_->n < UINT32_MAX) {                                   \
			last_->n++;                                            \
		} else {                                                       \
			type run_ = { (val), 1 };                              \
			PD_VEC_PUSH((vec), run_);                              \
		}                                                              \
	} while (0)

static void push_sample_node(struct ss_profile *sp, uint32_t node)
{
	PUSH_RUN(&sp->samples, struct ss_run_u32, node);
	sp->nsamples++;
}

int pd_ss_close_event(struct ss_state *s)
{
	struct ss_profile *sp = cur_prof(s);
	uint32_t node;
	size_t i;

	if (!s->ev_type)
		return fail(s, "event without \"type\" (\"O\" or \"C\")");
	if (!s->ev_has_at)
		return fail(s, "event without \"at\"");
	if (!s->ev_has_frame)
		return fail(s, "event without \"frame\"");
	sp->nevents++;
	if (!s->t_started) {
		s->t_prev = s->ev_at;
		s->t_started = 1;
	}
	if (s->ev_at < s->t_prev) {
		sp->out_of_order++;
	} else {
		if (s->open.n && s->ev_at > s->t_prev) {
			node = s->open.v[s->open.n - 1].node;
			s->prov.nodes.v[node].weight += s->ev_at - s->t_prev;
			pd_blocks_add_span(&s->prov.blk, node, s->t_prev,
					   s->ev_at, s->ev_at - s->t_prev);
		}
		s->t_prev = s->ev_at;
	}
	if (s->ev_type == 'O') {
		struct ss_open of;

		node = s->open.n ? s->open.v[s->open.n - 1].node : sp->root;
		of.frame = (uint32_t)s->ev_frame;
		of.node = pd_profile_child(&s->prov, node, of.frame);
		/* an evented node's count is its opens (waits: remap) */
		s->prov.nodes.v[of.node].count += 1;
		PD_VEC_PUSH(&s->open, of);
		return 1;
	}
	/* A close must match the top; older TraceEvent files break that. */
	if (s->open.n && s->open.v[s->open.n - 1].frame == s->ev_frame) {
		s->open.n--;
		return 1;
	}
	sp->unbalanced++;
	for (i = s->open.n; i-- > 0;) {
		if (s->open.v[i].frame == s->ev_frame) {
			s->open.n = i;
			break;
		}
	}
	return 1;
}

static int close_container(void *arg)
{
	struct ss_state *s = arg;
	struct ss_level *l;

	if (pd_json_walk_skip_close(&s->w))
		return 1;
	l = top(s);
	switch (l->st) {
	case S_FRAME:
		if (s->cur_frame.name == UINT32_MAX)
			return fail(s, "frame without \"name\"");
		PD_VEC_PUSH(&s->frames, s->cur_frame);
		break;
	case S_EVENT:
		if (!pd_ss_close_event(s))
			return 0;
		break;
	case S_SAMPLE: {
		struct ss_profile *sp = cur_prof(s);
		uint32_t node = sp->root;
		size_t i;

		for (i = 0; i < s->cur_sample.n; i++)
			node = pd_profile_child(&s->prov, node,
						s->cur_sample.v[i]);
		push_sample_node(sp, node);
		break;
	}
	case S_PROFILE:
		if (!cur_prof(s)->type)
			cur_prof(s)->type = 1; /* no events: an empty profile */
		break;
	default:
		break;
	}
	return pd_json_walk_pop(&s->w);
}

static int cb_key(void *ctx, const unsigned char *k, size_t n)
{
	struct ss_state *s = ctx;

	if (s->w.skip)
		return 1;
	top(s)->key = key_of(k, n);
	pd_json_walk_key(&s->w, k, n);
	return 1;
}

static int on_number(struct ss_state *s, const char *v, size_t n, int is_string)
{
	struct ss_level *l = top(s);
	double d;

	switch (l->st) {
	case S_EVENT:
		if (l->key == K_AT) {
			if (!pd_json_number(v, n, &d))
				return fail(s, "\"at\" is not a number");
			s->ev_at = d;
			s->ev_has_at = 1;
		} else if (l->key == K_FRAME) {
			if (is_string || !pd_json_number(v, n, &d) || d < 0 ||
			    d - floor(d) > 0 || d >= (double)SS_PROFILE_ROOT)
				return fail(s,
					    "\"frame\" is not a frame index");
			s->ev_frame = (long long)d;
			s->ev_has_frame = 1;
		}
		return 1;
	case S_SAMPLE:
		if (is_string || !pd_json_number(v, n, &d) || d < 0 ||
		    d - floor(d) > 0 || d >= (double)SS_PROFILE_ROOT)
			return fail(s, "sample entry is not a frame index");
		PD_VEC_PUSH(&s->cur_sample, (uint32_t)d);
		return 1;
	case S_WEIGHTS: {
		struct ss_profile *sp = cur_prof(s);

		if (!pd_json_number(v, n, &d))
			return fail(s, "weight is not a number");
		if (d < 0)
			return fail(s, "negative weight");
		PUSH_RUN(&sp->weights, struct ss_run_f64, d);
		sp->nweights++;
		return 1;
	}
	case S_COUNTS: {
		struct ss_profile *sp = cur_prof(s);
		struct ss_run_f64 r = { 0, 1 };

		if (!pd_json_number(v, n, &d))
			return fail(s, "sample count is not a number");
		if (d < 0)
			return fail(s, "negative sample count");
		r.v = d;
		PD_VEC_PUSH(&sp->counts, r);
		sp->ncounts++;
		return 1;
	}
	case S_EXT:
		if (l->key == K_INTERVAL && pd_json_number(v, n, &d) && d > 0)
			s->ext_interval = d;
		return 1;
	case S_SAMPLES:
		return fail(s, "a sample must be an array of frame indices");
	case S_EVENTS:
		return fail(s, "an event must be an object");
	default:
		return 1;
	}
}

/*
 * A scalar begins: counted in its array. Its level, or NULL when the
 * caller returns *rc at once (skipped: 1; the document is a bare scalar:
 * 0, error recorded).
 */
static struct ss_level *scalar_at(struct ss_state *s, int *rc)
{
	*rc = 1;
	if (s->w.skip)
		return NULL;
	if (top_scalar(s)) {
		*rc = 0;
		return NULL;
	}
	pd_json_walk_value(&s->w);
	return top(s);
}

static int cb_number(void *ctx, const char *v, size_t n)
{
	struct ss_state *s = ctx;
	int rc;

	if (!scalar_at(s, &rc))
		return rc;
	return on_number(s, v, n, 0);
}

static int cb_string(void *ctx, const unsigned char *v, size_t n)
{
	struct ss_state *s = ctx;
	const char *c = (const char *)v;
	int rc;
	struct ss_level *l = scalar_at(s, &rc);

	if (!l)
		return rc;
	switch (l->st) {
	case S_TOP:
		if (l->key == K_SCHEMA) {
			s->saw_schema = 1;
			if (!pd_filter_match("speedscope", c, n))
				s->schema_other = 1;
		} else if (l->key == K_EXPORTER && !s->p->exporter) {
			s->p->exporter = pd_xstrndup(c, n);
		}
		return 1;
	case S_FRAME:
		if (l->key == K_NAME)
			s->cur_frame.name = pd_intern(&s->p->strs, c, n);
		else if (l->key == K_FILE)
			s->cur_frame.file = pd_intern(&s->p->strs, c, n);
		return 1;
	case S_PROFILE: {
		struct ss_profile *sp = cur_prof(s);

		if (l->key == K_NAME) {
			sp->name = pd_intern(&s->p->strs, c, n);
		} else if (l->key == K_TYPE) {
			if (n == 7 && !memcmp(c, "evented", 7)) {
				if (sp->type == 2)
					return fail(s, "type \"evented\" but"
						       " the profile has"
						       " samples");
				sp->type = 1;
			} else if (n == 7 && !memcmp(c, "sampled", 7)) {
				if (sp->type == 1)
					return fail(s, "type \"sampled\" but"
						       " the profile has"
						       " events");
				sp->type = 2;
			} else {
				return fail(s, "unknown profile type (want"
					       " \"evented\" or \"sampled\")");
			}
		} else if (l->key == K_UNIT) {
			if (n >= sizeof(sp->unit))
				return fail(s, "unknown unit");
			memcpy(sp->unit, c, n);
			sp->unit[n] = '\0';
		}
		return 1;
	}
	case S_EVENT:
		if (l->key == K_TYPE) {
			if (n == 1 && (c[0] == 'O' || c[0] == 'C'))
				s->ev_type = c[0];
			else
				return fail(s, "event type is not \"O\" or"
					       " \"C\"");
			return 1;
		}
		if (l->key == K_AT) /* lenient: "at": "12.5" */
			return on_number(s, c, n, 1);
		if (l->key == K_FRAME)
			return on_number(s, c, n, 1);
		return 1;
	case S_SAMPLE:
	case S_WEIGHTS:
	case S_COUNTS:
		return on_number(s, c, n, 1);
	case S_EXT:
		if (l->key == K_UNIT && n < sizeof(s->ext_unit)) {
			memcpy(s->ext_unit, c, n);
			s->ext_unit[n] = '\0';
		} else if (l->key == K_EVENT && !s->ext_event) {
			s->ext_event = pd_xstrndup(c, n);
		} else if (l->key == K_COUNT_RULE && !s->ext_rule) {
			s->ext_rule = pd_xstrndup(c, n);
		}
		return 1;
	case S_SAMPLES:
	case S_EVENTS:
		return on_number(s, c, n, 1);
	default:
		return 1;
	}
}

/* null (is_true -1), false (0) or true (1) */
static int on_literal(void *ctx, int is_true)
{
	struct ss_state *s = ctx;
	int rc;
	struct ss_level *l = scalar_at(s, &rc);

	if (!l)
		return rc;
	if (l->st == S_SAMPLE || l->st == S_WEIGHTS || l->st == S_SAMPLES ||
	    l->st == S_EVENTS || l->st == S_COUNTS)
		return fail(s, "unexpected null or boolean");
	if (l->st == S_EXT && l->key == K_EXACT)
		s->ext_exact = is_true == 1;
	if (l->st == S_EVENT && (l->key == K_AT || l->key == K_FRAME))
		return fail(s, "unexpected null or boolean");
	return 1;
}

const struct pd_json_events pd_ss_events = {
	NULL,	   cb_string,  cb_key,	   open_container, close_container,
	cb_number, on_literal, pd_ss_scan,
};

int pd_speedscope_sniff(const char *head, size_t len)
{
	return pd_filter_match("speedscope.app/file-format-schema", head,
			       len) ||
	       (pd_filter_match("\"shared\"", head, len) &&
		pd_filter_match("\"profiles\"", head, len) &&
		pd_filter_match("\"frames\"", head, len));
}

int pd_speedscope_import(struct pd_input *in, struct pd_profile *p,
			 const struct pd_import_opts *o, struct pd_err *err)
{
	struct ss_state s;
	struct pd_json_stream js;
	int rc = 0;
	size_t i;

	memset(&s, 0, sizeof(s));
	s.p = p;
	s.o = o;
	s.in = in;
	s.err = err;
	pd_json_walk_init(&s.w, s.lv, sizeof(s.lv[0]), SS_MAX_DEPTH,
			  "PD_LIMIT_JSON_DEPTH", in->path, err);
	s.w.top = "a speedscope object";
	pd_profile_init(&s.prov);
	pd_json_stream_events(&js, &pd_ss_events, &s, &s.w);
	rc = pd_json_stream_run(&js, in, err);
	if (rc)
		goto out;
	if (!s.profs.n) {
		rc = pd_err_set(err, PD_EFORMAT,
				"%s: JSON of an unknown shape: no speedscope"
				" \"profiles\" (supported: %s)",
				in->path, pd_format_list());
		goto out;
	}
	if (!pd_speedscope_remap(&s)) {
		rc = PD_EPARSE;
		goto out;
	}
out:
	yajl_free(js.h);
	pd_profile_release(&s.prov);
	PD_VEC_FREE(&s.frames);
	for (i = 0; i < s.profs.n; i++) {
		PD_VEC_FREE(&s.profs.v[i].samples);
		PD_VEC_FREE(&s.profs.v[i].weights);
		PD_VEC_FREE(&s.profs.v[i].counts);
	}
	free(s.ext_event);
	free(s.ext_rule);
	PD_VEC_FREE(&s.profs);
	PD_VEC_FREE(&s.open);
	PD_VEC_FREE(&s.cur_sample);
	return rc;
}
