/*
 * Identity of a binary or symbol file, read from its headers: which build
 * it is, so that symbols are taken only from the build a profile ran
 * (docs/symbols.md, "Identity"). Small bounded readers of our own for ELF
 * (GNU build id), PE (CodeView GUID + age, TimeDateStamp + SizeOfImage),
 * PDB (MSF info and DBI streams) and Mach-O (LC_UUID, thin or fat). They
 * read at most a few pages and never trust a size they have not checked
 * against the file.
 */
#ifndef PD_OBJID_H
#define PD_OBJID_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/compat.h"

enum pd_obj_kind {
	PD_OBJ_NONE,
	PD_OBJ_ELF,
	PD_OBJ_PE,
	PD_OBJ_PDB,
	PD_OBJ_MACHO,
};

#define PD_OBJ_MAX_SLICES 8
#define PD_OBJ_MAX_LOADS 16

/* An ELF PT_LOAD segment: where file bytes sit in the address space. */
struct pd_objload {
	uint64_t off, vaddr, filesz;
};

struct pd_objslice {
	char uuid[33];	      /* 32 upper-hex digits, "" when none */
	uint64_t text_vmaddr; /* the __TEXT segment's address */
	uint32_t cputype;
};

struct pd_objid {
	enum pd_obj_kind kind;
	/*
	 * Breakpad form, 33+ upper-hex digits (GUID then age): PE from its
	 * CodeView record, PDB from its info stream GUID and DBI age, ELF
	 * from the build id's first 16 bytes, Mach-O from the first slice.
	 * "" when the file carries none.
	 */
	char debug_id[42];
	/* PE: TIMESTAMP (8 upper-hex) SIZEOFIMAGE (hex); ELF: build id. */
	char code_id[130];
	char pdb_name[256];  /* PE: basename of the PDB its record names */
	uint64_t image_base; /* PE ImageBase, ELF lowest PT_LOAD vaddr */
	struct pd_objslice slice[PD_OBJ_MAX_SLICES]; /* Mach-O */
	size_t nslices;
	struct pd_objload load[PD_OBJ_MAX_LOADS]; /* ELF, the first ones */
	size_t nloads;
};

/* Reads n bytes at off into buf: 0 when all were read, -1 otherwise. */
typedef int (*pd_objread_fn)(void *ctx, uint64_t off, void *buf, size_t n);

struct pd_objsrc {
	pd_objread_fn read;
	void *ctx;
	uint64_t size;
};

/* Fills id from src; returns id->kind (PD_OBJ_NONE: not one we know). */
enum pd_obj_kind pd_objid_read(const struct pd_objsrc *src,
			       struct pd_objid *id);
/* The same for a file: -1 when it cannot be opened as a regular file. */
PD_NODISCARD int pd_objid_file(const char *path, struct pd_objid *id);
/* The same for bytes in memory (fuzzing, tests). */
enum pd_obj_kind pd_objid_mem(const void *data, size_t n, struct pd_objid *id);

/*
 * Whether id is the build a profile's library names: want_debug is its
 * debug id (breakpadId), want_code its code id (codeId); either may be
 * NULL or "". 1 match, 0 another build, -1 nothing to compare. On a match
 * *base gets the address the library's relative addresses start from
 * (PE ImageBase, Mach-O __TEXT vmaddr of the matching slice).
 */
int pd_objid_match(const struct pd_objid *id, const char *want_debug,
		   const char *want_code, uint64_t *base);
/*
 * ELF: the address a file offset is loaded at (the PT_LOAD segment that
 * holds it); 0 when one does, -1 when none.
 */
PD_NODISCARD int pd_objid_elf_vaddr(const struct pd_objid *id, uint64_t off,
				    uint64_t *vaddr);
/* "PE", "PDB", "Mach-O", "ELF" or "unknown". */
const char *pd_objid_kind_name(enum pd_obj_kind k);
/* The ids a note shows for id: "debug id X, code id Y". */
void pd_objid_describe(const struct pd_objid *id, struct pd_buf *b);

#endif
