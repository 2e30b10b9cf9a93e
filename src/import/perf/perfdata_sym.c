/*
 * Naming the addresses of a perf.data recording (docs/formats.md,
 * "perf.data read directly"; docs/symbols.md, "Identity"). A file is
 * used only when it is the build that ran: its GNU build id equals the
 * one perf recorded. perf records ids only for the files samples hit
 * directly; a file known only from a mapping (a library that appears in
 * call chains alone) is used when this is the machine that recorded
 * (same host name) and the path still holds the very file that was
 * mapped (same device and inode). Anything else stays unnamed, named
 * after its module, with a note.
 *
 * Where files are looked for, by build id: /usr/lib/debug/.build-id
 * (distribution debug symbols), the path recorded, perf's build-id cache
 * ($PERF_BUILDID_DIR, else ~/.debug, which perf record fills), then the
 * --symbols folders. Kernel addresses are named from the kernel symbol
 * list perf cached for the recorded kernel build id, else from
 * /proc/kallsyms when the running kernel is the recorded one.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/sort.h"
#include "core/xalloc.h"
#include "import/symbols/objid.h"
#include "import/perf/perfdata_int.h"
#include "import/symbols/symbols.h"
#include "import/symbols/symfind.h"

#define MAX_NOTES 8

struct ksym {
	uint64_t addr;
	const char *name;   /* in ksyms.text, NUL-terminated */
	const char *module; /* "[kvm]", or NULL for the kernel itself */
};

struct ksyms {
	PD_VEC(struct ksym) v;
	struct pd_buf text; /* the list as read; names point into it */
	const char *from;   /* where they were read, NULL when nowhere */
};

static void buildid_dir(struct pd_buf *b)
{
	const char *d = getenv("PERF_BUILDID_DIR"), *home = getenv("HOME");

	if (d && *d)
		pd_buf_adds(b, d);
	else if (home && *home)
		pd_buf_addf(b, "%s/.debug", home);
}

/* Whether path is an ELF file whose build id is bid; fills id. */
static int is_build(const char *path, const char *bid, struct pd_objid *id)
{
	return bid[0] && !pd_objid_file(path, id) && id->kind == PD_OBJ_ELF &&
	       !strcasecmp(id->code_id, bid);
}

/*
 * The build id of a DSO recorded without one: that of the file at its
 * path when it is the file that was mapped; "" otherwise, with why.
 */
static void id_by_inode(const struct pdd_syms *s, const struct pdd_dso *x,
			char bid[41], struct pd_buf *why)
{
	struct stat st;
	struct pd_objid id;

	bid[0] = 0;
	if (x->name[0] != '/') {
		pd_buf_adds(why, "no build id recorded");
		return;
	}
	if (!x->has_ino || !pd_pdd_same_host(s)) {
		pd_buf_addf(why,
			    "no build id recorded, and no way to tell that"
			    " the file now at that path is the one that ran"
			    " (%s; perf record --buildid-all records every"
			    " file's id)",
			    !x->has_ino	   ? "its mapping names no inode"
			    : !s->hostname ? "the recording names no host"
					   : "recorded on another host");
		return;
	}
	if (stat(x->name, &st) || st.st_ino != x->ino ||
	    major(st.st_dev) != x->maj || minor(st.st_dev) != x->min) {
		pd_buf_adds(why, "no build id recorded, and the file at that"
				 " path is not the one that ran (replaced"
				 " since)");
		return;
	}
	if (pd_objid_file(x->name, &id) || id.kind != PD_OBJ_ELF ||
	    !id.code_id[0]) {
		pd_buf_adds(why, "not an ELF file with a build id");
		return;
	}
	snprintf(bid, 41, "%.40s", id.code_id);
}

/* The files that may hold bid's symbols, best first. */
static size_t candidates(const struct pdd_dso *x, const char *bid,
			 struct pd_buf *c /* NUL-separated */)
{
	struct pd_buf dir = PD_BUF_INIT;
	size_t n = 0;

	if (strlen(bid) < 3)
		return 0;
	pd_buf_addf(c, "/usr/lib/debug/.build-id/%.2s/%s.debug", bid, bid + 2);
	pd_buf_addch(c, 0);
	n++;
	if (x->name[0] == '/') {
		pd_buf_add(c, x->name, strlen(x->name) + 1);
		n++;
	}
	buildid_dir(&dir);
	if (dir.len) {
		static const char *const tails[] = { "/elf", "/debug", "/vdso",
						     "" };
		size_t k;

		for (k = 0; k < 4; k++) {
			pd_buf_addf(c, "%s/.build-id/%.2s/%s%s", dir.buf, bid,
				    bid + 2, tails[k]);
			pd_buf_addch(c, 0);
			n++;
		}
	}
	pd_buf_release(&dir);
	return n;
}

