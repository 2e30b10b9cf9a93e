/* Unit tests for report/: formatting, escaping and the Markdown budget. */
#include "testutil.h"

#include <cJSON.h>

#include "report/jsonw.h"
#include "report/report.h"
#include "stats/diff.h"

static void test_format_helpers(void **state)
{
	struct pd_buf b = PD_BUF_INIT;

	(void)state;
	pd_fmt_weight(&b, 1234567, PD_UNIT_NS);
	assert_string_equal(b.buf, "1.235"); /* ms */
	pd_buf_reset(&b);
	pd_fmt_weight(&b, 42, PD_UNIT_SAMPLES);
	assert_string_equal(b.buf, "42");
	pd_buf_reset(&b);
	pd_fmt_pct(&b, 23.44);
	assert_string_equal(b.buf, "+23.4 %");
	pd_buf_reset(&b);
	pd_fmt_pct(&b, PD_NAN);
	assert_string_equal(b.buf, "n/a");
	pd_buf_reset(&b);
	pd_fmt_p(&b, 0.00001234);
	assert_string_equal(b.buf, "1e-05");
	pd_buf_release(&b);
}

/* n functions; function i named names[i % nn]; candidate doubles every 3rd. */
static void profiles(struct pd_profile *a, struct pd_profile *b, size_t n,
		     const char *const *names, size_t nn)
{
	char name[256];
	size_t i;
	int s;

	for (s = 0; s < 2; s++) {
		struct pd_profile *p = s ? b : a;

		pd_profile_init(p);
		p->unit = PD_UNIT_SAMPLES;
		p->format = "folded";
		p->source = strdup(s ? "cand|`x`" : "base<b>");
		for (i = 0; i < n; i++) {
			uint32_t f;
			double w = s && i % 3 == 0 ? 2000 : 1000;

			snprintf(name, sizeof(name), "%s%zu", names[i % nn], i);
			f = pd_profile_frame(p, pd_intern_cstr(&p->strs, name),
					     0);
			pd_profile_add(p, pd_profile_child(p, PD_ROOT, f), w,
				       w);
		}
		pd_profile_finish(p);
	}
}

static char *render_md(struct pd_diff *d)
{
	struct pd_report_opts o = { 20, 0, 0, PD_SORT_IMPACT };
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	assert_int_equal(pd_report_md(f, d, &o), 0);
	fclose(f);
	return text;
}

static void test_markdown(void **state)
{
	static const char *const evil[] = { "a|b", "`tick`", "<script>",
					    "=HYPERLINK(", "*bold*_" };
	struct pd_profile a, b;
	struct pd_settings set;
	struct pd_funcs fn;
	struct pd_diff d;
	char *md;

	(void)state;
	profiles(&a, &b, 10, evil, 5);
	pd_settings_default(&set);
	pd_funcs_init(&fn, 0);
	pd_diff_compute(&d, &a, &b, &fn, &set);
	md = render_md(&d);
	assert_non_null(strstr(md, "**perfdiff: regressed** — <code>"));
	assert_non_null(strstr(md, "(self), total +"));
	assert_non_null(strstr(md, "; 4 functions regressed"));
	assert_null(strstr(md, "<script>"));
	assert_null(strstr(md, "a|b"));
	assert_null(strstr(md, "`tick`"));
	assert_non_null(strstr(md, "a&#124;b"));
	assert_non_null(strstr(md, "&#60;script&#62;"));
	assert_non_null(strstr(md, "base&#60;b&#62;")); /* sources too */
	free(md);
	pd_diff_release(&d);
	pd_funcs_release(&fn);
	pd_profile_release(&a);
	pd_profile_release(&b);

	/* 30 000 functions: still under 60 000 characters. */
	{
		static const char *const plain[] = {
			"some::rather::long::namespace::function_name_"
		};

		profiles(&a, &b, 30000, plain, 1);
		set.min_impact_pct = 0;
		pd_funcs_init(&fn, 0);
		pd_diff_compute(&d, &a, &b, &fn, &set);
		md = render_md(&d);
		assert_true(strlen(md) < 60000);
		assert_non_null(strstr(md, "more rows left out"));
		assert_non_null(strstr(md, "Settings and provenance"));
		free(md);
		pd_diff_release(&d);
		pd_funcs_release(&fn);
		pd_profile_release(&a);
		pd_profile_release(&b);
	}
}

/* What was written to the temporary file f, as a string to free; f closed. */
static char *file_text(FILE *f)
{
	size_t n = (size_t)ftell(f);
	char *got = calloc(1, n + 1);

	assert_non_null(got);
	rewind(f);
	assert_int_equal(fread(got, 1, n, f), n);
	fclose(f);
	return got;
}

/* What pd_json_write writes for root, as a string to free. */
static char *json_written(const cJSON *root)
{
	FILE *f = tmpfile();

	assert_non_null(f);
	assert_int_equal(pd_json_write(f, root), 0);
	return file_text(f);
}

/*
 * pd_json_write lays out what cJSON_Print lays out, byte for byte, where
 * both print a number alike; numbers are the shortest that read back.
 */
