/* Unit tests for model/: name normalisation, self/total, matching. */
#include "testutil.h"

static void norm_is(const char *raw, const char *want)
{
	struct pd_buf b = PD_BUF_INIT;

	pd_normalize_name(raw, strlen(raw), &b);
	if (strcmp(b.buf, want)) {
		print_error("normalize(%s) = %s, want %s\n", raw, b.buf, want);
		fail();
	}
	pd_buf_release(&b);
}

static void test_normalize(void **state)
{
	(void)state;
	norm_is("parse_record", "parse_record");
	norm_is("parse_record.constprop.0", "parse_record");
	norm_is("parse_record.isra.0.constprop.3", "parse_record");
	norm_is("foo.part.2", "foo");
	norm_is("foo.cold", "foo");
	norm_is("foo.cold.12", "foo");
	norm_is("foo.llvm.1234567890", "foo");
	norm_is("foo.lto_priv.0", "foo");
	norm_is("main+0x1f", "main");
	norm_is("core::ptr::drop_in_place::h0123456789abcdef",
		"core::ptr::drop_in_place");
	norm_is("rayon::join::hXYZ", "rayon::join::hXYZ"); /* not a hash */
	norm_is("vfs_write_[k]", "vfs_write");
	norm_is("Interpreter_[j]", "Interpreter");
	norm_is("libfoo.so+0x1a2b", "libfoo.so+0x1a2b"); /* module+RVA stays */
	norm_is("0x00007f1234abcd", "[unknown]");
	norm_is("System.String.Concat(string,string)",
		"System.String.Concat(string,string)");
	norm_is("std::vector<int>::push_back", "std::vector<int>::push_back");
	norm_is("a.b.part", "a.b.part"); /* .part wants a number */
	/* C++ integer types as GCC's debug names and c++filt spell them */
	norm_is("f(long int, short unsigned int)", "f(long, unsigned short)");
	norm_is("std::vector<long unsigned int>::at(long unsigned int) const",
		"std::vector<unsigned long>::at(unsigned long) const");
	norm_is("g(long long int, long long unsigned int*)",
		"g(long long, unsigned long long*)");
	norm_is("h(short int&)", "h(short&)");
	norm_is("k(long double, unsigned int)", "k(long double, unsigned int)");
	norm_is("along_int(int)", "along_int(int)"); /* words only */
	norm_is("f(my_long int)", "f(my_long int)");
	norm_is("long int", "long int"); /* no argument list: not C++ */
	norm_is("f(long int).constprop.0", "f(long)");
	assert_int_equal(pd_module_basename("/usr/lib/libc.so.6", 18), 9);
	assert_int_equal(pd_module_basename("C:\\app\\x.dll", 12), 7);
	assert_int_equal(pd_module_basename("[kernel.kallsyms]", 17), 0);
}

/*
 * A hand-built tree:  main -> a -> a -> b  (weight 4)
 *                     main -> a           (weight 1)
 *                     main -> b           (weight 2)
 * self: b 6, a 1, main 0; total: main 7, a 5 (recursion once), b 6.
 */
static void test_self_total(void **state)
{
	struct pd_profile p;
	uint32_t fm, fa, fb, n1, n2, n3, n4, n5;
	struct ft r;

	(void)state;
	pd_profile_init(&p);
	fm = pd_profile_frame(&p, pd_intern_cstr(&p.strs, "main"), 0);
	fa = pd_profile_frame(&p, pd_intern_cstr(&p.strs, "a"), 0);
	fb = pd_profile_frame(&p, pd_intern_cstr(&p.strs, "b"), 0);
	n1 = pd_profile_child(&p, PD_ROOT, fm);
	n2 = pd_profile_child(&p, n1, fa);
	n3 = pd_profile_child(&p, n2, fa);
	n4 = pd_profile_child(&p, n3, fb);
	n5 = pd_profile_child(&p, n1, fb);
	assert_int_equal(pd_profile_child(&p, n1, fa), n2); /* deduplicated */
	pd_profile_add(&p, n4, 4, 4);
	pd_profile_add(&p, n2, 1, 1);
	pd_profile_add(&p, n5, 2, 2);
	pd_profile_finish(&p);
	assert_near(p.total_weight, 7, 0);
	r = func_of(&p, "main");
	assert_near(r.self, 0, 0);
	assert_near(r.total, 7, 0);
	r = func_of(&p, "a");
	assert_near(r.self, 1, 0);
	assert_near(r.total, 5, 0);
	r = func_of(&p, "b");
	assert_near(r.self, 6, 0);
	assert_near(r.total, 6, 0);
	assert_near(r.total_c, 6, 0);
	pd_profile_release(&p);
}

