/*
 * Unit tests for import/: the hand-made fixtures under fixtures/ with their
 * numbers counted by hand (see each test), and malformed inputs.
 */
#include "testutil.h"
#include "import/formats.h"
#include "import/json.h"
#include "import/pprof/protobuf.h"

#include <regex.h>
#include <unistd.h>

static void test_folded_small(void **state)
{
	struct pd_profile p;
	struct ft r;

	(void)state;
	/*
	 * main;parse;read 10 | main;parse 5 | main;compute;compute;leaf 20 |
	 * main;compute 3 | other 2 | main;parse;read 1; one malformed line.
	 */
	load(&p, "fixtures/folded/small.folded", NULL);
	assert_near(p.total_weight, 41, 0);
	r = func_of(&p, "main");
	assert_near(r.self, 0, 0);
	assert_near(r.total, 39, 0);
	r = func_of(&p, "read");
	assert_near(r.self, 11, 0);
	r = func_of(&p, "compute");
	assert_near(r.self, 3, 0);
	assert_near(r.total, 23, 0); /* recursion counted once */
	r = func_of(&p, "parse");
	assert_near(r.total, 16, 0);
	assert_int_equal(p.notes.n, 1);
	assert_non_null(strstr(p.notes.v[0], "small.folded:6"));
	assert_near(p.total_count, 41, 0); /* gcd 1: counts = weights */
	pd_profile_release(&p);
}

static void test_perf_small(void **state)
{
	struct pd_profile p;
	struct pd_import_opts o;
	struct ft r;

	(void)state;
	/* 4 cpu-clock samples of 250000 ns; one cycles sample left out. */
	load(&p, "fixtures/perf/small.perf.txt", NULL);
	assert_string_equal(p.format, "perf-script");
	assert_string_equal(p.event, "cpu-clock");
	assert_int_equal(p.unit, PD_UNIT_NS);
	assert_near(p.interval, 250000, 0);
	assert_near(p.total_weight, 1000000, 0);
	assert_near(p.total_count, 4, 0);
	r = func_of(&p, "main");
	assert_near(r.total, 750000, 0);
	assert_string_equal(r.module, "prog");
	r = func_of(&p, "work");
	assert_near(r.self, 250000, 0);
	assert_near(r.total, 750000, 0);
	r = func_of(&p, "inl_helper"); /* inlined: module of its caller */
	assert_near(r.self, 250000, 0);
	assert_string_equal(r.module, "prog");
	r = func_of(&p, "[libc.so.6]"); /* unresolved symbol */
	assert_near(r.total, 250000, 0);
	r = func_of(&p, "do_syscall_64");
	assert_string_equal(r.module, "[kernel.kallsyms]");
	assert_int_equal(p.threads.n, 2);
	assert_int_equal(p.notes.n, 1); /* the other event is named */
	assert_non_null(strstr(p.notes.v[0], "cycles (1 samples)"));
	pd_profile_release(&p);

	memset(&o, 0, sizeof(o));
	o.event = "cycles";
	load(&p, "fixtures/perf/small.perf.txt", &o);
	assert_int_equal(p.unit, PD_UNIT_COUNT);
	assert_near(p.total_weight, 1000, 0);
	pd_profile_release(&p);

	memset(&o, 0, sizeof(o));
	o.thread = "worker";
	load(&p, "fixtures/perf/small.perf.txt", &o);
	assert_near(p.total_weight, 250000, 0);
	assert_near(func_of(&p, "work").self, 250000, 0);
	pd_profile_release(&p);
}

static void test_perf_jit_unfold(void **state)
{
	struct pd_profile p;
	struct ft r;

	(void)state;
	/*
	 * perf-map-agent's "unfoldall" writes a JIT frame's inlined chain on
	 * one line, caller first: run->parse->next is three functions, next
	 * the leaf. Three samples of 250 us: next self 250, parse self 250
	 * and total 500, run total 500; "operator->" in a native library is
	 * one name, not a chain.
	 */
	load(&p, "fixtures/perf/jit-unfold.perf.txt", NULL);
	assert_near(p.total_weight, 750000, 0);
	r = func_of(&p, "Lcom/Lexer;::next");
	assert_near(r.self, 250000, 0);
	assert_near(r.total, 250000, 0);
	r = func_of(&p, "Lcom/Parser;::parse");
	assert_near(r.self, 250000, 0);
	assert_near(r.total, 500000, 0);
	r = func_of(&p, "Lcom/App;::run");
	assert_near(r.self, 0, 0);
	assert_near(r.total, 500000, 0);
	r = func_of(&p, "operator->(Foo)");
	assert_true(r.found);
	assert_near(r.self, 250000, 0);
	assert_near(func_of(&p, "main").total, 750000, 0);
	pd_profile_release(&p);
}

