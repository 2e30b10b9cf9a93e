/*
 * The symbol path and the search for a library's files (docs/symbols.md).
 * Each folder is listed once per profile into a name index (lower-cased
 * basenames: Windows names compare without case); SymStore and .build-id
 * layouts are probed directly. Every candidate's headers are read
 * (objid.h) and only the build the profile names is used.
 */
#include <ctype.h>
#include <dirent.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "core/limits.h"
#include "core/file.h"
#include "core/sort.h"
#include "core/vec.h"
#include "core/xalloc.h"
#include "import/symbols/objid.h"
#include "import/symbols/symbolizer.h"
#include "import/symbols/symfind.h"

/* Bounds on listing a folder tree: a symbol path is not the disk. */
#define MAX_DEPTH PD_LIMIT_SYMBOL_DIR_DEPTH
#define MAX_ENTRIES PD_LIMIT_SYMBOL_DIR_ENTRIES
#define MAX_CANDIDATES PD_LIMIT_SYMBOL_CANDIDATES

struct ient {
	char *key; /* lower-cased basename */
	char *path;
};

struct pd_symctx {
	PD_VEC(char *) dirs;
	struct pd_buf notes;
	PD_VEC(struct ient) idx;
	int indexed;
	size_t visited;
	struct pd_symtool tool;
	int tool_looked;
	const char *forced_tool;
};

static void note(struct pd_symctx *c, const char *fmt, ...) PD_PRINTF(2, 3);

static void note(struct pd_symctx *c, const char *fmt, ...)
{
	va_list ap;

	if (c->notes.len)
		pd_buf_addch(&c->notes, '\n');
	va_start(ap, fmt);
	pd_buf_vaddf(&c->notes, fmt, ap);
	va_end(ap);
}

static void add_dir(struct pd_symctx *c, const char *d, size_t len)
{
	char *s = pd_xstrndup(d, len);
	size_t i;

	if (!*s) {
		free(s);
		return;
	}
	for (i = 0; i < c->dirs.n; i++)
		if (!strcmp(c->dirs.v[i], s)) {
			free(s);
			return;
		}
	if (!pd_is_dir(s)) {
		note(c, "symbol path: %s is not a folder here; skipped", s);
		free(s);
		return;
	}
	PD_VEC_PUSH(&c->dirs, s);
}

static int is_url(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i + 3 <= n; i++)
		if (!memcmp(s + i, "://", 3))
			return 1;
	return 0;
}

/*
 * One element of a symbol path: DIR, cache*DIR, srv*DIR*...*URL or
 * symsrv*DLL*DIR*URL. Local folders are kept; URLs are never fetched.
 */
static void add_element(struct pd_symctx *c, const char *e, size_t len)
{
	const char *end = e + len, *f;
	int srv = 0;

	if (len > 4 && !strncasecmp(e, "srv*", 4))
		srv = 1, e += 4;
	else if (len > 7 && !strncasecmp(e, "symsrv*", 7)) {
		e += 7; /* the DLL's name comes first */
		f = memchr(e, '*', (size_t)(end - e));
		e = f ? f + 1 : end;
		srv = 1;
	} else if (len >= 6 && !strncasecmp(e, "cache*", 6))
		srv = 1, e += 6;
	if (!srv) {
		add_dir(c, e, len);
		return;
	}
	for (; e < end; e = f + 1) {
		f = memchr(e, '*', (size_t)(end - e));
		if (!f)
			f = end;
		if (is_url(e, (size_t)(f - e)))
			note(c,
			     "symbol path: %.*s is a symbol server; perfdiff"
			     " reads local folders only, never the network",
			     (int)(f - e), e);
		else
			add_dir(c, e, (size_t)(f - e));
		if (f == end)
			break;
	}
}

/* A drive letter ("C:\", "C:/") is not a ':' list separator. */
static int drive_at(const char *s, const char *p)
{
	return p == s + 1 && isalpha((unsigned char)s[0]) &&
	       (p[1] == '\\' || p[1] == '/');
}

