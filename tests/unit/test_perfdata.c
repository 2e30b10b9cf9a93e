/*
 * sched_switch's raw fields in perf.data (import/perf/perfdata_sched.c):
 * laid out by the tracepoint format the file's tracing data carries,
 * whatever the kernel (docs/formats.md, "Off-CPU time"). The formats here
 * are written as two kernels print them: a 32-bit Linux 4.4 (prev_state
 * an int of 4 bytes, flags in decimal, preemption the bit 2048) and the
 * 6.x layout a real recording of the suite carries (t0214).
 */
#include "testutil.h"
#include "import/perf/perfdata_int.h"

#include <stdio.h>

static void put(struct pd_buf *b, const void *p, size_t n)
{
	pd_buf_add(b, p, n);
}

static void put32(struct pd_buf *b, uint32_t v)
{
	put(b, &v, 4);
}

static void put64(struct pd_buf *b, uint64_t v)
{
	put(b, &v, 8);
}

static void put_format(struct pd_buf *b, const char *text)
{
	put64(b, strlen(text));
	put(b, text, strlen(text));
}

static const char old_switch[] =
    "name: sched_switch\n"
    "ID: 263\n"
    "format:\n"
    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
    "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
    "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;"
    "\tsigned:0;\n"
    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
    "\n"
    "\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:1;\n"
    "\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
    "\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
    "\tfield:long prev_state;\toffset:32;\tsize:4;\tsigned:1;\n"
    "\tfield:char next_comm[16];\toffset:36;\tsize:16;\tsigned:1;\n"
    "\tfield:pid_t next_pid;\toffset:52;\tsize:4;\tsigned:1;\n"
    "\tfield:int next_prio;\toffset:56;\tsize:4;\tsigned:1;\n"
    "\n"
    "print fmt: \"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s"
    " ==> next_comm=%s next_pid=%d next_prio=%d\", REC->prev_comm,"
    " REC->prev_pid, REC->prev_prio, REC->prev_state & (2048-1) ?"
    " __print_flags(REC->prev_state & (2048-1), \"|\", { 1, \"S\"} ,"
    " { 2, \"D\" }, { 4, \"T\" }, { 8, \"t\" }, { 16, \"X\" },"
    " { 32, \"Z\" }, { 64, \"x\" }, { 128, \"K\" }, { 256, \"W\" },"
    " { 512, \"P\" }, { 1024, \"N\" }) : \"R\", REC->prev_state & 2048 ?"
    " \"+\" : \"\", REC->next_comm, REC->next_pid, REC->next_prio\n";

/* Tracing data as perf writes it, sched_switch after another event. */
static void tracing_data(struct pd_buf *b, const char *sched_switch)
{
	static const unsigned char magic[10] = { 0x17, 0x08, 0x44, 't', 'r',
						 'a',  'c',  'i',  'n', 'g' };
	unsigned char endian_long[2] = { 0, 4 };

	put(b, magic, sizeof(magic));
	put(b, "0.6", 4);
	put(b, endian_long, 2);
	put32(b, 4096);
	put(b, "header_page", 12);
	put_format(b, "\tfield: u64 timestamp;\toffset:0;\tsize:8;\n");
	put(b, "header_event", 13);
	put_format(b, "# compressed entry header\n");
	put32(b, 1); /* ftrace's own formats */
	put_format(b, "name: function\nID: 1\n");
	put32(b, 2); /* systems */
	put(b, "irq", 4);
	put32(b, 1);
	put_format(b, "name: irq_handler_entry\nID: 80\nformat:\n"
		      "\tfield:int prev_pid;\toffset:8;\tsize:4;\tsigned:1;\n");
	put(b, "sched", 6);
	put32(b, 2);
	put_format(b, "name: sched_wakeup\nID: 262\nformat:\n"
		      "\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n");
	put_format(b, sched_switch);
	put32(b, 0); /* kallsyms */
	put32(b, 0); /* printk formats */
}

static void raw_old(unsigned char *raw, uint32_t prev, uint32_t state,
		    uint32_t next)
{
	memset(raw, 0, 60);
	memcpy(raw + 24, &prev, 4);
	memcpy(raw + 32, &state, 4);
	memcpy(raw + 52, &next, 4);
}

