/*
 * External symbolizers, run once per library (docs/symbols.md). The child
 * runs in a fresh directory that holds links to the verified files only,
 * reads the addresses from a file there and writes names to a pipe.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/limits.h"
#include "core/buf.h"
#include "core/file.h"
#include "core/proc.h"
#include "core/vec.h"
#include "core/xalloc.h"
#include "import/symbols/symbolizer.h"

void pd_symtool_find(const char *forced, struct pd_symtool *tool)
{
	/* Homebrew installs llvm keg-only: not on PATH by default. */
	static const char *const brew[] = {
		"/opt/homebrew/opt/llvm/bin/llvm-symbolizer",
		"/usr/local/opt/llvm/bin/llvm-symbolizer",
	};
	size_t i;
	int v;

	tool->path = NULL;
	tool->kind = PD_SYMTOOL_LLVM;
	if (forced) {
		const char *b = strrchr(forced, '/');

		if (pd_proc_is_program(forced))
			tool->path = pd_xstrdup(forced);
		else if (!pd_proc_has_dir(forced))
			tool->path = pd_proc_find(forced);
		if (tool->path && !strcmp(b ? b + 1 : forced, "atos"))
			tool->kind = PD_SYMTOOL_ATOS;
		return;
	}
	if ((tool->path = pd_proc_find("llvm-symbolizer")))
		return;
	for (i = 0; i < sizeof(brew) / sizeof(*brew); i++)
		if (pd_proc_is_program(brew[i])) {
			tool->path = pd_xstrdup(brew[i]);
			return;
		}
	for (v = 30; v >= 10; v--) {
		char name[32];

		snprintf(name, sizeof(name), "llvm-symbolizer-%d", v);
		if ((tool->path = pd_proc_find(name)))
			return;
	}
#ifdef __APPLE__
	if (pd_proc_is_program("/usr/bin/atos")) {
		tool->path = pd_xstrdup("/usr/bin/atos");
		tool->kind = PD_SYMTOOL_ATOS;
	}
#endif
}