static void add_path(struct pd_symctx *c, const char *path)
{
	const char *s = path, *e;

	while (*s) {
		const char *colon;

		e = s + strcspn(s, ";");
		/* POSIX lists use ':'; a Windows element has '*' or a drive. */
		if (!memchr(s, '*', (size_t)(e - s)) &&
		    (colon = memchr(s, ':', (size_t)(e - s))) &&
		    !drive_at(s, colon)) {
			const char *p = s;

			while (p < e) {
				const char *q = memchr(p, ':', (size_t)(e - p));

				if (!q)
					q = e;
				add_element(c, p, (size_t)(q - p));
				p = q < e ? q + 1 : e;
			}
		} else
			add_element(c, s, (size_t)(e - s));
		s = *e ? e + 1 : e;
	}
}

/*
 * The dist/ folder of the bundle holding the profile at path, when it is
 * one of a bundle's profiles (BUNDLE/profiles/.../FILE, with BUNDLE/dist
 * a folder: docs/history.md, "Bundles"), into out; 0 when not.
 */
static int bundle_dist(const char *path, struct pd_buf *out)
{
	size_t n = strlen(path);

	while (n > 0) {
		size_t end, start;

		/* the parent folder of path[0, n) */
		while (n > 0 && path[n - 1] != '/' && path[n - 1] != '\\')
			n--;
		while (n > 1 && (path[n - 1] == '/' || path[n - 1] == '\\'))
			n--;
		if (n <= 1)
			return 0;
		end = n;
		start = end;
		while (start > 0 && path[start - 1] != '/' &&
		       path[start - 1] != '\\')
			start--;
		if (end - start == 8 && !memcmp(path + start, "profiles", 8)) {
			pd_buf_reset(out);
			pd_buf_addf(out, "%.*sdist", (int)start, path);
			if (!start)
				pd_buf_reset(out), pd_buf_adds(out, "dist");
			if (pd_is_dir(out->buf))
				return 1;
		}
		n = start;
	}
	return 0;
}

struct pd_symctx *pd_symctx_new(const char *const *paths,
				const char *symbolizer, const char *profile)
{
	struct pd_symctx *c = pd_xcalloc(1, sizeof(*c));
	const char *env = getenv("PERFDIFF_SYMBOL_PATH");
	struct pd_buf dist = PD_BUF_INIT;
	size_t i;

	pd_buf_init(&c->notes);
	for (i = 0; paths && paths[i]; i++)
		add_path(c, paths[i]);
	if ((!paths || !paths[0]) && env && *env)
		add_path(c, env);
	/* a bundle's own build, after what the user named */
	if (profile && bundle_dist(profile, &dist))
		add_dir(c, dist.buf, dist.len);
	pd_buf_release(&dist);
	c->forced_tool = symbolizer;
	if (!c->dirs.n && !c->notes.len) {
		pd_symctx_free(c);
		return NULL;
	}
	return c;
}

void pd_symctx_free(struct pd_symctx *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->dirs.n; i++)
		free(c->dirs.v[i]);
	PD_VEC_FREE(&c->dirs);
	for (i = 0; i < c->idx.n; i++) {
		free(c->idx.v[i].key);
		free(c->idx.v[i].path);
	}
	PD_VEC_FREE(&c->idx);
	pd_buf_release(&c->notes);
	free(c->tool.path);
	free(c);
}

const char *pd_symctx_notes(const struct pd_symctx *c)
{
	return c->notes.buf;
}

