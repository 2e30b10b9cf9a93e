/*
 * perf script text read in pieces on threads (docs/performance.md, "perf
 * script text"). A large plain file is cut at sample headers into pieces
 * of about equal size; each piece is read by the one reader (perf.c) into
 * a profile of its own, and the pieces are then added to the first in
 * file order, so that strings, frames and stack nodes get the ids one
 * reader of the whole file gives them, and the time blocks see the
 * samples in file order: the profile is the same, bit for bit.
 *
 * What makes a cut safe: a line that is a header in every state of the
 * reader (perf_piece_start) ends the sample before it and starts its own,
 * so the reader's state at that line is a fresh one's, but for the event
 * it chose at the file's first header (given to every piece) and its
 * caches (which change speed, not answers).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/xalloc.h"
#include "import/perf_int.h"

#define PIECES_MAX 16
#define CUT_WINDOW ((size_t)1 << 20) /* bytes searched for a cut */

struct piece {
	struct perf_state st;
	struct pd_profile p;
	struct pd_import_opts o;
	struct pd_input in;
	struct pd_lines lines;
	struct pd_err err;
	int rc, opened;
	pthread_t th;
	int threaded;
};

static unsigned threads_wanted(void)
{
	const char *e = getenv("PERFDIFF_THREADS");
	long n;

	if (e && *e) {
		n = strtol(e, NULL, 10);
		return n < 1 ? 1 : n > PIECES_MAX ? PIECES_MAX : (unsigned)n;
	}
	n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n > 8 ? 8 : (unsigned)n;
}

/*
 * The event of the file's first sample, from its head (the event one
 * reader chooses when none is asked for); NULL when the head has none.
 */
static char *first_event(const struct pd_input *in)
{
	const char *s = in->head, *end = in->head + in->head_len, *ev;
	char line[4096];
	size_t n, evn;

	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));

		if (!nl)
			return NULL; /* a line the head cuts short */
		n = (size_t)(nl - s);
		if (n && s[n - 1] == '\r')
			n--;
		if (n < sizeof(line)) {
			memcpy(line, s, n);
			line[n] = '\0';
			if (perf_piece_start(line, 1, &ev, &evn))
				return pd_xstrndup(ev, evn);
		}
		s = nl + 1;
	}
	return NULL;
}

/*
 * The first line at or after byte at (not counting a line at begins in
 * the middle of) that perf_piece_start takes; 0 when none is near.
 */
static uint64_t find_cut(int fd, uint64_t at, uint64_t end, char *win)
{
	size_t want = end - at < CUT_WINDOW ? (size_t)(end - at) : CUT_WINDOW;
	ssize_t got = pread(fd, win, want, (off_t)at);
	char *s, *e;
	const char *ev;
	size_t evn;

	if (got <= 0)
		return 0;
	e = win + got;
	s = memchr(win, '\n', (size_t)got);
	while (s && ++s < e) {
		char *nl = memchr(s, '\n', (size_t)(e - s));
		size_t n;

		if (!nl)
			return 0;
		n = (size_t)(nl - s);
		if (n && s[n - 1] == '\r')
			n--;
		if (memchr(s, '\0', n))
			return 0; /* not text a header could be */
		*nl = '\0';
		s[n] = '\0';
		if (perf_piece_start(s, 0, &ev, &evn))
			return at + (uint64_t)(s - win);
		s = nl;
	}
	return 0;
}

static void *read_piece(void *arg)
{
	struct piece *pc = arg;

	pc->rc = perf_read_lines(&pc->st, &pc->lines, &pc->err);
	return NULL;
}

static void merge_events(struct perf_state *st, const struct perf_state *s)
{
	size_t i;

	for (i = 1; i < s->events.n; i++) {
		uint32_t id = pd_intern(&st->events,
					pd_intern_str(&s->events, (uint32_t)i),
					pd_intern_len(&s->events, (uint32_t)i));

		while (st->event_samples.n <= id)
			PD_VEC_PUSH(&st->event_samples, 0);
		st->event_samples.v[id] += s->event_samples.v[i];
		if (st->chosen == UINT32_MAX && i == s->chosen)
			st->chosen = id;
	}
	if (s->any_period) {
		if (!st->any_period)
			st->first_period = s->first_period;
		else if (s->first_period < st->first_period ||
			 s->first_period > st->first_period)
			st->const_period = 0;
		st->const_period &= s->const_period;
		st->any_period = 1;
	}
	st->all_period &= s->all_period;
	st->cut_weight += s->cut_weight;
}

/*
 * Adds piece pc (its lines after the first `lines` of the file) to st,
 * in the order one reader would have met its strings, frames and stacks.
 */
