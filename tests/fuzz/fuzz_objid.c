/*
 * libFuzzer target for the symbol-file header readers (import/objid.c):
 * any bytes as an ELF, PE, PDB or Mach-O header must give a kind and ids
 * or nothing, never a read outside the buffer, and ids that are always
 * NUL-terminated hex. ELF files also go through the symbol-table reader
 * (import/elf.c; scripts/fuzz.sh builds without libelf, so it is ours).
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "import/symbols/objid.h"
#include "import/symbols/symbols.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pd_objid id;
	struct pd_buf b = PD_BUF_INIT;
	char norm[42], *text;
	uint64_t base;

	pd_objid_mem(data, size, &id);
	if (memchr(id.debug_id, '\0', sizeof(id.debug_id)) == NULL ||
	    memchr(id.code_id, '\0', sizeof(id.code_id)) == NULL ||
	    memchr(id.pdb_name, '\0', sizeof(id.pdb_name)) == NULL ||
	    id.nslices > PD_OBJ_MAX_SLICES)
		__builtin_trap();
	pd_objid_match(&id, id.debug_id, id.code_id, &base);
	if (id.kind == PD_OBJ_ELF) {
		struct pd_symreq reqs[3];
		char path[64];
		int fd = memfd_create("pdfuzz", 0);
		size_t i;

		memset(reqs, 0, sizeof(reqs));
		reqs[0].addr = 0x1000;
		reqs[1].addr = 0x10;
		reqs[2].addr = UINT64_MAX - 8;
		if (fd >= 0 && write(fd, data, size) == (ssize_t)size) {
			snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
			pd_symbols_elf(path, id.image_base, reqs, 3);
		}
		for (i = 0; i < 3; i++)
			free(reqs[i].name);
		if (fd >= 0)
			close(fd);
	}
	pd_objid_match(&id, "00112233445566778899AABBCCDDEEFF1", NULL, &base);
	pd_objid_describe(&id, &b);
	pd_buf_release(&b);
	/* The same bytes as a debug id string. */
	text = malloc(size + 1);
	if (text) {
		memcpy(text, data, size);
		text[size] = '\0';
		pd_debugid_norm(text, norm);
		if (strlen(norm) > 40)
			__builtin_trap();
		free(text);
	}
	return 0;
}
