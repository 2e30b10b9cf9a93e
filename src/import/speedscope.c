/*
 * speedscope JSON (formats.md 1), streamed with yajl.
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
#include "import/import.h"
#include "import/json.h"

#define PROFILE_ROOT 0x80000000u
#define MAX_DEPTH 16

enum st {
	S_TOP,
	S_SHARED,
	S_FRAMES,
	S_FRAME,
	S_PROFILES,
	S_PROFILE,
	S_EVENTS,
	S_EVENT,
	S_SAMPLES,
	S_SAMPLE,
	S_WEIGHTS,
	S_SKIP,
};

enum key {
	K_OTHER,
	K_SHARED,
	K_FRAMES,
	K_PROFILES,
	K_SCHEMA,
	K_EXPORTER,
	K_NAME,
	K_FILE,
	K_TYPE,
	K_UNIT,
	K_EVENTS,
	K_SAMPLES,
	K_WEIGHTS,
	K_AT,
	K_FRAME,
};

enum kind { KIND_REAL, KIND_PROCESS, KIND_THREAD, KIND_SKIP, KIND_CPU };

struct level {
	enum st st;
	int is_map;
	enum key key;
	char keytext[48];
	long idx; /* array index of the element being read */
};

struct run_u32 {
	uint32_t v, n;
};

struct run_f64 {
	double v;
	uint32_t n;
};

struct sprofile {
	uint32_t name; /* in p->strs */
	int type;      /* 0 unknown, 1 evented, 2 sampled */
	char unit[16];
	uint32_t root; /* provisional node */
	PD_VEC(struct run_u32) samples;
	PD_VEC(struct run_f64) weights;
	uint64_t nsamples, nweights;
	uint64_t nevents, unbalanced, out_of_order;
};

struct sframe {
	uint32_t name, file; /* in p->strs */
};

struct oframe {
	uint32_t frame, node;
};

struct ss {
	struct pd_profile *p;
	const struct pd_import_opts *o;
	struct pd_input *in;
	struct pd_err *err;
	struct pd_profile prov; /* provisional tree; frame = raw index */
	struct level lv[MAX_DEPTH];
	int depth;
	long skip;
	int saw_schema, saw_profiles, schema_other;
	PD_VEC(struct sframe) frames;
	struct sframe cur_frame;
	PD_VEC(struct sprofile) profs;
	/* current event */
	int ev_type; /* 'O', 'C', or 0 */
	double ev_at;
	long long ev_frame;
	int ev_has_at, ev_has_frame;
	double t_prev;
	int t_started;
	PD_VEC(struct oframe) open;
	PD_VEC(uint32_t) cur_sample;
	int failed;
};

static void path_to(const struct ss *s, struct pd_buf *b)
{
	int i;

	pd_buf_addch(b, '$');
	for (i = 0; i <= s->depth && i < MAX_DEPTH; i++)
		pd_json_path_step(b, s->lv[i].is_map, s->lv[i].keytext,
				  s->lv[i].idx);
}

static void json_path(void *arg, struct pd_buf *b)
{
	struct ss *s = arg;

	if (s->depth >= 0)
		path_to(s, b);
}

static int fail(struct ss *s, const char *what)
{
	return pd_json_fail(s->err, s->in->path, json_path, s, &s->failed,
			    what);
}

static enum key key_of(const unsigned char *k, size_t n)
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
		break;
	}
#undef K
	return K_OTHER;
}

static struct level *top(struct ss *s)
{
	return &s->lv[s->depth];
}

/* Called before every value: advances the array index. */
static void value_start(struct ss *s)
{
	struct level *l = top(s);

	if (!l->is_map)
		l->idx++;
}

/* A scalar at the top level is no speedscope file. */
static int top_scalar(struct ss *s)
{
	if (s->depth >= 0)
		return 0;
	pd_err_set(s->err, PD_EFORMAT,
		   "%s: JSON of an unknown shape (the top level is not an"
		   " object; supported: %s)",
		   s->in->path, pd_format_list());
	s->failed = 1;
	return 1;
}

static enum st child_state(struct ss *s, int is_map)
{
	struct level *l = top(s);

