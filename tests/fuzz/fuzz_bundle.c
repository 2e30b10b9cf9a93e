/*
 * libFuzzer target for a whole bundle (import/bundle.c, store/ingest*.c):
 * where fuzz_meta varies build_meta.json alone, here the input also names
 * the folder and the files under profiles/ (runbook names with a date,
 * sha, scenario and cache tokens; notes and argument lists that are
 * passed over) and gives their contents. The folder is read as a bundle,
 * then ingested into a history in memory: a bundle, a stored run or one
 * error line, never a read outside a buffer or a leak.
 *
 * The input is cut at NUL bytes: folder name, first file's name, its
 * bytes, second file's name, its bytes, build_meta.json (absent when the
 * input has fewer parts). A '/' in a name becomes '_', and so does a line
 * break: messages name the folder, and their one line would be the
 * name's, not the reader's.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/err.h"
#include "import/bundle.h"
#include "store/store.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NPARTS 6
#define MAX_NAME 200

static char root[64];
static struct pd_db db;
static int db_open, db_uses;

static void one_line(const struct pd_err *err)
{
	if (!err->msg[0] || strchr(err->msg, '\n'))
		__builtin_trap(); /* errors are one line, never empty */
}

/* The folder goes when the fuzzer ends (not after a crash). */
static void cleanup(void)
{
	rmdir(root);
}

/* A part as a file or folder name: no '/' or '\n', not empty, . or .. */
static int name_of(const uint8_t *p, size_t n, char *out)
{
	size_t i;

	if (n == 0 || n > MAX_NAME)
		return -1;
	for (i = 0; i < n; i++)
		out[i] = p[i] == '/' || p[i] == '\n' ? '_' : (char)p[i];
	out[n] = '\0';
	return strcmp(out, ".") && strcmp(out, "..") ? 0 : -1;
}

static void put(const char *path, const uint8_t *p, size_t n)
{
	FILE *f = fopen(path, "wb");

	if (!f)
		return;
	if (n)
		(void)!fwrite(p, 1, n, f);
	fclose(f);
}

/* The history the bundles go into, made anew now and then. */
static struct pd_db *history(void)
{
	struct pd_err err = PD_ERR_INIT;

	if (db_open && ++db_uses > 500) {
		pd_db_close(&db);
		db_open = 0;
	}
	if (!db_open) {
		if (pd_db_open(&db, ":memory:", PD_DB_WRITE, &err) < 0)
			return NULL;
		db_open = 1;
		db_uses = 0;
	}
	return &db;
}

static void read_and_ingest(const char *dir)
{
	static const struct pd_bundle_key fallback = {
		"0123456789abcdef0123456789abcdef01234567", "s", NULL, NULL
	};
	struct pd_bundle_key none;
	struct pd_bundle b;
	struct pd_ingest_result res;
	struct pd_err err = PD_ERR_INIT;
	struct pd_db *h;
	size_t i;

	/* the key from the bundle alone, as ingest without options reads it */
	memset(&none, 0, sizeof(none));
	if (pd_bundle_read(&b, dir, &none, &err) < 0)
		one_line(&err);
	pd_bundle_release(&b);

	/* with a fallback key, so that most inputs reach the history */
	h = history();
	if (!h)
		return;
	memset(&res, 0, sizeof(res));
	err = (struct pd_err)PD_ERR_INIT;
	if (pd_store_ingest(h, dir, &fallback, 0, NULL, &res, &err) < 0)
		one_line(&err);
	for (i = 0; i < res.notes.n; i++)
		if (strchr(res.notes.v[i], '\n'))
			__builtin_trap();
	pd_ingest_result_release(&res);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *part[NPARTS], *p = data, *end = data + size, *z;
	size_t len[NPARTS];
	char folder[MAX_NAME + 1], name[MAX_NAME + 1], dir[320], profiles[340],
	    file[2][560], meta[340];
	int n = 0, i, made[2] = { 0, 0 };

	if (!*root) {
		/* in memory where the system has a tmpfs */
		strcpy(root, "/dev/shm/pdfuzz-bundle.XXXXXX");
		if (!mkdtemp(root)) {
			strcpy(root, "/tmp/pdfuzz-bundle.XXXXXX");
			if (!mkdtemp(root)) {
				root[0] = '\0';
				return 0;
			}
		}
		atexit(cleanup);
	}
	while (n < NPARTS && p <= end) {
		z = p < end ? memchr(p, '\0', (size_t)(end - p)) : NULL;
		part[n] = p;
		len[n] = z ? (size_t)(z - p) : (size_t)(end - p);
		n++;
		if (!z)
			break;
		p = z + 1;
	}
	if (name_of(part[0], len[0], folder) < 0)
		return 0;
	snprintf(dir, sizeof(dir), "%s/%s", root, folder);
	snprintf(profiles, sizeof(profiles), "%s/profiles", dir);
	snprintf(meta, sizeof(meta), "%s/build_meta.json", dir);
	if (mkdir(dir, 0700) < 0 || mkdir(profiles, 0700) < 0) {
		rmdir(dir);
		return 0;
	}
	for (i = 0; i < 2; i++) {
		int k = 1 + 2 * i;

		if (k >= n || name_of(part[k], len[k], name) < 0)
			continue;
		snprintf(file[i], sizeof(file[i]), "%s/%s", profiles, name);
		put(file[i], part[k + 1 < n ? k + 1 : k],
		    k + 1 < n ? len[k + 1] : 0);
		made[i] = 1;
	}
	if (n > 5)
		put(meta, part[5], len[5]);

	read_and_ingest(dir);

	for (i = 0; i < 2; i++)
		if (made[i])
			unlink(file[i]);
	unlink(meta);
	rmdir(profiles);
	rmdir(dir);
	return 0;
}
