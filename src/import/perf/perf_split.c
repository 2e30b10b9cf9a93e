/*
 * perf script text read whole, or in pieces on threads (docs/performance.md,
 * "perf script text"). A large plain file is cut at sample headers into pieces
 * of about equal size; each piece is read by the one reader (perf.c) into
 * a profile of its own, and the pieces are then added to the first in
 * file order, so that strings, frames and stack nodes get the ids one
 * reader of the whole file gives them, and the time blocks see the
 * samples in file order: the profile is the same, bit for bit.
 *
 * What makes a cut safe: a line that is a header in every state of the
 * reader (pd_perf_piece_start) ends the sample before it and starts its own,
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
#include "import/perf/perf_int.h"

#define PIECES_MAX 16		     /* threads at most */
#define CUT_WINDOW ((size_t)1 << 20) /* bytes searched for a cut */

struct piece {
	struct perf_state st;
	struct pd_profile p;
	struct pd_import_opts o;
	struct pd_input in;
	struct pd_lines lines;
	struct pd_err err;
	int rc, opened, done;
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
			/* switch-outs are waits beside the CPU's samples */
			if (pd_perf_piece_start(line, 1, &ev, &evn) &&
			    !pd_perf_is_switch(ev, evn))
				return pd_xstrndup(ev, evn);
		}
		s = nl + 1;
	}
	return NULL;
}

/*
 * The first line at or after byte at (not counting a line at begins in
 * the middle of) that pd_perf_piece_start takes; 0 when none is near.
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
		if (pd_perf_piece_start(s, 0, &ev, &evn))
			return at + (uint64_t)(s - win);
		s = nl;
	}
	return 0;
}

static void *read_piece(void *arg)
{
	struct piece *pc = arg;

	pc->rc = pd_perf_read_lines(&pc->st, &pc->lines, &pc->err);
	pc->done = 1;
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
		pd_perf_period_seen(st, s->first_period);
		st->const_period &= s->const_period;
	}
	st->all_period &= s->all_period;
	st->cut_weight += s->cut_weight;
	if (!st->io_kind) {
		st->io_kind = s->io_kind;
		st->io_by_bytes = s->io_by_bytes;
	}
	st->io_calls += s->io_calls;
	st->io_unsaid += s->io_unsaid;
	st->io_bytes += s->io_bytes;
}

/*
 * Adds piece pc (its lines after the first `lines` of the file) to st,
 * in the order one reader would have met its strings, frames and stacks.
 */
static void merge(struct perf_state *st, struct piece *pc, size_t lines)
{
	struct pd_profile *d = st->p, *s = &pc->p;
	uint32_t *to;
	size_t i;

	pd_profile_merge(d, s, 1, &to);
	for (i = 0; i < pc->st.tlog.n; i++)
		pd_blocks_add(&d->blk, to[pc->st.tlog.v[i].node],
			      pc->st.tlog.v[i].time, 1);
	for (i = 0; i < pc->st.sw.n; i++) { /* in file order, as one reader */
		struct perf_switch w = pc->st.sw.v[i];

		if (st->sw.n >= st->sw_cap) {
			if (!st->sw_over)
				st->sw_over_time = w.time;
			st->sw_over = 1;
			break;
		}

		if (w.node != PERF_SW_IN && w.node != PERF_SW_WAKE)
			w.node = to[w.node];
		w.thread =
		    pd_intern(&d->strs, pd_intern_str(&s->strs, w.thread),
			      pd_intern_len(&s->strs, w.thread));
		PD_VEC_PUSH(&st->sw, w);
	}
	if (pc->st.sw_over && !st->sw_over) {
		st->sw_over = 1;
		st->sw_over_time = pc->st.sw_over_time;
	}
	st->sw_out += pc->st.sw_out;
	st->sw_in += pc->st.sw_in;
	st->sw_wake += pc->st.sw_wake;
	st->sw_seen += pc->st.sw_seen;
	st->sw_outrec += pc->st.sw_outrec;
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
	free(to);
}

/*
 * Where n pieces of [start, size) start: cut[0..m), cut[m] the end; m, 1
 * when there is no cut.
 */
