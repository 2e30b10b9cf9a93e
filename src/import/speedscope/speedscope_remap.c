/*
 * speedscope after the parse (docs/formats.md, "speedscope JSON"): the
 * provisional tree, keyed by raw frame index with one root per profile, mapped
 * onto real frames, PerfView/TraceEvent pseudo-frames and units.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/xalloc.h"
#include "import/speedscope/speedscope_int.h"

/* speedscope's units: time, bytes, or "none" (and "") for counts. */
static int unit_scale(const char *u, enum pd_unit *unit, double *scale)
{
	if (!*u || !strcmp(u, "none")) {
		*unit = PD_UNIT_SAMPLES;
		*scale = 1;
		return 1;
	}
	return pd_unit_parse(u, strlen(u), unit, scale);
}

static int starts(const char *s, const char *pre)
{
	return !strncmp(s, pre, strlen(pre));
}

/*
 * A sampled profile perfdiff wrote, with each row's sample count beside
 * its weight (perfdiffCounts): the counts are taken as written, so that a
 * converted profile is judged as its source was.
 */
static int settle_counted(struct ss_state *s, struct ss_profile *sp, size_t pi)
{
	size_t a = 0, b = 0, r;
	uint32_t an = 0, bn = 0;

	if (sp->ncounts != sp->nsamples) {
		pd_err_set(s->err, PD_EPARSE,
			   "%s: $.profiles[%zu]: %llu samples but %llu sample"
			   " counts",
			   s->in->path, pi, (unsigned long long)sp->nsamples,
			   (unsigned long long)sp->ncounts);
		return 0;
	}
	/* (the weights' count was checked by settle_sampled) */
	for (r = 0; r < sp->ncounts; r++) {
		struct pd_node *nd = &s->prov.nodes.v[sp->samples.v[a].v];
		double w = 1;

		if (++an == sp->samples.v[a].n) {
			a++;
			an = 0;
		}
		if (sp->nweights) {
			w = sp->weights.v[b].v;
			if (++bn == sp->weights.v[b].n) {
				b++;
				bn = 0;
			}
		}
		nd->weight += w;
		nd->count += sp->counts.v[r].v;
	}
	PD_VEC_FREE(&sp->samples);
	PD_VEC_FREE(&sp->weights);
	PD_VEC_FREE(&sp->counts);
	return 1;
}

