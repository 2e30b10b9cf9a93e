/*
 * Offline symbolication. Sources, best first, as formats.md 2.6 and the
 * issue list them: samply's *.syms.json sidecar; ELF symbol tables of the
 * binaries under --symbols folders, read with libelf; llvm-symbolizer, run
 * once per library with every address in one batch, for object formats
 * libelf does not read (PE/PDB, Mach-O).
 */
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cJSON.h>

#include "import/symbols.h"

void pd_debugid_norm(const char *in, char out[34])
{
	size_t n = 0;

	out[0] = '\0';
	if (!in)
		return;
	for (; *in && n < 33; in++)
		if (isxdigit((unsigned char)*in))
			out[n++] = (char)toupper((unsigned char)*in);
	if (n == 32) /* a UUID without age: age 0 */
		out[n++] = '0';
	out[n] = '\0';
}

/* ---- sidecar ---- */

struct sc_lib {
	char *debug_name;
	char id[34];
	uint64_t *addr; /* known addresses, sorted */
	uint32_t *sym;	/* their symbol's string index */
	size_t n;
};

struct pd_sidecar {
	char **strings;
	size_t nstrings;
	struct sc_lib *libs;
	size_t nlibs;
};

void pd_sidecar_free(struct pd_sidecar *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nstrings; i++)
		free(s->strings[i]);
	free(s->strings);
	for (i = 0; i < s->nlibs; i++) {
		free(s->libs[i].debug_name);
		free(s->libs[i].addr);
		free(s->libs[i].sym);
	}
	free(s->libs);
	free(s);
}

static char *read_all(const char *path, size_t max)
{
	FILE *f = fopen(path, "rb");
	struct pd_buf b = PD_BUF_INIT;
	char chunk[65536];
	size_t n;

	if (!f)
		return NULL;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0 && b.len < max)
		pd_buf_add(&b, chunk, n);
	fclose(f);
	return pd_buf_detach(&b);
}

/* samply writes <output>.with_extension("syms.json"): the last extension goes.
 */
struct strlist {
	char **v;
	size_t n, cap;
};

static void sidecar_names(const char *profile, struct strlist *out)
{
	const char *slash = strrchr(profile, '/'), *dot;
	const char *suffix[] = { ".syms.json", ".sym.json" };
	size_t i, stem;

	dot = strrchr(slash ? slash : profile, '.');
	stem = dot ? (size_t)(dot - profile) : strlen(profile);
	for (i = 0; i < 2; i++) {
		struct pd_buf b = PD_BUF_INIT;

		pd_buf_add(&b, profile, stem);
		pd_buf_adds(&b, suffix[i]);
		PD_VEC_PUSH(out, pd_buf_detach(&b));
		pd_buf_addf(&b, "%s%s", profile, suffix[i]);
		PD_VEC_PUSH(out, pd_buf_detach(&b));
	}
}

static int cmp_pair(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return (x[0] > y[0]) - (x[0] < y[0]);
}

struct pd_sidecar *pd_sidecar_load(const char *profile_path, char **found,
				   struct pd_err *err)
{
	struct strlist names = PD_VEC_INIT;
	struct pd_sidecar *s = NULL;
	cJSON *root = NULL, *st, *data, *e;
	char *text = NULL;
	size_t i;

