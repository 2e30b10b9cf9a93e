/* Unit tests for core/: buffers, interning, UTF-8, decoded input. */
#include "testutil.h"

#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "cmd/cmd.h"
#include "cmd/options.h"
#include "cmd/parse.h"
#include "core/buf.h"
#include "core/limits.h"
#include "core/input.h"
#include "core/intern.h"
#include "core/numfmt.h"
#include "core/proc.h"
#include "core/utf8.h"

static void test_buf(void **state)
{
	struct pd_buf b = PD_BUF_INIT;
	int i;

	(void)state;
	assert_non_null(b.buf);
	assert_string_equal(b.buf, "");
	for (i = 0; i < 1000; i++)
		pd_buf_addf(&b, "%d,", i);
	assert_int_equal(b.len, strlen(b.buf));
	assert_memory_equal(b.buf, "0,1,2,", 6);
	pd_buf_setlen(&b, 2);
	assert_string_equal(b.buf, "0,");
	pd_buf_release(&b);
	assert_string_equal(b.buf, "");
}

/* xorshift64*: the same doubles on every machine */
static uint64_t rnd(uint64_t *st)
{
	*st ^= *st >> 12;
	*st ^= *st << 25;
	*st ^= *st >> 27;
	return *st * 2685821657736338717ULL;
}

static void check_double(double d)
{
	char fast[PD_FMT_DOUBLE_MAX], ref[PD_FMT_DOUBLE_MAX];
	size_t n = pd_fmt_double(fast, d);

	pd_fmt_double_ref(ref, d);
	if (strcmp(fast, ref) != 0 || n != strlen(fast) ||
	    strtod(fast, NULL) < d || strtod(fast, NULL) > d)
		fail_msg("%a: \"%s\", printf \"%s\"", d, fast, ref);
}

/* The fast double printer gives printf's bytes (docs/cli.md, "JSON"). */
static void test_fmt_double(void **state)
{
	static const struct {
		double d;
		const char *s;
	} known[] = {
		{ 0.0, "0" },
		{ -0.0, "-0" },
		{ 0.1, "0.1" },
		{ 0.3, "0.3" },
		{ 0.1 + 0.2, "0.30000000000000004" },
		{ 1.0 / 3, "0.3333333333333333" },
		{ 2.0 / 3, "0.6666666666666666" },
		{ 1e-5, "1e-05" },
		{ 0.0001, "0.0001" },
		{ 1.5e-7, "1.5e-07" },
		{ -1234.5, "-1234.5" },
		{ 100, "100" },
		{ 1e15, "1e+15" },
		{ 1e-300, "1e-300" },
		{ 123456789012345678.0, "1.2345678901234568e+17" },
		{ 5e-324, "4.94065645841247e-324" },
		{ 9007199254740993.0, "9007199254740992" },
		{ 0.99999999999999989, "0.9999999999999999" },
	};
	uint64_t st = 0x9e3779b97f4a7c15ULL, u;
	char out[PD_FMT_DOUBLE_MAX];
	double d;
	size_t i;
	int k;

	(void)state;
	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		pd_fmt_double(out, known[i].d);
		assert_string_equal(out, known[i].s);
		check_double(known[i].d);
	}
	/* every power of ten and two the fast path meets, and their
	 * neighbours: the edges of its digit counts and exponents */
	for (k = -40; k <= 40; k++) {
		d = pow(10, k);
		check_double(d);
		check_double(nextafter(d, 0));
		check_double(nextafter(d, HUGE_VAL));
		d = ldexp(1, k);
		check_double(d);
		check_double(nextafter(d, 0));
		check_double(nextafter(d, HUGE_VAL));
	}
	for (i = 0; i < 300000; i++) {
		u = rnd(&st);
		/* log-uniform over the fast range and beyond it */
		d = pow(10,
			-13.0 + 30.0 * (double)(u >> 11) / 9007199254740992.0);
		check_double(u & 1 ? -d : d);
		/* ratios of small integers, as reports are full of */
		check_double((double)(rnd(&st) % 100000) /
			     (double)(rnd(&st) % 9999 + 1));
		/* short decimals: k / 10^j */
		check_double((double)(rnd(&st) % 1000000) /
			     pow(10, (double)(rnd(&st) % 12)));
		/* any bit pattern that is a finite double */
		u = rnd(&st);
		memcpy(&d, &u, sizeof(d));
		if (isfinite(d))
			check_double(d);
	}
}

