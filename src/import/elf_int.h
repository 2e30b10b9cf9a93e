/*
 * ELF symbol tables' helpers (elf.c): PLT stubs named as perf names them
 * (elf_plt.c).
 */
#ifndef PD_ELF_INT_H
#define PD_ELF_INT_H

#include <stddef.h>
#include <stdint.h>

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
