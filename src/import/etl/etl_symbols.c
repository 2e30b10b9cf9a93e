/*
 * Functions for a trace's image addresses from the build's own files:
 * each image's PDB identity (its ImageID/DbgID_RSDS event: GUID, age,
 * PDB name) and PE identity (time stamp and size) go to the symbol path
 * search of import/symbols, which uses a file only when its ids are the
 * trace's (docs/symbols.md, "Identity").
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sort.h"
#include "import/etl/etl_int.h"
#include "import/symbols/symfind.h"

static int cmp_pend(const void *a, const void *b)
{
	const struct etl_pend *x = a, *y = b;

	if (x->range != y->range)
		return x->range < y->range ? -1 : 1;
	return x->rel < y->rel ? -1 : x->rel > y->rel;
}

/* A debug id as docs/symbols.md writes it: GUID fields, then the age. */
static void debug_id(const struct etl_range *r, char out[48])
{
	const uint8_t *g = r->pdb_guid;
	int k;

	k = snprintf(out, 48, "%02X%02X%02X%02X%02X%02X%02X%02X", g[3], g[2],
		     g[1], g[0], g[5], g[4], g[7], g[6]);
	for (int i = 8; i < 16; i++)
		k += snprintf(out + k, (size_t)(48 - k), "%02X", g[i]);
	snprintf(out + k, (size_t)(48 - k), "%" PRIX32, r->pdb_age);
}

static void note_lines(struct pd_profile *p, const char *n)
{
	const char *e;

	for (; *n; n = *e ? e + 1 : e) {
		e = n + strcspn(n, "\n");
		if (e > n)
			pd_profile_note(p, "%.*s", (int)(e - n), n);
	}
}

/* Names the frames of one image (pend[0..n), all of range r). */
static void resolve_image(struct etl_state *st, struct pd_profile *p,
			  struct pd_symctx *ctx, const struct etl_range *r,
			  const struct etl_pend *pend, size_t n)
{
	struct pd_symreq *reqs = pd_xcalloc(n, sizeof(*reqs));
	struct pd_buf why = PD_BUF_INIT;
	char did[48], cid[32];
	const char *module = pd_intern_str(&st->strs, r->module),
		   *pdb = pd_intern_str(&st->strs, r->pdb);
	struct pd_libinfo li;
	size_t i, got;

	debug_id(r, did);
	snprintf(cid, sizeof(cid), "%08" PRIX32 "%" PRIx32, r->timestamp,
		 r->image_size);
	li.name = module;
	li.path = pd_intern_str(&st->strs, r->name);
	li.debug_name = pdb;
	li.debug_path = pdb;
	li.breakpad_id = did;
	li.code_id = r->timestamp ? cid : NULL;
	for (i = 0; i < n; i++)
		reqs[i].addr = pend[i].rel;
	got = pd_symctx_resolve(ctx, &li, reqs, n, &why);
	pd_profile_note(p, "symbols for %s: %zu of %zu addresses named%s%s",
			module, got, n, why.len ? "; " : "", why.buf);
	for (i = 0; i < n; i++) {
		if (reqs[i].name)
			p->frames.v[pend[i].frame].name =
			    pd_intern_cstr(&p->strs, reqs[i].name);
		free(reqs[i].name);
		free(reqs[i].inlined);
	}
	pd_buf_release(&why);
	free(reqs);
}

void pd_etl_symbolicate(struct etl_state *st, struct pd_profile *p)
{
	struct pd_symctx *ctx;
	size_t i, j;

	if (!st->pend.n)
		return;
	ctx = pd_symctx_new(st->o->symbol_dirs, st->o->symbolizer, st->path);
	if (!ctx) {
		pd_profile_note(p,
				"%s: the trace names the PDB of its images;"
				" --symbols DIR (folders or a symbol path"
				" holding them) names their functions",
				st->path);
		return;
	}
	note_lines(p, pd_symctx_notes(ctx));
	pd_sort(st->pend.v, st->pend.n, sizeof(*st->pend.v), cmp_pend);
	for (i = 0; i < st->pend.n; i = j) {
		for (j = i; j < st->pend.n &&
			    st->pend.v[j].range == st->pend.v[i].range;
		     j++)
			;
		resolve_image(st, p, ctx, &st->ranges.v[st->pend.v[i].range],
			      st->pend.v + i, j - i);
	}
	pd_symctx_free(ctx);
}
