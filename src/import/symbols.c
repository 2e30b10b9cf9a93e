/*
 * samply's *.syms.json sidecar and debug ids (docs/symbols.md). ELF
 * symbol tables are elf.c; finding the build's files symfind.c; the
 * external symbolizers symbolizer.c.
 */
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cJSON.h>

#include "core/file.h"
#include "import/symbols.h"

/* A sidecar is parsed whole (cJSON): bounded, and said when larger. */
#define MAX_SIDECAR ((size_t)1 << 30)

void pd_debugid_norm(const char *in, char out[42])
{
	char d[64];
	size_t n = 0, i, k;

	out[0] = '\0';
	if (!in)
		return;
	for (; *in && n < sizeof(d); in++)
		if (isxdigit((unsigned char)*in))
			d[n++] = (char)toupper((unsigned char)*in);
	if (n < 32 || n > 40)
		return; /* not a GUID/UUID with an age of at most 8 digits */
	memcpy(out, d, 32);
	/* The age in hex without leading zeros, "0" for none. */
	for (i = 32; i + 1 < n && d[i] == '0'; i++)
		;
	for (k = 32; i < n; i++)
		out[k++] = d[i];
	if (k == 32)
		out[k++] = '0';
	out[k] = '\0';
}

/* ---- sidecar ---- */

struct sc_lib {
	char *debug_name;
	char id[42];
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
	for (i = 0; i < names.n && !text && !err->code; i++) {
		text = pd_read_file(names.v[i], MAX_SIDECAR, err);
		if ((text || err->code) && !*found)
			*found = pd_xstrdup(names.v[i]);
	}
	for (i = 0; i < names.n; i++)
		free(names.v[i]);
	PD_VEC_FREE(&names);
	if (!text) /* err, when set, becomes a note of the profile's */
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

			/*
			 * Compared as doubles before any cast: a negative or
			 * huge number cast to an integer is undefined.
			 */
			if (!cJSON_IsNumber(a) || !cJSON_IsNumber(ix) ||
			    !(ix->valuedouble >= 0) ||
			    !(ix->valuedouble < (double)ntab) ||
			    !(a->valuedouble >= 0) ||
			    !(a->valuedouble < 18446744073709551616.0))
				continue;
			sym = cJSON_GetObjectItemCaseSensitive(
			    cJSON_GetArrayItem(tab, (int)ix->valuedouble),
			    "symbol");
			if (!cJSON_IsNumber(sym) || !(sym->valuedouble >= 0) ||
			    !(sym->valuedouble < (double)s->nstrings))
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
	char want[42];
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
