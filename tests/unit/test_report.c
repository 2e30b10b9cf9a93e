/* Unit tests for report/: formatting, escaping and the Markdown budget. */
#include "testutil.h"

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
	struct pd_report_opts o = { 20, 0, 0 };
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
	assert_non_null(strstr(md, "**perfdiff: regressed** — 4 functions"));
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format_helpers),
		cmocka_unit_test(test_markdown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