/*
 * main > x (3) and main > y (2), where x is "outer with inner inlined"
 * and y is outer itself: after expansion main > outer (2 self) > inner
 * (3 self), the two outer paths merged; counted by hand.
 */
static void test_expand_inlined(void **state)
{
	struct pd_profile p;
	uint32_t fm, fx, fy, fo, fi, n1, start[8] = { 0 }, len[8] = { 0 },
					 chain[2];
	struct ft r;

	(void)state;
	pd_profile_init(&p);
	fm = pd_profile_frame(&p, pd_intern_cstr(&p.strs, "main"), 0);
	fx = pd_profile_frame(&p, pd_intern_cstr(&p.strs, "x"), 0);
	fy = pd_profile_frame(&p, pd_intern_cstr(&p.strs, "outer"), 0);
	n1 = pd_profile_child(&p, PD_ROOT, fm);
	pd_profile_add(&p, pd_profile_child(&p, n1, fx), 3, 3);
	pd_profile_add(&p, pd_profile_child(&p, n1, fy), 2, 2);
	fo = fy; /* x's chain starts at the same outer frame */
	fi = pd_profile_frame(&p, pd_intern_cstr(&p.strs, "inner"), 0);
	chain[0] = fo;
	chain[1] = fi;
	start[fx] = 0;
	len[fx] = 2;
	pd_profile_expand(&p, 3, start, len, chain);
	pd_profile_finish(&p);
	assert_int_equal(p.nodes.n, 4); /* root, main, outer, inner */
	assert_near(p.total_weight, 5, 0);
	r = func_of(&p, "outer");
	assert_near(r.self, 2, 0);
	assert_near(r.total, 5, 0);
	r = func_of(&p, "inner");
	assert_near(r.self, 3, 0);
	assert_near(r.total, 3, 0);
	r = func_of(&p, "x");
	assert_near(r.total, 0, 0);
	r = func_of(&p, "main");
	assert_near(r.total, 5, 0);
	pd_profile_release(&p);
}

/*
 * main (1 self) > work (4) and main > exc_page_fault [kernel] (2) >
 * clear_page [kernel] (3); a kernel thread's swapper [kernel] (5) at the
 * root. Set apart, the kernel's 10 leave main's total and the profile's;
 * included, they count like any frame. Counted by hand.
 */
/* Kernel modules as perf names them are system frames; user memory not. */
static void test_system_modules(void **state)
{
	static const char *const yes[] = { "[kernel.kallsyms]",
					   "[nf_conntrack]", "[kvm_intel]",
					   "ntoskrnl.exe", "tcpip.sys" };
	static const char *const no[] = { "[vdso]",	 "[unknown]",
					  "[heap]",	 "[stack]",
					  "[jit]",	 "libc.so.6",
					  "[JIT] tid 7", "[]" };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(yes) / sizeof(*yes); i++)
		assert_true(pd_frame_is_system("f", 1, yes[i], strlen(yes[i])));
	for (i = 0; i < sizeof(no) / sizeof(*no); i++)
		assert_false(pd_frame_is_system("f", 1, no[i], strlen(no[i])));
}

