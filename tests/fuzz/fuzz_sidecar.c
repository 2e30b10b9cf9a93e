/*
 * libFuzzer target for samply's *.syms.json sidecar reader
 * (import/symbols.c): any bytes as the sidecar next to a profile must give
 * a symbol table or one error line, and lookups in whatever was read must
 * stay inside it and name only NUL-terminated strings. The sidecar lives
 * in a private folder made once.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "import/symbols/symbols.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64], profile[96], sidecar[96];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint64_t addrs[] = { 0,	  0x10,	       0x1000,
					  0x4242, 0xffffffffu, UINT64_MAX };
	static const struct pd_libinfo libs[] = {
		{ "app", "/app", "app", "/app", "", "" },
		{ "libc.so.6", "/lib/libc.so.6", "libc.so.6", "", "", "" },
		{ "x", "x", "x", "x", "00112233445566778899AABBCCDDEEFF0", "" },
	};
	static int ready;
	struct pd_symreq reqs[6];
	struct pd_err err = PD_ERR_INIT;
	struct pd_sidecar *s;
	char *found = NULL;
	size_t i, k;
	FILE *f;

	if (!ready) {
		strcpy(dir, "/tmp/pdfuzz-side.XXXXXX");
		ready = mkdtemp(dir) ? 1 : -1;
		snprintf(profile, sizeof(profile), "%s/p.json", dir);
		snprintf(sidecar, sizeof(sidecar), "%s/p.syms.json", dir);
	}
	if (ready < 0 || !(f = fopen(sidecar, "wb")))
		return 0;
	if (fwrite(data, 1, size, f) != size) {
		fclose(f);
		return 0;
	}
	fclose(f);
	s = pd_sidecar_load(profile, &found, &err);
	free(found);
	if (!s)
		return 0;
	for (k = 0; k < sizeof(libs) / sizeof(*libs); k++) {
		memset(reqs, 0, sizeof(reqs));
		for (i = 0; i < 6; i++)
			reqs[i].addr = addrs[i];
		pd_sidecar_resolve(s, &libs[k], reqs, 6);
		for (i = 0; i < 6; i++) {
			if (reqs[i].name && strlen(reqs[i].name) > size + 64)
				__builtin_trap();
			free(reqs[i].name);
			free(reqs[i].inlined);
		}
	}
	pd_sidecar_free(s);
	return 0;
}
