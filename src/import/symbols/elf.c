/*
 * ELF symbol tables (.symtab, .dynsym) for offline symbolication: the
 * function symbols of a file whose build id the caller has checked
 * (symfind.c). Read by a small reader of our own, so that it works the
 * same on every platform (macOS has no elfutils), or through libelf when
 * the build has it (PD_HAVE_LIBELF, docs/architecture.md).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef PD_HAVE_LIBELF
#include <gelf.h>
#include <libelf.h>
#endif

#include "core/file.h"
#include "core/limits.h"
#include "core/sort.h"
#include "core/vec.h"
#include "core/xalloc.h"
#include "import/symbols/elf_int.h"
#include "import/symbols/symbols.h"

struct esym {
	uint64_t start, size;
	const char *name;
	unsigned bind; /* STB_LOCAL 0, STB_GLOBAL 1, STB_WEAK 2 */
	size_t order;  /* place in the file's tables */
};

struct esyms {
	PD_VEC(struct esym) v;
};

static size_t leading_underscores(const char *s)
{
	size_t n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/*
 * Several names for one address (aliases: memcpy and memmove, __GI_
 * copies, weak and strong): the one shown is the one perf shows, so
 * that a function has one name whichever way its profile was read: a
 * symbol with a size, then not weak, then global, then the fewest
 * leading underscores, then the longest name, then the first in the
 * file (docs/symbols.md).
 * Negative when a goes first.
 */
static int prefer(const struct esym *a, const struct esym *b)
{
	size_t ua, ub, la, lb;

	if (!a->size != !b->size)
		return a->size ? -1 : 1;
	if ((a->bind == 2) != (b->bind == 2))
		return a->bind == 2 ? 1 : -1;
	if ((a->bind == 1) != (b->bind == 1))
		return a->bind == 1 ? -1 : 1;
	ua = leading_underscores(a->name);
	ub = leading_underscores(b->name);
	if (ua != ub)
		return ua < ub ? -1 : 1;
	la = strlen(a->name);
	lb = strlen(b->name);
	if (la != lb)
		return la > lb ? -1 : 1;
	return (a->order > b->order) - (a->order < b->order);
}

/* By address, the preferred name of an address first. */
static int cmp_esym(const void *a, const void *b)
{
	const struct esym *x = a, *y = b;

	if (x->start != y->start)
		return (x->start > y->start) - (x->start < y->start);
	return prefer(x, y);
}

/*
 * Names reqs from function symbols: an address belongs to the last symbol
 * starting at or before it, within its size (or before the next symbol
 * when the size is 0). Addresses are relative to the image base.
 */
static size_t lookup(struct esyms *syms, uint64_t base, struct pd_symreq *reqs,
		     size_t n)
{
	size_t i, got = 0;

	if (syms->v.n > 1) {
		size_t k, w = 1;

		pd_sort(syms->v.v, syms->v.n, sizeof(*syms->v.v), cmp_esym);
		for (k = 1; k < syms->v.n; k++) /* one name per address */
			if (syms->v.v[k].start != syms->v.v[w - 1].start)
				syms->v.v[w++] = syms->v.v[k];
		syms->v.n = w;
	}
	for (i = 0; i < n && syms->v.n; i++) {
		const struct esym *s = syms->v.v;
		uint64_t a = reqs[i].addr + base;
		size_t lo = 0, hi = syms->v.n;

		if (reqs[i].name)
			continue;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;

			if (s[mid].start <= a)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (!lo)
			continue;
		lo--;
		if (s[lo].size ? a < s[lo].start + s[lo].size
			       : lo + 1 == syms->v.n || a < s[lo + 1].start) {
			reqs[i].name = pd_xstrdup(s[lo].name);
			reqs[i].how = "elf";
			got++;
		}
	}
	return got;
}

#define STT_FUNC_ 2
#define STT_GNU_IFUNC_ 10

/*
 * A function symbol, or a label in code (an assembly entry point such as
 * ld.so's _dl_start_user, which perf names too); not ARM's mapping
 * symbols ($x, $d), which mark code and data, not functions.
 */
static int is_func(unsigned info, uint64_t value, const char *name, int in_code)
{
	unsigned type = info & 0xf;

	if (!value || !name || !*name)
		return 0;
	return type == STT_FUNC_ || type == STT_GNU_IFUNC_ ||
	       (type == 0 && in_code && name[0] != '$');
}

/* Adds the file's PLT stubs (elf_plt.c) to syms; the caller frees them. */
static struct pd_pltsym *add_plt(int fd, struct esyms *syms, size_t *n)
{
	struct pd_pltsym *plt = pd_elf_plt(fd, n);
	size_t i;

	for (i = 0; i < *n; i++) {
		struct esym x;

		x.start = plt[i].start;
		x.size = plt[i].size;
		x.name = plt[i].name;
		x.bind = 1;
		x.order = syms->v.n;
		PD_VEC_PUSH(&syms->v, x);
	}
	return plt;
}

#ifdef PD_HAVE_LIBELF

/* Whether section i holds code (SHF_EXECINSTR). */
static int in_code(Elf *e, size_t i)
{
	GElf_Shdr sh;
	Elf_Scn *scn;

	if (!i || i >= 0xff00) /* SHN_UNDEF, reserved indices */
		return 0;
	scn = elf_getscn(e, i);
	return scn && gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_EXECINSTR);
}