char *pd_symtool_name(enum pd_symtool_kind kind, const char *line)
{
	const char *in;

	if (!*line || !strcmp(line, "??"))
		return NULL;
	if (kind == PD_SYMTOOL_LLVM)
		return pd_xstrdup(line);
	/* atos: "name (in lib) (file:line)" or "name (in lib) + 12". */
	in = strstr(line, " (in ");
	if (!in || in == line)
		return NULL; /* it echoed the address: unknown */
	return pd_xstrndup(line, (size_t)(in - line));
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/* A link named `as` in dir to the absolute form of target. */
static int link_in(const char *dir, const char *target, const char *as,
		   struct pd_buf *made)
{
	char cwd[PATH_MAX];
	struct pd_buf b = PD_BUF_INIT, abs = PD_BUF_INIT;
	int rc;

	if (strchr(as, '/') || !*as || !strcmp(as, ".") || !strcmp(as, ".."))
		return -1;
	if (target[0] != '/') {
		if (!getcwd(cwd, sizeof(cwd)))
			return -1;
		pd_buf_addf(&abs, "%s/", cwd);
	}
	pd_buf_adds(&abs, target);
	pd_buf_addf(&b, "%s/%s", dir, as);
	rc = symlink(abs.buf, b.buf);
	pd_buf_release(&abs);
	if (!rc) {
		pd_buf_add(made, b.buf, b.len + 1); /* NUL-separated list */
	}
	pd_buf_release(&b);
	return rc;
}

/* One address's function lines from llvm-symbolizer, innermost first. */
struct chain {
	PD_VEC(char *) v;
};

static void free_chain(struct chain *c)
{
	size_t i;

	for (i = 0; i < c->v.n; i++)
		free(c->v.v[i]);
	c->v.n = 0;
}

/* The outermost function names r; the inlined ones, outer first, follow. */
static size_t take_chain(struct pd_symreq *r, struct chain *c)
{
	struct pd_buf b = PD_BUF_INIT;
	size_t i, last = c->v.n - 1;

	if (!strcmp(c->v.v[last], "??"))
		return 0;
	for (i = last; i-- > 0;) {
		if (!strcmp(c->v.v[i], "??"))
			break; /* an unnamed inlined frame ends the chain */
		pd_buf_addf(&b, "%s%s", b.len ? "\n" : "", c->v.v[i]);
	}
	r->name = c->v.v[last];
	c->v.v[last] = NULL;
	r->inlined = b.len ? pd_buf_detach(&b) : NULL;
	pd_buf_release(&b);
	r->how = "llvm-symbolizer";
	return 1;
}

/* What one symbolizer run may print: far more than any library needs. */
#define MAX_OUTPUT PD_LIMIT_SYMBOLIZER_OUTPUT

/* execv wants writable strings. */
static char opt_linkage[] = "--functions=linkage", opt_inl[] = "--inlines",
	    opt_o[] = "-o", opt_l[] = "-l", opt_arch[] = "-arch";

size_t pd_symtool_run(const struct pd_symtool *tool,
		      const struct pd_symjob *job, struct pd_symreq *reqs,
		      size_t n)
{
	const char *tmp = getenv("TMPDIR");
	struct pd_buf dir = PD_BUF_INIT, in = PD_BUF_INIT, made = PD_BUF_INIT;
	struct pd_buf obj = PD_BUF_INIT, a1 = PD_BUF_INIT, a2 = PD_BUF_INIT;
	struct pd_buf text = PD_BUF_INIT;
	char *argv[12], *line, *next, *d;
	size_t i, k = 0, got = 0, want = 0, argc = 0, off;

	unsigned state = 0;
	struct chain chain = { PD_VEC_INIT };
	FILE *f;

	if (!tool->path)
		return 0;
	pd_buf_addf(&dir, "%s/pdsymXXXXXX", tmp && *tmp ? tmp : "/tmp");
	d = mkdtemp(dir.buf);
	if (!d)
		goto out_nodir;
	pd_buf_addf(&in, "%s/addresses", dir.buf);
	if (link_in(dir.buf, job->obj, base_name(job->obj), &made) ||
	    (job->beside &&
	     link_in(dir.buf, job->beside, job->beside_as, &made)))
		goto out;
	f = fopen(in.buf, "w");
	if (!f)
		goto out;
	for (i = 0; i < n; i++)
		if (!reqs[i].name) {
			fprintf(f, "0x%llx\n",
				(unsigned long long)(reqs[i].addr + job->base));
			want++;
		}
	if (fclose(f) || !want)
		goto out;
	argv[argc++] = tool->path;
	if (tool->kind == PD_SYMTOOL_LLVM) {
		argv[argc++] = opt_linkage;
		argv[argc++] = opt_inl;
		pd_buf_addf(&obj, "--obj=%s", base_name(job->obj));
		argv[argc++] = obj.buf;
		if (job->arch) {
			pd_buf_addf(&a1, "--default-arch=%s", job->arch);
			argv[argc++] = a1.buf;
		}
	} else {
		argv[argc++] = opt_o;
		pd_buf_adds(&obj, base_name(job->obj));
		argv[argc++] = obj.buf;
		argv[argc++] = opt_l;
		pd_buf_addf(&a2, "0x%llx", (unsigned long long)job->base);
		argv[argc++] = a2.buf;
		if (job->arch) {
			argv[argc++] = opt_arch;
			pd_buf_adds(&a1, job->arch);
			argv[argc++] = a1.buf;
		}
	}
	argv[argc] = NULL;
	if (pd_proc_run(argv, dir.buf, in.buf, &text, MAX_OUTPUT) < 0)
		goto out;
	/*
	 * llvm: per address a (function, location) pair per frame, the
	 * innermost inlined one first, then a blank line; atos: one line.
	 */
	for (line = text.buf; *line; line = next) {
		size_t len = strcspn(line, "\n");

		next = line[len] ? line + len + 1 : line + len;
		line[len] = '\0';
		if (len && line[len - 1] == '\r')
			line[len - 1] = '\0';
		if (tool->kind == PD_SYMTOOL_ATOS) {
			while (k < n && reqs[k].name)
				k++;
			if (k < n && (reqs[k].name =
					  pd_symtool_name(tool->kind, line))) {
				reqs[k].how = "atos";
				got++;
			}
			k++;
			continue;
		}
		if (*line) {
			if (!(state++ & 1))
				PD_VEC_PUSH(&chain.v, pd_xstrdup(line));
			continue;
		}
		while (k < n && reqs[k].name)
			k++;
		if (k < n && chain.v.n)
			got += take_chain(&reqs[k], &chain);
		k++;
		state = 0;
		free_chain(&chain);
	}
	free_chain(&chain);
	PD_VEC_FREE(&chain.v);
out:
	unlink(in.buf);
	for (off = 0; off < made.len; off += strlen(made.buf + off) + 1)
		unlink(made.buf + off);
	rmdir(dir.buf);
out_nodir:
	pd_buf_release(&dir);
	pd_buf_release(&in);
	pd_buf_release(&made);
	pd_buf_release(&obj);
	pd_buf_release(&a1);
	pd_buf_release(&a2);
	pd_buf_release(&text);
	return got;
}
