/*
 * Offline symbolication of native frames given as (library, relative
 * address): samply's *.syms.json sidecar and ELF symbol tables here;
 * finding the right build's files is symfind.h, running a symbolizer
 * symbolizer.h (docs/symbols.md).
 */
#ifndef PD_SYMBOLS_H
#define PD_SYMBOLS_H

#include <stdint.h>

#include "core/buf.h"
#include "core/err.h"
#include "core/vec.h"

struct pd_libinfo {
	const char *name, *path, *debug_name, *debug_path, *breakpad_id,
	    *code_id;
};

struct pd_symreq {
	uint64_t addr; /* library-relative */
	char *name;    /* result, NULL while unresolved (owned) */
	/*
	 * Functions inlined at addr, outermost first, '\n'-separated, or
	 * NULL (owned); name is the function they were inlined into.
	 */
	char *inlined;
	const char *how; /* "sidecar", "elf", "llvm-symbolizer", "atos" */
};

struct pd_sidecar; /* a parsed *.syms.json */

/* Loads the sidecar that samply writes next to profile_path, if any. */
PD_NODISCARD struct pd_sidecar *
pd_sidecar_load(const char *profile_path, char **found, struct pd_err *err);
void pd_sidecar_free(struct pd_sidecar *s);
/* Resolves what it can of reqs for lib; returns how many it resolved. */
size_t pd_sidecar_resolve(const struct pd_sidecar *s,
			  const struct pd_libinfo *lib, struct pd_symreq *reqs,
			  size_t n);
/*
 * Resolves reqs from an ELF file's .symtab and .dynsym (elf.c); the caller
 * has read the file's identity (objid.h): its build id checked, base its
 * image base, where the relative addresses start. Returns how many it
 * named.
 */
size_t pd_symbols_elf(const char *path, uint64_t base, struct pd_symreq *reqs,
		      size_t n);
/*
 * Normalises a debug id (breakpad or UUID form, dashes or not) to 32
 * upper-hex digits and the age in hex without leading zeros ("0" when
 * absent); "" when it is not 32 digits and an age of at most 8.
 */
void pd_debugid_norm(const char *in, char out[42]);

#endif