/*
 * perf script text of n samples: times from 9.99 s across 10.00 s (the
 * time token grows a digit), every seventh of 3000 cycles, every
 * eleventh an instructions sample, the threads 100/100 and 100/101 in
 * runs, every thirteenth without -g (its frame on the header line).
 * pad: headers alternate their spacing, so no header is byte for byte
 * its predecessor but for the time.
 */
static void perf_text(struct pd_buf *b, int n, int pad)
{
	int i;

	for (i = 0; i < n; i++) {
		const char *ev = i % 11 == 10 ? "instructions:u" : "cycles:u";
		int tid = (i / 40) % 2 ? 101 : 100;
		int us = 9990000 + 150 * i + (i % 9) * 40;

		pd_buf_addf(b, "prog %s100/%d  %d.%06d:  %8d %s:",
			    pad && i % 2 ? " " : "", tid, us / 1000000,
			    us % 1000000, i % 7 == 3 ? 3000 : 1000, ev);
		if (i % 13 == 12) {
			pd_buf_addf(b, " %x %s+0x4 (/usr/bin/prog)\n\n",
				    0x401000 + 0x100 * (i % 3),
				    i % 3 ? "cold" : "hot");
			continue;
		}
		pd_buf_addf(b,
			    "\n\t  %x %s+0x4 (/usr/bin/prog)\n"
			    "\t  401900 main+0x20 (/usr/bin/prog)\n\n",
			    0x401000 + 0x100 * (i % 3), i % 3 ? "cold" : "hot");
	}
}

static void load_text(struct pd_profile *p, const struct pd_buf *b)
{
	char path[] = "/tmp/pdheadersXXXXXX";
	int fd = mkstemp(path);
	struct pd_err err = PD_ERR_INIT;
	struct pd_import_opts o;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, b->buf, b->len), (ssize_t)b->len);
	close(fd);
	memset(&o, 0, sizeof(o));
	o.event = "cycles";
	pd_profile_init(p);
	assert_int_equal(pd_import(p, path, &o, &err), 0);
	unlink(path);
}

static void test_perf_header_runs(void **state)
{
	struct pd_buf a = PD_BUF_INIT, b = PD_BUF_INIT;
	struct pd_profile pa, pb;
	double w = 0, hot = 0, in_main = 0;
	int i;

	(void)state;
	/*
	 * A header that differs from the one before it only in its time is
	 * read from the one before (import/perf.c); the same text with
	 * every header unlike its predecessor must give the same profile,
	 * its time blocks included. The weights counted here from the
	 * generator's own rule.
	 */
	for (i = 0; i < 600; i++)
		if (i % 11 != 10) {
			double p = i % 7 == 3 ? 3000 : 1000;

			w += p;
			hot += i % 3 ? 0 : p;
			in_main += i % 13 == 12 ? 0 : p;
		}
	perf_text(&a, 600, 0);
	perf_text(&b, 600, 1);
	load_text(&pa, &a);
	load_text(&pb, &b);
	assert_near(pa.total_weight, w, 0);
	assert_near(func_of(&pa, "hot").self, hot, 0);
	assert_near(func_of(&pa, "main").total, in_main, 0);
	assert_near(pa.total_weight, pb.total_weight, 0);
	assert_near(func_of(&pa, "cold").self, func_of(&pb, "cold").self, 0);
	assert_near(func_of(&pa, "main").total, func_of(&pb, "main").total, 0);
	assert_true(pa.blk.used > 1);
	assert_int_equal(pa.blk.used, pb.blk.used);
	assert_int_equal(pa.blk.nrows, pb.blk.nrows);
	assert_near(pa.blk.t0, pb.blk.t0, 0);
	assert_near(pa.blk.width, pb.blk.width, 0);
	assert_memory_equal(pa.blk.rows, pb.blk.rows,
			    pa.blk.nrows * PD_BLOCKS * sizeof(float));
	pd_profile_release(&pa);
	pd_profile_release(&pb);
	pd_buf_release(&a);
	pd_buf_release(&b);
}