/*
 * Turns file offsets into addresses with the segments of the verified
 * file that places most of them (a .debug file keeps its program
 * headers, but its code segment holds no bytes); an offset in no segment
 * is marked never to name. 0 when no file places any.
 */
static int to_vaddr(const char *files, size_t nc, const unsigned char *ok,
		    const char *bid, struct pd_symreq *reqs,
		    const uint64_t *offs, size_t n)
{
	const char *f = files;
	struct pd_objid id, best;
	size_t k, i, most = 0;
	uint64_t v;

	for (k = 0; k < nc; k++, f += strlen(f) + 1) {
		size_t placed = 0;

		if (!ok[k] || !is_build(f, bid, &id))
			continue;
		for (i = 0; i < n; i++)
			placed += !pd_objid_elf_vaddr(&id, offs[i], &v);
		if (placed > most) {
			most = placed;
			best = id;
		}
	}
	for (i = 0; most && i < n; i++)
		if (pd_objid_elf_vaddr(&best, offs[i], &reqs[i].addr))
			reqs[i].name = pd_xstrdup("");
	return most > 0;
}

/* Names reqs (file offsets) of one user-space DSO; returns how many. */
static size_t name_user(const struct pdd_syms *s, const struct pdd_dso *x,
			struct pd_symreq *reqs, uint64_t *offs, size_t n,
			struct pd_symctx *ctx, struct pd_buf *why)
{
	struct pd_buf c = PD_BUF_INIT;
	struct pd_objid id;
	unsigned char ok[8] = { 0 }; /* candidates() gives at most 6 */
	const char *f;
	char bid[41];
	size_t k, got = 0, nc, used = 0;
	int vaddrs;

	if (x->bid[0])
		snprintf(bid, sizeof(bid), "%s", x->bid);
	else
		id_by_inode(s, x, bid, why);
	if (!bid[0])
		goto out;
	nc = candidates(x, bid, &c);
	for (f = c.buf, k = 0; k < nc; k++, f += strlen(f) + 1)
		ok[k] = (unsigned char)is_build(f, bid, &id);
	vaddrs = to_vaddr(c.buf, nc, ok, bid, reqs, offs, n);
	for (f = c.buf, k = 0; vaddrs && k < nc; k++, f += strlen(f) + 1) {
		if (got < n && ok[k]) {
			got += pd_symbols_elf(f, 0, reqs, n);
			used++;
		}
	}
	if (got < n && ctx) {
		struct pd_libinfo li = {
			x->name, x->name, NULL, NULL, NULL, bid
		};
		const char *base = strrchr(x->name, '/');

		li.name = base ? base + 1 : x->name;
		if (!vaddrs)
			for (k = 0; k < n; k++)
				reqs[k].addr = offs[k];
		got += pd_symctx_resolve(ctx, &li, reqs, n, why);
		used++;
	}
	if (!used && !why->len)
		pd_buf_addf(why,
			    "no file with build id %s (looked in"
			    " /usr/lib/debug/.build-id, at the path, in"
			    " perf's build-id cache; --symbols DIR adds a"
			    " folder)",
			    bid);
out:
	pd_buf_release(&c);
	return got;
}

/* ---- the kernel ---- */