static void test_json_write(void **state)
{
	const double nums[] = { 0,
				-0.0,
				1,
				-7,
				2147483647,
				2147483648.0,
				-2147483649.0,
				0.1,
				0.25,
				6.02214076e23,
				1e-300,
				123456789012345678.0 };
	cJSON *root = cJSON_CreateObject(), *arr = cJSON_CreateArray();
	cJSON *objs = cJSON_CreateArray(), *o;
	char *want, *got;
	size_t i, n;

	(void)state;
	for (i = 0; i < sizeof(nums) / sizeof(nums[0]); i++)
		cJSON_AddItemToArray(arr, cJSON_CreateNumber(nums[i]));
	cJSON_AddItemToObject(root, "numbers", arr);
	cJSON_AddItemToObject(root, "escapes",
			      cJSON_CreateString("q\"b\\s/\b\f\n\r\t\001\x7f"
						 "\xc3\xa9\xff"));
	cJSON_AddItemToObject(root, "empty object", cJSON_CreateObject());
	cJSON_AddItemToObject(root, "empty array", cJSON_CreateArray());
	cJSON_AddItemToObject(root, "", cJSON_CreateString(""));
	cJSON_AddNullToObject(root, "null");
	cJSON_AddTrueToObject(root, "yes");
	cJSON_AddFalseToObject(root, "no");
	o = cJSON_CreateObject();
	cJSON_AddItemToObject(o, "inner", cJSON_CreateObject());
	cJSON_AddItemToArray(objs, o);
	cJSON_AddItemToArray(objs, cJSON_CreateObject());
	cJSON_AddItemToObject(root, "objects", objs);
	want = cJSON_Print(root);
	got = json_written(root);
	n = strlen(got);
	assert_int_equal(n, strlen(want) + 1);
	assert_memory_equal(got, want, strlen(want));
	assert_int_equal(got[n - 1], '\n');
	free(got);
	cJSON_free(want);
	cJSON_Delete(root);

	/* where cJSON gives 17 digits and 16 read back, or 15 digits that
	 * do not read back exactly */
	root = cJSON_CreateArray();
	cJSON_AddItemToArray(root, cJSON_CreateNumber(1.0 / 3));
	cJSON_AddItemToArray(root, cJSON_CreateNumber(0.1 + 0.7));
	got = json_written(root);
	assert_string_equal(got, "[0.3333333333333333, 0.7999999999999999]\n");
	free(got);
	cJSON_Delete(root);
}

static void rows_row(struct pd_jw *w, size_t i, void *ctx)
{
	(void)ctx;
	pd_jw_open(w, '{');
	pd_jw_key(w, "i");
	pd_jw_num(w, (double)i + 0.5);
	pd_jw_key(w, "name");
	pd_jw_text(w, i % 3 ? "f" : "g\"\n");
	pd_jw_key(w, "list");
	pd_jw_open(w, '[');
	pd_jw_item(w);
	pd_jw_num(w, (double)i);
	pd_jw_item(w);
	pd_jw_null(w);
	pd_jw_close(w);
	pd_jw_key(w, "empty");
	pd_jw_open(w, '{');
	pd_jw_close(w);
	pd_jw_close(w);
}

static void rows_gen(struct pd_jw *w, void *ctx)
{
	pd_jw_rows(w, *(const size_t *)ctx, rows_row, NULL);
}

/*
 * pd_jw_rows writes what cJSON_Print writes for the same array, whether
 * the array is written on one thread or its second half on another.
 */
static void test_json_rows(void **state)
{
	static const size_t sizes[] = { 0, 1, 2, 4095, 4096, 4097, 30001 };
	size_t s, i;

	(void)state;
	for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		cJSON *root = cJSON_CreateObject(), *arr = cJSON_CreateArray();
		cJSON *ph = cJSON_CreateNull();
		size_t count = sizes[s];
		struct pd_jw_gen gen = { ph, rows_gen, &count };
		char *want, *got;
		FILE *f = tmpfile();
		size_t n;

		for (i = 0; i < sizes[s]; i++) {
			cJSON *o = cJSON_CreateObject(),
			      *l = cJSON_CreateArray();

			cJSON_AddNumberToObject(o, "i", (double)i + 0.5);
			cJSON_AddStringToObject(o, "name",
						i % 3 ? "f" : "g\"\n");
			cJSON_AddItemToArray(l, cJSON_CreateNumber((double)i));
			cJSON_AddItemToArray(l, cJSON_CreateNull());
			cJSON_AddItemToObject(o, "list", l);
			cJSON_AddItemToObject(o, "empty", cJSON_CreateObject());
			cJSON_AddItemToArray(arr, o);
		}
		cJSON_AddItemToObject(root, "rows", arr);
		cJSON_AddTrueToObject(root, "after");
		want = cJSON_Print(root);
		cJSON_DeleteItemFromObject(root, "rows");
		cJSON_DeleteItemFromObject(root, "after");
		cJSON_AddItemToObject(root, "rows", ph);
		cJSON_AddTrueToObject(root, "after");
		assert_non_null(f);
		assert_int_equal(pd_jw_tree(f, root, &gen, 1), 0);
		got = file_text(f);
		n = strlen(got);
		assert_int_equal(n, strlen(want) + 1);
		assert_memory_equal(got, want, strlen(want));
		free(got);
		cJSON_free(want);
		cJSON_Delete(root);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format_helpers),
		cmocka_unit_test(test_json_write),
		cmocka_unit_test(test_json_rows),
		cmocka_unit_test(test_markdown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