static void test_speedscope_perfview(void **state)
{
	struct pd_profile p;
	struct pd_import_opts o;
	struct ft r;

	(void)state;
	/*
	 * Thread 7: [0,2) Main>Work>CPU_TIME, [2,3) Main>Work>UNMANAGED,
	 * [3,4) Main>CPU_TIME; Thread 9: [5,7.5) Monitor.Wait>CPU_TIME.
	 * CPU_TIME charges its parent; pseudo-frames are not functions;
	 * UNMANAGED_CODE_TIME is its caller's, of its kind ("(unmanaged
	 * code)"), one wait.
	 */
	load(&p, "fixtures/speedscope/perfview-evented.speedscope.json", NULL);
	assert_int_equal(p.unit, PD_UNIT_NS);
	assert_near(p.total_weight, 6.5e6, 1e-6);
	assert_near(p.total_count, 6.5, 1e-9); /* 1 ms interval */
	r = func_of(&p, "App.Work(int32)");
	assert_near(r.self, 2e6, 1e-6);
	assert_near(r.total, 3e6, 1e-6);
	assert_string_equal(r.module, "app");
	r = func_of(&p, "App.Main(string[])");
	assert_near(r.self, 1e6, 1e-6);
	assert_near(r.total, 4e6, 1e-6);
	assert_int_equal(func_of(&p, "UNMANAGED_CODE_TIME").found, 0);
	r = func_of(&p, "App.Work(int32) (unmanaged code)");
	assert_near(r.self, 1e6, 1e-6);
	assert_string_equal(r.module, "app");
	assert_non_null(p.frame_waits);
	{
		size_t f;
		double waits = 0;

		for (f = 0; f < p.frame_waits_n; f++)
			waits += p.frame_waits[f];
		assert_near(waits, 1, 0);
	}
	assert_int_equal(func_of(&p, "CPU_TIME").found, 0);
	assert_int_equal(func_of(&p, "Threads").found, 0);
	assert_int_equal(func_of(&p, "Thread (7) CPU=4ms").found, 0);
	assert_int_equal(func_of(&p, "Process64 app (42) Args: --run").found,
			 0);
	r = func_of(&p,
		    "System.Threading.Monitor.Wait(class System.Object,int32)");
	assert_near(r.self, 2.5e6, 1e-6);
	assert_string_equal(r.module, "System.Private.CoreLib");
	assert_int_equal(p.threads.n, 2);
	/* the repair, and the 1 ms rate the evented durations are read at */
	assert_int_equal(p.notes.n, 2);
	assert_non_null(strstr(p.notes.v[0], "says nothing of its sampling rate"));
	assert_non_null(strstr(p.notes.v[1], "2 close events"));
	pd_profile_release(&p);

	memset(&o, 0, sizeof(o));
	o.thread = "ThreadPool";
	load(&p, "fixtures/speedscope/perfview-evented.speedscope.json", &o);
	assert_near(p.total_weight, 2.5e6, 1e-6);
	pd_profile_release(&p);
	memset(&o, 0, sizeof(o));
	o.interval_ms = 0.5;
	load(&p, "fixtures/speedscope/perfview-evented.speedscope.json", &o);
	assert_near(p.total_count, 13, 1e-9);
	pd_profile_release(&p);
}

static void test_speedscope_sampled_sorted(void **state)
{
	struct pd_profile p;
	struct ft r;

	(void)state;
	/*
	 * "profiles" before "shared", "unit" after "samples". Weights
	 * .01 .01 .02 .01 .01 s; the two "run" frames (lines 10, 12) are one
	 * function; sample 4 holds run twice.
	 */
	load(&p, "fixtures/speedscope/sampled-sorted.speedscope.json", NULL);
	assert_near(p.total_weight, 6e7, 1e-3);
	assert_near(p.total_count, 6, 1e-9);
	r = func_of(&p, "parse");
	assert_near(r.self, 4e7, 1e-3);
	assert_string_equal(r.module, "parse.py");
	r = func_of(&p, "run");
	assert_int_equal(r.found, 1);
	assert_near(r.self, 2e7, 1e-3);
	assert_near(r.total, 6e7, 1e-3);
	pd_profile_release(&p);
}

/* Writes text to a temporary file and imports it; returns the rc. */
static int import_text(const char *text, size_t n, const char *from,
		       struct pd_err *err, char *path_out)
{
	char path[] = "/tmp/pdimportXXXXXX";
	int fd = mkstemp(path);
	struct pd_profile p;
	struct pd_import_opts o;
	int rc;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, n), (ssize_t)n);
	close(fd);
	memset(&o, 0, sizeof(o));
	o.from = from;
	pd_profile_init(&p);
	rc = pd_import(&p, path, &o, err);
	pd_profile_release(&p);
	unlink(path);
	if (path_out)
		strcpy(path_out, path);
	return rc;
}

static void expect_error(const char *text, const char *from, const char *want)
{
	struct pd_err err = PD_ERR_INIT;
	char path[64];
	int rc = import_text(text, strlen(text), from, &err, path);

	if (rc >= 0 || !strstr(err.msg, want) || !strstr(err.msg, path)) {
		print_error("input %.40s...: rc %d, message '%s', want '%s'\n",
			    text, rc, err.msg, want);
		fail();
	}
	if (strchr(err.msg, '\n')) {
		print_error("message is not one line: %s\n", err.msg);
		fail();
	}
}

/*
 * fixtures/callgrind/tiny.callgrind, counted by hand. Ir: main 5 + 3 + 2
 * self, calls parse (400) and memcpy in libc (60): 470 in part 1, and
 * part 2 adds 30 to parse's self (the call from main, calls=0, costs 30
 * too). parse: 100 + 50 + 30 self, calls walk (250). walk: 40 + 10 (the
 * inlined line, fi=) self, calls walk'2 (200), whose self is 120 + 80
 * and whose calls to itself (100) count its own cost again. walk'2 is
 * walk: self 250. Dr the same way, a missing cost being 0.
 */
