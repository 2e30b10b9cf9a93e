/*
 * Code a JIT compiler wrote at run time, named from the map it keeps for
 * perf (docs/formats.md, "perf.data read directly": "JIT code"). perf
 * gives an executable anonymous mapping of process PID the file name
 * /tmp/perf-PID.map, in which the JIT (node --perf-basic-prof, Java's
 * perf-map-agent, .NET's DOTNET_PerfMapEnabled) writes one line per
 * function: "START SIZE NAME", START and SIZE in hex. The addresses are
 * the process's own, so they are kept whole, not as file offsets.
 *
 * A map is only as good as its process: PIDs come back, and a later
 * process with the same PID rewrites the file. So the map is read on the
 * machine that recorded, and only when it was last written no later than
 * the recording itself (its modification time up to the perf.data file's,
 * with a few seconds for the writes to settle); a copy kept with the
 * recording in a --symbols folder is read as it is. Otherwise the
 * addresses stay unnamed, with a note that says why.
 */
#include <unistd.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/buf.h"
#include "core/sort.h"
#include "core/xalloc.h"
#include "import/perf/perfdata_int.h"

int pd_pdd_same_host(const struct pdd_syms *s)
{
	char here[256];

	if (!s->hostname || gethostname(here, sizeof(here)))
		return 0;
	here[sizeof(here) - 1] = 0;
	return !strcmp(here, s->hostname);
}

/* How much later than the recording a map may have been written. */
#define JIT_MAP_SLACK 5

struct jsym {
	uint64_t start, end;
	size_t name;  /* offset in the names */
	size_t order; /* line number: the first line wins a tie */
};

static int cmp_jsym(const void *a, const void *b)
{
	const struct jsym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->order > y->order) - (x->order < y->order);
}

/* One "START SIZE NAME" line; 0 when it is not one. */
static int map_line(char *l, struct jsym *s, struct pd_buf *names)
{
	char *e, *name;
	unsigned long long start, size;

	errno = 0;
	start = strtoull(l, &e, 16);
	if (e == l || *e != ' ' || errno)
		return 0;
	l = e + 1;
	size = strtoull(l, &e, 16);
	if (e == l || *e != ' ' || errno || !size || start + size < start)
		return 0;
	name = e + 1;
	name[strcspn(name, "\r\n")] = '\0';
	if (!*name)
		return 0;
	s->start = start;
	s->end = start + size;
	s->name = names->len;
	pd_buf_adds(names, name);
	pd_buf_addch(names, '\0');
	return 1;
}

/* Reads the map at path into v, sorted; 0, or -1 when it cannot. */
static int read_map(const char *path, void *vv, struct pd_buf *names)
{
	PD_VEC(struct jsym) *v = vv;
	FILE *f = fopen(path, "r");
	char line[4096];
	struct jsym s;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strchr(line, '\n') && !feof(f)) {
			int c;

			/* a name past the buffer: the line is skipped */
			while ((c = fgetc(f)) != EOF && c != '\n')
				;
			continue;
		}
		s.order = v->n;
		if (map_line(line, &s, names))
			PD_VEC_PUSH(v, s);
	}
	fclose(f);
	if (v->n > 1)
		pd_sort(v->v, v->n, sizeof(*v->v), cmp_jsym);
	return 0;
}

/*
 * The entry covering a: of those starting at or below it, the one with
 * the highest start (the first written among equal starts), if a lies
 * before its end.
 */
static const struct jsym *find(const struct jsym *v, size_t n, uint64_t a)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].start <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	lo--;
	while (lo > 0 && v[lo - 1].start == v[lo].start)
		lo--;
	return a < v[lo].end ? &v[lo] : NULL;
}

/*
 * Where the map of x is read from: a --symbols folder's copy (by its
 * base name), else the recorded path when this machine recorded and the
 * file is no newer than the recording. "" and why otherwise.
 */
static void map_path(const struct pdd_syms *s, const struct pdd_dso *x,
		     const char *data_path, const char *const *dirs,
		     struct pd_buf *out, struct pd_buf *why)
{
	const char *base = strrchr(x->name, '/');
	struct stat m, d;
	size_t i;

	base = base ? base + 1 : x->name;
	for (i = 0; dirs && dirs[i]; i++) {
		pd_buf_reset(out);
		pd_buf_addf(out, "%s/%s", dirs[i], base);
		if (!stat(out->buf, &m) && S_ISREG(m.st_mode))
			return;
	}
	pd_buf_reset(out);
	if (!pd_pdd_same_host(s)) {
		pd_buf_addf(why,
			    "recorded on another machine (copy %s into a"
			    " --symbols folder)",
			    x->name);
		return;
	}
	if (stat(x->name, &m) || !S_ISREG(m.st_mode)) {
		pd_buf_addf(why,
			    "no %s (the JIT writes it when asked: node"
			    " --perf-basic-prof, DOTNET_PerfMapEnabled=1,"
			    " perf-map-agent)",
			    x->name);
		return;
	}
	if (!stat(data_path, &d) && m.st_mtime > d.st_mtime + JIT_MAP_SLACK) {
		pd_buf_addf(why,
			    "%s was written after the recording (another"
			    " process with the same PID?)",
			    x->name);
		return;
	}
	pd_buf_adds(out, x->name);
}

size_t pd_pdd_name_jit(const struct pdd_syms *s, const struct pdd_dso *x,
		       struct pdd_addr **as, size_t n, const char *data_path,
		       const char *const *dirs, struct pd_buf *why)
{
	PD_VEC(struct jsym) v = PD_VEC_INIT;
	struct pd_buf names = PD_BUF_INIT, path = PD_BUF_INIT;
	size_t i, got = 0;

	map_path(s, x, data_path, dirs, &path, why);
	if (!path.len)
		goto out;
	if (read_map(path.buf, &v, &names) < 0) {
		pd_buf_addf(why, "%s: %s", path.buf, strerror(errno));
		goto out;
	}
	for (i = 0; i < n; i++) {
		const struct jsym *j = find(v.v, v.n, as[i]->key);

		if (j) {
			as[i]->name = pd_xstrdup(names.buf + j->name);
			got++;
		}
	}
	if (got < n && !why->len)
		pd_buf_addf(why, "not in %s", path.buf);
out:
	PD_VEC_FREE(&v);
	pd_buf_release(&names);
	pd_buf_release(&path);
	return got;
}