static size_t cuts(const struct pd_input *in, uint64_t start, uint64_t size,
		   size_t n, uint64_t *cut)
{
	char *win = pd_xmalloc(CUT_WINDOW);
	size_t k, m = 1;

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

static void piece_open(struct piece *pc, const struct perf_state *st,
		       const char *path, char *event, uint64_t a, uint64_t b)
{
	memset(pc, 0, sizeof(*pc));
	pc->o = *st->o;
	if (event)
		pc->o.event = event;
	pd_profile_init(&pc->p);
	pd_perf_state_init(&pc->st, &pc->p, &pc->o);
	pc->st.log_times = 1;
	pc->st.sw_cap = st->sw_cap;
	pc->rc = pd_input_open_range(&pc->in, path, a, b - a, &pc->err);
	if (pc->rc < 0)
		return;
	pc->opened = 1;
	pd_lines_init(&pc->lines, &pc->in);
}

static void piece_release(struct piece *pc)
{
	if (pc->opened) {
		pd_lines_release(&pc->lines);
		pd_input_close(&pc->in);
	}
	pd_perf_state_release(&pc->st);
	pd_profile_release(&pc->p);
}

/* Piece pc into st after *lines lines; 1, or the piece's error. */
static int take(struct perf_state *st, struct piece *pc, size_t *lines,
		const char *path, struct pd_err *err)
{
	if (pc->rc == PD_ETOOBIG) /* its line, counted in the file */
		return pd_err_set(
		    err, PD_ETOOBIG, "%s:%zu: line longer than %zu bytes", path,
		    *lines + pc->lines.lineno + 1, pc->lines.max_line);
	if (pc->rc < 0)
		return pd_err_set(err, pc->rc, "%s", pc->err.msg);
	merge(st, pc, *lines);
	*lines += pc->lines.lineno;
	return 1;
}

/*
 * The file's pieces in waves of nt, each read on threads and then merged
 * in order: at most nt pieces (their models and time logs) are held at
 * once. The first wave's first piece is read by this thread into st
 * itself, from in, which is left limited to it.
 */
static int waves(struct pd_input *in, struct perf_state *st,
		 const uint64_t *cut, size_t np, unsigned nt, char *event,
		 struct pd_err *err)
{
	struct piece *pc = pd_xcalloc(nt, sizeof(*pc));
	size_t lines = 0, k, j, m;
	int rc = 1;

	for (k = 0; k < np && rc > 0; k += m) {
		m = np - k < nt ? np - k : nt;
		for (j = k ? 0 : 1; j < m; j++) {
			piece_open(&pc[j], st, in->path, event, cut[k + j],
				   cut[k + j + 1]);
			pc[j].threaded = pc[j].opened &&
					 (k == 0 || j + 1 < m) &&
					 !pthread_create(&pc[j].th, NULL,
							 read_piece, &pc[j]);
		}
		if (k > 0 && pc[m - 1].opened && !pc[m - 1].threaded) {
			read_piece(&pc[m - 1]); /* this thread's share */
		} else if (k == 0) {
			struct pd_lines l;

			in->limited = 1;
			in->limit = cut[1] - cut[0];
			pd_lines_init(&l, in);
			rc = pd_perf_read_lines(st, &l, err);
			lines = l.lineno;
			pd_lines_release(&l);
			rc = rc < 0 ? rc : 1;
		}
		for (j = k ? 0 : 1; j < m; j++) {
			if (pc[j].threaded)
				pthread_join(pc[j].th, NULL);
			else if (pc[j].opened && !pc[j].done)
				read_piece(&pc[j]);
		}
		for (j = k ? 0 : 1; j < m; j++) {
			if (rc > 0)
				rc = take(st, &pc[j], &lines, in->path, err);
			piece_release(&pc[j]);
		}
	}
	free(pc);
	return rc;
}

int pd_perf_import_split(struct pd_input *in, struct perf_state *st,
			 unsigned nthreads, uint64_t min_bytes,
			 uint64_t max_bytes, struct pd_err *err)
{
	uint64_t start, size, *cut;
	char *event = NULL;
	unsigned nt = nthreads ? nthreads : threads_wanted();
	size_t np;
	int rc = 0;

	if (!pd_input_plain_file(in, &start, &size))
		return 0;
	if (nt > PIECES_MAX)
		nt = PIECES_MAX;
	np = nt;
	if (max_bytes && (size - start) / max_bytes >= np) {
		/* full waves: a wave's threads wait for its slowest piece */
		np = (size_t)((size - start) / max_bytes) + 1;
		np += (nt - np % nt) % nt;
	}
	if (min_bytes && (size - start) / min_bytes < np)
		np = (size_t)((size - start) / min_bytes);
	if (nt < 2 || np < 2 || (!st->o->event && !(event = first_event(in))))
		return 0;
	cut = pd_xmalloc((np + 1) * sizeof(*cut));
	np = cuts(in, start, size, np, cut);
	if (np >= 2)
		rc = waves(in, st, cut, np, nt, event, err);
	in->limited = 0;
	free(cut);
	free(event);
	return rc;
}

/* The format's entry: in pieces where the file can be cut, else whole. */
int pd_perf_import(struct pd_input *in, struct pd_profile *p,
		   const struct pd_import_opts *o, struct pd_err *err)
{
	struct perf_state st;
	int rc;

	pd_perf_state_init(&st, p, o);
	rc = pd_perf_limits(&st, err);
	if (rc == 0)
		rc = pd_perf_import_split(in, &st, 0, PERF_PIECE_MIN,
					  PERF_PIECE_MAX, err);
	if (rc == 0) {
		struct pd_lines lines;

		pd_lines_init(&lines, in);
		rc = pd_perf_read_lines(&st, &lines, err);
		pd_lines_release(&lines);
	}
	if (rc >= 0)
		rc = pd_perf_finish(&st, in->path, err);
	if (rc == 0 && st.skipped_lines)
		pd_profile_note(p,
				"%s: skipped %llu unrecognised lines,"
				" first at %s:%zu",
				in->path, (unsigned long long)st.skipped_lines,
				in->path, st.first_skipped);
	pd_perf_state_release(&st);
	return rc;
}
