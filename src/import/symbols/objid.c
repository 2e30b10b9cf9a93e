/*
 * Build identity from file headers (docs/symbols.md, "Identity"). Every
 * offset and count read from a file is checked against the file's size
 * and a fixed cap before it is used; a file that fails a check is simply
 * not of that kind, or carries no id.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/limits.h"
#include "core/xalloc.h"
#include "core/file.h"
#include "import/symbols/objid.h"
#include "import/symbols/symbols.h"

/* Caps on what one header may ask us to read. */
#define MAX_LOADCMDS PD_LIMIT_MACHO_LOADCMDS
#define MAX_SECTIONS PD_LIMIT_OBJ_SECTIONS /* PE sections, ELF segments */
#define MAX_PDB_DIR PD_LIMIT_PDB_DIRECTORY /* stream directory bytes */

static uint16_t le16(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static uint64_t le64(const unsigned char *p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[3] | (uint32_t)p[2] << 8 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[0] << 24;
}

static uint64_t be64(const unsigned char *p)
{
	return (uint64_t)be32(p) << 32 | (uint64_t)be32(p + 4);
}

static int rd(const struct pd_objsrc *s, uint64_t off, void *buf, size_t n)
{
	if (off > s->size || n > s->size - off)
		return -1;
	return s->read(s->ctx, off, buf, n);
}

/* 16 bytes as a Windows GUID (first three fields little-endian) + age. */
static void guid_age(const unsigned char *g, uint32_t age, char *out,
		     size_t cap)
{
	snprintf(out, cap, "%08X%04X%04X%02X%02X%02X%02X%02X%02X%02X%02X%X",
		 le32(g), le16(g + 4), le16(g + 6), g[8], g[9], g[10], g[11],
		 g[12], g[13], g[14], g[15], age);
}

static void hex(const unsigned char *p, size_t n, char *out, size_t cap)
{
	size_t i;

	out[0] = '\0';
	for (i = 0; i < n && 2 * i + 2 < cap; i++)
		snprintf(out + 2 * i, 3, "%02X", p[i]);
}

/* ---- ELF: the GNU build id note, found through the program headers ---- */

static int elf_id(const struct pd_objsrc *s, const unsigned char *h,
		  struct pd_objid *id)
{
	int is64 = h[4] == 2, le = h[5] == 1;
	uint64_t phoff, lowest = UINT64_MAX;
	unsigned phentsize, phnum, i;
	unsigned char ph[56];

	if ((h[4] != 1 && !is64) || (h[5] != 1 && h[5] != 2))
		return 0;
#define U16(p) (le ? le16(p) : (uint16_t)((p)[0] << 8 | (p)[1]))
#define U32(p) (le ? le32(p) : be32(p))
#define U64(p) (le ? le64(p) : be64(p))
	phoff = is64 ? U64(h + 32) : U32(h + 28);
	phentsize = is64 ? U16(h + 54) : U16(h + 42);
	phnum = is64 ? U16(h + 56) : U16(h + 44);
	if (phentsize < (is64 ? 56u : 32u) || phnum > MAX_SECTIONS)
		return 1;
	for (i = 0; i < phnum; i++) {
		uint32_t type, align;
		uint64_t off, size, vaddr, pos;

		if (rd(s, phoff + (uint64_t)i * phentsize, ph, is64 ? 56 : 32))
			break;
		type = U32(ph);
		off = is64 ? U64(ph + 8) : U32(ph + 4);
		vaddr = is64 ? U64(ph + 16) : U32(ph + 8);
		size = is64 ? U64(ph + 32) : U32(ph + 16);
		align = (uint32_t)(is64 ? U64(ph + 48) : U32(ph + 28));
		if (type == 1 && vaddr - off < lowest && vaddr >= off)
			lowest = vaddr - off; /* PT_LOAD */
		if (type == 1 && id->nloads < PD_OBJ_MAX_LOADS) {
			struct pd_objload *l = &id->load[id->nloads++];

			l->off = off;
			l->vaddr = vaddr;
			l->filesz = size;
		}
		if (type != 4 || id->code_id[0])
			continue; /* PT_NOTE */
		align = align == 8 ? 8 : 4;
		for (pos = 0; pos + 12 <= size;) {
			unsigned char nh[12], desc[64], name[4];
			uint32_t namesz, descsz, ntype;
			uint64_t dpos;

			if (rd(s, off + pos, nh, 12))
				break;
			namesz = U32(nh);
			descsz = U32(nh + 4);
			ntype = U32(nh + 8);
			dpos = pos + 12 +
			       ((namesz + align - 1) & ~(uint64_t)(align - 1));
			if (namesz > size || descsz > size ||
			    dpos + descsz > size)
				break;
			if (ntype == 3 && namesz == 4 && descsz >= 1 &&
			    descsz <= sizeof(desc) &&
			    !rd(s, off + pos + 12, name, 4) &&
			    !memcmp(name, "GNU", 4) &&
			    !rd(s, off + dpos, desc, descsz)) {
				unsigned char g[16] = { 0 };
				size_t k;

				for (k = 0; k < descsz; k++)
					snprintf(id->code_id + 2 * k, 3, "%02x",
						 desc[k]);
				memcpy(g, desc, descsz < 16 ? descsz : 16);
				guid_age(g, 0, id->debug_id,
					 sizeof(id->debug_id));
				break;
			}
			pos = dpos +
			      ((descsz + align - 1) & ~(uint64_t)(align - 1));
		}
	}
	id->image_base = lowest == UINT64_MAX ? 0 : lowest;
#undef U16
#undef U32
#undef U64
	return 1;
}

/* ---- PE: COFF header, optional header, CodeView debug record ---- */

static int pe_id(const struct pd_objsrc *s, const unsigned char *mz,
		 struct pd_objid *id)
{
	unsigned char coff[24], opt[240], sh[40], dd[28], cv[24 + 260];
	uint32_t pe = le32(mz + 0x3c), magic, nsec, optsize, ddirs, dbg_rva,
		 dbg_size, i, k;
	uint64_t sec_off;

	if (rd(s, pe, coff, 24) || memcmp(coff, "PE\0\0", 4))
		return 0;
	nsec = le16(coff + 6);
	optsize = le16(coff + 20);
	if (optsize < 96 || optsize > sizeof(opt) || nsec > MAX_SECTIONS ||
	    rd(s, pe + 24u, opt, optsize))
		return 1; /* a PE, but no optional header we read */
	magic = le16(opt);
	if (magic == 0x20b) { /* PE32+ */
		id->image_base = le64(opt + 24);
		ddirs = 112;
	} else if (magic == 0x10b) {
		id->image_base = le32(opt + 28);
		ddirs = 96;
	} else
		return 1;
	snprintf(id->code_id, sizeof(id->code_id), "%08X%x", le32(coff + 8),
		 le32(opt + 56));
	if (le32(opt + ddirs - 4) <= 6 || ddirs + 7 * 8 > optsize)
		return 1; /* no debug directory entry */
	dbg_rva = le32(opt + ddirs + 6 * 8);
	dbg_size = le32(opt + ddirs + 6 * 8 + 4);
	/* The debug directory's file offset, through the section table. */
	sec_off = UINT64_MAX;
	for (i = 0; i < nsec; i++) {
		uint32_t va, vsize, raw;

		if (rd(s, pe + 24u + optsize + (uint64_t)i * 40, sh, 40))
			return 1;
		va = le32(sh + 12);
		vsize = le32(sh + 8) ? le32(sh + 8) : le32(sh + 16);
		raw = le32(sh + 20);
		if (dbg_rva >= va && dbg_rva - va < vsize) {
			sec_off = (uint64_t)raw + (dbg_rva - va);
			break;
		}
	}
	if (sec_off == UINT64_MAX)
		return 1;
	for (k = 0; k + 28 <= dbg_size && k < 28 * 64; k += 28) {
		uint32_t len, ptr, n;

		if (rd(s, sec_off + k, dd, 28))
			return 1;
		if (le32(dd + 12) != 2) /* IMAGE_DEBUG_TYPE_CODEVIEW */
			continue;
		len = le32(dd + 16);
		ptr = le32(dd + 24);
		if (len < 24 + 1)
			continue;
		n = len < sizeof(cv) - 1 ? len : (uint32_t)sizeof(cv) - 1;
		if (rd(s, ptr, cv, n) || memcmp(cv, "RSDS", 4))
			continue;
		cv[n] = '\0';
		guid_age(cv + 4, le32(cv + 20), id->debug_id,
			 sizeof(id->debug_id));
		{
			/* The PDB path was written on Windows or POSIX. */
			const char *path = (const char *)cv + 24, *b = path, *c;
			size_t blen;

			for (c = path; *c; c++)
				if (*c == '\\' || *c == '/')
					b = c + 1;
			blen = strlen(b);
			if (blen >= sizeof(id->pdb_name))
				blen = 0; /* a name we cannot hold: none */
			memcpy(id->pdb_name, b, blen);
			id->pdb_name[blen] = '\0';
		}
		break;
	}
	return 1;
}

/* ---- PDB: MSF 7.00 container; stream 1 (info) and 3 (DBI) ---- */

static const char msf_magic[32] = "Microsoft C/C++ MSF 7.00\r\n\x1a"
				  "DS\0\0";

/* Reads the first n bytes of stream `want` (n small) into out. */
static int msf_stream_head(const struct pd_objsrc *s, uint32_t bs,
			   const unsigned char *dir, uint32_t dirlen,
			   uint32_t nblocks, uint32_t want, unsigned char *out,
			   uint32_t n)
{
	uint32_t nstreams = le32(dir), i, pos, got;
	uint64_t blocks_at;

	if (want >= nstreams || (uint64_t)4 + 4ull * nstreams > dirlen)
		return -1;
	/* Skip the block lists of the streams before `want`. */
	blocks_at = 4 + 4ull * nstreams;
	for (i = 0; i < want; i++) {
		uint32_t sz = le32(dir + 4 + 4 * i);

		if (sz != UINT32_MAX)
			blocks_at += 4ull * ((sz + (uint64_t)bs - 1) / bs);
	}
	if (le32(dir + 4 + 4 * want) == UINT32_MAX ||
	    le32(dir + 4 + 4 * want) < n)
		return -1;
	for (got = 0, pos = 0; got < n; pos++) {
		uint32_t blk, take = n - got < bs ? n - got : bs;

		if (blocks_at + 4ull * pos + 4 > dirlen)
			return -1;
		blk = le32(dir + blocks_at + 4ull * pos);
		if (blk >= nblocks ||
		    rd(s, (uint64_t)blk * bs, out + got, take))
			return -1;
		got += take;
	}
	return 0;
}

static int pdb_id(const struct pd_objsrc *s, const unsigned char *sb,
		  struct pd_objid *id)
{
	uint32_t bs = le32(sb + 32), nblocks = le32(sb + 40),
		 dirlen = le32(sb + 44), mapblk = le32(sb + 52), nmap, i;
	unsigned char *dir = NULL, *map = NULL, info[28], dbi[12];
	uint32_t age;

	if (bs != 512 && bs != 1024 && bs != 2048 && bs != 4096)
		return 1;
	if (dirlen < 4 || dirlen > MAX_PDB_DIR ||
	    (uint64_t)nblocks * bs > s->size + bs || mapblk >= nblocks)
		return 1;
	nmap = (dirlen + bs - 1) / bs;
	if ((uint64_t)nmap * 4 > bs)
		return 1; /* the block map fits one block in MSF 7.00 */
	map = pd_xmalloc((size_t)nmap * 4);
	dir = pd_xmalloc(dirlen);
	if (rd(s, (uint64_t)mapblk * bs, map, (size_t)nmap * 4))
		goto out;
	for (i = 0; i < nmap; i++) {
		uint32_t blk = le32(map + 4 * i),
			 take = dirlen - i * bs < bs ? dirlen - i * bs : bs;

		if (blk >= nblocks ||
		    rd(s, (uint64_t)blk * bs, dir + (size_t)i * bs, take))
			goto out;
	}
	if (msf_stream_head(s, bs, dir, dirlen, nblocks, 1, info, 28))
		goto out;
	age = le32(info + 8);
	/* The DBI stream's age is the one executables record. */
	if (!msf_stream_head(s, bs, dir, dirlen, nblocks, 3, dbi, 12) &&
	    le32(dbi) == UINT32_MAX)
		age = le32(dbi + 8);
	guid_age(info + 12, age, id->debug_id, sizeof(id->debug_id));
out:
	free(map);
	free(dir);
	return 1;
}

/* ---- Mach-O: LC_UUID and the __TEXT segment of each slice ---- */

static void macho_slice(const struct pd_objsrc *s, uint64_t at,
			struct pd_objid *id)
{
	unsigned char h[32], lc[72];
	uint32_t magic, ncmds, i;
	uint64_t pos, end;
	int is64, swap;
	struct pd_objslice *sl;

	if (id->nslices >= PD_OBJ_MAX_SLICES || rd(s, at, h, 28))
		return;
	magic = le32(h);
	is64 = magic == 0xfeedfacf || magic == 0xcffaedfe;
	swap = magic == 0xcefaedfe || magic == 0xcffaedfe;
	if (!is64 && magic != 0xfeedface && magic != 0xcefaedfe)
		return;
#define U32(p) (swap ? be32(p) : le32(p))
#define U64(p) (swap ? be64(p) : le64(p))
	sl = &id->slice[id->nslices++];
	sl->cputype = U32(h + 4);
	ncmds = U32(h + 16);
	end = at + (is64 ? 32 : 28) + (uint64_t)U32(h + 20);
	if (ncmds > MAX_LOADCMDS)
		return;
	for (i = 0, pos = at + (is64 ? 32 : 28); i < ncmds; i++) {
		uint32_t cmd, size;

		if (pos + 8 > end || rd(s, pos, lc, 8))
			break;
		cmd = U32(lc);
		size = U32(lc + 4);
		if (size < 8 || pos + size > end)
			break;
		if (cmd == 0x1b && size >= 24 && !rd(s, pos, lc, 24))
			hex(lc + 8, 16, sl->uuid, sizeof(sl->uuid));
		else if ((cmd == 0x19 || cmd == 0x1) && size >= 32 &&
			 !rd(s, pos, lc, cmd == 0x19 ? 32 : 28) &&
			 !strncmp((const char *)lc + 8, "__TEXT", 16))
			sl->text_vmaddr =
			    cmd == 0x19 ? U64(lc + 24) : U32(lc + 24);
		pos += size;
	}
#undef U32
#undef U64
}

static int macho_id(const struct pd_objsrc *s, const unsigned char *h,
		    struct pd_objid *id)
{
	uint32_t magic = be32(h);

	if (magic == 0xcafebabe || magic == 0xcafebabf) {
		/* Fat: big-endian arch entries; Java classes share 0xcafebabe
		 * but have a large version where nfat_arch would be. */
		uint32_t n = be32(h + 4), i,
			 esz = magic == 0xcafebabf ? 32 : 20;
		unsigned char a[32];

		if (n == 0 || n > 32)
			return 0;
		for (i = 0; i < n; i++) {
			uint64_t off;

			if (rd(s, 8 + (uint64_t)i * esz, a, esz))
				break;
			off = esz == 32 ? be64(a + 8) : be32(a + 8);
			macho_slice(s, off, id);
		}
	} else
		macho_slice(s, 0, id);
	if (!id->nslices)
		return 0;
	if (id->slice[0].uuid[0]) {
		snprintf(id->debug_id, sizeof(id->debug_id), "%s0",
			 id->slice[0].uuid);
		snprintf(id->code_id, sizeof(id->code_id), "%s",
			 id->slice[0].uuid);
	}
	id->image_base = id->slice[0].text_vmaddr;
	return 1;
}

enum pd_obj_kind pd_objid_read(const struct pd_objsrc *src, struct pd_objid *id)
{
	unsigned char h[64];
	size_t n = src->size < sizeof(h) ? (size_t)src->size : sizeof(h);

	memset(id, 0, sizeof(*id));
	memset(h, 0, sizeof(h));
	if (n < 8 || src->read(src->ctx, 0, h, n))
		return PD_OBJ_NONE;
	if (n >= 52 &&
	    !memcmp(h,
		    "\x7f"
		    "ELF",
		    4) &&
	    elf_id(src, h, id))
		id->kind = PD_OBJ_ELF;
	else if (n >= 64 && h[0] == 'M' && h[1] == 'Z' && pe_id(src, h, id))
		id->kind = PD_OBJ_PE;
	else if (n >= 56 && !memcmp(h, msf_magic, sizeof(msf_magic)) &&
		 pdb_id(src, h, id))
		id->kind = PD_OBJ_PDB;
	else if (macho_id(src, h, id))
		id->kind = PD_OBJ_MACHO;
	else
		memset(id, 0, sizeof(*id));
	return id->kind;
}

static int read_fd(void *ctx, uint64_t off, void *buf, size_t n)
{
	return pd_pread_full(*(int *)ctx, buf, n, off);
}

int pd_objid_file(const char *path, struct pd_objid *id)
{
	struct stat st;
	struct pd_objsrc s;
	int fd = open(path, O_RDONLY | O_NONBLOCK);

	memset(id, 0, sizeof(*id));
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return -1;
	}
	s.read = read_fd;
	s.ctx = &fd;
	s.size = (uint64_t)st.st_size;
	pd_objid_read(&s, id);
	close(fd);
	return 0;
}

