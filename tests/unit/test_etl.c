/*
 * The ETW reader: the plain-LZ77 decompressor on inputs encoded by hand
 * from [MS-XCA]'s description, and the events decoded from the corpus
 * traces counted against PerfView's own counts (their *.baseline.txt).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/input.h"
#include "import/etl/etl.h"
#include "import/etl/etl_int.h"
#include "model/profile.h"
#include "testutil.h"

/* Decompresses n bytes of src; returns the length, -1 on error. */
static long unz(const unsigned char *src, size_t n, unsigned char *out,
		size_t cap, size_t *bad)
{
	*bad = 0;
	return pd_xpress_lz77(src, n, out, cap, bad);
}

static void test_xpress_literals(void **state)
{
	/* flag word 0: 32 literals may follow; three do */
	static const unsigned char in[] = { 0, 0, 0, 0, 'a', 'b', 'c' };
	unsigned char out[16];
	size_t bad;

	(void)state;
	assert_int_equal(unz(in, sizeof(in), out, sizeof(out), &bad), 3);
	assert_memory_equal(out, "abc", 3);
	/* no room for them */
	assert_int_equal(unz(in, sizeof(in), out, 2, &bad), -1);
	assert_int_equal(bad, 6);
	/* empty input, and a flag word alone */
	assert_int_equal(unz(in, 0, out, sizeof(out), &bad), 0);
	assert_int_equal(unz(in, 4, out, sizeof(out), &bad), 0);
}

static void test_xpress_matches(void **state)
{
	/*
	 * Literals a b c, then a match (flag bit 28) of offset 3, length 6:
	 * the word is (offset - 1) << 3 | (length - 3) = 0x0013.
	 */
	static const unsigned char short_match[] = { 0x00, 0x00, 0x00,
						     0x10, 'a',	 'b',
						     'c',  0x13, 0x00 };
	/*
	 * a, then offset 1 length 10: length field 7, then a half byte 0
	 * (10 = 3 + 7 + 0); the copy overlaps itself: eleven a's.
	 */
	static const unsigned char half[] = { 0x00, 0x00, 0x00, 0x40,
					      'a',  0x07, 0x00, 0x00 };
	/* a, then offset 1 length 30: 7, half byte 15, a byte 5 (3+7+15+5) */
	static const unsigned char byte_len[] = { 0x00, 0x00, 0x00, 0x40, 'a',
						  0x07, 0x00, 0x0f, 0x05 };
	/*
	 * a b, offset 2 length 10 (half byte low 0), offset 1 length 12
	 * (the same byte's high half, 2): abababababab then twelve b's.
	 */
	static const unsigned char shared[] = { 0x00, 0x00, 0x00, 0x30,
						'a',  'b',  0x0f, 0x00,
						0x20, 0x07, 0x00 };
	/* a 16-bit length: 7, half 15, byte 255, then 300 (3 + 300) */
	static const unsigned char word_len[] = { 0x00, 0x00, 0x00, 0x40,
						  'x',	0x07, 0x00, 0x0f,
						  0xff, 0x2c, 0x01 };
	unsigned char out[512];
	size_t bad, i;

	(void)state;
	assert_int_equal(
	    unz(short_match, sizeof(short_match), out, sizeof(out), &bad), 9);
	assert_memory_equal(out, "abcabcabc", 9);
	assert_int_equal(unz(half, sizeof(half), out, sizeof(out), &bad), 11);
	assert_memory_equal(out, "aaaaaaaaaaa", 11);
	assert_int_equal(
	    unz(byte_len, sizeof(byte_len), out, sizeof(out), &bad), 31);
	for (i = 0; i < 31; i++)
		assert_int_equal(out[i], 'a');
	assert_int_equal(unz(shared, sizeof(shared), out, sizeof(out), &bad),
			 24);
	assert_memory_equal(out, "ababababababbbbbbbbbbbbb", 24);
	assert_int_equal(
	    unz(word_len, sizeof(word_len), out, sizeof(out), &bad), 304);
	for (i = 0; i < 304; i++)
		assert_int_equal(out[i], 'x');
}