/* Turns a sampled profile's runs into provisional node weights. */
static int settle_sampled(struct ss_state *s, struct ss_profile *sp, size_t pi)
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
	if (sp->ncounts)
		return settle_counted(s, sp, pi);
	for (i = 0; i < sp->weights.n; i++)
		if (sp->weights.v[i].v > 0 &&
		    (minw <= 0 || sp->weights.v[i].v < minw))
			minw = sp->weights.v[i].v;
	for (i = 0; i < sp->weights.n && minw > 0; i++) {
		double r = sp->weights.v[i].v / minw;

		/* (a tiny smallest weight, 5e-324, gives no multiples:
		 * each row is then one sample, never "inf samples") */
		if (sp->weights.v[i].v > 0 &&
		    (!(r < 1e9) || fabs(r - floor(r + 0.5)) > 1e-6 * (r + 1)))
			multiples = 0;
	}
	while (a < sp->samples.n) {
		struct ss_run_u32 *sr = &sp->samples.v[a];
		double w = 1;
		uint32_t take = sr->n - an;

		if (sp->nweights) {
			struct ss_run_f64 *wr = &sp->weights.v[b];

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

/*
 * What perfdiff convert wrote beyond the format: the source's unit (a
 * count of events is not samples), exactness (DHAT), event and count rule.
 */
static int apply_ext(struct ss_state *s)
{
	struct pd_profile *p = s->p;

	if (s->ext_unit[0]) {
		if (!strcmp(s->ext_unit, "count") && p->unit == PD_UNIT_SAMPLES)
			p->unit = PD_UNIT_COUNT;
		else if (strcmp(s->ext_unit, pd_unit_name(p->unit))) {
			pd_err_set(s->err, PD_EPARSE,
				   "%s: $.perfdiff.unit: \"%s\" does not"
				   " agree with the profiles' unit",
				   s->in->path, s->ext_unit);
			return 0;
		}
	}
	p->exact = s->ext_exact;
	if (s->ext_event && !p->event) {
		p->event = s->ext_event;
		s->ext_event = NULL;
	}
	if (s->ext_rule) {
		free(p->count_rule);
		p->count_rule = s->ext_rule;
		s->ext_rule = NULL;
	}
	if (s->ext_interval > 0)
		p->interval = s->ext_interval;
	return 1;
}

struct ctx {
	uint32_t process, thread; /* string ids, 0 = none */
	uint32_t real;		  /* node in p */
	size_t prof;
};

/* "Thread (5678)": TraceEvent's thread pseudo-frame. */
static int thread_frame(const char *n)
{
	if (!starts(n, "Thread ("))
		return 0;
	n += 8;
	if (*n < '0' || *n > '9')
		return 0;
	while (*n >= '0' && *n <= '9')
		n++;
	return n[0] == ')' && !n[1];
}

/*
 * TraceEvent (PerfView, dotnet-trace) names its process frames so, and
 * its threads "Thread (ID)" under a "Threads" frame: either is enough
 * (an export of one process's threads has no process frame).
 */
static int is_traceevent(const struct ss_state *s)
{
	const struct pd_profile *p = s->p;
	int threads = 0, thread = 0;
	size_t i;

	if (p->exporter &&
	    (pd_filter_match("TraceEvent", p->exporter, strlen(p->exporter)) ||
	     !strcmp(p->exporter, "speedscope@1.3.2")))
		return 1;
	for (i = 0; i < s->frames.n; i++) {
		const char *n = pd_intern_str(&p->strs, s->frames.v[i].name);

		if (starts(n, "Process64 ") || starts(n, "Process32 "))
			return 1;
		threads |= !strcmp(n, "Threads");
		thread |= thread_frame(n);
	}
	return threads && thread;
}

/*
 * TraceEvent's Thread Time leaves that are time waited, not run, and the
 * kind each is named by under its caller ("ReadFile (disk)"): PerfView's
 * ThreadTimeComputer and the EventPipe one (UNMANAGED_CODE_TIME, a thread
 * outside managed code) write them as the last frame of a stack
 * (docs/formats.md, "speedscope").
 */
static const struct {
	const char *name;
	int prefix; /* name is a prefix ("BLOCKED_FOR <= 10 msec") */
	const char *kind;
} wait_kinds[] = {
	{ "BLOCKED_TIME", 0, "blocked" },
	{ "BLOCKED_FOR <= ", 1, "blocked" },
	{ "DISK_TIME", 0, "disk" },
	{ "HARD_FAULT", 0, "hard fault" },
	{ "NETWORK_TIME (probably)", 0, "network" },
	{ "READIED_TIME (waiting for cpu)", 0, "ready" },
	{ "AWAIT_TIME", 0, "await" },
	{ "UNMANAGED_CODE_TIME", 0, "unmanaged code" },
};

/*
 * Thread Time's frames between a waiting function and its wait: the
 * disk file, the network peer, the CPUs it blocked and woke on, and the
 * stack of the thread that readied it ("... (READIED_BY)"). They name no
 * function of the waiting thread.
 */
static int wait_detail(const char *n, size_t len)
{
	return starts(n, "DiskFile: ") ||
	       starts(n, "NETWORK (probably) From: ") ||
	       starts(n, "BLOCKED on CPU ") || starts(n, "READIED BY TID(") ||
	       (len >= 12 && !memcmp(n + len - 12, "(READIED_BY)", 12)) ||
	       (starts(n, "File ") && !memchr(n, '!', len));
}

static int wait_kind(const char *n)
{
	size_t j;

	for (j = 0; j < PD_ARRAY_SIZE(wait_kinds); j++)
		if (wait_kinds[j].prefix ? starts(n, wait_kinds[j].name)
					 : !strcmp(n, wait_kinds[j].name))
			return (int)j;
	return -1;
}

/*
 * The frame of time waited of kind j under the node at: its function's
 * name with the kind after it, in its module ("ReadFile (disk)").
 */
static uint32_t wait_frame(struct ss_state *s, uint32_t at, int j)
{
	struct pd_profile *p = s->p;
	struct pd_buf b = PD_BUF_INIT;
	uint32_t mod = 0, f;

	if (at != PD_ROOT &&
	    !pd_profile_is_thread_frame(p, p->nodes.v[at].frame)) {
		const struct pd_frame *fr = &p->frames.v[p->nodes.v[at].frame];

		pd_buf_add(&b, pd_intern_str(&p->strs, fr->name),
			   pd_intern_len(&p->strs, fr->name));
		pd_buf_adds(&b, " ");
		mod = fr->module;
	}
	pd_buf_addf(&b, "(%s)", wait_kinds[j].kind);
	f = pd_profile_frame(p, pd_intern(&p->strs, b.buf, b.len), mod);
	pd_buf_release(&b);
	return f;
}

/*
 * What each speedscope frame is (kind) and, for a real one, the profile's
 * frame (real): TraceEvent's process, thread and CPU_TIME pseudo-frames
 * are no functions, its waits are time of their caller, and its
 * "module!method" names are split.
 */
static void classify_frames(struct ss_state *s, int traceevent,
			    unsigned char *kind, uint32_t *real)
{
	struct pd_profile *p = s->p;
	size_t i;

	for (i = 0; i < s->frames.n; i++) {
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
			else if (wait_kind(n) >= 0)
				kind[i] =
				    (unsigned char)(KIND_WAIT + wait_kind(n));
			else if (wait_detail(n, len))
				kind[i] = KIND_SKIP;
		}
		real[i] = UINT32_MAX;
		if (kind[i] != KIND_REAL)
			continue;
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
}

/* The profiles' units: the first one's is the profile's; others skipped. */
struct units {
	enum pd_unit unit;
	double *scale; /* per profile, 0 for one left out */
	uint64_t unbalanced, out_of_order;
	size_t skipped;
};

static int settle_units(struct ss_state *s, struct units *u)
{
	int unit_set = 0;
	size_t i;

	u->unit = PD_UNIT_SAMPLES;
	for (i = 0; i < s->profs.n; i++) {
		struct ss_profile *sp = &s->profs.v[i];
		enum pd_unit pu;
		double sc;

		if (!unit_scale(sp->unit, &pu, &sc)) {
			/* speedscope shows such values as they are */
			pd_profile_note(s->p,
					"%s: $.profiles[%zu].unit: \"%s\" is"
					" no speedscope unit: its values are"
					" read as counts, as speedscope shows"
					" them",
					s->in->path, i, sp->unit);
			pu = PD_UNIT_SAMPLES;
			sc = 1;
		}
		if (sp->type == 2 && !settle_sampled(s, sp, i))
			return 0;
		if (!unit_set) {
			u->unit = pu;
			unit_set = 1;
		}
		if (pu != u->unit) {
			u->scale[i] = 0; /* cannot be added to the others */
			u->skipped++;
			continue;
		}
		u->scale[i] = sc;
		u->unbalanced += sp->unbalanced;
		u->out_of_order += sp->out_of_order;
	}
	return 1;
}

/*
 * Provisional node i's context from its parent's: the profile, the
 * process and thread so far, and the real node. 0 after an error.
 */
static int place_node(struct ss_state *s, struct ctx *cx, size_t i,
		      const unsigned char *kind, const uint32_t *real)
{
	struct pd_profile *p = s->p;
	const struct pd_node *nd = &s->prov.nodes.v[i];
	struct ctx *c = &cx[i];
	uint32_t f = nd->frame;

	if (nd->parent == PD_ROOT) {
		c->prof = nd->frame & ~SS_PROFILE_ROOT;
		c->real = PD_ROOT;
		if (s->o->thread_roots) {
			uint32_t id = s->profs.v[c->prof].name;
			char num[32];
			const char *nm = pd_intern_str(&p->strs, id);
			size_t len = pd_intern_len(&p->strs, id);

			if (!len) { /* an unnamed profile: its index */
				len = (size_t)snprintf(num, sizeof(num),
						       "profile %zu",
						       (size_t)c->prof + 1);
				nm = num;
			}
			c->real = pd_profile_thread_root(p, nm, len);
		}
		c->process = 0;
		c->thread = s->profs.v[c->prof].name;
		return 1;
	}
	*c = cx[nd->parent];
	if (f >= s->frames.n) {
		pd_err_set(s->err, PD_EPARSE,
			   "%s: $.profiles[%zu]: frame index %u is out of range"
			   " ($.shared.frames has %zu)",
			   s->in->path, c->prof, f, s->frames.n);
		return 0;
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
	case KIND_REAL:
		c->real = pd_profile_child(p, c->real, real[f]);
		break;
	default: /* time waited: its caller's, of its kind */
		c->real = pd_profile_child(
		    p, c->real, wait_frame(s, c->real, kind[f] - KIND_WAIT));
	}
	return 1;
}

/* How sample counts were had, for the report's counts: line. */
static void set_count_rule(struct ss_state *s, enum pd_unit unit,
			   double interval_ns, int traceevent)
{
	struct pd_profile *p = s->p;
	const struct pd_import_opts *o = s->o;
	int any_evented = 0, any_sampled = 0;
	struct pd_buf rule = PD_BUF_INIT;
	size_t i;

	if (unit != PD_UNIT_NS) {
		p->count_rule = pd_xstrdup("sample counts = weights");
		p->interval = 1;
		return;
	}
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
			    : traceevent ? " (PerfView/TraceEvent default)"
					 : " (assumed; --interval to set)");
		/* the interval sets every noise threshold: say it was guessed
		 */
		if (!(o->interval_ms > 0))
			pd_profile_note(p,
					"%s: an evented profile says nothing of"
					" its sampling rate: its durations are"
					" counted as samples of 1 ms%s; if it"
					" was recorded at another rate, pass"
					" --interval MS",
					s->in->path,
					traceevent ? " (PerfView's default)"
						   : "");
	}
	if (any_sampled)
		pd_buf_addf(&rule,
			    "%ssample counts = sampled rows (weights in"
			    " multiples of the smallest count as several)",
			    rule.len ? "; " : "");
	p->count_rule = pd_buf_detach(&rule);
}