/*
 * A names table keeps a name whole past a NUL byte inside it, and two
 * names that differ after it apart ("nul\u0000x" in a speedscope file).
 */
static void test_intern_text_nul(void **state)
{
	struct pd_intern t;
	uint32_t x, y;

	(void)state;
	pd_intern_init(&t);
	t.text = 1;
	x = pd_intern(&t, "nul\0x", 5);
	y = pd_intern(&t, "nul\0y", 5);
	assert_int_not_equal(x, y);
	assert_string_equal(pd_intern_str(&t, x), "nul\\x00x");
	assert_int_equal(pd_intern_len(&t, y), 8);
	assert_int_equal(pd_intern_find(&t, "nul\0y", 5), y);
	assert_int_equal(pd_intern_cstr(&t, "nul\\x00x"), x);
	pd_intern_release(&t);
}

static void test_intern(void **state)
{
	struct pd_intern t;
	uint32_t a, b, c;
	char tmp[32];
	int i;

	(void)state;
	pd_intern_init(&t);
	assert_int_equal(pd_intern(&t, "", 0), 0);
	a = pd_intern_cstr(&t, "alpha");
	b = pd_intern_cstr(&t, "beta");
	c = pd_intern(&t, "alphabet", 5); /* "alpha" by length */
	assert_int_equal(a, c);
	assert_int_not_equal(a, b);
	for (i = 0; i < 100000; i++) {
		snprintf(tmp, sizeof(tmp), "name%d", i);
		pd_intern_cstr(&t, tmp);
	}
	assert_string_equal(pd_intern_str(&t, a), "alpha");
	assert_int_equal(pd_intern_find(&t, "name99999", 9),
			 pd_intern_cstr(&t, "name99999"));
	assert_int_equal(pd_intern_find(&t, "missing", 7), UINT32_MAX);
	/* A string longer than a storage chunk. */
	{
		size_t n = 600000;
		char *big = malloc(n);

		memset(big, 'x', n);
		a = pd_intern(&t, big, n);
		assert_int_equal(pd_intern_len(&t, a), n);
		assert_int_equal(pd_intern(&t, big, n), a);
		free(big);
	}
	pd_intern_release(&t);
}

static void test_utf8(void **state)
{
	struct pd_buf b = PD_BUF_INIT;

	(void)state;
	pd_utf8_sanitize("ok \xc3\xa9 \xff \xed\xa0\x80 \xe2\x82", 14, &b);
	assert_string_equal(b.buf, "ok \xc3\xa9 \xef\xbf\xbd \xef\xbf\xbd"
				   "\xef\xbf\xbd\xef\xbf\xbd \xef\xbf\xbd"
				   "\xef\xbf\xbd");
	/* valid text is itself, no copy; invalid text is sanitized */
	{
		static const char ascii[] = "main", u8[] = "caf\xc3\xa9";

		assert_ptr_equal(pd_utf8_valid(ascii, &b), ascii);
		assert_ptr_equal(pd_utf8_valid(u8, &b), u8);
		assert_string_equal(pd_utf8_valid("a\xffz\xc3", &b),
				    "a\xef\xbf\xbdz\xef\xbf\xbd");
	}
	pd_buf_release(&b);
}

static char *tmpfile_with(const void *data, size_t n, int gz)
{
	char *path = strdup("/tmp/pdtestXXXXXX");
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	if (gz) {
		gzFile g = gzdopen(fd, "wb");

		assert_int_equal(gzwrite(g, data, (unsigned)n), (int)n);
		gzclose(g);
	} else {
		assert_int_equal(write(fd, data, n), (ssize_t)n);
		close(fd);
	}
	return path;
}

static void read_all(const char *path, struct pd_buf *out)
{
	struct pd_input in;
	struct pd_err err = PD_ERR_INIT;
	char buf[7];
	ssize_t n;

	assert_int_equal(pd_input_open(&in, path, &err), 0);
	while ((n = pd_input_read(&in, buf, sizeof(buf), &err)) > 0)
		pd_buf_add(out, buf, (size_t)n);
	assert_int_equal(n, 0);
	pd_input_close(&in);
}

