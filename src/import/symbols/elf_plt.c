/*
 * PLT stubs named as perf names them (docs/symbols.md, "Addresses"): a
 * call into a shared library goes through a stub in the caller's .plt
 * (or .plt.sec, with indirect branch tracking), which no symbol table
 * covers. perf names stub i after the symbol of the i-th PLT relocation,
 * "memcpy@plt"; so does perfdiff, so that samples in a stub land on the
 * same frame whichever way the profile was read. x86-64, i386 and
 * AArch64 layouts; other machines get no stubs.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/buf.h"
#include "core/file.h"
#include "core/limits.h"
#include "core/xalloc.h"
#include "import/symbols/elf_int.h"

#define EM_386_ 3
#define EM_X86_64_ 62
#define EM_AARCH64_ 183
#define MAX_TABLE ((uint64_t)PD_LIMIT_SYMBOL_TABLE)

uint64_t pd_elf_get(const struct pd_elf_rd *f, const unsigned char *p, int n)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < n; i++)
		v |= (uint64_t)p[f->le ? i : n - 1 - i] << (8 * i);
	return v;
}

unsigned char *pd_elf_bytes(const struct pd_elf_rd *f, uint64_t off, uint64_t n)
{
	unsigned char *b;

	if (off > f->size || n > f->size - off || n > MAX_TABLE)
		return NULL;
	b = pd_xmalloc((size_t)n + 1);
	if (pd_pread_full(f->fd, b, (size_t)n, off)) {
		free(b);
		return NULL;
	}
	b[n] = 0;
	return b;
}

void pd_elf_sect_at(const struct pd_elf_rd *f, const unsigned char *p,
		    struct pd_elf_sect *s)
{
	s->name = (uint32_t)pd_elf_get(f, p, 4);
	s->type = (uint32_t)pd_elf_get(f, p + 4, 4);
	s->flags = pd_elf_get(f, p + 8, f->is64 ? 8 : 4);
	if (f->is64) {
		s->addr = pd_elf_get(f, p + 16, 8);
		s->off = pd_elf_get(f, p + 24, 8);
		s->size = pd_elf_get(f, p + 32, 8);
		s->link = (uint32_t)pd_elf_get(f, p + 40, 4);
		s->entsize = pd_elf_get(f, p + 56, 8);
	} else {
		s->addr = pd_elf_get(f, p + 12, 4);
		s->off = pd_elf_get(f, p + 16, 4);
		s->size = pd_elf_get(f, p + 20, 4);
		s->link = (uint32_t)pd_elf_get(f, p + 24, 4);
		s->entsize = pd_elf_get(f, p + 36, 4);
	}
}

struct plt_secs {
	struct pd_elf_sect rel, plt, sec, dynsym, dynstr;
	int have_rel, have_plt, have_sec, is_rela;
};

/* The sections the stubs need, found by name; 0 when all are there. */
static int find_secs(const struct pd_elf_rd *f, const unsigned char *sh,
		     uint64_t shnum, unsigned shent, const unsigned char *names,
		     uint64_t names_size, struct plt_secs *p)
{
	uint64_t i;

	memset(p, 0, sizeof(*p));
	for (i = 0; i < shnum; i++) {
		struct pd_elf_sect s;
		const char *nm;

		pd_elf_sect_at(f, sh + i * shent, &s);
		if (s.name >= names_size)
			continue;
		nm = (const char *)names + s.name;
		if (!strcmp(nm, ".rela.plt") || !strcmp(nm, ".rel.plt")) {
			p->rel = s;
			p->have_rel = 1;
			p->is_rela = nm[4] == 'a';
		} else if (!strcmp(nm, ".plt")) {
			p->plt = s;
			p->have_plt = 1;
		} else if (!strcmp(nm, ".plt.sec")) {
			p->sec = s;
			p->have_sec = 1;
		}
	}
	/*
	 * A separate debug file keeps these sections' headers but not their
	 * bytes (SHT_NOBITS): only real tables are read.
	 */
	if (!p->have_rel || !(p->have_plt || p->have_sec) ||
	    p->rel.type != (p->is_rela ? 4u : 9u) || p->rel.link >= shnum ||
	    (p->have_plt && p->plt.type != 1) ||
	    (p->have_sec && p->sec.type != 1))
		return -1;
	pd_elf_sect_at(f, sh + (uint64_t)p->rel.link * shent, &p->dynsym);
	if (p->dynsym.type != 11 || p->dynsym.link >= shnum)
		return -1; /* SHT_DYNSYM */
	pd_elf_sect_at(f, sh + (uint64_t)p->dynsym.link * shent, &p->dynstr);
	return p->dynstr.type == 3 ? 0 : -1; /* SHT_STRTAB */
}