static void test_system_apart(void **state)
{
	struct pd_profile p;
	uint32_t km, fm, fw, ff, fc, fs, n1, n2;
	struct pd_funcs fn;
	struct pd_agg a;
	int pass;

	(void)state;
	pd_profile_init(&p);
	km = pd_intern_cstr(&p.strs, "[kernel.kallsyms]");
	fm = pd_profile_frame(&p, pd_intern_cstr(&p.strs, "main"),
			      pd_intern_cstr(&p.strs, "/bin/app"));
	fw = pd_profile_frame(&p, pd_intern_cstr(&p.strs, "work"),
			      pd_intern_cstr(&p.strs, "/bin/app"));
	ff =
	    pd_profile_frame(&p, pd_intern_cstr(&p.strs, "exc_page_fault"), km);
	fc = pd_profile_frame(&p, pd_intern_cstr(&p.strs, "clear_page"), km);
	fs = pd_profile_frame(&p, pd_intern_cstr(&p.strs, "swapper"), km);
	n1 = pd_profile_child(&p, PD_ROOT, fm);
	pd_profile_add(&p, n1, 1, 1);
	pd_profile_add(&p, pd_profile_child(&p, n1, fw), 4, 4);
	n2 = pd_profile_child(&p, n1, ff);
	pd_profile_add(&p, n2, 2, 2);
	pd_profile_add(&p, pd_profile_child(&p, n2, fc), 3, 3);
	pd_profile_add(&p, pd_profile_child(&p, PD_ROOT, fs), 5, 5);
	pd_profile_finish(&p);
	for (pass = 0; pass < 2; pass++) {
		uint32_t m, f, c;

		pd_funcs_init(&fn, pass ? PD_FUNCS_SYSTEM : 0);
		pd_agg_init(&a);
		pd_agg_compute(&a, &p, &fn);
		m = pd_funcs_get(&fn, "main", 4, "/bin/app", 8);
		f = pd_funcs_get(&fn, "exc_page_fault", 14, "[kernel.kallsyms]",
				 17);
		c = pd_funcs_get(&fn, "clear_page", 10, "[kernel.kallsyms]",
				 17);
		assert_true(fn.v.v[f].system && fn.v.v[c].system &&
			    !fn.v.v[m].system);
		assert_near(a.total_w[m], pass ? 10 : 5, 0);
		assert_near(a.self_w[m], 1, 0);
		assert_near(a.total_w[f], 5, 0); /* its own subtree, always */
		assert_near(a.self_w[c], 3, 0);
		assert_near(a.all_w, pass ? 15 : 5, 0);
		assert_near(a.sys_w, pass ? 0 : 10, 0);
		pd_agg_release(&a);
		pd_funcs_release(&fn);
	}
	pd_profile_release(&p);
}

/*
 * Time blocks and each function's dispersion over them, counted by hand
 * (statistics.md, "Bursty functions"). One busy thread sampled every
 * 1/32 s, 4 samples a tick, for 8 s: main -> g for the first 16 ticks
 * and ticks 128-135 (two bursts), main -> f for the rest. The first gap
 * makes blocks of 1/256 s, doubled to 0.5 s: 16 blocks of 64 samples.
 * g: 64 in block 0, 32 in block 8, else 0; f: 0, 64..., 32 in block 8.
 * Against the program's samples both look bursty, g the more (fewer
 * samples). With g out, the steady samples are f's own: f 0 over 14
 * blocks (block 0 has none); g against steady + its own (64 each):
 * ((64-6)^2 + (32-6)^2) / 6 + 14 * 6 = 757.33 over 15; main's total
 * against steady, over blocks 1-15: (64-33.10)^2/33.10 + 14
 * (64-66.21)^2/66.21 = 29.88 over 14, but main runs the whole time, one
 * stretch of the run with no gap: a phase, no evidence of bursts, 1.
 * The same g in one stretch (ticks 0-23: 64, 32, 0...) is a phase too.
 */
static void test_time_blocks(void **state)
{
	struct pd_profile p;
	struct pd_funcs fn;
	struct pd_agg a;
	uint32_t m, g, f, nm, ng, nf;
	double main_x2 = 0, m1 = 960.0 * 32 / 928, mk = 960.0 * 64 / 928;
	int i;

	(void)state;
	pd_profile_init(&p);
	m = pd_profile_frame(&p, pd_intern_cstr(&p.strs, "main"), 0);
	g = pd_profile_frame(&p, pd_intern_cstr(&p.strs, "g"), 0);
	f = pd_profile_frame(&p, pd_intern_cstr(&p.strs, "f"), 0);
	nm = pd_profile_child(&p, PD_ROOT, m);
	ng = pd_profile_child(&p, nm, g);
	nf = pd_profile_child(&p, nm, f);
	for (i = 0; i < 256; i++) {
		uint32_t at = i < 16 || (i >= 128 && i < 136) ? ng : nf;

		pd_profile_add(&p, at, 4, 4);
		pd_blocks_add(&p.blk, at, i / 32.0, 4);
	}
	pd_blocks_add(&p.blk, nf, PD_NAN, 1); /* no time: not counted */
	pd_profile_finish(&p);
	assert_int_equal(p.blk.used, 16);
	assert_near(p.blk.width, 0.5, 0);
	assert_near((double)pd_blocks_row(&p.blk, ng)[0], 64, 0);
	assert_near((double)pd_blocks_row(&p.blk, ng)[8], 32, 0);
	assert_near((double)pd_blocks_row(&p.blk, nf)[15], 64, 0);
	assert_null(pd_blocks_row(&p.blk, nm));

	pd_funcs_init(&fn, 0);
	pd_agg_init(&a);
	pd_agg_compute(&a, &p, &fn);
	g = pd_funcs_get(&fn, "g", 1, "", 0);
	f = pd_funcs_get(&fn, "f", 1, "", 0);
	m = pd_funcs_get(&fn, "main", 4, "", 0);
	assert_near(a.bdisp[0][g], ((58.0 * 58 + 26.0 * 26) / 6 + 84) / 15,
		    1e-9);
	assert_near(a.bdisp[1][g], a.bdisp[0][g], 1e-12);
	assert_near(a.bdf[0][g], 15, 0);
	assert_near(a.bdisp[0][f], 0, 1e-12);
	assert_near(a.bdf[0][f], 14, 0);
	assert_near(a.bdf[0][m], 0, 0); /* no samples of its own */
	main_x2 = (64 - m1) * (64 - m1) / m1 + 14 * (64 - mk) * (64 - mk) / mk;
	assert_true(main_x2 / 14 > 2);
	assert_near(a.bdisp[1][m], 1, 0);
	assert_near(a.bdf[1][m], 14, 0);
	pd_agg_release(&a);

	/* A rebuilt tree (main hidden) carries the rows to the new nodes. */
	{
		unsigned char hide[3] = { 0 };

		hide[pd_profile_frame(&p, pd_intern_cstr(&p.strs, "main"), 0)] =
		    1;
		pd_profile_filter(&p, NULL, NULL, hide);
		pd_profile_finish(&p);
		pd_agg_init(&a);
		pd_agg_compute(&a, &p, &fn);
		assert_near(a.bdisp[0][g],
			    ((58.0 * 58 + 26.0 * 26) / 6 + 84) / 15, 1e-9);
		assert_near(a.bdisp[0][f], 0, 1e-12);
		pd_agg_release(&a);
	}
	pd_funcs_release(&fn);
	pd_profile_release(&p);
}

