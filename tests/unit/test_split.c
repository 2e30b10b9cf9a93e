/*
 * perf script text read in pieces on threads (import/perf_split.c) must
 * give the profile one reader gives, bit for bit: every string, frame,
 * stack node, weight, thread, note and time block, on real recordings
 * and on text made to stress the cuts (several events, threads, samples
 * without -g, lines no reader knows, filters).
 */
#include "testutil.h"
#include "import/perf/perf_int.h"

#include <fcntl.h>
#include <math.h>
#include <sys/stat.h>
#include <unistd.h>

/* Bit for bit. */
#define assert_same(a, b)                                                      \
	do {                                                                   \
		double x_ = (a), y_ = (b);                                     \
		assert_memory_equal(&x_, &y_, sizeof(x_));                     \
	} while (0)

/* One reader (split 0) or pieces of at least 1 byte on split threads. */
static int read_perf(struct pd_profile *p, const char *path,
		     const struct pd_import_opts *o, unsigned split,
		     uint64_t max_bytes)
{
	struct pd_err err = PD_ERR_INIT;
	struct perf_state st;
	struct pd_input in;
	int rc;

	pd_profile_init(p);
	assert_int_equal(pd_input_open(&in, path, &err), 0);
	pd_perf_state_init(&st, p, o);
	if (split) {
		rc = pd_perf_import_split(&in, &st, split, 1, max_bytes, &err);
		assert_int_equal(rc, 1);
	} else {
		struct pd_lines lines;

		pd_lines_init(&lines, &in);
		rc = pd_perf_read_lines(&st, &lines, &err);
		pd_lines_release(&lines);
	}
	if (rc >= 0)
		rc = pd_perf_finish(&st, path, &err);
	if (rc == 0 && st.skipped_lines)
		pd_profile_note(p, "skipped %llu, first at %zu",
				(unsigned long long)st.skipped_lines,
				st.first_skipped);
	pd_perf_state_release(&st);
	pd_input_close(&in);
	return rc;
}

static void same_profile(const struct pd_profile *a, const struct pd_profile *b)
{
	size_t i;

	assert_int_equal(a->strs.n, b->strs.n);
	for (i = 0; i < a->strs.n; i++)
		assert_string_equal(pd_intern_str(&a->strs, (uint32_t)i),
				    pd_intern_str(&b->strs, (uint32_t)i));
	assert_int_equal(a->frames.n, b->frames.n);
	assert_memory_equal(a->frames.v, b->frames.v,
			    a->frames.n * sizeof(*a->frames.v));
	assert_int_equal(a->nodes.n, b->nodes.n);
	for (i = 0; i < a->nodes.n; i++) {
		assert_int_equal(a->nodes.v[i].parent, b->nodes.v[i].parent);
		assert_int_equal(a->nodes.v[i].frame, b->nodes.v[i].frame);
		assert_same(a->nodes.v[i].weight, b->nodes.v[i].weight);
		assert_same(a->nodes.v[i].count, b->nodes.v[i].count);
	}
	assert_int_equal(a->threads.n, b->threads.n);
	for (i = 0; i < a->threads.n; i++) {
		assert_int_equal(a->threads.v[i].name, b->threads.v[i].name);
		assert_same(a->threads.v[i].weight, b->threads.v[i].weight);
	}
	assert_int_equal(a->notes.n, b->notes.n);
	for (i = 0; i < a->notes.n; i++)
		assert_string_equal(a->notes.v[i], b->notes.v[i]);
	assert_int_equal(a->nsamples, b->nsamples);
	assert_same(a->total_weight, b->total_weight);
	assert_int_equal(a->unit, b->unit);
	assert_same(a->interval, b->interval);
	assert_string_equal(a->event, b->event);
	assert_int_equal(a->thread_module, b->thread_module);
	assert_int_equal(a->blk.used, b->blk.used);
	assert_int_equal(a->blk.nrows, b->blk.nrows);
	assert_same(a->blk.t0, b->blk.t0);
	assert_same(a->blk.width, b->blk.width);
	if (a->blk.nrows)
		assert_memory_equal(a->blk.rows, b->blk.rows,
				    a->blk.nrows * PD_BLOCKS * sizeof(float));
	for (i = 0; i < a->nodes.n; i++)
		assert_true(!pd_blocks_row(&a->blk, (uint32_t)i) ==
			    !pd_blocks_row(&b->blk, (uint32_t)i));
}

/*
 * The file read whole, and in pieces: 2, 3, 5 and 16 on as many threads,
 * 7 and 20 in waves of 2 and 3 threads. One profile.
 */