	*found = NULL;
	sidecar_names(profile_path, &names);
	for (i = 0; i < names.n && !text; i++) {
		text = read_all(names.v[i], 1u << 30);
		if (text && !*found)
			*found = pd_xstrdup(names.v[i]);
	}
	for (i = 0; i < names.n; i++)
		free(names.v[i]);
	PD_VEC_FREE(&names);
	if (!text)
		return NULL;
	root = cJSON_Parse(text);
	free(text);
	st = cJSON_GetObjectItemCaseSensitive(root, "string_table");
	data = cJSON_GetObjectItemCaseSensitive(root, "data");
	if (!cJSON_IsArray(st) || !cJSON_IsArray(data)) {
		pd_err_set(err, PD_EPARSE,
			   "%s: not a samply symbol file (no string_table and"
			   " data); ignored",
			   *found);
		cJSON_Delete(root);
		return NULL;
	}
	s = pd_xcalloc(1, sizeof(*s));
	s->nstrings = (size_t)cJSON_GetArraySize(st);
	s->strings = pd_xcalloc(s->nstrings + 1, sizeof(char *));
	i = 0;
	cJSON_ArrayForEach(e, st)
	{
		s->strings[i++] =
		    pd_xstrdup(cJSON_IsString(e) ? e->valuestring : "");
	}
	s->libs =
	    pd_xcalloc((size_t)cJSON_GetArraySize(data) + 1, sizeof(*s->libs));
	cJSON_ArrayForEach(e, data)
	{
		struct sc_lib *l = &s->libs[s->nlibs];
		const cJSON *dn =
		    cJSON_GetObjectItemCaseSensitive(e, "debug_name");
		const cJSON *di =
		    cJSON_GetObjectItemCaseSensitive(e, "debug_id");
		const cJSON *tab =
		    cJSON_GetObjectItemCaseSensitive(e, "symbol_table");
		const cJSON *ka =
		    cJSON_GetObjectItemCaseSensitive(e, "known_addresses");
		const cJSON *x;
		uint64_t *pairs;
		size_t n = 0, ntab = (size_t)cJSON_GetArraySize(tab), k;

		if (!cJSON_IsString(dn) || !cJSON_IsArray(ka))
			continue;
		l->debug_name = pd_xstrdup(dn->valuestring);
		pd_debugid_norm(cJSON_IsString(di) ? di->valuestring : NULL,
				l->id);
		pairs = pd_xcalloc(2 * ((size_t)cJSON_GetArraySize(ka) + 1),
				   sizeof(*pairs));
		cJSON_ArrayForEach(x, ka)
		{
			const cJSON *a = cJSON_GetArrayItem(x, 0),
				    *ix = cJSON_GetArrayItem(x, 1);
			const cJSON *sym;

			if (!cJSON_IsNumber(a) || !cJSON_IsNumber(ix) ||
			    ix->valuedouble < 0 ||
			    (size_t)ix->valuedouble >= ntab)
				continue;
			sym = cJSON_GetObjectItemCaseSensitive(
			    cJSON_GetArrayItem(tab, (int)ix->valuedouble),
			    "symbol");
			if (!cJSON_IsNumber(sym) || sym->valuedouble < 0 ||
			    (size_t)sym->valuedouble >= s->nstrings)
				continue;
			pairs[2 * n] = (uint64_t)a->valuedouble;
			pairs[2 * n + 1] = (uint64_t)sym->valuedouble;
			n++;
		}
		qsort(pairs, n, 2 * sizeof(*pairs), cmp_pair);
		l->addr = pd_xmalloc((n + 1) * sizeof(*l->addr));
		l->sym = pd_xmalloc((n + 1) * sizeof(*l->sym));
		for (k = 0; k < n; k++) {
			l->addr[k] = pairs[2 * k];
			l->sym[k] = (uint32_t)pairs[2 * k + 1];
		}
		l->n = n;
		free(pairs);
		s->nlibs++;
	}
	cJSON_Delete(root);
	return s;
}

size_t pd_sidecar_resolve(const struct pd_sidecar *s,
			  const struct pd_libinfo *lib, struct pd_symreq *reqs,
			  size_t n)
{
	char want[34];
	size_t i, got = 0;
	const struct sc_lib *l = NULL;

	pd_debugid_norm(lib->breakpad_id, want);
	for (i = 0; i < s->nlibs && !l; i++) {
		const char *dn = lib->debug_name ? lib->debug_name : lib->name;

		if (dn && !strcmp(s->libs[i].debug_name, dn) &&
		    (!want[0] || !s->libs[i].id[0] ||
		     !strcmp(want, s->libs[i].id)))
			l = &s->libs[i];
	}
	if (!l)
		return 0;
	for (i = 0; i < n; i++) {
		size_t lo = 0, hi = l->n;

		if (reqs[i].name)
			continue;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;

			if (l->addr[mid] < reqs[i].addr)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < l->n && l->addr[lo] == reqs[i].addr) {
			reqs[i].name = pd_xstrdup(s->strings[l->sym[lo]]);
			reqs[i].how = "sidecar";
			got++;
		}
	}
	return got;
}

/* ---- ELF ---- */

struct esym {
	uint64_t start, size;
	const char *name;
};

static int cmp_esym(const void *a, const void *b)
{
	const struct esym *x = a, *y = b;

	return (x->start > y->start) - (x->start < y->start);
}