struct mem {
	const unsigned char *p;
	size_t n;
};

static int read_mem(void *ctx, uint64_t off, void *buf, size_t n)
{
	const struct mem *m = ctx;

	if (off > m->n || n > m->n - off)
		return -1;
	memcpy(buf, m->p + off, n);
	return 0;
}

enum pd_obj_kind pd_objid_mem(const void *data, size_t n, struct pd_objid *id)
{
	struct mem m = { data, n };
	struct pd_objsrc s = { read_mem, &m, n };

	return pd_objid_read(&s, id);
}

int pd_objid_match(const struct pd_objid *id, const char *want_debug,
		   const char *want_code, uint64_t *base)
{
	char wd[42], have[42];
	size_t i;

	pd_debugid_norm(want_debug, wd);
	*base = id->image_base;
	if (id->kind == PD_OBJ_MACHO) {
		char wc[42];

		pd_debugid_norm(want_code, wc);
		if (!wd[0] && !wc[0])
			return -1;
		/* A UUID is the whole id: compare its 32 digits. */
		for (i = 0; i < id->nslices; i++) {
			const struct pd_objslice *sl = &id->slice[i];

			if (sl->uuid[0] &&
			    ((wd[0] && !strncmp(wd, sl->uuid, 32)) ||
			     (wc[0] && !strncmp(wc, sl->uuid, 32)))) {
				*base = sl->text_vmaddr;
				return 1;
			}
		}
		return 0;
	}
	if (id->kind == PD_OBJ_PE && want_code && *want_code)
		return !strcasecmp(want_code, id->code_id) &&
		       (!wd[0] || !id->debug_id[0] ||
			!strcmp(wd, id->debug_id));
	if (id->kind == PD_OBJ_ELF && want_code && *want_code)
		return !strcasecmp(want_code, id->code_id);
	if (!wd[0])
		return -1;
	pd_debugid_norm(id->debug_id, have);
	return have[0] && !strcmp(wd, have);
}

