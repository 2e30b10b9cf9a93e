/*
 * Offline symbolication of native frames given as (library, relative
 * address): from a samply *.syms.json sidecar, from ELF files found under
 * --symbols folders (libelf), or through llvm-symbolizer for other object
 * formats. A pd_symlib owns what it loads.
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
	uint64_t addr;	 /* library-relative */
	char *name;	 /* result, NULL while unresolved (owned) */
	const char *how; /* "sidecar", "elf", "llvm-symbolizer" */
};

struct pd_sidecar; /* a parsed *.syms.json */

/* Loads the sidecar that samply writes next to profile_path, if any. */
struct pd_sidecar *pd_sidecar_load(const char *profile_path, char **found,
				   struct pd_err *err);
void pd_sidecar_free(struct pd_sidecar *s);
/* Resolves what it can of reqs for lib; returns how many it resolved. */
size_t pd_sidecar_resolve(const struct pd_sidecar *s,
			  const struct pd_libinfo *lib, struct pd_symreq *reqs,
			  size_t n);
/*
 * Searches dirs (NULL-terminated) for lib's binary and resolves reqs from
 * its symbols; *file gets the path used (owned) or NULL. Notes about
 * mismatched files go to notes.
 */
size_t pd_symbols_from_dirs(const char *const *dirs,
			    const struct pd_libinfo *lib,
			    struct pd_symreq *reqs, size_t n, char **file,
			    struct pd_buf *notes);
/*
 * Resolves reqs from path with one llvm-symbolizer run (addresses relative
 * to the image base); returns how many it named, 0 without llvm-symbolizer.
 */
size_t pd_symbols_llvm(const char *path, struct pd_symreq *reqs, size_t n);
/* Normalises a debug id (breakpad or UUID form) to 33 upper-hex digits. */
void pd_debugid_norm(const char *in, char out[34]);

#endif