/* The GNU build id as lowercase hex, or "" */
static void elf_build_id(Elf *e, char *out, size_t cap)
{
	Elf_Scn *scn = NULL;

	out[0] = '\0';
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t off = 0, noff, doff;
		GElf_Nhdr nh;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		d = elf_getdata(scn, NULL);
		while (d &&
		       (noff = gelf_getnote(d, off, &nh, &off, &doff)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID &&
			    nh.n_descsz * 2 < cap) {
				size_t i;

				for (i = 0; i < nh.n_descsz; i++)
					snprintf(out + 2 * i, 3, "%02x",
						 ((const unsigned char *)
						      d->d_buf)[doff + i]);
				return;
			}
			off = noff;
		}
	}
}

/*
 * Resolves from an ELF file's .symtab/.dynsym. samply's addresses are
 * relative to the image base (the lowest PT_LOAD address), so symbol
 * values are compared with address + base. Returns -1 if not ELF.
 */
static long elf_resolve(const char *path, const char *code_id,
			struct pd_symreq *reqs, size_t n, struct pd_buf *notes)
{
	int fd = open(path, O_RDONLY);
	Elf *e;
	Elf_Scn *scn = NULL;
	PD_VEC(struct esym) syms = PD_VEC_INIT;
	uint64_t base = UINT64_MAX;
	size_t i, phnum, got = 0;
	char bid[129];

	if (fd < 0)
		return -1;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF) {
		if (e)
			elf_end(e);
		close(fd);
		return -1;
	}
	elf_build_id(e, bid, sizeof(bid));
	if (code_id && *code_id && bid[0] && strcasecmp(code_id, bid)) {
		pd_buf_addf(notes,
			    "%s%s: build id %s, the profile wants %s;"
			    " not used",
			    notes->len ? "; " : "", path, bid, code_id);
		elf_end(e);
		close(fd);
		return 0;
	}
	if (elf_getphdrnum(e, &phnum) == 0)
		for (i = 0; i < phnum; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(e, (int)i, &ph) &&
			    ph.p_type == PT_LOAD &&
			    ph.p_vaddr - ph.p_offset < base)
				base = ph.p_vaddr - ph.p_offset;
		}
	if (base == UINT64_MAX)
		base = 0;
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

			if (!gelf_getsym(d, (int)k, &sym) || !sym.st_value ||
			    (GELF_ST_TYPE(sym.st_info) != STT_FUNC &&
			     GELF_ST_TYPE(sym.st_info) != STT_GNU_IFUNC))
				continue;
			nm = elf_strptr(e, sh.sh_link, sym.st_name);
			if (!nm || !*nm)
				continue;
			x.start = sym.st_value;
			x.size = sym.st_size;
			x.name = nm;
			PD_VEC_PUSH(&syms, x);
		}
	}
	if (syms.n > 1)
		qsort(syms.v, syms.n, sizeof(*syms.v), cmp_esym);
	for (i = 0; i < n && syms.n; i++) {
		uint64_t a = reqs[i].addr + base;
		size_t lo = 0, hi = syms.n;

		if (reqs[i].name)
			continue;
		while (lo < hi) { /* last symbol starting at or before a */
			size_t mid = (lo + hi) / 2;

			if (syms.v[mid].start <= a)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (!lo)
			continue;
		lo--;
		if (syms.v[lo].size
			? a < syms.v[lo].start + syms.v[lo].size
			: lo + 1 == syms.n || a < syms.v[lo + 1].start) {
			reqs[i].name = pd_xstrdup(syms.v[lo].name);
			reqs[i].how = "elf";
			got++;
		}
	}
	PD_VEC_FREE(&syms);
	elf_end(e);
	close(fd);
	return (long)got;
}

/* ---- llvm-symbolizer ---- */