static void test_callgrind_tiny(void **state)
{
	struct pd_profile p;
	struct pd_import_opts o;
	struct ft r;

	(void)state;
	load(&p, "fixtures/callgrind/tiny.callgrind", NULL);
	assert_string_equal(p.format, "callgrind");
	assert_string_equal(p.event, "Ir");
	assert_string_equal(p.exporter, "handmade");
	assert_int_equal(p.unit, PD_UNIT_COUNT);
	assert_int_equal(p.exact, 1);
	assert_int_equal(p.self_only, 0);
	assert_near(p.total_weight, 500, 0);
	r = func_of(&p, "main");
	assert_near(r.self, 10, 0);
	assert_near(r.total, 500, 0);
	assert_string_equal(r.module, "app");
	r = func_of(&p, "parse");
	assert_near(r.self, 180, 0);
	assert_near(r.total, 430, 0);
	r = func_of(&p, "walk");
	assert_int_equal(r.found, 1); /* walk'2 is walk */
	assert_near(r.self, 250, 0);
	assert_near(r.total, 250, 0);
	r = func_of(&p, "memcpy");
	assert_near(r.self, 60, 0);
	assert_near(r.total, 60, 0);
	assert_string_equal(r.module, "libc.so.6");
	assert_int_equal(func_of(&p, "unused").found, 0);
	assert_int_equal(p.notes.n, 1); /* Dr is named */
	assert_non_null(strstr(p.notes.v[0], "the file has Ir, Dr"));
	pd_profile_release(&p);

	memset(&o, 0, sizeof(o));
	o.event = "Dr";
	load(&p, "fixtures/callgrind/tiny.callgrind", &o);
	assert_string_equal(p.event, "Dr");
	assert_near(p.total_weight, 29, 0);
	r = func_of(&p, "main");
	assert_near(r.self, 1, 0);
	assert_near(r.total, 29, 0);
	r = func_of(&p, "parse");
	assert_near(r.self, 13, 0);
	assert_near(r.total, 23, 0);
	r = func_of(&p, "walk");
	assert_near(r.self, 10, 0);
	pd_profile_release(&p);
}

/* fixtures/callgrind/tiny.cachegrind, counted by hand: self costs only. */
static void test_cachegrind_tiny(void **state)
{
	struct pd_profile p;
	struct pd_import_opts o;

	(void)state;
	load(&p, "fixtures/callgrind/tiny.cachegrind", NULL);
	assert_string_equal(p.format, "cachegrind");
	assert_string_equal(p.event, "Ir");
	assert_int_equal(p.exact, 1);
	assert_int_equal(p.self_only, 1);
	assert_near(p.total_weight, 168, 0);
	assert_near(func_of(&p, "main").self, 8, 0);
	assert_near(func_of(&p, "parse").self, 120, 0);
	assert_near(func_of(&p, "helper").self, 40, 0);
	assert_null(func_of(&p, "helper").module[0] ? "module" : NULL);
	pd_profile_release(&p);

	memset(&o, 0, sizeof(o));
	o.event = "I1mr";
	load(&p, "fixtures/callgrind/tiny.cachegrind", &o);
	assert_near(p.total_weight, 2, 0);
	assert_near(func_of(&p, "main").self, 1, 0);
	assert_near(func_of(&p, "helper").self, 1, 0);
	assert_int_equal(func_of(&p, "parse").found, 0);
	pd_profile_release(&p);
}

/* Callgrind's names: recursion levels and caller contexts are cut. */
static void test_callgrind_names(void **state)
{
	static const char text[] =
	    "# callgrind format\nevents: Ir\n"
	    "fn=(1) std::basic_string<char, 'a'>::f'2\n1 3\n"
	    "fn=(2) hash'render'main\n1 4\n"
	    "fn=(3) operator<<(ostream&, int)'2\n1 5\n"
	    "fn=(4) (below main)\n1 6\n"
	    "fn=(5) <&'a T as core::fmt::Display>::fmt\n1 7\n";
	struct pd_profile p;
	struct pd_err err = PD_ERR_INIT;
	struct pd_import_opts o;
	char path[] = "/tmp/pdimportXXXXXX";
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, sizeof(text) - 1),
			 (ssize_t)sizeof(text) - 1);
	close(fd);
	memset(&o, 0, sizeof(o));
	pd_profile_init(&p);
	assert_int_equal(pd_import(&p, path, &o, &err), 0);
	unlink(path);
	assert_near(func_of(&p, "std::basic_string<char, 'a'>::f").self, 3, 0);
	assert_near(func_of(&p, "hash").self, 4, 0);
	assert_near(func_of(&p, "operator<<(ostream&, int)").self, 5, 0);
	assert_near(func_of(&p, "(below main)").self, 6, 0);
	assert_near(func_of(&p, "<&'a T as core::fmt::Display>::fmt").self, 7,
		    0);
	pd_profile_release(&p);
}

