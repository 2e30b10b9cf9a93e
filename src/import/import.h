/*
 * Importers: turn a file into a pd_profile. The format is sniffed from the
 * content unless forced (the format table, import.c; each format's entry
 * points are in formats.h). On error the profile is left for the caller to
 * release and err names the file and the place (line, byte or JSON path).
 */
#ifndef PD_IMPORT_H
#define PD_IMPORT_H

#include "core/err.h"
#include "core/input.h"
#include "import/reader.h"
#include "model/profile.h"

struct pd_format {
	const char *name;
	const char *description;
	/* Returns nonzero when the decoded head looks like this format. */
	int (*sniff)(const char *head, size_t len);
	int (*import)(struct pd_input *in, struct pd_profile *p,
		      const struct pd_import_opts *o, struct pd_err *err);
};

PD_NODISCARD int pd_import(struct pd_profile *p, const char *path,
			   const struct pd_import_opts *o, struct pd_err *err);
const struct pd_format *pd_format_find(const char *name);
/* The i-th format's name (as --from takes it), NULL past the last. */
const char *pd_format_name(size_t i);
/* The i-th other name --from takes for a format, NULL past the last. */
const char *pd_format_alias(size_t i);
/* The format of path's content, or NULL with err saying why not. */
PD_NODISCARD const struct pd_format *
pd_import_sniff(const char *path, const struct pd_import_opts *o,
		struct pd_err *err);
/*
 * What every profile of the format named is, so that a stored run, which
 * keeps its format's name, is judged as its file is: PD_FORMAT_EXACT,
 * exact counts, not samples (dhat, callgrind, cachegrind);
 * PD_FORMAT_SELF_ONLY, self weights only (cachegrind). What depends on
 * the file (a WPA memory table, Instruments Allocations, a flat WPA
 * table) is not said; a name that is no format gives 0.
 */
enum { PD_FORMAT_EXACT = 1, PD_FORMAT_SELF_ONLY = 2 };
unsigned pd_format_traits(const char *name);

#endif