static void test_xpress_damage(void **state)
{
	/* a match of offset 2 with one byte written */
	static const unsigned char before[] = { 0x00, 0x00, 0x00, 0x40,
						'a',  0x0b, 0x00 };
	/* a match word cut after one byte */
	static const unsigned char cut[] = {
		0x00, 0x00, 0x00, 0x40, 'a', 0x0b
	};
	/* a length field 7 whose half byte is missing */
	static const unsigned char nohalf[] = { 0x00, 0x00, 0x00, 0x40,
						'a',  0x07, 0x00 };
	/* a 16-bit length below 22 (15 + 7) */
	static const unsigned char small[] = { 0x00, 0x00, 0x00, 0x40,
					       'a',  0x07, 0x00, 0x0f,
					       0xff, 0x03, 0x00 };
	unsigned char out[64];
	size_t bad;

	(void)state;
	assert_int_equal(unz(before, sizeof(before), out, sizeof(out), &bad),
			 -1);
	assert_int_equal(bad, 7);
	assert_int_equal(unz(cut, sizeof(cut), out, sizeof(out), &bad), -1);
	assert_int_equal(unz(nohalf, sizeof(nohalf), out, sizeof(out), &bad),
			 -1);
	assert_int_equal(unz(small, sizeof(small), out, sizeof(out), &bad), -1);
	/* a match longer than the room left */
	assert_int_equal(unz(before, sizeof(before) - 2, out, 1, &bad), 1);
}

/* The count PerfView's baseline gives for name, 0 when it lists none. */
static uint64_t baseline_count(const char *path, const char *name)
{
	FILE *f = fopen(path, "r");
	char line[4096];
	size_t n = strlen(name);
	uint64_t v = 0;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "COUNT ", 6) &&
		    !strncmp(line + 6, name, n) && line[6 + n] == ':')
			v = strtoull(line + 7 + n, NULL, 10);
	fclose(f);
	return v;
}

/*
 * Every kind PerfView's TraceLog keeps in its event stream (it consumes
 * stack, thread rundown and method rundown events itself) has PerfView's
 * count, in each of the three traces.
 */
static void test_etl_counts(void **state)
{
	static const char *const traces[] = { "perfview-net.4.5.2.x64",
					      "perfview-gcevents",
					      "perfview-gcrundownevents" };
	static const enum pd_etl_kind compared[] = {
		PD_ETL_SAMPLE,	       PD_ETL_IMAGE_LOAD,
		PD_ETL_IMAGE_UNLOAD,   PD_ETL_IMAGE_DCSTART,
		PD_ETL_IMAGE_DCSTOP,   PD_ETL_PROCESS_START,
		PD_ETL_PROCESS_STOP,   PD_ETL_PROCESS_DCSTART,
		PD_ETL_PROCESS_DCSTOP, PD_ETL_PROCESS_DEFUNCT,
		PD_ETL_THREAD_START,   PD_ETL_THREAD_STOP,
		PD_ETL_DBGID_RSDS,     PD_ETL_METHOD_LOAD,
		PD_ETL_METHOD_UNLOAD,  PD_ETL_DISK_READ,
		PD_ETL_DISK_WRITE,     PD_ETL_FILE_CREATE,
		PD_ETL_FILE_READ,      PD_ETL_FILE_WRITE,
		PD_ETL_HARD_FAULT,     PD_ETL_CSWITCH,
		PD_ETL_READY_THREAD,   PD_ETL_ALLOC_TICK,
	};
	size_t t, k;

	(void)state;
	for (t = 0; t < sizeof(traces) / sizeof(*traces); t++) {
		char trace[4096], base[4096], rel[256];
		uint64_t counts[PD_ETL_KINDS];
		struct pd_err err = PD_ERR_INIT;

		snprintf(rel, sizeof(rel), "etl/%s.etl.zip", traces[t]);
		if (corpus_file(trace, sizeof(trace), rel) < 0) {
			skip();
			return;
		}
		snprintf(rel, sizeof(rel), "etl/%s.baseline.txt", traces[t]);
		assert_int_equal(corpus_file(base, sizeof(base), rel), 0);
		assert_int_equal(pd_etl_count(trace, counts, &err), 0);
		for (k = 0; k < sizeof(compared) / sizeof(*compared); k++) {
			const char *name = pd_etl_kind_name(compared[k]);
			uint64_t want = baseline_count(base, name);

			if (counts[compared[k]] != want)
				fail_msg(
				    "%s: %s: %llu, PerfView %llu", traces[t],
				    name,
				    (unsigned long long)counts[compared[k]],
				    (unsigned long long)want);
		}
	}
}