/* Writes text to a temporary file and imports it into p, which must work. */
static void load_text_as(struct pd_profile *p, const char *text, size_t n)
{
	char path[] = "/tmp/pdimportXXXXXX";
	struct pd_err err = PD_ERR_INIT;
	struct pd_import_opts o;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, n), (ssize_t)n);
	close(fd);
	memset(&o, 0, sizeof(o));
	pd_profile_init(p);
	if (pd_import(p, path, &o, &err) < 0) {
		print_error("%s\n", err.msg);
		fail();
	}
	unlink(path);
}

/*
 * A call chain deeper than the tree goes (1100 functions, each 1 of its
 * own and a call to the next): the path ends after 1024 of them, whose
 * totals count what is below them on it; the 76 beyond are roots of
 * their own, self stays exact, and a note says that the paths end. A
 * file whose calls cost more than their callees do: self stays exact,
 * the excess is named.
 */
static void test_callgrind_edges(void **state)
{
	struct pd_buf b = PD_BUF_INIT;
	struct pd_profile p;
	size_t i, notes;
	int deep = 0;

	(void)state;
	pd_buf_adds(&b, "# callgrind format\nevents: Ir\n");
	for (i = 0; i < 1100; i++) {
		pd_buf_addf(&b, "fn=(%zu) f%zu\n1 1\n", i + 1, i);
		if (i + 1 < 1100)
			pd_buf_addf(&b, "cfn=(%zu) f%zu\ncalls=1 1\n1 %zu\n",
				    i + 2, i + 1, 1099 - i);
	}
	load_text_as(&p, b.buf, b.len);
	assert_near(p.total_weight, 1100, 0);
	assert_near(func_of(&p, "f0").total, 1024, 0);
	assert_near(func_of(&p, "f500").total, 524, 0);
	assert_near(func_of(&p, "f1099").self, 1, 0);
	assert_near(func_of(&p, "f1099").total, 1, 0);
	for (notes = 0; notes < p.notes.n; notes++)
		deep |= strstr(p.notes.v[notes], "deeper than 1024") != NULL;
	assert_true(deep);
	pd_profile_release(&p);

	pd_buf_reset(&b);
	pd_buf_adds(&b, "# callgrind format\nevents: Ir\nfn=main\n1 10\n"
			"cfn=work\ncalls=1 1\n1 300\nfn=work\n1 100\n");
	load_text_as(&p, b.buf, b.len);
	assert_near(func_of(&p, "main").self, 10, 0);
	assert_near(func_of(&p, "work").self, 100, 0);
	assert_near(func_of(&p, "main").total, 110, 0);
	assert_int_equal(p.notes.n, 1);
	assert_non_null(strstr(p.notes.v[0], "do not add up"));
	pd_profile_release(&p);

	/*
	 * A thread in a file of all threads: its work is clone's call to
	 * worker (100), which clone's caller does not bring (its call costs
	 * 3, clone's own part in the parent). The excess is a root of its
	 * own, so every total is the file's and nothing is said to be
	 * damaged. Counted by hand: main 10 + 3, clone 4 + 100.
	 */
	pd_buf_reset(&b);
	pd_buf_adds(&b, "# callgrind format\nevents: Ir\nfn=main\n1 10\n"
			"cfn=clone\ncalls=1 1\n1 3\nfn=clone\n1 4\n"
			"cfn=worker\ncalls=1 1\n1 100\nfn=worker\n1 100\n");
	load_text_as(&p, b.buf, b.len);
	assert_near(func_of(&p, "main").total, 13, 0);
	assert_near(func_of(&p, "clone").self, 4, 0);
	assert_near(func_of(&p, "clone").total, 104, 0);
	assert_near(func_of(&p, "worker").total, 100, 0);
	assert_int_equal(p.notes.n, 0);
	pd_profile_release(&p);

	/*
	 * An empty object or file is none: "cfl=" takes back an earlier one
	 * (speedscope's callgrind.cfn-reset.log ends a function with it), and
	 * "ob=" leaves the functions without a module. Counted by hand: main
	 * 10 + 30 (f), f 30.
	 */
	pd_buf_reset(&b);
	pd_buf_adds(&b, "# callgrind format\nevents: Ir\nob=app\nob=\nfl=a.c\n"
			"fn=main\n1 10\ncfl=b.c\ncfl=\ncfn=f\ncalls=1 1\n"
			"1 30\nfn=f\n1 30\ncfl=\n");
	load_text_as(&p, b.buf, b.len);
	assert_near(func_of(&p, "main").self, 10, 0);
	assert_near(func_of(&p, "main").total, 40, 0);
	assert_near(func_of(&p, "f").self, 30, 0);
	assert_near(func_of(&p, "f").total, 30, 0);
	assert_false(p.has_modules);
	assert_int_equal(p.notes.n, 0);
	pd_profile_release(&p);
	pd_buf_release(&b);
}