	switch (l->st) {
	case S_TOP:
		if (l->key == K_SHARED && is_map)
			return S_SHARED;
		if (l->key == K_PROFILES && !is_map)
			return S_PROFILES;
		break;
	case S_SHARED:
		if (l->key == K_FRAMES && !is_map)
			return S_FRAMES;
		break;
	case S_FRAMES:
		if (is_map)
			return S_FRAME;
		break;
	case S_PROFILES:
		if (is_map)
			return S_PROFILE;
		break;
	case S_PROFILE:
		if (l->key == K_EVENTS && !is_map)
			return S_EVENTS;
		if (l->key == K_SAMPLES && !is_map)
			return S_SAMPLES;
		if (l->key == K_WEIGHTS && !is_map)
			return S_WEIGHTS;
		break;
	case S_EVENTS:
		if (is_map)
			return S_EVENT;
		break;
	case S_SAMPLES:
		if (!is_map)
			return S_SAMPLE;
		break;
	default:
		break;
	}
	return S_SKIP;
}

static struct sprofile *cur_prof(struct ss *s)
{
	return &s->profs.v[s->profs.n - 1];
}

static int open_container(struct ss *s, int is_map)
{
	enum st st;
	struct level *l;

	if (s->skip) {
		s->skip++;
		return 1;
	}
	if (s->depth < 0) {
		if (!is_map)
			return fail(s,
				    "JSON of an unknown shape (the top level"
				    " is an array, not a speedscope object)");
		st = S_TOP;
	} else {
		value_start(s);
		st = child_state(s, is_map);
		if (st == S_SKIP) {
			s->skip = 1;
			return 1;
		}
	}
	if (s->depth + 1 >= MAX_DEPTH)
		return fail(s, "nested too deeply");
	s->depth++;
	l = top(s);
	l->st = st;
	l->is_map = is_map;
	l->key = K_OTHER;
	l->keytext[0] = '\0';
	l->idx = -1;
	switch (st) {
	case S_FRAME:
		s->cur_frame.name = UINT32_MAX;
		s->cur_frame.file = 0;
		break;
	case S_PROFILE: {
		struct sprofile sp;

		memset(&sp, 0, sizeof(sp));
		PD_VEC_PUSH(&s->profs, sp);
		cur_prof(s)->root =
		    pd_profile_child(&s->prov, PD_ROOT,
				     PROFILE_ROOT | (uint32_t)(s->profs.n - 1));
		s->open.n = 0;
		s->t_started = 0;
		break;
	}
	case S_EVENTS:
		if (cur_prof(s)->type == 2)
			return fail(s, "\"events\" in a sampled profile");
		cur_prof(s)->type = 1;
		break;
	case S_SAMPLES:
	case S_WEIGHTS:
		if (cur_prof(s)->type == 1)
			return fail(s, "samples or weights in an evented"
				       " profile");
		cur_prof(s)->type = 2;
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

static int cb_start_map(void *ctx)
{
	return open_container(ctx, 1);
}

static int cb_start_array(void *ctx)
{
	return open_container(ctx, 0);
}

static void push_sample_node(struct sprofile *sp, uint32_t node)
{
	if (sp->samples.n && sp->samples.v[sp->samples.n - 1].v == node &&
	    sp->samples.v[sp->samples.n - 1].n < UINT32_MAX) {
		sp->samples.v[sp->samples.n - 1].n++;
	} else {
		struct run_u32 r = { node, 1 };

		PD_VEC_PUSH(&sp->samples, r);
	}
	sp->nsamples++;
}

static int close_event(struct ss *s)
{
	struct sprofile *sp = cur_prof(s);
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
		}
		s->t_prev = s->ev_at;
	}
	if (s->ev_type == 'O') {
		struct oframe of;

		node = s->open.n ? s->open.v[s->open.n - 1].node : sp->root;
		of.frame = (uint32_t)s->ev_frame;
		of.node = pd_profile_child(&s->prov, node, of.frame);
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

static int close_container(struct ss *s)
{
	struct level *l;

	if (s->skip) {
		s->skip--;
		return 1;
	}
	l = top(s);
	switch (l->st) {
	case S_FRAME:
		if (s->cur_frame.name == UINT32_MAX)
			return fail(s, "frame without \"name\"");
		PD_VEC_PUSH(&s->frames, s->cur_frame);
		break;
	case S_EVENT:
		if (!close_event(s))
			return 0;
		break;
	case S_SAMPLE: {
		struct sprofile *sp = cur_prof(s);
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
	s->depth--;
	return 1;
}

static int cb_end(void *ctx)
{
	return close_container(ctx);
}

static int cb_key(void *ctx, const unsigned char *k, size_t n)
{
	struct ss *s = ctx;
	struct level *l;
	size_t m = n;

	if (s->skip)
		return 1;
	l = top(s);
	l->key = key_of(k, n);
	if (m >= sizeof(l->keytext))
		m = sizeof(l->keytext) - 1;
	memcpy(l->keytext, k, m);
	l->keytext[m] = '\0';
	return 1;
}

static int parse_number(const char *v, size_t n, double *out)
{
	static const double pow10[] = { 1,    1e1,  1e2,  1e3,	1e4,  1e5,
					1e6,  1e7,  1e8,  1e9,	1e10, 1e11,
					1e12, 1e13, 1e14, 1e15, 1e16, 1e17,
					1e18, 1e19, 1e20, 1e21, 1e22 };
	char tmp[64], *end;
	uint64_t m = 0;
	size_t i = 0, digits = 0, frac = 0;
	int neg = 0, dot = 0;

	/*
	 * Fast path for plain decimals ("12.345678"): a mantissa below 2^53
	 * divided by an exact power of ten is correctly rounded (Clinger), so
	 * the result equals strtod's. Anything else goes to strtod.
	 */
	if (n && v[0] == '-') {
		neg = 1;
		i = 1;
	}
	for (; i < n; i++) {
		char c = v[i];

		if (c >= '0' && c <= '9') {
			if (++digits > 15)
				break;
			m = m * 10 + (uint64_t)(c - '0');
			frac += dot;
		} else if (c == '.' && !dot) {
			dot = 1;
		} else {
			break;
		}
	}
	if (i == n && digits && frac <= 22) {
		double d = (double)m / pow10[frac];

		*out = neg ? -d : d;
		return 1;
	}

	if (n == 0 || n >= sizeof(tmp))
		return 0;
	memcpy(tmp, v, n);
	tmp[n] = '\0';
	*out = strtod(tmp, &end);
	return *end == '\0' && isfinite(*out);
}

static int on_number(struct ss *s, const char *v, size_t n, int is_string)
{
	struct level *l = top(s);
	double d;

	switch (l->st) {
	case S_EVENT:
		if (l->key == K_AT) {
			if (!parse_number(v, n, &d))
				return fail(s, "\"at\" is not a number");
			s->ev_at = d;
			s->ev_has_at = 1;
		} else if (l->key == K_FRAME) {
			if (is_string || !parse_number(v, n, &d) || d < 0 ||
			    d - floor(d) > 0 || d >= (double)PROFILE_ROOT)
				return fail(s,
					    "\"frame\" is not a frame index");
			s->ev_frame = (long long)d;
			s->ev_has_frame = 1;
		}
		return 1;
	case S_SAMPLE:
		if (is_string || !parse_number(v, n, &d) || d < 0 ||
		    d - floor(d) > 0 || d >= (double)PROFILE_ROOT)
			return fail(s, "sample entry is not a frame index");
		PD_VEC_PUSH(&s->cur_sample, (uint32_t)d);
		return 1;
	case S_WEIGHTS: {
		struct sprofile *sp = cur_prof(s);

		if (!parse_number(v, n, &d))
			return fail(s, "weight is not a number");
		if (d < 0)
			return fail(s, "negative weight");
		if (sp->weights.n &&
		    !(sp->weights.v[sp->weights.n - 1].v < d) &&
		    !(sp->weights.v[sp->weights.n - 1].v > d) &&
		    sp->weights.v[sp->weights.n - 1].n < UINT32_MAX) {
			sp->weights.v[sp->weights.n - 1].n++;
		} else {
			struct run_f64 r = { d, 1 };

			PD_VEC_PUSH(&sp->weights, r);
		}
		sp->nweights++;
		return 1;
	}
	case S_SAMPLES:
		return fail(s, "a sample must be an array of frame indices");
	case S_EVENTS:
		return fail(s, "an event must be an object");
	default:
		return 1;
	}
}

static int cb_number(void *ctx, const char *v, size_t n)
{
	struct ss *s = ctx;

	if (s->skip)
		return 1;
	if (top_scalar(s))
		return 0;
	value_start(s);
	return on_number(s, v, n, 0);
}

static int cb_string(void *ctx, const unsigned char *v, size_t n)
{
	struct ss *s = ctx;
	struct level *l;
	const char *c = (const char *)v;

	if (s->skip)
		return 1;
	if (top_scalar(s))
		return 0;
	value_start(s);
	l = top(s);
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
		struct sprofile *sp = cur_prof(s);

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
		return on_number(s, c, n, 1);
	case S_SAMPLES:
	case S_EVENTS:
		return on_number(s, c, n, 1);
	default:
		return 1;
	}
}

static int cb_other(void *ctx)
{
	struct ss *s = ctx;
	struct level *l;

	if (s->skip)
		return 1;
	if (top_scalar(s))
		return 0;
	value_start(s);
	l = top(s);
	if (l->st == S_SAMPLE || l->st == S_WEIGHTS || l->st == S_SAMPLES ||
	    l->st == S_EVENTS)
		return fail(s, "unexpected null or boolean");
	if (l->st == S_EVENT && (l->key == K_AT || l->key == K_FRAME))
		return fail(s, "unexpected null or boolean");
	return 1;
}

static int cb_bool(void *ctx, int b)
{
	(void)b;
	return cb_other(ctx);
}

static const yajl_callbacks callbacks = {
	cb_other,     cb_bool, NULL,   NULL,	       cb_number, cb_string,
	cb_start_map, cb_key,  cb_end, cb_start_array, cb_end,
};

int pd_speedscope_sniff(const char *head, size_t len)
{
	return pd_filter_match("speedscope.app/file-format-schema", head,
			       len) ||
	       (pd_filter_match("\"shared\"", head, len) &&
		pd_filter_match("\"profiles\"", head, len) &&
		pd_filter_match("\"frames\"", head, len));
}

/* Scale from a speedscope unit to ours. */
static int unit_scale(const char *u, enum pd_unit *unit, double *scale)
{
	static const struct {
		const char *name;
		enum pd_unit unit;
		double scale;
	} t[] = {
		{ "nanoseconds", PD_UNIT_NS, 1 },
		{ "microseconds", PD_UNIT_NS, 1e3 },
		{ "milliseconds", PD_UNIT_NS, 1e6 },
		{ "seconds", PD_UNIT_NS, 1e9 },
		{ "bytes", PD_UNIT_BYTES, 1 },
		{ "none", PD_UNIT_SAMPLES, 1 },
		{ "", PD_UNIT_SAMPLES, 1 },
	};
	size_t i;

	for (i = 0; i < PD_ARRAY_SIZE(t); i++) {
		if (!strcmp(u, t[i].name)) {
			*unit = t[i].unit;
			*scale = t[i].scale;
			return 1;
		}
	}
	return 0;
}

static int starts(const char *s, const char *pre)
{
	return !strncmp(s, pre, strlen(pre));
}

/* Turns a sampled profile's runs into provisional node weights. */
static int settle_sampled(struct ss *s, struct sprofile *sp, size_t pi)
{
	size_t a = 0, b = 0;
	uint32_t an = 0, bn = 0;
	double minw = 0;
	int multiples = 1;
	size_t i;

	if (sp->nweights != sp->nsamples && sp->nweights) {
		pd_err_set(s->err, PD_EPARSE,
			   "%s: $.profiles[%zu]: %llu samples but %llu weights",
			   s->in->path, pi, (unsigned long long)sp->nsamples,
			   (unsigned long long)sp->nweights);
		return 0;
	}
	for (i = 0; i < sp->weights.n; i++)
		if (sp->weights.v[i].v > 0 &&
		    (minw <= 0 || sp->weights.v[i].v < minw))
			minw = sp->weights.v[i].v;
	for (i = 0; i < sp->weights.n && minw > 0; i++) {
		double r = sp->weights.v[i].v / minw;

		if (sp->weights.v[i].v > 0 &&
		    fabs(r - floor(r + 0.5)) > 1e-6 * (r + 1))
			multiples = 0;
	}
	while (a < sp->samples.n) {
		struct run_u32 *sr = &sp->samples.v[a];
		double w = 1;
		uint32_t take = sr->n - an;

		if (sp->nweights) {
			struct run_f64 *wr = &sp->weights.v[b];

			w = wr->v;
			if (wr->n - bn < take)
				take = wr->n - bn;
			bn += take;
			if (bn == wr->n) {
				b++;
				bn = 0;
			}
		}
		if (w > 0) {
			struct pd_node *nd = &s->prov.nodes.v[sr->v];

			nd->weight += w * take;
			nd->count +=
			    (multiples && minw > 0 ? w / minw : 1) * take;
		}
		an += take;
		if (an == sr->n) {
			a++;
			an = 0;
		}
	}
	PD_VEC_FREE(&sp->samples);
	PD_VEC_FREE(&sp->weights);
	return 1;
}

struct ctx {
	uint32_t process, thread; /* string ids, 0 = none */
	uint32_t real;		  /* node in p */
	size_t prof;
};

static int remap(struct ss *s)
{
	struct pd_profile *p = s->p, *v = &s->prov;
	const struct pd_import_opts *o = s->o;
	size_t nf = s->frames.n, i;
	unsigned char *kind = pd_xcalloc(nf ? nf : 1, 1);
	uint32_t *real = pd_xmalloc((nf ? nf : 1) * sizeof(*real));
	struct ctx *cx = pd_xmalloc(v->nodes.n * sizeof(*cx));
	double *scale =
	    pd_xmalloc((s->profs.n ? s->profs.n : 1) * sizeof(double));
	double interval_ns = (o->interval_ms > 0 ? o->interval_ms : 1) * 1e6;
	int traceevent =
	    p->exporter &&
	    (pd_filter_match("TraceEvent", p->exporter, strlen(p->exporter)) ||
	     !strcmp(p->exporter, "speedscope@1.3.2"));
	enum pd_unit unit = PD_UNIT_SAMPLES;
	int unit_set = 0, ok = 0;
	uint64_t unbalanced = 0, out_of_order = 0;
	size_t skipped_units = 0;

	for (i = 0; i < nf; i++) {
		const char *n = pd_intern_str(&p->strs, s->frames.v[i].name);

		if (starts(n, "Process64 ") || starts(n, "Process32 "))
			traceevent = 1;
	}
	for (i = 0; i < nf; i++) {
		const char *n = pd_intern_str(&p->strs, s->frames.v[i].name);
		size_t len = pd_intern_len(&p->strs, s->frames.v[i].name);
		uint32_t mod = s->frames.v[i].file;
		const char *bang;

		kind[i] = KIND_REAL;
		if (traceevent) {
			if (starts(n, "Process64 ") || starts(n, "Process32 "))
				kind[i] = KIND_PROCESS;
			else if (starts(n, "Thread ("))
				kind[i] = KIND_THREAD;
			else if (!strcmp(n, "Threads") ||
				 !strcmp(n, "(Non-Activities)") ||
				 !strcmp(n, "(Activities)"))
				kind[i] = KIND_SKIP;
			else if (!strcmp(n, "CPU_TIME"))
				kind[i] = KIND_CPU;
		}
		real[i] = UINT32_MAX;
		if (kind[i] != KIND_REAL)
			continue;
		/* TraceEvent names are module!method: split at the first '!'.
		 */
		bang = traceevent ? memchr(n, '!', len) : NULL;
		if (bang && bang > n && bang + 1 < n + len) {
			mod = pd_intern(&p->strs, n, (size_t)(bang - n));
			real[i] = pd_profile_frame(
			    p,
			    pd_intern(&p->strs, bang + 1,
				      len - (size_t)(bang - n) - 1),
			    mod);
		} else {
			real[i] = pd_profile_frame(p, s->frames.v[i].name, mod);
		}
	}
	for (i = 0; i < s->profs.n; i++) {
		struct sprofile *sp = &s->profs.v[i];
		enum pd_unit u;
		double sc;

		if (!unit_scale(sp->unit, &u, &sc)) {
			pd_err_set(s->err, PD_EPARSE,
				   "%s: $.profiles[%zu].unit: unknown unit"
				   " \"%s\"",
				   s->in->path, i, sp->unit);
			goto out;
		}
		if (sp->type == 2 && !settle_sampled(s, sp, i))
			goto out;
		if (!unit_set) {
			unit = u;
			unit_set = 1;
		}
		if (u != unit) {
			scale[i] = 0; /* cannot be added to the others */
			skipped_units++;
			continue;
		}
		scale[i] = sc;
		unbalanced += sp->unbalanced;
		out_of_order += sp->out_of_order;
	}
	p->unit = unit;

	cx[PD_ROOT].real = PD_ROOT;
	cx[PD_ROOT].process = cx[PD_ROOT].thread = 0;
	cx[PD_ROOT].prof = 0;
	for (i = 1; i < v->nodes.n; i++) {
		const struct pd_node *nd = &v->nodes.v[i];
		struct ctx *c = &cx[i];
		double w, cnt;
		const char *pn, *tn;

		if (nd->parent == PD_ROOT) {
			c->prof = nd->frame & ~PROFILE_ROOT;
			c->real = PD_ROOT;
			c->process = 0;
			c->thread = s->profs.v[c->prof].name;
		} else {
			uint32_t f = nd->frame;

			*c = cx[nd->parent];
			if (f >= nf) {
				pd_err_set(s->err, PD_EPARSE,
					   "%s: $.profiles[%zu]: frame index %u"
					   " is out of range ($.shared.frames"
					   " has %zu)",
					   s->in->path, c->prof, f, nf);
				goto out;
			}
			switch (kind[f]) {
			case KIND_PROCESS:
				c->process = s->frames.v[f].name;
				break;
			case KIND_THREAD:
				c->thread = s->frames.v[f].name;
				break;
			case KIND_SKIP:
			case KIND_CPU:
				break;
			default:
				c->real = pd_profile_child(p, c->real, real[f]);
			}
		}
		if (!(nd->weight > 0) || scale[c->prof] <= 0)
			continue;
		pn = pd_intern_str(&p->strs,
				   c->process ? c->process : c->thread);
		tn = pd_intern_str(&p->strs, c->thread);
		if (!pd_filter_match(o->process, pn, strlen(pn)) ||
		    !pd_filter_match(o->thread, tn, strlen(tn)))
			continue;
		w = nd->weight * scale[c->prof];
		if (s->profs.v[c->prof].type == 2)
			cnt = nd->count;
		else if (unit == PD_UNIT_NS)
			cnt = w / interval_ns;
		else
			cnt = w;
		pd_profile_add(p, c->real, w, cnt);
		pd_profile_thread(p, tn, strlen(tn), w);
	}
	if (unit == PD_UNIT_NS) {
		int any_evented = 0, any_sampled = 0;
		struct pd_buf rule = PD_BUF_INIT;

		for (i = 0; i < s->profs.n; i++) {
			any_evented |= s->profs.v[i].type == 1;
			any_sampled |= s->profs.v[i].type == 2;
		}
		if (any_evented) {
			p->interval = interval_ns;
			pd_buf_addf(&rule,
				    "sample counts = evented durations / %g ms"
				    " sampling interval%s",
				    interval_ns / 1e6,
				    o->interval_ms > 0 ? " (--interval)"
				    : traceevent       ? " (PerfView/TraceEvent"
							 " default)"
						       : " (assumed; --interval"
							 " to set)");
		}
		if (any_sampled)
			pd_buf_addf(&rule,
				    "%ssample counts = sampled rows"
				    " (weights in multiples of the smallest"
				    " count as several)",
				    rule.len ? "; " : "");
		p->count_rule = pd_buf_detach(&rule);
	} else {
		p->count_rule = pd_xstrdup("sample counts = weights");
		p->interval = 1;
	}
	for (i = 0; i < s->profs.n; i++)
		p->nsamples += s->profs.v[i].type == 1 ? s->profs.v[i].nevents
						       : s->profs.v[i].nsamples;
	if (unbalanced)
		pd_profile_note(p,
				"%s: %llu close events did not match the open"
				" frame and were repaired",
				s->in->path, (unsigned long long)unbalanced);
	if (out_of_order)
		pd_profile_note(p,
				"%s: %llu events went back in time and added"
				" no weight",
				s->in->path, (unsigned long long)out_of_order);
	if (skipped_units)
		pd_profile_note(p,
				"%s: %zu profiles skipped: their unit differs"
				" from the first profile's",
				s->in->path, skipped_units);
	ok = 1;
out:
	free(kind);
	free(real);
	free(cx);
	free(scale);
	return ok;
}

int pd_speedscope_import(struct pd_input *in, struct pd_profile *p,
			 const struct pd_import_opts *o, struct pd_err *err)
{
	struct ss s;
	yajl_handle h;
	struct pd_json_stream js;
	int rc = 0;
	size_t i;

	memset(&s, 0, sizeof(s));
	memset(&js, 0, sizeof(js));
	s.p = p;
	s.o = o;
	s.in = in;
	s.err = err;
	s.depth = -1;
	pd_profile_init(&s.prov);
	h = yajl_alloc(&callbacks, NULL, &s);
	if (!h)
		pd_die_oom(0);
	js.h = h;
	js.failed = &s.failed;
	js.path = json_path;
	js.arg = &s;
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
	if (!remap(&s)) {
		rc = PD_EPARSE;
		goto out;
	}
out:
	yajl_free(h);
	pd_profile_release(&s.prov);
	PD_VEC_FREE(&s.frames);
	for (i = 0; i < s.profs.n; i++) {
		PD_VEC_FREE(&s.profs.v[i].samples);
		PD_VEC_FREE(&s.profs.v[i].weights);
	}
	PD_VEC_FREE(&s.profs);
	PD_VEC_FREE(&s.open);
	PD_VEC_FREE(&s.cur_sample);
	return rc;
}