size_t pd_symbols_llvm(const char *path, struct pd_symreq *reqs, size_t n)
{
	char in[] = "/tmp/pdsymXXXXXX";
	int fd = mkstemp(in);
	struct pd_buf cmd = PD_BUF_INIT;
	FILE *f, *p;
	char line[4096];
	size_t i, k = 0, got = 0, want = 0;
	int state = 0; /* 0 function line, 1 location line, 2 blank */

	if (fd < 0)
		return 0;
	f = fdopen(fd, "w");
	for (i = 0; i < n; i++)
		if (!reqs[i].name) {
			fprintf(f, "0x%llx\n",
				(unsigned long long)reqs[i].addr);
			want++;
		}
	fclose(f);
	if (!want) {
		unlink(in);
		return 0;
	}
	/* The path goes in single quotes; a quote in it is spliced out. */
	pd_buf_adds(&cmd, "llvm-symbolizer --functions=linkage --no-inlines"
			  " --relative-address --obj='");
	for (i = 0; path[i]; i++) {
		if (path[i] == '\'')
			pd_buf_adds(&cmd, "'\\''");
		else
			pd_buf_addch(&cmd, path[i]);
	}
	pd_buf_addf(&cmd, "' < %s 2>/dev/null", in);
	p = popen(cmd.buf, "r");
	pd_buf_release(&cmd);
	while (p && fgets(line, sizeof(line), p)) {
		line[strcspn(line, "\r\n")] = '\0';
		if (!*line) {
			state = 0;
			continue;
		}
		if (state == 0) {
			while (k < n && reqs[k].name)
				k++;
			if (k < n && strcmp(line, "??")) {
				reqs[k].name = pd_xstrdup(line);
				reqs[k].how = "llvm-symbolizer";
				got++;
			}
			k++;
			state = 1;
		}
	}
	if (p)
		pclose(p);
	unlink(in);
	return got;
}

/* ---- finding the binary ---- */

static int is_file(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static const char *base_of(const char *p)
{
	const char *s = p ? strrchr(p, '/') : NULL;
	const char *b = p ? strrchr(p, '\\') : NULL;

	if (b && (!s || b > s))
		s = b;
	return s ? s + 1 : p;
}

/* Depth-limited search of dir for a file named name. */
static char *find_named(const char *dir, const char *name, int depth)
{
	DIR *d;
	struct dirent *e;
	char *hit = NULL;

	if (!name || !*name || depth > 4 || !(d = opendir(dir)))
		return NULL;
	while (!hit && (e = readdir(d))) {
		struct pd_buf p = PD_BUF_INIT;
		struct stat st;

		if (e->d_name[0] == '.')
			continue;
		pd_buf_addf(&p, "%s/%s", dir, e->d_name);
		if (stat(p.buf, &st) == 0) {
			if (S_ISREG(st.st_mode) && !strcmp(e->d_name, name))
				hit = pd_buf_detach(&p);
			else if (S_ISDIR(st.st_mode))
				hit = find_named(p.buf, name, depth + 1);
		}
		pd_buf_release(&p);
	}
	closedir(d);
	return hit;
}

size_t pd_symbols_from_dirs(const char *const *dirs,
			    const struct pd_libinfo *lib,
			    struct pd_symreq *reqs, size_t n, char **file,
			    struct pd_buf *notes)
{
	const char *names[4];
	size_t di, ni, got = 0;

	*file = NULL;
	names[0] = base_of(lib->debug_name);
	names[1] = base_of(lib->name);
	names[2] = base_of(lib->path);
	names[3] = base_of(lib->debug_path);
	for (di = 0; dirs[di]; di++) {
		/* A .build-id tree first: it names the exact build. */
		if (lib->code_id && strlen(lib->code_id) > 2) {
			struct pd_buf p = PD_BUF_INIT;

			pd_buf_addf(&p, "%s/.build-id/%.2s/%s.debug", dirs[di],
				    lib->code_id, lib->code_id + 2);
			if (is_file(p.buf)) {
				long r = elf_resolve(p.buf, lib->code_id, reqs,
						     n, notes);

				if (r > 0) {
					*file = pd_buf_detach(&p);
					return (size_t)r;
				}
			}
			pd_buf_release(&p);
		}
		for (ni = 0; ni < 4; ni++) {
			char *path;
			long r;

			if (!names[ni] || !*names[ni])
				continue;
			path = find_named(dirs[di], names[ni], 0);
			if (!path)
				continue;
			r = elf_resolve(path, lib->code_id, reqs, n, notes);
			if (r < 0) /* not ELF: PE, Mach-O, PDB */
				r = (long)pd_symbols_llvm(path, reqs, n);
			if (r > 0) {
				got = (size_t)r;
				*file = path;
				return got;
			}
			free(path);
		}
	}
	return got;
}
