/*
 * The histories kept in fixtures/ are made by this code: each is at the
 * schema this binary reads, and each seed of the history fuzz target
 * opens as the read commands open it, or is refused as damaged when its
 * name says it is. A seed the version check refuses teaches the fuzzer
 * that check and nothing else (docs/reliability.md, "How the fuzzers and
 * the sanitizer passes run"); scripts/fuzz-seeds.sh makes them anew.
 */
#include "testutil.h"

#include <dirent.h>
#include <unistd.h>

#include "core/buf.h"
#include "store/db.h"

#define SEEDS "fixtures/fuzz/history"
/* what scripts/fuzz.sh lets the history target read of an input */
#define MAX_SEED 65536

static char tmp[64];

static int setup(void **state)
{
	(void)state;
	return pd_test_scratch(tmp, "/tmp/pdseedsXXXXXX");
}

static int teardown(void **state)
{
	(void)state;
	return pd_test_scratch_remove(tmp);
}

/*
 * libFuzzer names what it merged into a corpus by its SHA-1: a version
 * the fuzzer mutated is one of its inputs, not a seed made here.
 */
static int fuzzer_made(const char *name)
{
	size_t n = strspn(name, "0123456789abcdef");

	return n == 40 && !name[n];
}

/* The schema version in a SQLite file's header, or -1 when it is none. */
static int schema_of(const char *path)
{
	unsigned char h[100];
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f)
		return -1;
	n = fread(h, 1, sizeof(h), f);
	fclose(f);
	if (n < sizeof(h) || memcmp(h, "SQLite format 3", 16))
		return -1;
	/* PRAGMA user_version: four bytes at 60, most significant first */
	return (int)((unsigned)h[60] << 24 | (unsigned)h[61] << 16 |
		     (unsigned)h[62] << 8 | h[63]);
}

struct walk {
	int found, stale, latest;
};

/* Every history under rel (relative to the source tree), depth first. */
static void walk(const char *rel, struct walk *w)
{
	struct pd_buf dir = PD_BUF_INIT, path = PD_BUF_INIT, sub = PD_BUF_INIT;
	struct dirent *e;
	struct stat sb;
	DIR *d;
	int v;

	pd_buf_addf(&dir, "%s/%s", PD_SOURCE_DIR, rel);
	d = opendir(dir.buf);
	assert_non_null(d);
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		pd_buf_reset(&sub);
		pd_buf_reset(&path);
		pd_buf_addf(&sub, "%s/%s", rel, e->d_name);
		pd_buf_addf(&path, "%s/%s", PD_SOURCE_DIR, sub.buf);
		if (stat(path.buf, &sb))
			continue;
		if (S_ISDIR(sb.st_mode)) {
			walk(sub.buf, w);
			continue;
		}
		if (!S_ISREG(sb.st_mode) || fuzzer_made(e->d_name) ||
		    (v = schema_of(path.buf)) < 0)
			continue;
		w->found++;
		if (v < w->latest) {
			print_error("%s: schema %d < %d: made by an older "
				    "perfdiff; scripts/fuzz-seeds.sh makes "
				    "the seeds anew\n",
				    sub.buf, v, w->latest);
			w->stale++;
		} else if (v > w->latest) {
			print_error("%s: schema %d > %d: newer than this "
				    "perfdiff reads\n",
				    sub.buf, v, w->latest);
			w->stale++;
		}
	}
	closedir(d);
	pd_buf_release(&dir);
	pd_buf_release(&path);
	pd_buf_release(&sub);
}

static void test_histories_current(void **state)
{
	struct walk w = { 0, 0, 0 };

	(void)state;
	w.latest = pd_db_schema_latest();
	assert_true(w.latest > 0);
	walk("fixtures", &w);
	assert_true(w.found > 0);
	assert_int_equal(w.stale, 0);
}

/* src copied to dst: SQLite opens the copy, not the tree's file. */
static long copy(const char *src, const char *dst)
{
	char buf[8192];
	FILE *in = fopen(src, "rb"), *out = fopen(dst, "wb");
	long total = 0;
	size_t n;

	assert_non_null(in);
	assert_non_null(out);
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0) {
		assert_int_equal(fwrite(buf, 1, n, out), n);
		total += (long)n;
	}
	fclose(in);
	assert_int_equal(fclose(out), 0);
	return total;
}

/* One seed: 0 when it is as it should be, else -1 with a line said. */
static int seed_ok(const char *name, const char *src)
{
	struct pd_err err = PD_ERR_INIT;
	struct pd_db db;
	char dst[128];
	int damaged = !strncmp(name, "damaged-", 8), rc;
	long size;

	snprintf(dst, sizeof(dst), "%s/seed.db", tmp);
	size = copy(src, dst);
	if (size > MAX_SEED) {
		print_error("%s/%s: %ld bytes, more than the %d the fuzzer "
			    "reads of an input\n",
			    SEEDS, name, size, MAX_SEED);
		return -1;
	}
	rc = pd_db_open(&db, dst, PD_DB_READ, &err);
	if (rc == 0)
		pd_db_close(&db);
	unlink(dst);
	if (!damaged && rc < 0) {
		print_error("%s/%s: refused: %s\n", SEEDS, name, err.msg);
		return -1;
	}
	if (damaged && (rc == 0 || !strstr(err.msg, "the file is damaged"))) {
		print_error("%s/%s: damaged by name, but %s\n", SEEDS, name,
			    rc == 0 ? "read" : err.msg);
		return -1;
	}
	return 0;
}

static void test_history_seeds_open(void **state)
{
	struct pd_buf path = PD_BUF_INIT;
	struct dirent *e;
	DIR *d;
	int seeds = 0, bad = 0;

	(void)state;
	d = opendir(PD_SOURCE_DIR "/" SEEDS);
	assert_non_null(d);
	while ((e = readdir(d))) {
		pd_buf_reset(&path);
		pd_buf_addf(&path, "%s/%s/%s", PD_SOURCE_DIR, SEEDS, e->d_name);
		if (e->d_name[0] == '.' || fuzzer_made(e->d_name) ||
		    schema_of(path.buf) < 0)
			continue;
		seeds++;
		if (seed_ok(e->d_name, path.buf) < 0)
			bad++;
	}
	closedir(d);
	pd_buf_release(&path);
	assert_true(seeds > 0);
	assert_int_equal(bad, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_histories_current),
		cmocka_unit_test(test_history_seeds_open),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