/* What a callgrind or cachegrind file may not hold: one line each. */
static void test_callgrind_errors(void **state)
{
	static const char head[] = "# callgrind format\nevents: Ir Dr\n"
				   "fl=a.c\nfn=main\n";
	static const struct {
		const char *body, *want;
	} bad[] = {
		{ "calls=1 5\n5 10\n", ":5: calls= with no cfn= before it" },
		{ "fn=(7)\n", ":5: (7) refers to no name given before" },
		{ "5 1 2 3\n", ":5: more costs than the 2 events" },
		{ "5 1 x\n", ":5: a cost must be a whole number" },
		{ "5 1\n* *\n", ":6: a cost must be a whole number of at most"
				" 64 bits: \"*\" (only positions may be"
				" written * or relative)" },
		{ "5 99999999999999999999\n", ":5: a cost must be a whole" },
		{ "x5 1\n", ":5: not a line of a callgrind or cachegrind" },
		{ "cfn=f\ncalls=1 5\nfn=g\n",
		  ":7: calls= must be followed by its cost line" },
		{ "cfn=f\ncalls=1 5\n", "the file ends after calls=" },
		{ "cfn=f\ncalls=x\n", ":6: calls= wants a count" },
		{ "positions: line zz\n", ":5: positions: takes instr" },
		{ "fn=\n", ":5: an empty function name" },
		{ "cfn=\n", ":5: an empty function name" },
		{ "fn=(3) \n", ":5: (3)  gives an empty name" },
	};
	struct pd_buf b = PD_BUF_INIT;
	size_t i;

	(void)state;
	for (i = 0; i < PD_ARRAY_SIZE(bad); i++) {
		pd_buf_reset(&b);
		pd_buf_addf(&b, "%s%s", head, bad[i].body);
		expect_error(b.buf, NULL, bad[i].want);
	}
	expect_error("fn=main\n", "callgrind", "no events: line");
	expect_error("fn=main\n1 2\n", "cachegrind",
		     ":2: a cost line before"
		     " the events: line");
	pd_buf_release(&b);
}

static void test_cpuprofile_tiny(void **state)
{
	struct pd_profile p;
	struct ft r;
	static const char *old = "{\"head\":{\"functionName\":\"(root)\","
				 "\"id\":1,\"children\":[]}}";
	static const char *arrays_first = "{\"samples\":[2],\"timeDeltas\":[5],"
					  "\"nodes\":[]}";

	(void)state;
	/* Sample times 1100 1200 1400 1500 1800 1850 us, end 1900. */
	load(&p, "fixtures/cpuprofile/tiny.cpuprofile", NULL);
	assert_string_equal(p.format, "cpuprofile");
	assert_int_equal(p.unit, PD_UNIT_NS);
	assert_near(p.total_weight, 750e3, 1e-6);
	assert_near(p.total_count, 5, 0);
	r = func_of(&p, "main");
	assert_near(r.self, 300e3, 1e-6);
	assert_near(r.total, 700e3, 1e-6); /* recursion counted once */
	r = func_of(&p, "(anonymous main.js:10)");
	assert_near(r.self, 300e3, 1e-6);
	r = func_of(&p, "(garbage collector)");
	assert_near(r.self, 50e3, 1e-6);
	assert_int_equal(p.notes.n, 1); /* the idle sample */
	pd_profile_release(&p);
	assert_true(pd_cpuprofile_sniff(old, strlen(old)));
	assert_true(pd_cpuprofile_sniff(arrays_first, strlen(arrays_first)));
	assert_false(pd_cpuprofile_sniff("{\"nodes\":1}", 11));
}

static void test_bad_input(void **state)
{
	(void)state;
	expect_error("", NULL, "empty file");
	expect_error("   \n\n", NULL, "empty file");
	expect_error("\x7f"
		     "ELF\x02\x01\x01\0\0\0\0\0\0\0\0\0",
		     NULL, "an ELF binary");
	expect_error("\x01\x02\x03\x04\0\0\0\0\xff\xfe\xfd", NULL,
		     "binary data");
	expect_error(
	    "{\"$schema\": \"https://www.speedscope.app/file-format-"
	    "schema.json\", \"shared\": {\"frames\": [{\"name\": \"a\"}]},"
	    " \"profiles\": [{\"type\": \"evented\", \"unit\": \"none\","
	    " \"events\": [{\"type\": \"O\", \"frame\": 0, \"at\": 1",
	    NULL, "truncated JSON");
	expect_error(
	    "{\"$schema\": \"https://www.speedscope.app/file-format-"
	    "schema.json\", \"profiles\": [{\"type\": \"evented\","
	    " \"events\": [{\"type\": \"O\", \"frame\": \"x\", \"at\": 1}]}]}",
	    NULL, "$.profiles[0].events[0].frame");
	expect_error("{\"shared\": {\"frames\": [{\"name\": \"a\"}]}, "
		     "\"profiles\": [{\"type\":"
		     " \"sampled\", \"unit\": \"none\", \"samples\": [[0, 7]],"
		     " \"weights\": [1]}]}",
		     NULL, "frame index 7 is out of range");
	expect_error(
	    "{\"shared\": {\"frames\": [{\"name\": \"a\"}]}, \"profiles\":"
	    " [{\"type\": \"sampled\", \"unit\": \"none\", \"samples\":"
	    " [[0], [0]], \"weights\": [1]}]}",
	    NULL, "2 samples but 1 weights");
	expect_error("{\"hello\": [1, 2, 3]}", NULL, "unknown shape");
	expect_error("{\"meta\": {\"preprocessedProfileVersion\": 49},"
		     " \"threads\": []}",
		     NULL, "not a Firefox profile: no \"threads\"");
	expect_error("[1, 2]", NULL, "unknown shape");
	expect_error("hello world\nthis is not a profile\n", NULL,
		     "not a profile format");
}