/*
 * The layout of test_time_blocks (main -> g, main -> f, 4 samples a tick
 * of 1/32 s for 8 s) with g in ticks [lo, hi): g's self dispersion and
 * its degrees of freedom, and f's.
 */
static void blocks_at(int lo, int hi, double *gd, double *gdf, double *fd)
{
	struct pd_profile p;
	struct pd_funcs fn;
	struct pd_agg a;
	uint32_t m, g, f, ng, nf;
	int i;

	pd_profile_init(&p);
	m = pd_profile_frame(&p, pd_intern_cstr(&p.strs, "main"), 0);
	g = pd_profile_frame(&p, pd_intern_cstr(&p.strs, "g"), 0);
	f = pd_profile_frame(&p, pd_intern_cstr(&p.strs, "f"), 0);
	ng = pd_profile_child(&p, pd_profile_child(&p, PD_ROOT, m), g);
	nf = pd_profile_child(&p, pd_profile_child(&p, PD_ROOT, m), f);
	for (i = 0; i < 256; i++) {
		uint32_t at = i >= lo && i < hi ? ng : nf;

		pd_profile_add(&p, at, 4, 4);
		pd_blocks_add(&p.blk, at, i / 32.0, 4);
	}
	pd_profile_finish(&p);
	pd_funcs_init(&fn, 0);
	pd_agg_init(&a);
	pd_agg_compute(&a, &p, &fn);
	g = pd_funcs_get(&fn, "g", 1, "", 0);
	f = pd_funcs_get(&fn, "f", 1, "", 0);
	*gd = a.bdisp[0][g];
	*gdf = a.bdf[0][g];
	*fd = a.bdisp[0][f];
	pd_agg_release(&a);
	pd_funcs_release(&fn);
	pd_profile_release(&p);
}

/*
 * One burst in mid-run (g in ticks 128-151, blocks 8 and 9): a phase, so
 * g's own dispersion is sampling's; but it is still taken out of the
 * steady samples first, or f, which stops while g runs, would show a gap
 * there and two stretches, and look bursty (5.2 over 15).
 */
static void test_time_blocks_midburst(void **state)
{
	double gd, gdf, fd;

	(void)state;
	blocks_at(128, 152, &gd, &gdf, &fd);
	assert_near(gd, 1, 0);
	assert_near(gdf, 15, 0);
	assert_near(fd, 0, 1e-12);
}

/*
 * A program in phases: g for the first 24 ticks (64, 32, 0... over the
 * blocks), f after it. Counted as above, g against its own and the
 * program's samples scatters 757.33 over 15 degrees of freedom, but in
 * one stretch of the run: a phase, as the program's order puts it, the
 * same in every run. Its dispersion is sampling's, 1.
 */