int pd_objid_elf_vaddr(const struct pd_objid *id, uint64_t off, uint64_t *vaddr)
{
	size_t i;

	for (i = 0; i < id->nloads; i++) {
		const struct pd_objload *l = &id->load[i];

		if (off >= l->off && off - l->off < l->filesz) {
			*vaddr = l->vaddr + (off - l->off);
			return 0;
		}
	}
	return -1;
}

const char *pd_objid_kind_name(enum pd_obj_kind k)
{
	switch (k) {
	case PD_OBJ_ELF:
		return "ELF";
	case PD_OBJ_PE:
		return "PE";
	case PD_OBJ_PDB:
		return "PDB";
	case PD_OBJ_MACHO:
		return "Mach-O";
	case PD_OBJ_NONE:
		break;
	}
	return "unknown";
}

void pd_objid_describe(const struct pd_objid *id, struct pd_buf *b)
{
	size_t i;

	if (id->kind == PD_OBJ_MACHO) {
		for (i = 0; i < id->nslices; i++)
			pd_buf_addf(b, "%suuid %s", i ? ", " : "",
				    id->slice[i].uuid[0] ? id->slice[i].uuid
							 : "(none)");
		return;
	}
	pd_buf_addf(b, "debug id %s",
		    id->debug_id[0] ? id->debug_id : "(none)");
	if (id->kind == PD_OBJ_PE || id->kind == PD_OBJ_ELF)
		pd_buf_addf(b, ", code id %s",
			    id->code_id[0] ? id->code_id : "(none)");
}