/* The .NET trace's stacks come by key as well as whole. */
static void test_etl_stacks(void **state)
{
	char trace[4096];
	uint64_t counts[PD_ETL_KINDS];
	struct pd_err err = PD_ERR_INIT;

	(void)state;
	if (corpus_file(trace, sizeof(trace),
			"etl/perfview-net.4.5.2.x64.etl.zip") < 0) {
		skip();
		return;
	}
	assert_int_equal(pd_etl_count(trace, counts, &err), 0);
	/* most of an 8-processor machine's samples are its idle loop's */
	assert_true(counts[PD_ETL_SAMPLE_IDLE] > counts[PD_ETL_SAMPLE]);
	assert_true(counts[PD_ETL_STACK_KEY] > 0);
	assert_true(counts[PD_ETL_STACK_KEYDEF] > 0);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The sorted table gives back every record, in order, whether it held
 * them all in memory or sorted them into runs in temporary files (here
 * runs of 7 and 1 000 records, with equal keys across runs).
 */
static void test_etl_table(void **state)
{
	static const size_t caps[] = { 7, 1000, 100000 };
	size_t k;

	(void)state;
	for (k = 0; k < sizeof(caps) / sizeof(*caps); k++) {
		struct etl_table t;
		struct etl_cursor c;
		struct pd_err err = PD_ERR_INIT;
		uint64_t want[5000], x = 12345;
		const void *r;
		size_t i, n = 0;
		int rc;

		pd_etl_table_init(&t, sizeof(uint64_t), cmp_u64, caps[k]);
		for (i = 0; i < 5000; i++) {
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			want[i] = (x >> 33) % 2000; /* repeats */
			assert_int_equal(
			    pd_etl_table_push(&t, &want[i], "t", &err), 0);
		}
		assert_int_equal(pd_etl_table_sort(&t, "t", &err), 0);
		/* 715 batches of 7 merged 8 at a time: at most 8 runs */
		assert_true(caps[k] >= 5000 ? t.nruns == 0 : t.nruns > 0);
		assert_true(t.nruns <= 8);
		qsort(want, 5000, sizeof(*want), cmp_u64);
		pd_etl_cursor_open(&c, &t);
		while ((rc = pd_etl_cursor_next(&c, &r, "t", &err)) > 0) {
			assert_true(n < 5000);
			assert_true(*(const uint64_t *)r == want[n]);
			n++;
		}
		assert_int_equal(rc, 0);
		assert_int_equal(n, 5000);
		pd_etl_cursor_close(&c);
		/* a second reading gives the same (the build reads twice) */
		pd_etl_cursor_open(&c, &t);
		for (n = 0; pd_etl_cursor_next(&c, &r, "t", &err) > 0; n++)
			assert_true(*(const uint64_t *)r == want[n]);
		assert_int_equal(n, 5000);
		pd_etl_cursor_close(&c);
		pd_etl_table_release(&t);
	}
}

/* A folder that cannot hold the runs: one error naming the input. */
static void test_etl_table_no_tmp(void **state)
{
	struct etl_table t;
	struct pd_err err = PD_ERR_INIT;
	const char *old = getenv("TMPDIR");
	char *saved = old ? strdup(old) : NULL;
	uint64_t x = 1;
	int rc = 0, i;

	(void)state;
	setenv("TMPDIR", "/nonexistent/perfdiff-tmp", 1);
	pd_etl_table_init(&t, sizeof(x), cmp_u64, 4);
	for (i = 0; i < 5 && rc == 0; i++)
		rc = pd_etl_table_push(&t, &x, "trace.etl", &err);
	assert_int_equal(rc, PD_EIO);
	assert_non_null(strstr(err.msg, "trace.etl: no temporary file"));
	assert_non_null(strstr(err.msg, "/nonexistent/perfdiff-tmp"));
	pd_etl_table_release(&t);
	if (saved)
		setenv("TMPDIR", saved, 1);
	else
		unsetenv("TMPDIR");
	free(saved);
}

/* Each node of p as "frame;frame;...<TAB>weight<TAB>count", sorted. */
static char **node_lines(const struct pd_profile *p)
{
	char **paths = calloc(p->nodes.n, sizeof(*paths));
	char **lines = calloc(p->nodes.n + 1, sizeof(*lines));
	size_t i;

	assert_non_null(paths);
	assert_non_null(lines);
	for (i = 0; i < p->nodes.n; i++) {
		const struct pd_node *nd = &p->nodes.v[i];
		const char *up = i && nd->parent != i ? paths[nd->parent] : "";
		const char *name =
		    nd->frame == PD_NO_FRAME
			? ""
			: pd_intern_str(&p->strs, p->frames.v[nd->frame].name);
		size_t len = strlen(up) + strlen(name) + 2;

		/* parents come before their children */
		assert_true(!i || nd->parent < i);
		paths[i] = malloc(len);
		assert_non_null(paths[i]);
		snprintf(paths[i], len, "%s;%s", up, name);
		lines[i] = malloc(len + 64);
		assert_non_null(lines[i]);
		snprintf(lines[i], len + 64, "%s\t%.17g\t%.17g", paths[i],
			 nd->weight, nd->count);
	}
	for (i = 0; i < p->nodes.n; i++)
		free(paths[i]);
	free(paths);
	qsort(lines, p->nodes.n, sizeof(*lines), cmp_str);
	return lines;
}

/*
 * Records past memory go to temporary files up to the trace's cap: the
 * ratio times the bytes read plus the floor, and half the space free in
 * the folder; past either the push is refused, naming the cap, and the
 * runs written are let go with the table.
 */
static void test_etl_spill_cap(void **state)
{
	int byfree;

	(void)state;
	for (byfree = 0; byfree < 2; byfree++) {
		struct etl_table t;
		struct etl_spill b;
		struct pd_err err = PD_ERR_INIT;
		uint64_t read = 10, x;
		int rc = 0;

		memset(&b, 0, sizeof(b));
		b.read = &read;
		b.ratio = 8;
		b.floor = 100; /* 180 bytes: 2 runs of 8 records of 8 bytes */
		if (byfree) {
			b.capped = 1;
			b.cap = 70; /* 1 run */
		}
		pd_etl_table_init(&t, sizeof(uint64_t), cmp_u64, 8);
		t.spill = &b;
		for (x = 0; x < 100 && rc == 0; x++)
			rc = pd_etl_table_push(&t, &x, "t.etl", &err);
		assert_int_equal(rc, PD_ETOOBIG);
		/* pushed: 8 held, then 8 each run written, then the refusal */
		assert_int_equal(x, byfree ? 17 : 25);
		assert_int_equal(b.bytes, byfree ? 64 : 128);
		assert_non_null(
		    strstr(err.msg, byfree ? "half of the 140 bytes"
					   : "limit of 180 bytes of the trace's"
					     " records in temporary files (8"
					     " times the 10 bytes read, plus"
					     " 100: PERFDIFF_LIMIT_ETL_SPILL"));
		pd_etl_table_release(&t);
		assert_int_equal(b.bytes, 0);
	}
}

/*
 * The .NET trace read with its samples and stack events held in memory,
 * and again with at most 10 of each held, the rest sorted into runs in
 * temporary files (hundreds, merged 8 at a time as they come, so that few
 * files are open at once: the test passes with ulimit -n 64): the same
 * profile, node for node.
 */
static void test_etl_spilled(void **state)
{
	char trace[4096];
	struct pd_profile a, b;
	struct pd_import_opts o;
	char **la, **lb;
	size_t i;

	(void)state;
	if (corpus_file(trace, sizeof(trace),
			"etl/perfview-net.4.5.2.x64.etl.zip") < 0) {
		skip();
		return;
	}
	memset(&o, 0, sizeof(o));
	pd_profile_init(&a);
	pd_profile_init(&b);
	for (i = 0; i < 2; i++) {
		struct pd_input in;
		struct pd_err err = PD_ERR_INIT;

		assert_int_equal(pd_input_open(&in, trace, &err), 0);
		assert_int_equal(
		    pd_etl_import_held(&in, i ? &b : &a, &o, i ? 10 : 0, &err),
		    0);
		pd_input_close(&in);
	}
	assert_true(a.nsamples == 5129);
	assert_true(b.nsamples == a.nsamples);
	assert_int_equal(b.nodes.n, a.nodes.n);
	la = node_lines(&a);
	lb = node_lines(&b);
	for (i = 0; i < a.nodes.n; i++) {
		assert_string_equal(la[i], lb[i]);
		free(la[i]);
		free(lb[i]);
	}
	free(la);
	free(lb);
	pd_profile_release(&a);
	pd_profile_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_xpress_literals),
		cmocka_unit_test(test_xpress_matches),
		cmocka_unit_test(test_xpress_damage),
		cmocka_unit_test(test_etl_counts),
		cmocka_unit_test(test_etl_stacks),
		cmocka_unit_test(test_etl_table),
		cmocka_unit_test(test_etl_table_no_tmp),
		cmocka_unit_test(test_etl_spilled),
		cmocka_unit_test(test_etl_spill_cap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