static void test_input_decoding(void **state)
{
	/* "a;é 1\n" in UTF-16LE with BOM, and a surrogate pair (U+1F600). */
	static const unsigned char le[] = { 0xff, 0xfe, 'a',  0,    ';',  0,
					    0xe9, 0,	' ',  0,    '1',  0,
					    0x3d, 0xd8, 0x00, 0xde, '\n', 0 };
	static const unsigned char be[] = {
		0xfe, 0xff, 0, 'x', 0, ' ', 0, '2'
	};
	struct pd_buf b = PD_BUF_INIT;
	char *p;

	(void)state;
	p = tmpfile_with(le, sizeof(le), 0);
	read_all(p, &b);
	assert_string_equal(b.buf, "a;\xc3\xa9 1\xf0\x9f\x98\x80\n");
	unlink(p);
	free(p);
	pd_buf_reset(&b);

	p = tmpfile_with(be, sizeof(be), 1); /* gzip + UTF-16BE */
	read_all(p, &b);
	assert_string_equal(b.buf, "x 2");
	unlink(p);
	free(p);
	pd_buf_reset(&b);

	p = tmpfile_with("\xef\xbb\xbfhello", 8, 0);
	read_all(p, &b);
	assert_string_equal(b.buf, "hello");
	unlink(p);
	free(p);
	pd_buf_release(&b);
}

static void test_lines(void **state)
{
	struct pd_input in;
	struct pd_lines l;
	struct pd_err err = PD_ERR_INIT;
	struct pd_buf big = PD_BUF_INIT;
	char *line, *p;
	size_t len;
	int i;

	(void)state;
	pd_buf_adds(&big, "one\r\ntwo\n\n");
	for (i = 0; i < 300000; i++) /* a line longer than the buffer */
		pd_buf_addch(&big, 'z');
	pd_buf_adds(&big, "\nlast");
	p = tmpfile_with(big.buf, big.len, 0);
	assert_int_equal(pd_input_open(&in, p, &err), 0);
	pd_lines_init(&l, &in);
	assert_int_equal(pd_lines_next(&l, &line, &len, &err), 1);
	assert_string_equal(line, "one");
	assert_int_equal(pd_lines_next(&l, &line, &len, &err), 1);
	assert_string_equal(line, "two");
	assert_int_equal(pd_lines_next(&l, &line, &len, &err), 1);
	assert_int_equal(len, 0);
	assert_int_equal(pd_lines_next(&l, &line, &len, &err), 1);
	assert_int_equal(len, 300000);
	assert_int_equal(pd_lines_next(&l, &line, &len, &err), 1);
	assert_string_equal(line, "last"); /* no final newline */
	assert_int_equal(l.lineno, 5);
	assert_int_equal(pd_lines_next(&l, &line, &len, &err), 0);
	pd_lines_release(&l);
	pd_input_close(&in);
	unlink(p);
	free(p);
	pd_buf_release(&big);
}

static void test_missing_file(void **state)
{
	struct pd_input in;
	struct pd_err err = PD_ERR_INIT;

	(void)state;
	assert_int_equal(pd_input_open(&in, "/nonexistent/x.txt", &err),
			 PD_EIO);
	assert_non_null(strstr(err.msg, "/nonexistent/x.txt: cannot open"));
	pd_input_close(&in);
}

static void test_error_is_one_line(void **state)
{
	struct pd_err err = PD_ERR_INIT;

	(void)state;
	assert_int_equal(
	    pd_err_set(&err, PD_EPARSE, "f: key %s: bad", "a\nb\rc\x7f"),
	    PD_EPARSE);
	assert_string_equal(err.msg, "f: key a?b?c?: bad");
	/* The first error is kept: later ones are consequences. */
	pd_err_set(&err, PD_EIO, "second");
	assert_int_equal(err.code, PD_EPARSE);
}

static void test_command_table_sorted(void **state)
{
	size_t n, i;
	const struct pd_cmd *t = pd_cmd_table(&n);

	(void)state;
	for (i = 1; i < n; i++)
		assert_true(strcmp(t[i - 1].name, t[i].name) < 0);
}

/*
 * The option table the parser reads: for each command, one row per long
 * name and per letter (a second would never be reached), every command
 * of a row one that parses options, a choice with its values, a value's
 * field inside struct pd_args, and a -f row whose formats are named.
 */