static void test_valid_edge_cases(void **state)
{
	struct pd_err err = PD_ERR_INIT;
	static const char tall[] = "a;b;c 5"; /* no final newline */
	static const char crlf[] = "a;b 2\r\na;c 3\r\n";

	(void)state;
	assert_int_equal(import_text(tall, strlen(tall), NULL, &err, NULL), 0);
	assert_int_equal(import_text(crlf, strlen(crlf), NULL, &err, NULL), 0);
	assert_int_equal(
	    import_text("# only a comment\n", 17, "folded", &err, NULL),
	    PD_EEMPTY);
}

/*
 * A header field of one lone quote is no quoted field: stripping its
 * "quotes" stepped back before the buffer, where these bytes read as a
 * unit (" (ms)") and made the line a WPA header.
 */
static void test_wpa_sniff_lone_quote(void **state)
{
	static const char buf[] = " (ms)\",x";

	(void)state;
	assert_false(pd_wpa_sniff(buf + 5, 3));
	assert_true(pd_wpa_sniff("\"Count\",x", 9));
}

/* Varints and fields, with values worked out by hand from the spec. */
/*
 * The JSON number readers against independent references: RFC 8259's
 * grammar as a regular expression, strtod for the value. The scanner
 * takes a number exactly when the grammar does, with strtod's value;
 * pd_json_number also takes what strtod reads whole (yajl hands it
 * valid numbers, and strings such as "12.5" come too).
 */
static void check_number(const regex_t *re, const char *txt)
{
	char buf[96], *end;
	size_t n = strlen(txt), len;
	double want = strtod(txt, &end), got = -12345, v = -12345;
	int json = !regexec(re, txt, 0, NULL, 0), whole = n && !*end, open;

	/* the scanner: a delimiter after the text ends the number */
	snprintf(buf, sizeof(buf), "%s,", txt);
	len = pd_json_number_scan(buf, buf + n + 1, &v, &open);
	if (json && n < 64) {
		if (len != n || memcmp(&v, &want, sizeof(v)))
			fail_msg("scan \"%s\": %zu, %a (strtod %a)", txt, len,
				 v, want);
	} else if (!json && n && len == n) {
		fail_msg("scan \"%s\" took a non-JSON number", txt);
	}
	/* without a delimiter a number may go on: not taken yet */
	if (json && pd_json_number_scan(txt, txt + n, &v, &open) != 0)
		fail_msg("scan \"%s\" took a number at the end of input", txt);
	if (pd_json_number(txt, n, &got) != (whole && isfinite(want) && n < 64))
		fail_msg("pd_json_number \"%s\": wrong answer", txt);
	else if (whole && isfinite(want) && n < 64 &&
		 memcmp(&got, &want, sizeof(got)))
		fail_msg("pd_json_number \"%s\": %a, strtod %a", txt, got,
			 want);
}

static void test_json_numbers(void **state)
{
	static const char *const fixed[] = {
		"0",
		"-0",
		"1",
		"01",
		"1.",
		".5",
		"-",
		"",
		"+1",
		"1e5",
		"1E+05",
		"1e-5",
		"2.5e",
		"1e999",
		"-1e999",
		"0x10",
		"inf",
		"nan",
		"12.000001",
		"0.1",
		"9007199254740993",
		"123456789012345678901234567890",
		"1.7976931348623157e308",
		"4.9e-324",
		"0.30000000000000004",
		"00",
		"-01.5",
		"1.5e+",
		"3.14159265358979323846",
	};
	regex_t re;
	uint64_t x = 0x2545f4914f6cdd1dULL;
	char t[64];
	size_t i;

	(void)state;
	assert_int_equal(
	    regcomp(&re, "^-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?$",
		    REG_EXTENDED | REG_NOSUB),
	    0);
	for (i = 0; i < sizeof(fixed) / sizeof(*fixed); i++)
		check_number(&re, fixed[i]);
	for (i = 0; i < 200000; i++) {
		static const char alphabet[] = "0123456789.-e+E0123456789";
		size_t k, len;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		if (i % 2) { /* any short string of number characters */
			len = 1 + x % 12;
			for (k = 0; k < len; k++)
				t[k] = alphabet[(x >> (4 + 5 * k % 50)) % 25];
			t[len] = '\0';
		} else { /* plausible decimals of 1 to 20 digits */
			snprintf(
			    t, sizeof(t), "%s%llu.%0*llu%s", x & 1 ? "-" : "",
			    (unsigned long long)(x >> 40) % 100000,
			    (int)(1 + (x >> 8) % 15),
			    (unsigned long long)(x >> 20) % 1000000000000ULL,
			    x & 2 ? "" : (x & 4 ? "e-7" : "E12"));
		}
		check_number(&re, t);
	}
	regfree(&re);
}