static void test_time_blocks_phase(void **state)
{
	double gd, gdf, fd;

	(void)state;
	blocks_at(0, 24, &gd, &gdf, &fd);
	assert_near(gd, 1, 0);
	assert_near(gdf, 15, 0);
	assert_true(fd <= 1);
}

/*
 * Blocks grow to the left for a sample before their start, by hand:
 * times 10, 11 (the first gap, 1: blocks of 1/8, 11 in block 8), then 9:
 * 8 more blocks to the left do not fit with 9 in use, so one fold
 * (blocks of 1/4, 5 in use, 11 in block 4) and 4 to the left: the start
 * is 9, 9 in block 0, 10 in 4, 11 in 8. An interval [11.1, 11.6) with 5
 * samples spreads by length: block 8 ([11, 11.25): 0.15, 1.5), 9 (0.25,
 * 2.5) and 10 (0.1, 1).
 */
static void test_time_blocks_left(void **state)
{
	struct pd_blocks b;
	const float *r;

	(void)state;
	memset(&b, 0, sizeof(b));
	pd_blocks_add(&b, 1, 10, 1);
	pd_blocks_add(&b, 1, 11, 1);
	pd_blocks_add(&b, 1, 9, 1);
	assert_near(b.width, 0.25, 0);
	assert_near(b.t0, 9, 0);
	assert_int_equal(b.used, 9);
	r = pd_blocks_row(&b, 1);
	assert_near((double)r[0], 1, 0);
	assert_near((double)r[4], 1, 0);
	assert_near((double)r[8], 1, 0);
	pd_blocks_add_span(&b, 2, 11.1, 11.6, 5);
	r = pd_blocks_row(&b, 2);
	assert_near((double)r[8], 1.5, 1e-5);
	assert_near((double)r[9], 2.5, 1e-5);
	assert_near((double)r[10], 1, 1e-5);
	assert_int_equal(b.used, 11);
	pd_blocks_release(&b);
}

static void test_matching_across_profiles(void **state)
{
	struct pd_profile a, b;
	struct pd_funcs fn;
	uint32_t x, y;

	(void)state;
	pd_profile_init(&a);
	pd_profile_init(&b);
	pd_funcs_init(&fn, 0);
	x = pd_funcs_get(&fn, "parse.constprop.0", 17, "/build1/bin/app", 15);
	y = pd_funcs_get(&fn, "parse", 5, "/build2/bin/app", 15);
	assert_int_equal(x, y);
	assert_int_equal(fn.v.v[x].raw.n, 2); /* both raw names kept */
	y = pd_funcs_get(&fn, "parse", 5, "/lib/other.so", 13);
	assert_int_not_equal(x, y);
	/* An unsymbolicated frame keeps its offset: it is its identity. */
	x = pd_funcs_get(&fn, "app+0x1a2b", 10, "/x/app@ABC", 10);
	y = pd_funcs_get(&fn, "app+0x1a2c", 10, "/x/app@ABC", 10);
	assert_int_not_equal(x, y);
	assert_string_equal(pd_func_name(&fn, x), "app+0x1a2b");
	x = pd_funcs_get(&fn, "parse.constprop.0", 17, "/build1/bin/app", 15);
	pd_funcs_alias(&fn, "app2", "app");
	y = pd_funcs_get(&fn, "parse", 5, "/x/app2", 7);
	assert_int_equal(x, y);
	pd_funcs_release(&fn);

	pd_funcs_init(&fn, PD_FUNCS_NO_NORMALIZE);
	x = pd_funcs_get(&fn, "parse.constprop.0", 17, "app", 3);
	y = pd_funcs_get(&fn, "parse", 5, "app", 3);
	assert_int_not_equal(x, y);
	pd_funcs_release(&fn);

	pd_funcs_init(&fn, PD_FUNCS_NO_MODULE);
	x = pd_funcs_get(&fn, "parse", 5, "a.so", 4);
	y = pd_funcs_get(&fn, "parse", 5, "b.so", 4);
	assert_int_equal(x, y);
	pd_funcs_release(&fn);
	pd_profile_release(&a);
	pd_profile_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_normalize),
		cmocka_unit_test(test_self_total),
		cmocka_unit_test(test_expand_inlined),
		cmocka_unit_test(test_system_modules),
		cmocka_unit_test(test_system_apart),
		cmocka_unit_test(test_time_blocks),
		cmocka_unit_test(test_time_blocks_phase),
		cmocka_unit_test(test_time_blocks_midburst),
		cmocka_unit_test(test_time_blocks_left),
		cmocka_unit_test(test_matching_across_profiles),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