static void test_option_table(void **state)
{
	size_t nt, nc, i, k, c;
	const struct pd_optdef *t = pd_opts_table(&nt);
	const struct pd_cmd *cmds = pd_cmd_table(&nc);
	unsigned with_opts = 0;

	(void)state;
	for (c = 0; c < nc; c++)
		with_opts |= cmds[c].opts ? cmds[c].bit : 0;
	for (i = 0; i < nt; i++) {
		assert_true(t[i].cmds && !(t[i].cmds & ~with_opts));
		assert_true(t[i].off < sizeof(struct pd_args));
		if (t[i].kind == PD_OPT_CHOICE)
			assert_non_null(t[i].choices);
		if (t[i].kind == PD_OPT_NUMBER)
			assert_true(t[i].lo <= t[i].hi);
		if (t[i].choices == pd_outfmt_choices)
			assert_true(t[i].bits != 0);
		for (k = 0; k < i; k++) {
			if (!(t[k].cmds & t[i].cmds))
				continue;
			assert_string_not_equal(t[k].name, t[i].name);
			assert_true(!t[i].letter || t[k].letter != t[i].letter);
		}
	}
}

/*
 * A program is found on PATH: in its first folder that has it as a
 * program, empty entries and a file that is not executable passed over;
 * a name that is not there anywhere gives NULL.
 */
static void test_proc_find(void **state)
{
	char dir[] = "/tmp/pd-find-XXXXXX", a[64], b[64], path[200], *got;
	const char *old = getenv("PATH");
	char *saved = old ? strdup(old) : NULL;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(a, sizeof(a), "%s/a", dir);
	snprintf(b, sizeof(b), "%s/b", dir);
	assert_int_equal(mkdir(a, 0700), 0);
	assert_int_equal(mkdir(b, 0700), 0);
	snprintf(path, sizeof(path), "%s/tool", a); /* not executable */
	f = fopen(path, "w");
	assert_non_null(f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/tool", b);
	f = fopen(path, "w");
	assert_non_null(f);
	fclose(f);
	assert_int_equal(chmod(path, 0700), 0);
	assert_true(pd_proc_is_program(path));
	snprintf(path, sizeof(path), "::%s:%s:", a, b);
	setenv("PATH", path, 1);
	got = pd_proc_find("tool");
	snprintf(path, sizeof(path), "%s/tool", b);
	assert_non_null(got);
	assert_string_equal(got, path);
	free(got);
	assert_null(pd_proc_find("no-such-tool"));
	assert_true(pd_proc_has_dir("./tool") && !pd_proc_has_dir("tool"));
	if (saved)
		setenv("PATH", saved, 1);
	free(saved);
	remove(path);
	snprintf(path, sizeof(path), "%s/tool", a);
	remove(path);
	rmdir(a);
	rmdir(b);
	rmdir(dir);
}

/*
 * The caps that grow with the input: floor + ratio * n, saturating; and
 * the environment's value, a whole number from 1, else an error naming
 * the variable with the default kept.
 */
static void test_limit_scaled(void **state)
{
	struct pd_err err = PD_ERR_INIT;
	unsigned long long v;

	(void)state;
	assert_true(pd_limit_scaled(16, 32, 0) == 16);
	assert_true(pd_limit_scaled(16, 32, 1000) == 32016);
	assert_true(pd_limit_scaled(1, 2, UINT64_MAX / 2) == UINT64_MAX);
	assert_true(pd_limit_scaled(UINT64_MAX, 1, 1) == UINT64_MAX);
	unsetenv("PD_TEST_LIMIT");
	assert_int_equal(pd_limit_env("PD_TEST_LIMIT", 32, &v, &err), 0);
	assert_true(v == 32);
	setenv("PD_TEST_LIMIT", "1000", 1);
	assert_int_equal(pd_limit_env("PD_TEST_LIMIT", 32, &v, &err), 0);
	assert_true(v == 1000);
	setenv("PD_TEST_LIMIT", "0", 1);
	assert_int_equal(pd_limit_env("PD_TEST_LIMIT", 32, &v, &err),
			 PD_EUSAGE);
	assert_true(v == 32);
	assert_string_equal(err.msg,
			    "PD_TEST_LIMIT=0: not a whole number from 1");
	unsetenv("PD_TEST_LIMIT");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_buf),
		cmocka_unit_test(test_limit_scaled),
		cmocka_unit_test(test_fmt_double),
		cmocka_unit_test(test_intern),
		cmocka_unit_test(test_intern_text_nul),
		cmocka_unit_test(test_utf8),
		cmocka_unit_test(test_input_decoding),
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_missing_file),
		cmocka_unit_test(test_error_is_one_line),
		cmocka_unit_test(test_command_table_sorted),
		cmocka_unit_test(test_option_table),
		cmocka_unit_test(test_proc_find),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