static int cmp_ksym(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return (x->addr > y->addr) - (x->addr < y->addr);
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/*
 * One line of a kallsyms list, "ffffffff81000000 T _text [module]",
 * cut in place; 0 when it is a function (types t, T, w, W).
 */
static int ksym_line(char *l, char *end, struct ksym *s)
{
	uint64_t a = 0;
	char *p = l, *name, *mod = NULL;
	int v, type;

	for (; p < end && (v = hexval((unsigned char)*p)) >= 0; p++)
		a = a << 4 | (uint64_t)v;
	if (p == l || p + 3 > end || *p != ' ' || p[2] != ' ')
		return -1;
	type = p[1];
	if (!strchr("tTwW", type))
		return -1;
	name = p + 3;
	for (p = name; p < end && *p != ' ' && *p != '\t'; p++)
		;
	if (p < end) {
		*p++ = 0;
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (p < end && *p == '[')
			mod = p;
	}
	*end = 0;
	if (!*name)
		return -1;
	s->addr = a;
	s->name = name;
	s->module = mod;
	return 0;
}

/* Reads a kallsyms list; 0 when it had usable (non-zero) addresses. */
static int read_kallsyms(const char *path, struct ksyms *k)
{
	FILE *f = fopen(path, "r");
	char chunk[65536], *l, *e, *end;
	size_t n, nonzero = 0;
	int sorted = 1;

	if (!f)
		return -1;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		pd_buf_add(&k->text, chunk, n);
	fclose(f);
	pd_buf_addch(&k->text, '\n');
	end = k->text.buf + k->text.len;
	for (l = k->text.buf; l < end; l = e + 1) {
		struct ksym s;

		e = memchr(l, '\n', (size_t)(end - l));
		if (ksym_line(l, e, &s))
			continue;
		nonzero += s.addr != 0;
		if (k->v.n && s.addr < k->v.v[k->v.n - 1].addr)
			sorted = 0;
		PD_VEC_PUSH(&k->v, s);
	}
	if (!nonzero) {
		k->v.n = 0;
		return -1;
	}
	if (!sorted) /* /proc/kallsyms is, but for modules */
		pd_sort(k->v.v, k->v.n, sizeof(*k->v.v), cmp_ksym);
	return 0;
}

/* The running kernel's build id, from /sys/kernel/notes. */
static void running_kernel_bid(char bid[41])
{
	unsigned char b[4096];
	FILE *f = fopen("/sys/kernel/notes", "rb");
	size_t n = f ? fread(b, 1, sizeof(b), f) : 0, at = 0;

	bid[0] = 0;
	if (f)
		fclose(f);
	while (at + 12 <= n) {
		uint32_t nsz, dsz, type;

		memcpy(&nsz, b + at, 4);
		memcpy(&dsz, b + at + 4, 4);
		memcpy(&type, b + at + 8, 4);
		at += 12;
		if (nsz > n || dsz > n || at + ((nsz + 3) & ~3u) > n)
			return;
		if (type == 3 && nsz == 4 && !memcmp(b + at, "GNU", 4) &&
		    dsz <= 20 && at + 4 + dsz <= n) {
			size_t k;

			for (k = 0; k < dsz; k++)
				snprintf(bid + 2 * k, 3, "%02x", b[at + 4 + k]);
			return;
		}
		at += ((nsz + 3) & ~3u) + ((dsz + 3) & ~3u);
	}
}

static void load_kernel(const struct pdd_syms *s, struct ksyms *k,
			struct pd_buf *why)
{
	struct pd_buf dir = PD_BUF_INIT, p = PD_BUF_INIT;
	char run[41];
	struct utsname u;

	buildid_dir(&dir);
	if (s->kernel_bid[0] && dir.len) {
		pd_buf_addf(&p, "%s/[kernel.kallsyms]/%s/kallsyms", dir.buf,
			    s->kernel_bid);
		if (!read_kallsyms(p.buf, k))
			k->from = "perf's build-id cache";
	}
	running_kernel_bid(run);
	if (!k->from &&
	    (s->kernel_bid[0]
		 ? !strcmp(run, s->kernel_bid)
		 : pd_pdd_same_host(s) && !uname(&u) && s->osrelease &&
		       !strcmp(u.release, s->osrelease))) {
		if (!read_kallsyms("/proc/kallsyms", k))
			k->from = "/proc/kallsyms";
		else
			pd_buf_adds(why, "/proc/kallsyms shows no addresses"
					 " (kernel.kptr_restrict)");
	}
	if (!k->from && !why->len && s->kernel_bid[0])
		pd_buf_addf(why,
			    "the recorded kernel, build id %s, is not the one"
			    " running here and perf's build-id cache has no"
			    " symbol list for it",
			    s->kernel_bid);
	else if (!k->from && !why->len)
		pd_buf_adds(why, "no kernel build id recorded, and no way to"
				 " tell that the running kernel is the"
				 " recorded one");
	pd_buf_release(&dir);
	pd_buf_release(&p);
}

/* Names kernel addresses: the last symbol at or below each. */
static size_t name_kernel(const struct ksyms *k, struct pdd_addr **as, size_t n)
{
	size_t i, got = 0;

	for (i = 0; i < n && k->v.n; i++) {
		uint64_t a = as[i]->key;
		size_t lo = 0, hi = k->v.n;

		while (lo < hi) {
			size_t mid = (lo + hi) / 2;

			if (k->v.v[mid].addr <= a)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (!lo || lo == k->v.n)
			continue; /* below the first or past the last */
		as[i]->name = pd_xstrdup(k->v.v[lo - 1].name);
		if (k->v.v[lo - 1].module)
			as[i]->module = pd_xstrdup(k->v.v[lo - 1].module);
		got++;
	}
	return got;
}

/* ---- all DSOs ---- */

static int cmp_addr_dso(const void *a, const void *b)
{
	const struct pdd_addr *const *x = a, *const *y = b;

	if ((*x)->dso != (*y)->dso)
		return (*x)->dso < (*y)->dso ? -1 : 1;
	return ((*x)->key > (*y)->key) - ((*x)->key < (*y)->key);
}

static void note_unnamed(struct pd_profile *p, const char *path,
			 const struct pdd_dso *x, size_t left, size_t n,
			 const char *why, size_t *notes)
{
	if (!left || !why[0])
		return;
	if ((*notes)++ < MAX_NOTES)
		pd_profile_note(p,
				"%s: %zu of %zu addresses in %s left unnamed:"
				" %s",
				path, left, n, x->name, why);
}

/* Names the n addresses of one DSO (as, sorted by key). */
static size_t name_dso(const struct pdd_syms *s, struct pdd_dso *x,
		       struct pdd_addr **as, size_t n, struct ksyms *k,
		       int *kernel_tried, struct pd_symctx *ctx,
		       const struct pd_import_opts *o, const char *path,
		       struct pd_buf *why)
{
	struct pd_symreq *reqs;
	uint64_t *offs;
	size_t i, got;

	if (x->jit)
		return pd_pdd_name_jit(s, x, as, n, path, o->symbol_dirs, why);
	if (x->kernel) {
		if (!*kernel_tried) {
			*kernel_tried = 1;
			load_kernel(s, k, why);
		}
		return name_kernel(k, as, n);
	}
	reqs = pd_xcalloc(n, sizeof(*reqs));
	offs = pd_xcalloc(n, sizeof(*offs));
	for (i = 0; i < n; i++)
		offs[i] = as[i]->key;
	got = name_user(s, x, reqs, offs, n, ctx, why);
	for (i = 0; i < n; i++) {
		if (reqs[i].name && !*reqs[i].name) {
			free(reqs[i].name);
			reqs[i].name = NULL;
		}
		as[i]->name = reqs[i].name; /* moved */
		free(reqs[i].inlined);
	}
	free(reqs);
	free(offs);
	return got;
}

void pd_pdd_symbolize(struct pdd_syms *s, struct pd_profile *p,
		      const struct pd_import_opts *o, const char *path)
{
	struct pdd_addr **as = pd_xcalloc(s->addrs.n + 1, sizeof(*as));
	struct pd_symctx *ctx =
	    o->symbol_dirs ? pd_symctx_new(o->symbol_dirs, o->symbolizer, path)
			   : NULL;
	struct ksyms k = { PD_VEC_INIT, PD_BUF_INIT, NULL };
	struct pd_buf why = PD_BUF_INIT, kwhy = PD_BUF_INIT;
	size_t i, j, notes = 0;
	int kernel_tried = 0;

	for (i = 0; i < s->addrs.n; i++)
		as[i] = &s->addrs.v[i];
	pd_sort(as, s->addrs.n, sizeof(*as), cmp_addr_dso);
	for (i = 0; i < s->addrs.n; i = j) {
		struct pdd_dso *x = &s->dsos.v[as[i]->dso];
		size_t got;

		for (j = i; j < s->addrs.n && as[j]->dso == as[i]->dso; j++)
			;
		if (as[i]->dso == PDD_NO_DSO)
			continue;
		pd_buf_reset(&why);
		got = name_dso(s, x, as + i, j - i, &k, &kernel_tried, ctx, o,
			       path, x->kernel ? &kwhy : &why);
		note_unnamed(p, path, x, got ? 0 : j - i, j - i,
			     x->kernel ? kwhy.buf : why.buf, &notes);
	}
	if (notes > MAX_NOTES)
		pd_profile_note(p, "%s: %zu more files left unnamed", path,
				notes - MAX_NOTES);
	PD_VEC_FREE(&k.v);
	pd_buf_release(&k.text);
	pd_buf_release(&why);
	pd_buf_release(&kwhy);
	pd_symctx_free(ctx);
	free(as);
}
