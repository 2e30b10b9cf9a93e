/*
 * Running an external symbolizer over one library's addresses in one batch
 * (docs/symbols.md, "Symbolizers"): llvm-symbolizer anywhere, atos on
 * macOS for Mach-O. The symbolizer sees only files whose identity the
 * caller has checked: they are linked into a private directory, so that a
 * PDB or dSYM lying next to the original, or named by a path inside the
 * binary, is never read instead.
 */
#ifndef PD_SYMBOLIZER_H
#define PD_SYMBOLIZER_H

#include <stdint.h>

#include "import/symbols/symbols.h"

enum pd_symtool_kind { PD_SYMTOOL_LLVM, PD_SYMTOOL_ATOS };

struct pd_symtool {
	char *path; /* NULL: none found */
	enum pd_symtool_kind kind;
};

/*
 * Finds a symbolizer: `forced` when given (--symbolizer), else
 * llvm-symbolizer on PATH, in Homebrew's keg-only llvm, or a versioned
 * llvm-symbolizer-N on PATH; on macOS atos last. tool->path NULL when
 * none; the caller frees tool->path.
 */
void pd_symtool_find(const char *forced, struct pd_symtool *tool);

struct pd_symjob {
	const char *obj;    /* the verified binary or debug file */
	const char *beside; /* a verified file to place next to it, or NULL */
	const char *beside_as; /* the name it must have there (the PDB name) */
	uint64_t base;	       /* added to each library-relative address */
	const char *arch; /* "arm64", "x86_64", ... for fat files, or NULL */
};

/* Names what it can of reqs (those still unnamed); returns how many. */
size_t pd_symtool_run(const struct pd_symtool *tool,
		      const struct pd_symjob *job, struct pd_symreq *reqs,
		      size_t n);

/*
 * One line of symbolizer output reduced to a function name: llvm's function
 * line as is, atos's "name (in lib) (file:line)" to "name". NULL for an
 * unknown address ("??", or atos echoing the address).
 */
char *pd_symtool_name(enum pd_symtool_kind kind, const char *line);

#endif