static void test_sched_old_kernel(void **state)
{
	static const struct {
		uint32_t state;
		const char *text;
	} cases[] = {
		{ 0, "R" },	{ 2048, "R+" }, { 1, "S" },    { 2, "D" },
		{ 3, "S|D" },	{ 4, "T" },	{ 8, "t" },    { 32, "Z" },
		{ 2049, "S+" }, { 1024, "N" },	{ 4096, "R" },
	};
	struct pd_buf b = PD_BUF_INIT, text = PD_BUF_INIT;
	struct pdd d;
	struct pdd_attr a;
	unsigned char raw[60];
	size_t i;

	(void)state;
	tracing_data(&b, old_switch);
	memset(&d, 0, sizeof(d));
	pd_pdd_tracing_data(&d, (const unsigned char *)b.buf, b.len);
	assert_true(d.sched.ok);
	assert_int_equal(d.sched.id, 263);
	assert_int_equal(d.sched.off[PDD_SCHED_PREV_STATE], 32);
	assert_int_equal(d.sched.size[PDD_SCHED_PREV_STATE], 4);
	assert_int_equal(d.sched.off[PDD_SCHED_NEXT_PID], 52);
	assert_int_equal(d.sched.nflags, 11);
	memset(&a, 0, sizeof(a));
	a.type = 2;
	a.config = 263;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char want[96];

		raw_old(raw, 4711, cases[i].state, 815);
		assert_true(pd_pdd_sched_text(&d, &a, raw, sizeof(raw), &text));
		snprintf(want, sizeof(want),
			 " prev_pid=4711 prev_state=%s ==> next_pid=815",
			 cases[i].text);
		assert_string_equal(text.buf, want);
	}
	/* sched_wakeup: its pid (at 24 in this format) */
	assert_true(d.sched.wake_ok);
	a.config = 262;
	assert_true(pd_pdd_sched_text(&d, &a, raw, sizeof(raw), &text));
	assert_string_equal(text.buf, " pid=4711");
	assert_false(pd_pdd_sched_text(&d, &a, raw, 26, &text));
	/* another tracepoint, a cut record, no raw bytes: not a switch */
	a.config = 80;
	assert_false(pd_pdd_sched_text(&d, &a, raw, sizeof(raw), &text));
	a.config = 263;
	assert_false(pd_pdd_sched_text(&d, &a, raw, 55, &text));
	assert_false(pd_pdd_sched_text(&d, &a, NULL, 0, &text));
	a.type = 1;
	assert_false(pd_pdd_sched_text(&d, &a, raw, sizeof(raw), &text));
	/* every shorter copy of the section: read in bounds, never half */
	for (i = 0; i < b.len; i++) {
		unsigned char *cut = pd_xmalloc(i + 1);

		memcpy(cut, b.buf, i);
		memset(&d, 0, sizeof(d));
		pd_pdd_tracing_data(&d, cut, i);
		free(cut);
		if (d.sched.ok) /* only the kallsyms and printk sizes cut */
			assert_true(i >= b.len - 8);
	}
	pd_buf_release(&b);
	pd_buf_release(&text);
}

/* A format without prev_state, or of a big-endian machine: not used. */
static void test_sched_unusable(void **state)
{
	struct pd_buf b = PD_BUF_INIT;
	struct pdd d;
	char *f = pd_xstrdup(old_switch), *s = strstr(f, "prev_state;");

	(void)state;
	memcpy(s, "prev_stat_;", 11);
	tracing_data(&b, f);
	memset(&d, 0, sizeof(d));
	pd_pdd_tracing_data(&d, (const unsigned char *)b.buf, b.len);
	assert_false(d.sched.ok);
	pd_buf_reset(&b);
	tracing_data(&b, old_switch);
	b.buf[14] = 1; /* the byte after "0.6\0": big-endian */
	memset(&d, 0, sizeof(d));
	pd_pdd_tracing_data(&d, (const unsigned char *)b.buf, b.len);
	assert_false(d.sched.ok);
	free(f);
	pd_buf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sched_old_kernel),
		cmocka_unit_test(test_sched_unusable),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