static void merge(struct perf_state *st, struct piece *pc, size_t lines)
{
	struct pd_profile *d = st->p, *s = &pc->p;
	uint32_t *smap = pd_xmalloc((s->strs.n + 1) * sizeof(*smap));
	uint32_t *fmap = pd_xmalloc((s->frames.n + 1) * sizeof(*fmap));
	uint32_t *to = pd_xmalloc((s->nodes.n + 1) * sizeof(*to));
	size_t i;

	for (i = 0; i < s->strs.n; i++)
		smap[i] =
		    pd_intern(&d->strs, pd_intern_str(&s->strs, (uint32_t)i),
			      pd_intern_len(&s->strs, (uint32_t)i));
	if (s->thread_module)
		d->thread_module = smap[s->thread_module];
	d->has_modules |= s->has_modules;
	for (i = 0; i < s->frames.n; i++)
		fmap[i] = pd_profile_frame(d, smap[s->frames.v[i].name],
					   smap[s->frames.v[i].module]);
	to[0] = PD_ROOT;
	pd_profile_add(d, PD_ROOT, s->nodes.v[0].weight, s->nodes.v[0].count);
	for (i = 1; i < s->nodes.n; i++) {
		const struct pd_node *nd = &s->nodes.v[i];

		to[i] = pd_profile_child(d, to[nd->parent], fmap[nd->frame]);
		pd_profile_add(d, to[i], nd->weight, nd->count);
	}
	for (i = 0; i < pc->st.tlog.n; i++)
		pd_blocks_add(&d->blk, to[pc->st.tlog.v[i].node],
			      pc->st.tlog.v[i].time, 1);
	for (i = 0; i < s->threads.n; i++)
		pd_profile_thread(d,
				  pd_intern_str(&s->strs, s->threads.v[i].name),
				  pd_intern_len(&s->strs, s->threads.v[i].name),
				  s->threads.v[i].weight);
	for (i = 0; i < s->notes.n; i++)
		pd_profile_note(d, "%s", s->notes.v[i]);
	d->nsamples += s->nsamples;
	merge_events(st, &pc->st);
	if (pc->st.skipped_lines && !st->skipped_lines)
		st->first_skipped = lines + pc->st.first_skipped;
	st->skipped_lines += pc->st.skipped_lines;
	free(smap);
	free(fmap);
	free(to);
}

/* Where the pieces start: cut[0..n), cut[n] the end; n, 1 for no cut. */
static unsigned cuts(const struct pd_input *in, uint64_t start, uint64_t size,
		     unsigned n, uint64_t *cut)
{
	char *win = pd_xmalloc(CUT_WINDOW);
	unsigned k, m = 1;

	cut[0] = start;
	for (k = 1; k < n; k++) {
		uint64_t at = start + (size - start) / n * k;
		uint64_t c =
		    at > cut[m - 1] ? find_cut(in->fd, at, size, win) : 0;

		if (c > cut[m - 1])
			cut[m++] = c;
	}
	cut[m] = size;
	free(win);
	return m;
}

static void piece_release(struct piece *pc)
{
	if (pc->opened) {
		pd_lines_release(&pc->lines);
		pd_input_close(&pc->in);
	}
	perf_state_release(&pc->st);
	pd_profile_release(&pc->p);
}

int perf_import_split(struct pd_input *in, struct perf_state *st, unsigned nmax,
		      uint64_t min_bytes, struct pd_err *err)
{
	uint64_t start, size, cut[PIECES_MAX + 1];
	struct piece *pc;
	char *event = NULL;
	unsigned n, k;
	size_t lines = 0;
	int rc = 1;

	if (!pd_input_plain_file(in, &start, &size))
		return 0;
	n = nmax ? nmax : threads_wanted();
	if (n > PIECES_MAX)
		n = PIECES_MAX;
	if (min_bytes && (size - start) / min_bytes < n)
		n = (unsigned)((size - start) / min_bytes);
	if (n < 2 || (!st->o->event && !(event = first_event(in))))
		return 0;
	n = cuts(in, start, size, n, cut);
	if (n < 2) {
		free(event);
		return 0;
	}
	pc = pd_xcalloc(n, sizeof(*pc));
	for (k = 1; k < n; k++) {
		pc[k].o = *st->o;
		if (event)
			pc[k].o.event = event;
		pd_profile_init(&pc[k].p);
		perf_state_init(&pc[k].st, &pc[k].p, &pc[k].o);
		pc[k].st.log_times = 1;
		pc[k].rc = pd_input_open_range(&pc[k].in, in->path, cut[k],
					       cut[k + 1] - cut[k], &pc[k].err);
		if (pc[k].rc < 0)
			continue;
		pc[k].opened = 1;
		pd_lines_init(&pc[k].lines, &pc[k].in);
		pc[k].threaded =
		    !pthread_create(&pc[k].th, NULL, read_piece, &pc[k]);
	}
	/* the first piece: this input, up to the first cut */
	in->limited = 1;
	in->limit = cut[1] - start;
	pd_lines_init(&pc[0].lines, in);
	pc[0].rc = perf_read_lines(st, &pc[0].lines, err);
	lines = pc[0].lines.lineno;
	pd_lines_release(&pc[0].lines);
	in->limited = 0;
	for (k = 1; k < n; k++) {
		if (pc[k].threaded)
			pthread_join(pc[k].th, NULL);
		else if (pc[k].opened)
			read_piece(&pc[k]);
	}
	if (pc[0].rc < 0)
		rc = pc[0].rc;
	for (k = 1; k < n && rc > 0; k++) {
		if (pc[k].rc < 0) {
			if (pc[k].rc == PD_ETOOBIG) /* its line, in the file */
				rc = pd_err_set(
				    err, PD_ETOOBIG,
				    "%s:%zu: line longer than %zu bytes",
				    in->path, lines + pc[k].lines.lineno + 1,
				    pc[k].lines.max_line);
			else
				rc = pd_err_set(err, pc[k].rc, "%s",
						pc[k].err.msg);
			break;
		}
		merge(st, &pc[k], lines);
		lines += pc[k].lines.lineno;
	}
	for (k = 1; k < n; k++)
		piece_release(&pc[k]);
	free(pc);
	free(event);
	return rc;
}