static void check_file(const char *path, const struct pd_import_opts *o)
{
	static const unsigned ways[][2] = { { 2, 2 },	{ 3, 3 }, { 5, 5 },
					    { 16, 16 }, { 2, 7 }, { 3, 20 } };
	struct pd_profile whole, cut;
	struct stat sb;
	size_t i;

	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal(read_perf(&whole, path, o, 0, 0), 0);
	for (i = 0; i < sizeof(ways) / sizeof(*ways); i++) {
		uint64_t max = ways[i][1] > ways[i][0]
				   ? (uint64_t)sb.st_size / ways[i][1]
				   : 0;

		assert_int_equal(read_perf(&cut, path, o, ways[i][0], max), 0);
		same_profile(&whole, &cut);
		pd_profile_release(&cut);
	}
	pd_profile_release(&whole);
}

/* The project's own perf texts. */
static void test_split_fixtures(void **state)
{
	struct pd_import_opts o;

	(void)state;
	memset(&o, 0, sizeof(o));
	check_file(PD_SOURCE_DIR "/fixtures/perf/small.perf.txt", &o);
	check_file(PD_SOURCE_DIR "/fixtures/perf/jit-unfold.perf.txt", &o);
}

/* Real perf texts of the corpus: skipped when it is not here. */
static void test_split_corpus(void **state)
{
	static const char *const names[] = {
		"perf-script/FlameGraph-perf-cycles-instructions-01.txt",
		"perf-script/FlameGraph-perf-iperf-stacks-pidtid-01.txt",
		"perf-script/FlameGraph-perf-numa-stacks-01.txt",
		"perf-script/FlameGraph-perf-java-faults-01.txt",
		"perf-script/FlameGraph-example-perf-stacks.txt.gz",
	};
	char files[sizeof(names) / sizeof(*names)][4096];
	struct pd_import_opts o;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(names) / sizeof(*names); i++)
		if (corpus_file(files[i], sizeof(files[i]), names[i]) < 0) {
			skip();
			return;
		}
	memset(&o, 0, sizeof(o));
	for (i = 0; i < 4; i++)
		check_file(files[i], &o);
	o.event = "instructions";
	check_file(files[0], &o);
	/* compressed text is read by one reader, never cut */
	{
		struct pd_err err = PD_ERR_INIT;
		struct perf_state st;
		struct pd_profile p;
		struct pd_input in;

		pd_profile_init(&p);
		pd_perf_state_init(&st, &p, &o);
		assert_int_equal(pd_input_open(&in, files[4], &err), 0);
		assert_int_equal(pd_perf_import_split(&in, &st, 4, 1, 0, &err),
				 0);
		assert_int_equal(p.nsamples, 0);
		pd_input_close(&in);
		pd_perf_state_release(&st);
		pd_profile_release(&p);
	}
	memset(&o, 0, sizeof(o));
	o.thread_roots = 1;
	check_file(files[1], &o);
}

/*
 * n samples: cycles, with an instructions sample every seventh; two
 * threads of two processes; every fifth without -g; a line no reader
 * knows every 97th; a comm that looks like hex ("cc1"); headers padded
 * as perf pads them, times out of order now and then.
 */
static void made_text(struct pd_buf *b, int n)
{
	int i;

	pd_buf_adds(b, "# ========\n# captured on: today\n# ========\n#\n");
	for (i = 0; i < n; i++) {
		const char *comm = i % 3 ? "   prog" : "cc1";
		int us = 1000000 + 997 * i - (i % 29 == 5 ? 5000 : 0);

		pd_buf_addf(b, "%s %d/%d [00%d] %d.%06d: %d %s:u:", comm,
			    i % 3 ? 10 : 20, i % 3 ? 11 + i % 2 : 20, i % 4,
			    us / 1000000, us % 1000000, 1000 + (i % 4) * 500,
			    i % 7 == 6 ? "instructions" : "cycles");
		if (i % 5 == 4) {
			pd_buf_addf(b, " %x leaf%d+0x1 (/bin/prog)\n\n",
				    0x400 + i % 9, i % 9);
			continue;
		}
		pd_buf_addf(b, "\n\t %x leaf%d+0x%x (/bin/prog)\n",
			    0x400 + i % 9, i % 9, i % 5);
		if (i % 97 == 50)
			pd_buf_adds(b, "  prog.c:12\n");
		pd_buf_addf(b,
			    "\t 500 mid%d (/bin/prog)\n\t 600 main "
			    "(/bin/prog)\n\n",
			    i % 4);
	}
}

/* b's text into a new temporary file, whose name is left in path. */
static void write_temp(char *path, const struct pd_buf *b)
{
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, b->buf, b->len), (ssize_t)b->len);
	close(fd);
}

