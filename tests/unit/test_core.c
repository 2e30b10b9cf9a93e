/* Unit tests for core/: buffers, interning, UTF-8, decoded input. */
#include "testutil.h"

#include <unistd.h>
#include <zlib.h>

#include "cmd/cmd.h"
#include "core/buf.h"
#include "core/input.h"
#include "core/intern.h"
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_buf),
		cmocka_unit_test(test_intern),
		cmocka_unit_test(test_utf8),
		cmocka_unit_test(test_input_decoding),
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_missing_file),
		cmocka_unit_test(test_error_is_one_line),
		cmocka_unit_test(test_command_table_sorted),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