static char *lower(const char *s)
{
	char *r = pd_xstrdup(s), *p;

	for (p = r; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	return r;
}

static void walk(struct pd_symctx *c, const char *dir, int depth)
{
	DIR *d;
	struct dirent *e;

	if (depth > MAX_DEPTH || !(d = opendir(dir)))
		return;
	while ((e = readdir(d)) && c->visited < MAX_ENTRIES) {
		struct pd_buf p = PD_BUF_INIT;
		struct stat st;

		if (e->d_name[0] == '.')
			continue; /* ., .., hidden; .build-id is probed */
		c->visited++;
		pd_buf_addf(&p, "%s/%s", dir, e->d_name);
		if (stat(p.buf, &st) == 0) {
			if (S_ISDIR(st.st_mode))
				walk(c, p.buf, depth + 1);
			else if (S_ISREG(st.st_mode)) {
				struct ient x = { lower(e->d_name),
						  pd_buf_detach(&p) };

				PD_VEC_PUSH(&c->idx, x);
			}
		}
		pd_buf_release(&p);
	}
	closedir(d);
}

static int cmp_ient(const void *a, const void *b)
{
	const struct ient *x = a, *y = b;
	int r = strcmp(x->key, y->key);

	return r ? r : strcmp(x->path, y->path);
}

static void build_index(struct pd_symctx *c)
{
	size_t i;

	if (c->indexed)
		return;
	c->indexed = 1;
	for (i = 0; i < c->dirs.n; i++)
		walk(c, c->dirs.v[i], 0);
	if (c->visited >= MAX_ENTRIES)
		note(c,
		     "symbol path: stopped listing after %d files and folders;"
		     " name narrower folders with --symbols",
		     MAX_ENTRIES);
	if (c->idx.n > 1)
		pd_sort(c->idx.v, c->idx.n, sizeof(*c->idx.v), cmp_ient);
}

/* The entry of dir named name without regard to case (owned), or NULL. */
static char *child_ci(const char *dir, const char *name)
{
	struct pd_buf p = PD_BUF_INIT;
	DIR *d;
	struct dirent *e;
	struct stat st;

	pd_buf_addf(&p, "%s/%s", dir, name);
	if (!strchr(name, '/') && stat(p.buf, &st) == 0)
		return pd_buf_detach(&p);
	pd_buf_release(&p);
	if (strchr(name, '/') || !(d = opendir(dir)))
		return NULL;
	while ((e = readdir(d)))
		if (!strcasecmp(e->d_name, name)) {
			pd_buf_addf(&p, "%s/%s", dir, e->d_name);
			break;
		}
	closedir(d);
	return p.len ? pd_buf_detach(&p) : NULL;
}

struct cands {
	PD_VEC(char *) v;
};

static void cand_add(struct cands *cs, char *path)
{
	size_t i;

	if (!path)
		return;
	for (i = 0; i < cs->v.n; i++)
		if (!strcmp(cs->v.v[i], path)) {
			free(path);
			return;
		}
	if (cs->v.n >= MAX_CANDIDATES || !pd_is_file(path)) {
		free(path);
		return;
	}
	PD_VEC_PUSH(&cs->v, path);
}

/* SymStore: ROOT/NAME/ID/NAME, and two-tier ROOT/NA/NAME/ID/NAME. */
static void probe_symstore(const char *root, const char *name, const char *id,
			   struct cands *cs, struct pd_buf *seen)
{
	char two[3] = { 0 };
	size_t t;

	if (!*name || !*id || strchr(name, '/') || strchr(id, '/'))
		return;
	two[0] = (char)tolower((unsigned char)name[0]);
	two[1] = name[1] ? (char)tolower((unsigned char)name[1]) : '\0';
	{
		char *tier = child_ci(root, two);

		for (t = 0; t < 2; t++) {
			const char *top = t ? tier : root;
			char *a, *b;

			if (!top)
				continue;
			a = child_ci(top, name);
			b = a ? child_ci(a, id) : NULL;
			if (b) {
				char *f = child_ci(b, name);
				struct pd_buf z = PD_BUF_INIT;

				if (f)
					cand_add(cs, f);
				/* symstore /compress leaves NAME.pd_ */
				pd_buf_addf(&z, "%.*s_", (int)strlen(name) - 1,
					    name);
				if (!f && (f = child_ci(b, z.buf))) {
					pd_buf_addf(seen,
						    "%s%s is compressed (expand"
						    " it with cabextract or"
						    " Windows' expand)",
						    seen->len ? "; " : "", f);
					free(f);
				}
				pd_buf_release(&z);
			}
			free(a);
			free(b);
		}
		free(tier);
	}
}

static const char *base_of(const char *p)
{
	const char *s = p ? strrchr(p, '/') : NULL;
	const char *b = p ? strrchr(p, '\\') : NULL;

	if (b && (!s || b > s))
		s = b;
	return s ? s + 1 : p;
}

static void gather(struct pd_symctx *c, const struct pd_libinfo *lib,
		   const char *const names[4], struct cands *cs,
		   struct pd_buf *seen)
{
	char did[42];
	size_t d, i;

	pd_debugid_norm(lib->breakpad_id, did);
	for (d = 0; d < c->dirs.n; d++) {
		const char *root = c->dirs.v[d];

		for (i = 0; i < 4; i++) {
			if (!names[i])
				continue;
			probe_symstore(root, names[i], did, cs, seen);
			if (lib->code_id)
				probe_symstore(root, names[i], lib->code_id, cs,
					       seen);
		}
		if (lib->code_id && strlen(lib->code_id) > 2 &&
		    !strchr(lib->code_id, '/')) {
			struct pd_buf p = PD_BUF_INIT;
			char *lc = lower(lib->code_id);

			pd_buf_addf(&p, "%s/.build-id/%.2s/%s.debug", root, lc,
				    lc + 2);
			cand_add(cs, pd_buf_detach(&p));
			pd_buf_addf(&p, "%s/.build-id/%.2s/%s", root, lc,
				    lc + 2);
			cand_add(cs, pd_buf_detach(&p));
			free(lc);
		}
	}
	build_index(c);
	for (i = 0; i < 4; i++) {
		struct ient key;
		size_t lo = 0, hi = c->idx.n;

		if (!names[i])
			continue;
		key.key = lower(names[i]);
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;

			if (strcmp(c->idx.v[mid].key, key.key) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (; lo < c->idx.n && !strcmp(c->idx.v[lo].key, key.key);
		     lo++)
			cand_add(cs, pd_xstrdup(c->idx.v[lo].path));
		free(key.key);
	}
}

static const char *arch_name(uint32_t cputype)
{
	switch (cputype) {
	case 0x01000007:
		return "x86_64";
	case 0x0100000c:
		return "arm64";
	case 7:
		return "i386";
	case 12:
		return "arm";
	}
	return NULL;
}

struct found {
	char *path;
	struct pd_objid id;
	uint64_t base;
};

static int in_dsym(const char *path)
{
	return strstr(path, ".dSYM/Contents/Resources/DWARF/") != NULL;
}

static size_t run_tool(struct pd_symctx *c, const struct found *obj,
		       const struct found *beside, struct pd_symreq *reqs,
		       size_t n, struct pd_buf *why)
{
	struct pd_symjob job;
	size_t got, i;

	if (!c->tool_looked) {
		pd_symtool_find(c->forced_tool, &c->tool);
		c->tool_looked = 1;
	}
	if (!c->tool.path) {
		pd_buf_addf(why,
			    "%s matches, but no symbolizer was found (install"
			    " llvm, or pass --symbolizer PATH)",
			    obj->path);
		return 0;
	}
	memset(&job, 0, sizeof(job));
	job.obj = obj->path;
	job.base = obj->base;
	if (beside) {
		job.beside = beside->path;
		job.beside_as = obj->id.pdb_name;
	}
	if (obj->id.kind == PD_OBJ_MACHO && obj->id.nslices > 1)
		for (i = 0; i < obj->id.nslices; i++)
			if (obj->id.slice[i].text_vmaddr == obj->base)
				job.arch = arch_name(obj->id.slice[i].cputype);
	got = pd_symtool_run(&c->tool, &job, reqs, n);
	if (got)
		pd_buf_addf(why, "from %s%s%s", obj->path,
			    beside ? " and " : "", beside ? beside->path : "");
	else
		pd_buf_addf(why,
			    "%s matches, but %s named none of its %zu"
			    " addresses",
			    obj->path, c->tool.path, n);
	return got;
}

size_t pd_symctx_resolve(struct pd_symctx *c, const struct pd_libinfo *lib,
			 struct pd_symreq *reqs, size_t n, struct pd_buf *why)
{
	const char *names[4];
	struct cands cs = { PD_VEC_INIT };
	struct found exe = { 0 }, pdb = { 0 }, dwarf = { 0 }, bin = { 0 },
		     elf = { 0 }, *f;
	struct pd_buf seen = PD_BUF_INIT, other = PD_BUF_INIT;
	size_t i, k, got = 0, nother = 0;
	char did[42];

	pd_debugid_norm(lib->breakpad_id, did);
	if (!did[0] && !(lib->code_id && *lib->code_id)) {
		pd_buf_adds(why, "the profile gives no debug id or code id, so"
				 " no file can be checked; left unresolved");
		return 0;
	}
	names[0] = base_of(lib->debug_name);
	names[1] = base_of(lib->name);
	names[2] = base_of(lib->path);
	names[3] = base_of(lib->debug_path);
	for (i = 0; i < 4; i++) {
		if (names[i] && !*names[i])
			names[i] = NULL;
		for (k = 0; k < i && names[i]; k++)
			if (names[k] && !strcasecmp(names[k], names[i]))
				names[i] = NULL;
	}
	gather(c, lib, names, &cs, &seen);
	for (i = 0; i < cs.v.n; i++) {
		struct pd_objid id;
		uint64_t base;
		int m;

		if (pd_objid_file(cs.v.v[i], &id) || id.kind == PD_OBJ_NONE)
			continue;
		m = pd_objid_match(&id, lib->breakpad_id, lib->code_id, &base);
		if (m != 1) {
			if (!nother++) {
				pd_buf_addf(&other, "%s (%s, ", cs.v.v[i],
					    pd_objid_kind_name(id.kind));
				pd_objid_describe(&id, &other);
				pd_buf_addch(&other, ')');
			}
			continue;
		}
		f = id.kind == PD_OBJ_PE    ? &exe
		    : id.kind == PD_OBJ_PDB ? &pdb
		    : id.kind == PD_OBJ_ELF ? &elf
		    : in_dsym(cs.v.v[i])    ? &dwarf
					    : &bin;
		if (f->path)
			continue; /* the first of equal builds */
		f->path = pd_xstrdup(cs.v.v[i]);
		f->id = id;
		f->base = base;
	}
	if (elf.path) {
		got = pd_symbols_elf(elf.path, elf.base, reqs, n);
		pd_buf_addf(why, "from %s", elf.path);
	} else if (dwarf.path || bin.path) {
		got =
		    run_tool(c, dwarf.path ? &dwarf : &bin, NULL, reqs, n, why);
	} else if (exe.path && exe.id.pdb_name[0] && !pdb.path) {
		pd_buf_addf(why,
			    "%s matches, but no %s with debug id %s was found"
			    " (copy the PDB of this build)",
			    exe.path, exe.id.pdb_name, exe.id.debug_id);
	} else if (exe.path) {
		got = run_tool(c, &exe, pdb.path ? &pdb : NULL, reqs, n, why);
	} else if (pdb.path) {
		pd_buf_addf(why,
			    "%s matches, but the executable with code id %s is"
			    " needed next to it (the symbolizer reads the PDB"
			    " through it)",
			    pdb.path, lib->code_id ? lib->code_id : "?");
	} else if (nother) {
		pd_buf_addf(why,
			    "no file of this build (the profile wants"
			    " debug id %s%s%s)",
			    did[0] ? did : "(none)",
			    lib->code_id ? ", code id " : "",
			    lib->code_id ? lib->code_id : "");
	} else {
		pd_buf_adds(why, "no file named");
		for (i = 0, k = 0; i < 4; i++)
			if (names[i])
				pd_buf_addf(why, "%s %s", k++ ? "," : "",
					    names[i]);
		pd_buf_adds(why, " under the symbol path");
	}
	if (nother) {
		pd_buf_addf(why, "; not used, another build: %s", other.buf);
		if (nother > 1)
			pd_buf_addf(why, " and %zu more", nother - 1);
	}
	if (seen.len)
		pd_buf_addf(why, "; %s", seen.buf);
	for (i = 0; i < cs.v.n; i++)
		free(cs.v.v[i]);
	PD_VEC_FREE(&cs.v);
	free(exe.path);
	free(pdb.path);
	free(dwarf.path);
	free(bin.path);
	free(elf.path);
	pd_buf_release(&seen);
	pd_buf_release(&other);
	return got;
}