size_t pd_symbols_elf(const char *path, uint64_t base, struct pd_symreq *reqs,
		      size_t n)
{
	int fd = open(path, O_RDONLY);
	Elf *e;
	Elf_Scn *scn = NULL;
	struct esyms syms = { PD_VEC_INIT };
	struct pd_pltsym *plt;
	size_t got, nplt;

	if (fd < 0)
		return 0;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF) {
		if (e)
			elf_end(e);
		close(fd);
		return 0;
	}
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t k, cnt;

		if (!gelf_getshdr(scn, &sh) ||
		    (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) ||
		    !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		cnt = sh.sh_size / sh.sh_entsize;
		for (k = 0; d && k < cnt; k++) {
			GElf_Sym sym;
			struct esym x;
			const char *nm;

			if (!gelf_getsym(d, (int)k, &sym))
				continue;
			nm = elf_strptr(e, sh.sh_link, sym.st_name);
			if (!is_func(sym.st_info, sym.st_value, nm,
				     in_code(e, sym.st_shndx)))
				continue;
			x.start = sym.st_value;
			x.size = sym.st_size;
			x.name = nm;
			x.bind = GELF_ST_BIND(sym.st_info);
			x.order = syms.v.n;
			PD_VEC_PUSH(&syms.v, x);
		}
	}
	plt = add_plt(fd, &syms, &nplt);
	got = lookup(&syms, base, reqs, n);
	pd_elf_plt_free(plt, nplt);
	PD_VEC_FREE(&syms.v);
	elf_end(e);
	close(fd);
	return got;
}

#else

/* Caps on what one file may ask us to read. */
#define MAX_SECTIONS PD_LIMIT_ELF_SECTIONS

static int section(const struct pd_elf_rd *f, uint64_t shoff, unsigned entsize,
		   uint64_t i, struct pd_elf_sect *s)
{
	unsigned char *b =
	    pd_elf_bytes(f, shoff + i * entsize, f->is64 ? 64 : 40);

	if (!b)
		return -1;
	pd_elf_sect_at(f, b, s);
	free(b);
	return 0;
}

/* Per section, whether it holds code (SHF_EXECINSTR); NULL on failure. */
static unsigned char *code_sections(const struct pd_elf_rd *f, uint64_t shoff,
				    unsigned entsize, uint64_t shnum)
{
	unsigned char *code = pd_xcalloc((size_t)shnum + 1, 1);
	uint64_t i;

	for (i = 0; i < shnum; i++) {
		struct pd_elf_sect s;

		if (section(f, shoff, entsize, i, &s)) {
			free(code);
			return NULL;
		}
		code[i] = (s.flags & 4) != 0; /* SHF_EXECINSTR */
	}
	return code;
}

/*
 * Adds the function symbols of table s (names in str) to syms; returns
 * the string table they point into (owned), or NULL when unreadable.
 */
static unsigned char *add_table(const struct pd_elf_rd *f,
				const struct pd_elf_sect *s,
				const struct pd_elf_sect *str,
				const unsigned char *code, uint64_t shnum,
				struct esyms *syms)
{
	uint64_t cnt, j, symsz = f->is64 ? 24 : 16;
	unsigned char *tab, *names;