/*
 * Whether the evented profiles' times share one unit, so that their time
 * blocks (statistics.md, "Bursty functions") are on one clock.
 */
static int one_clock(const struct ss_state *s)
{
	const char *unit = NULL;
	size_t i;

	for (i = 0; i < s->profs.n; i++) {
		if (s->profs.v[i].type != 1)
			continue;
		if (unit && strcmp(unit, s->profs.v[i].unit))
			return 0;
		unit = s->profs.v[i].unit;
	}
	return 1;
}

int pd_speedscope_remap(struct ss_state *s)
{
	struct pd_profile *p = s->p, *v = &s->prov;
	const struct pd_import_opts *o = s->o;
	size_t nf = s->frames.n, i;
	unsigned char *kind = pd_xcalloc(nf ? nf : 1, 1);
	uint32_t *real = pd_xmalloc((nf ? nf : 1) * sizeof(*real));
	struct ctx *cx = pd_xmalloc(v->nodes.n * sizeof(*cx));
	double interval_ns = (o->interval_ms > 0 ? o->interval_ms : 1) * 1e6;
	int traceevent = is_traceevent(s), ok = 0;
	struct units u;

	memset(&u, 0, sizeof(u));
	u.scale = pd_xcalloc(s->profs.n ? s->profs.n : 1, sizeof(double));
	classify_frames(s, traceevent, kind, real);
	if (!settle_units(s, &u))
		goto out;
	p->unit = u.unit;
	if (one_clock(s))
		pd_blocks_restart(&p->blk, &v->blk);
	cx[PD_ROOT].real = PD_ROOT;
	cx[PD_ROOT].process = cx[PD_ROOT].thread = 0;
	cx[PD_ROOT].prof = 0;
	for (i = 1; i < v->nodes.n; i++) {
		const struct pd_node *nd = &v->nodes.v[i];
		const struct ctx *c = &cx[i];
		double w, cnt;
		const char *pn, *tn;

		if (!place_node(s, cx, i, kind, real))
			goto out;
		if (!(nd->weight > 0) || u.scale[c->prof] <= 0)
			continue;
		pn = pd_intern_str(&p->strs,
				   c->process ? c->process : c->thread);
		tn = pd_intern_str(&p->strs, c->thread);
		if (!pd_filter_match(o->process, pn, strlen(pn)) ||
		    !pd_filter_match(o->thread, tn, strlen(tn)))
			continue;
		w = nd->weight * u.scale[c->prof];
		if (s->profs.v[c->prof].type == 2)
			cnt = nd->count;
		else if (u.unit == PD_UNIT_NS)
			cnt = w / interval_ns;
		else
			cnt = w;
		pd_profile_add(p, c->real, w, cnt);
		/* an evented wait's opens are its waits */
		if (nd->frame < nf && kind[nd->frame] >= KIND_WAIT &&
		    s->profs.v[c->prof].type == 1)
			pd_profile_add_waits(p, p->nodes.v[c->real].frame,
					     nd->count);
		if (p->blk.used)
			pd_blocks_carry_count(&p->blk, &v->blk, (uint32_t)i,
					      c->real, cnt);
		pd_profile_thread(p, tn, strlen(tn), w);
	}
	set_count_rule(s, u.unit, interval_ns, traceevent);
	if (!apply_ext(s))
		goto out;
	for (i = 0; i < s->profs.n; i++)
		p->nsamples += s->profs.v[i].type == 1 ? s->profs.v[i].nevents
						       : s->profs.v[i].nsamples;
	if (u.unbalanced)
		pd_profile_note(p,
				"%s: %llu close events did not match the open"
				" frame and were repaired",
				s->in->path, (unsigned long long)u.unbalanced);
	if (u.out_of_order)
		pd_profile_note(p,
				"%s: %llu events went back in time and added"
				" no weight",
				s->in->path,
				(unsigned long long)u.out_of_order);
	if (u.skipped)
		pd_profile_note(p,
				"%s: %zu profiles skipped: their unit differs"
				" from the first profile's",
				s->in->path, u.skipped);
	ok = 1;
out:
	free(kind);
	free(real);
	free(cx);
	free(u.scale);
	return ok;
}
