/*
 * Finding the files of the build a profile ran, by identity, under a
 * symbol path (docs/symbols.md): folders laid out as built (dist/, .app
 * bundles, .dSYM bundles), SymStore trees (one- and two-tier), ELF
 * .build-id trees, and the srv*DIR*URL / cache*DIR syntax of Windows
 * symbol paths, local directories only. A file is used only when its
 * header ids equal the library's; otherwise the library stays
 * unresolved and one line says why.
 */
#ifndef PD_SYMFIND_H
#define PD_SYMFIND_H

#include <stddef.h>

#include "core/buf.h"
#include "import/symbols/symbols.h"

struct pd_symctx;

/*
 * paths: the --symbols values (NULL-terminated, or NULL), each a folder or
 * a symbol path ("DIR;srv*DIR*URL;cache*DIR"); with none,
 * PERFDIFF_SYMBOL_PATH. symbolizer: --symbolizer, or NULL to search.
 * profile: the profile's path; when it is one of a bundle's profiles,
 * the bundle's dist/ is looked in after the others. Returns NULL when
 * there is no folder to look in.
 */
struct pd_symctx *pd_symctx_new(const char *const *paths,
				const char *symbolizer, const char *profile);
void pd_symctx_free(struct pd_symctx *c);
/* Lines about the path itself ('\n'-separated, "" when none). */
const char *pd_symctx_notes(const struct pd_symctx *c);
/*
 * Names what it can of reqs for lib from verified files; why gets one
 * line: the file used, or why none was.
 */
size_t pd_symctx_resolve(struct pd_symctx *c, const struct pd_libinfo *lib,
			 struct pd_symreq *reqs, size_t n, struct pd_buf *why);

#endif
