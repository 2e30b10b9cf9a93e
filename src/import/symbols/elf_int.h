/*
 * ELF symbol tables' helpers: a bounded reader of an ELF file's bytes,
 * shared by the symbol reader of our own (elf.c) and the PLT stubs named
 * as perf names them (elf_plt.c).
 */
#ifndef PD_ELF_INT_H
#define PD_ELF_INT_H

#include <stddef.h>
#include <stdint.h>

/* An open ELF file: its size, word size and byte order. */
struct pd_elf_rd {
	int fd, is64, le;
	uint64_t size;
};

/* The n-byte (1..8) integer at p in the file's byte order. */
uint64_t pd_elf_get(const struct pd_elf_rd *f, const unsigned char *p, int n);
/*
 * n bytes at off (owned, a NUL after them), or NULL when they are not all
 * in the file or are more than one symbol table may be.
 */
unsigned char *pd_elf_bytes(const struct pd_elf_rd *f, uint64_t off,
			    uint64_t n);

/* One section header, as both readers take it. */
struct pd_elf_sect {
	uint32_t name, type, link;
	uint64_t flags, addr, off, size, entsize;
};

/*
 * The section header at p (64 bytes of an ELF64 file, 40 of an ELF32
 * one, all in memory).
 */
void pd_elf_sect_at(const struct pd_elf_rd *f, const unsigned char *p,
		    struct pd_elf_sect *s);

struct pd_pltsym {
	uint64_t start, size;
	char *name; /* "memcpy@plt" (owned) */
};

/*
 * The PLT stubs of the ELF file open at fd: stub i of .plt.sec (or .plt
 * after its header) is named after the symbol of the i-th .rela.plt
 * relocation. An owned array of *n, NULL when the file has none or a
 * layout this reader does not know.
 */
struct pd_pltsym *pd_elf_plt(int fd, size_t *n);
void pd_elf_plt_free(struct pd_pltsym *v, size_t n);

#endif