static void test_split_made(void **state)
{
	char path[] = "/tmp/pdsplitXXXXXX";
	struct pd_buf b = PD_BUF_INIT;
	struct pd_import_opts o;
	struct pd_profile p;
	int fd;

	(void)state;
	made_text(&b, 3000);
	write_temp(path, &b);
	memset(&o, 0, sizeof(o));
	check_file(path, &o);
	/* the skipped lines' note names the first one's line in the file */
	assert_int_equal(read_perf(&p, path, &o, 2, b.len / 9), 0);
	assert_int_equal(p.notes.n, 3); /* stacks cut short, events, this */
	assert_string_equal(p.notes.v[2], "skipped 21, first at 227");
	pd_profile_release(&p);
	o.event = "instructions";
	check_file(path, &o);
	o.event = NULL;
	o.process = "cc1";
	check_file(path, &o);
	o.process = NULL;
	o.thread_roots = 1;
	check_file(path, &o);
	/* after a UTF-8 byte order mark */
	fd = open(path, O_WRONLY | O_TRUNC);
	assert_int_equal(write(fd, "\xef\xbb\xbf", 3), 3);
	assert_int_equal(write(fd, b.buf, b.len), (ssize_t)b.len);
	close(fd);
	memset(&o, 0, sizeof(o));
	check_file(path, &o);
	unlink(path);
	pd_buf_release(&b);
}

/*
 * Off-CPU time (perf_wait.c): cpu-clock samples of two threads, each
 * third followed by a switch-out with its stack and, 1.5 ms later, the
 * thread's switch-in line; every eleventh switch-out is a preemption
 * whose next_pid is the other thread (a system-wide recording's
 * switch-in). The waits are paired after the pieces are put together:
 * one profile.
 */
static void made_switch_text(struct pd_buf *b, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		int tid = 11 + i % 2, us = 1000000 + 2000 * i;

		pd_buf_addf(b,
			    "prog %d [000] %d.%06d: 1000000 cpu-clock:\n"
			    "\t 400 work%d+0x1 (/bin/prog)\n"
			    "\t 600 main (/bin/prog)\n\n",
			    tid, us / 1000000, us % 1000000, i % 3);
		if (i % 3)
			continue;
		us += 100;
		pd_buf_addf(b,
			    "prog %d [000] %d.%06d: sched:sched_switch:"
			    " prev_comm=prog prev_pid=%d prev_prio=120"
			    " prev_state=%s ==> next_comm=prog next_pid=%d"
			    " next_prio=120\n"
			    "\tffffffff81000010 __schedule+0x10"
			    " ([kernel.kallsyms])\n"
			    "\t 700 %s+0x2 (/lib/libc.so.6)\n"
			    "\t 600 main (/bin/prog)\n\n",
			    tid, us / 1000000, us % 1000000, tid,
			    i % 11 == 0 ? "R+"
			    : i % 2	? "D"
					: "S",
			    i % 11 == 0 ? 23 - tid : 0,
			    i % 2 ? "read" : "futex_wait");
		pd_buf_addf(b, "prog %d %d.%06d: PERF_RECORD_SWITCH OUT\n", tid,
			    us / 1000000, us % 1000000 + 10);
		us += 1500;
		if (i % 5 == 0) /* woken by the other thread 0.5 ms before */
			pd_buf_addf(b,
				    "prog %d [001] %d.%06d: sched:sched_wakeup:"
				    " comm=prog pid=%d prio=120"
				    " target_cpu=000\n"
				    "\tffffffff81000020 try_to_wake_up+0x0"
				    " ([kernel.kallsyms])\n\n",
				    23 - tid, (us - 500) / 1000000,
				    (us - 500) % 1000000, tid);
		pd_buf_addf(b, "prog %d %d.%06d: PERF_RECORD_SWITCH IN\n", tid,
			    us / 1000000, us % 1000000);
	}
}

static void test_split_switches(void **state)
{
	char path[] = "/tmp/pdsplitXXXXXX";
	struct pd_buf b = PD_BUF_INIT;
	struct pd_import_opts o;
	struct pd_profile p;

	(void)state;
	made_switch_text(&b, 3000);
	write_temp(path, &b);
	memset(&o, 0, sizeof(o));
	check_file(path, &o);
	/* 1000 waits of 1.5 ms beside 3000 ms of CPU, none unpaired */
	assert_int_equal(read_perf(&p, path, &o, 3, 0), 0);
	assert_non_null(p.frame_waits);
	assert_int_equal(p.unit, PD_UNIT_NS);
	assert_true(fabs(p.total_weight - (3000e6 + 1000 * 1.5e6)) < 1e3);
	assert_non_null(strstr(p.notes.v[0],
			       "off-CPU time from 1000 context switches, each"
			       " to the thread's next switch-in: 1500.0 ms"
			       " waiting beside 3000.0 ms on CPU"));
	/* every fifth wait woken, but not the preempted (every 11th) */
	assert_true(p.notes.n >= 2);
	assert_non_null(strstr(p.notes.v[1], "181 of the waits were split"));
	pd_profile_release(&p);
	o.thread_roots = 1;
	check_file(path, &o);
	unlink(path);
	pd_buf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split_fixtures),
		cmocka_unit_test(test_split_corpus),
		cmocka_unit_test(test_split_made),
		cmocka_unit_test(test_split_switches),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
