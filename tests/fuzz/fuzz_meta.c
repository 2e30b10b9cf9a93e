/*
 * libFuzzer target for build_meta.json and the bundle reader
 * (import/bundle.c): any bytes as the metadata of a bundle must give a
 * bundle or one error line, never a read outside the buffer or a leak.
 * The bytes also go to the comparison-metadata reader and the cache-state
 * parser on their own. The bundle lives in a private folder made once.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/err.h"
#include "import/bundle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64], meta[96];

static int setup(void)
{
	char profiles[96], run[128];
	FILE *f;

	strcpy(dir, "/tmp/pdfuzz-meta.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(profiles, sizeof(profiles), "%s/profiles", dir);
	snprintf(meta, sizeof(meta), "%s/build_meta.json", dir);
	snprintf(run, sizeof(run), "%s/run.1.folded", profiles);
	if (mkdir(profiles, 0700) < 0 || !(f = fopen(run, "w")))
		return -1;
	fputs("main;work 10\n", f);
	return fclose(f) ? -1 : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	struct pd_bundle b;
	struct pd_bundle_key key;
	struct pd_meta m;
	struct pd_err err = PD_ERR_INIT;
	char *text;
	FILE *f;

	if (!ready)
		ready = setup() == 0 ? 1 : -1;
	if (ready < 0)
		return 0;
	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	memset(&m, 0, sizeof(m));
	pd_meta_from_json(&m, text);
	pd_meta_release(&m);
	pd_cache_state(text, size);
	free(text);

	f = fopen(meta, "wb");
	if (!f)
		return 0;
	if (fwrite(data, 1, size, f) != size) {
		fclose(f);
		return 0;
	}
	fclose(f);
	memset(&key, 0, sizeof(key));
	memset(&b, 0, sizeof(b));
	/* released whether the read succeeded or not (bundle.h) */
	(void)pd_bundle_read(&b, dir, &key, &err);
	pd_bundle_release(&b);
	return 0;
}