/* Where stub 0 starts and how far apart stubs are; 0 when known. */
static int layout(const struct plt_secs *p, unsigned machine, uint64_t *first,
		  uint64_t *step, uint64_t *end)
{
	const struct pd_elf_sect *s = p->have_sec ? &p->sec : &p->plt;
	uint64_t header = 0;

	if (!p->have_sec) { /* the lazy-binding header comes first */
		if (machine == EM_X86_64_ || machine == EM_386_)
			header = 16;
		else if (machine == EM_AARCH64_)
			header = 32;
		else
			return -1;
	} else if (machine != EM_X86_64_ && machine != EM_386_) {
		return -1;
	}
	*step = s->entsize >= 4 && s->entsize <= 64 ? s->entsize : 16;
	*first = s->addr + header;
	*end = s->addr + s->size;
	return *end >= *first ? 0 : -1;
}

/* The stubs, as "name@plt" symbols: an owned array of *n, NULL if none. */
static struct pd_pltsym *stubs(const struct pd_elf_rd *f,
			       const struct plt_secs *p, unsigned machine,
			       size_t *n)
{
	unsigned char *rel = NULL, *sym = NULL, *str = NULL;
	uint64_t first, step, end, k, cnt, symsz = f->is64 ? 24 : 16;
	uint64_t relsz = p->rel.entsize;
	struct pd_pltsym *out = NULL;

	*n = 0;
	if (layout(p, machine, &first, &step, &end) || !relsz ||
	    !p->dynsym.size)
		return NULL;
	rel = pd_elf_bytes(f, p->rel.off, p->rel.size);
	sym = pd_elf_bytes(f, p->dynsym.off, p->dynsym.size);
	str = pd_elf_bytes(f, p->dynstr.off, p->dynstr.size);
	cnt = p->rel.size / relsz;
	if (!rel || !sym || !str || cnt > (end - first) / step + 1)
		goto out;
	/*
	 * Stub i matches relocation i only when every relocation names a
	 * symbol: IRELATIVE ones (symbol 0, libc's IFUNCs) come in another
	 * order, so such a file gets no stubs rather than wrong names.
	 */
	for (k = 0; k < cnt; k++) {
		const unsigned char *r = rel + k * relsz;
		uint64_t info =
		    f->is64 ? pd_elf_get(f, r + 8, 8) : pd_elf_get(f, r + 4, 4);

		if ((f->is64 ? info >> 32 : info >> 8) == 0)
			goto out;
	}
	out = pd_xcalloc((size_t)cnt + 1, sizeof(*out));
	for (k = 0; k < cnt && first + (k + 1) * step <= end; k++) {
		const unsigned char *r = rel + k * relsz;
		uint64_t info =
		    f->is64 ? pd_elf_get(f, r + 8, 8) : pd_elf_get(f, r + 4, 4);
		uint64_t si = f->is64 ? info >> 32 : info >> 8, nm;
		struct pd_buf b = PD_BUF_INIT;

		if ((si + 1) * symsz > p->dynsym.size)
			continue;
		nm = pd_elf_get(f, sym + si * symsz, 4);
		if (nm >= p->dynstr.size || !str[nm])
			continue;
		pd_buf_addf(&b, "%s@plt", (const char *)str + nm);
		out[*n].start = first + k * step;
		out[*n].size = step;
		out[(*n)++].name = pd_buf_detach(&b);
	}
out:
	free(rel);
	free(sym);
	free(str);
	return out;
}

struct pd_pltsym *pd_elf_plt(int fd, size_t *n)
{
	struct pd_elf_rd f;
	struct stat st;
	unsigned char h[64], *sh = NULL, *names = NULL;
	struct pd_pltsym *out = NULL;
	struct plt_secs p;
	uint64_t shoff, shnum, shstr;
	unsigned shent, machine;

	*n = 0;
	if (fstat(fd, &st) || pd_pread_full(fd, h, sizeof(h), 0) ||
	    memcmp(h, "\177ELF", 4))
		return NULL;
	f.fd = fd;
	f.size = (uint64_t)st.st_size;
	f.is64 = h[4] == 2;
	f.le = h[5] == 1;
	machine = (unsigned)pd_elf_get(&f, h + 18, 2);
	shoff = f.is64 ? pd_elf_get(&f, h + 40, 8) : pd_elf_get(&f, h + 32, 4);
	shent = (unsigned)pd_elf_get(&f, h + (f.is64 ? 58 : 46), 2);
	shnum = pd_elf_get(&f, h + (f.is64 ? 60 : 48), 2);
	shstr = pd_elf_get(&f, h + (f.is64 ? 62 : 50), 2);
	if (shent < (f.is64 ? 64u : 40u) || !shnum || shstr >= shnum ||
	    shnum > PD_LIMIT_ELF_SECTIONS)
		return NULL;
	sh = pd_elf_bytes(&f, shoff, shnum * shent);
	if (sh) {
		struct pd_elf_sect s;

		pd_elf_sect_at(&f, sh + shstr * shent, &s);
		names = pd_elf_bytes(&f, s.off, s.size);
		if (names &&
		    !find_secs(&f, sh, shnum, shent, names, s.size, &p))
			out = stubs(&f, &p, machine, n);
	}
	free(sh);
	free(names);
	return out;
}

void pd_elf_plt_free(struct pd_pltsym *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i].name);
	free(v);
}