static void test_protobuf_wire(void **state)
{
	/* 300 = 0b10_0101100 -> ac 02; -1 as int64 takes ten bytes */
	static const uint8_t v300[] = { 0xac, 0x02 };
	static const uint8_t neg1[] = { 0xff, 0xff, 0xff, 0xff, 0xff,
					0xff, 0xff, 0xff, 0xff, 0x01 };
	static const uint8_t over[] = { 0xff, 0xff, 0xff, 0xff, 0xff,
					0xff, 0xff, 0xff, 0xff, 0x02 };
	/* field 1 packed [3, 270] then field 1 unpacked 86942, field 2
	 * "hi", field 3 fixed32 1, then a length running past the end */
	static const uint8_t msg[] = {
		0x0a, 0x03, 0x03, 0x8e, 0x02, 0x08, 0x9e,
		0xa7, 0x05, 0x12, 0x02, 'h',  'i',  0x1d,
		0x01, 0x00, 0x00, 0x00, 0x22, 0x05, 0x00
	};
	const uint8_t *p;
	uint64_t v;
	struct pd_pb r;
	struct pd_pb_field f;
	struct pd_u64s vals = { NULL, 0, 0 };
	const char *why = NULL;

	(void)state;
	p = v300;
	assert_int_equal(pd_pb_varint(&p, v300 + 2, &v), 0);
	assert_int_equal(v, 300);
	assert_ptr_equal(p, v300 + 2);
	p = v300;
	assert_int_equal(pd_pb_varint(&p, v300 + 1, &v), -1); /* truncated */
	p = neg1;
	assert_int_equal(pd_pb_varint(&p, neg1 + 10, &v), 0);
	assert_int_equal((int64_t)v, -1);
	p = over;
	assert_int_equal(pd_pb_varint(&p, over + 10, &v), -1);

	pd_pb_init(&r, msg, sizeof(msg), 100);
	assert_int_equal(pd_pb_next(&r, &f, &why), 1);
	assert_int_equal(f.num, 1);
	assert_int_equal(f.wt, PD_PB_LEN);
	assert_int_equal(f.off, 100);
	assert_int_equal(pd_pb_repeated(&f, &vals), 0);
	assert_int_equal(pd_pb_next(&r, &f, &why), 1);
	assert_int_equal(f.wt, PD_PB_VARINT);
	assert_int_equal(f.off, 105);
	assert_int_equal(pd_pb_repeated(&f, &vals), 0);
	assert_int_equal(vals.n, 3);
	assert_int_equal(vals.v[0], 3);
	assert_int_equal(vals.v[1], 270);
	assert_int_equal(vals.v[2], 86942);
	assert_int_equal(pd_pb_next(&r, &f, &why), 1);
	assert_int_equal(f.num, 2);
	assert_int_equal(f.len, 2);
	assert_memory_equal(f.data, "hi", 2);
	assert_int_equal(pd_pb_next(&r, &f, &why), 1);
	assert_int_equal(f.wt, PD_PB_FIXED32);
	assert_int_equal(f.v, 1);
	assert_int_equal(pd_pb_next(&r, &f, &why), -1);
	assert_string_equal(why, "length runs past the end of the message");
	/* a packed run cut in the middle of a varint */
	f.wt = PD_PB_LEN;
	f.data = v300;
	f.len = 1;
	assert_int_equal(pd_pb_repeated(&f, &vals), -1);
	free(vals.v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_folded_small),
		cmocka_unit_test(test_perf_small),
		cmocka_unit_test(test_perf_jit_unfold),
		cmocka_unit_test(test_perf_header_runs),
		cmocka_unit_test(test_speedscope_perfview),
		cmocka_unit_test(test_speedscope_sampled_sorted),
		cmocka_unit_test(test_cpuprofile_tiny),
		cmocka_unit_test(test_callgrind_tiny),
		cmocka_unit_test(test_cachegrind_tiny),
		cmocka_unit_test(test_callgrind_names),
		cmocka_unit_test(test_callgrind_errors),
		cmocka_unit_test(test_callgrind_edges),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_valid_edge_cases),
		cmocka_unit_test(test_wpa_sniff_lone_quote),
		cmocka_unit_test(test_json_numbers),
		cmocka_unit_test(test_protobuf_wire),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