	if (s->entsize < symsz)
		return NULL;
	tab = pd_elf_bytes(f, s->off, s->size);
	names = pd_elf_bytes(f, str->off, str->size);
	if (!tab || !names) {
		free(tab);
		free(names);
		return NULL;
	}
	cnt = s->size / s->entsize;
	for (j = 0; j < cnt; j++) {
		const unsigned char *e = tab + j * s->entsize;
		uint64_t name = pd_elf_get(f, e, 4), value, size, shndx;
		unsigned info;
		struct esym x;

		if (f->is64) {
			info = e[4];
			shndx = pd_elf_get(f, e + 6, 2);
			value = pd_elf_get(f, e + 8, 8);
			size = pd_elf_get(f, e + 16, 8);
		} else {
			value = pd_elf_get(f, e + 4, 4);
			size = pd_elf_get(f, e + 8, 4);
			info = e[12];
			shndx = pd_elf_get(f, e + 14, 2);
		}
		if (name >= str->size ||
		    !is_func(info, value, (const char *)names + name,
			     shndx < shnum && code[shndx]))
			continue;
		x.start = value;
		x.size = size;
		x.name = (const char *)names + name;
		x.bind = info >> 4;
		x.order = syms->v.n;
		PD_VEC_PUSH(&syms->v, x);
	}
	free(tab);
	return names;
}

size_t pd_symbols_elf(const char *path, uint64_t base, struct pd_symreq *reqs,
		      size_t n)
{
	struct pd_elf_rd f;
	struct stat st;
	struct esyms syms = { PD_VEC_INIT };
	PD_VEC(unsigned char *) keep = PD_VEC_INIT;
	unsigned char *h = NULL, *code = NULL;
	uint64_t shoff, shnum, i;
	unsigned shentsize;
	size_t got = 0, k, nplt = 0;
	struct pd_pltsym *plt = NULL;

	f.fd = open(path, O_RDONLY);
	if (f.fd < 0)
		return 0;
	if (fstat(f.fd, &st) || !S_ISREG(st.st_mode))
		goto out;
	f.size = (uint64_t)st.st_size;
	f.le = 1;
	f.is64 = 1;
	h = pd_elf_bytes(&f, 0, 64);
	if (!h || memcmp(h,
			 "\x7f"
			 "ELF",
			 4))
		goto out;
	f.is64 = h[4] == 2;
	f.le = h[5] == 1;
	shoff = f.is64 ? pd_elf_get(&f, h + 40, 8) : pd_elf_get(&f, h + 32, 4);
	shentsize = (unsigned)pd_elf_get(&f, h + (f.is64 ? 58 : 46), 2);
	shnum = pd_elf_get(&f, h + (f.is64 ? 60 : 48), 2);
	if (shentsize < (f.is64 ? 64u : 40u) || !shoff)
		goto out;
	if (!shnum) { /* more than 0xff00 sections: section 0 has the count */
		struct pd_elf_sect s0;

		if (section(&f, shoff, shentsize, 0, &s0))
			goto out;
		shnum = s0.size;
	}
	if (shnum > MAX_SECTIONS)
		goto out;
	code = code_sections(&f, shoff, shentsize, shnum);
	for (i = 0; code && i < shnum; i++) {
		struct pd_elf_sect s, str;
		unsigned char *names;

		if (section(&f, shoff, shentsize, i, &s))
			break;
		if ((s.type != 2 && s.type != 11) || s.link >= shnum ||
		    section(&f, shoff, shentsize, s.link, &str))
			continue; /* SHT_SYMTAB 2, SHT_DYNSYM 11 */
		names = add_table(&f, &s, &str, code, shnum, &syms);
		if (names)
			PD_VEC_PUSH(&keep, names);
	}
	free(code);
	plt = add_plt(f.fd, &syms, &nplt);
	got = lookup(&syms, base, reqs, n);
out:
	pd_elf_plt_free(plt, nplt);
	for (k = 0; k < keep.n; k++)
		free(keep.v[k]);
	PD_VEC_FREE(&keep);
	PD_VEC_FREE(&syms.v);
	free(h);
	close(f.fd);
	return got;
}

#endif
