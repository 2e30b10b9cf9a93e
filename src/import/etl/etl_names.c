/*
 * Naming a trace's code addresses: the image or JIT-compiled method of
 * the sample's process (kernel addresses: the kernel's images) holds
 * them; an image's address is module!+0xOFFSET, a method its name, and
 * an address nothing holds its hex (docs/formats.md, "Windows ETW traces").
 * Each distinct (process, address) is named once.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sort.h"
#include "import/etl/etl_int.h"

/* Ranges of one process before an address that are looked at, at most. */
#define LOOK_BACK 64

static int cmp_range(const void *a, const void *b)
{
	const struct etl_range *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

void pd_etl_ranges_sort(struct etl_state *st)
{
	pd_sort(st->ranges.v, st->ranges.n, sizeof(*st->ranges.v), cmp_range);
}

/* The range of pid holding addr (the latest of those starting last);
 * with images_only, an image's. */
static const struct etl_range *find(const struct etl_state *st, int64_t pid,
				    uint64_t addr, int images_only)
{
	size_t lo = 0, hi = st->ranges.n, k;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct etl_range *r = &st->ranges.v[mid];

		if (r->pid < pid || (r->pid == pid && r->start <= addr))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (k = 0; lo > 0 && k < LOOK_BACK; k++, lo--) {
		const struct etl_range *r = &st->ranges.v[lo - 1];

		if (r->pid != pid)
			break;
		if (addr - r->start < r->size && !(images_only && r->jit))
			return r;
	}
	return NULL;
}

const struct etl_range *pd_etl_range_find(const struct etl_state *st,
					  int64_t pid, uint64_t addr)
{
	return find(st, pid, addr, 0);
}

static uint64_t slot_hash(int64_t pid, uint64_t addr)
{
	return pd_hash_u64(addr ^ ((uint64_t)pid * 0x9e3779b97f4a7c15ULL));
}

static void grow(struct etl_state *st)
{
	struct etl_fslot *old = st->fslots;
	size_t i, n = st->nfslots, m = n ? n * 2 : 1024;

	st->fslots = pd_xcalloc(m, sizeof(*st->fslots));
	st->nfslots = m;
	for (i = 0; i < n; i++) {
		size_t j;

		if (!old[i].used)
			continue;
		j = slot_hash(old[i].pid, old[i].addr) & (m - 1);
		while (st->fslots[j].used)
			j = (j + 1) & (m - 1);
		st->fslots[j] = old[i];
	}
	free(old);
}

/* Names addr of process pid as a frame of p. */
static uint32_t name_frame(struct etl_state *st, struct pd_profile *p,
			   int64_t pid, uint64_t addr)
{
	const struct etl_range *r =
	    pd_etl_range_find(st, pd_etl_is_kernel(st, addr) ? 0 : pid, addr);
	char buf[64];
	uint32_t name, module = 0;

	if (r && r->jit) {
		/* precompiled (NGEN, ReadyToRun) code: its image's module */
		const struct etl_range *im = find(st, pid, addr, 1);

		name =
		    pd_intern_cstr(&p->strs, pd_intern_str(&st->strs, r->name));
		if (im)
			module = pd_intern_cstr(
			    &p->strs, pd_intern_str(&st->strs, im->module));
	} else if (r) {
		const char *m = pd_intern_str(&st->strs, r->module);
		struct pd_buf b = PD_BUF_INIT;

		pd_buf_addf(&b, "%s!+0x%" PRIx64, m, addr - r->start);
		name = pd_intern(&p->strs, b.buf, b.len);
		module = pd_intern_cstr(&p->strs, m);
		p->has_modules = 1;
		pd_buf_release(&b);
		if (r->pdb) {
			struct etl_pend e;

			e.range = (size_t)(r - st->ranges.v);
			e.rel = addr - r->start;
			e.frame = pd_profile_frame(p, name, module);
			PD_VEC_PUSH(&st->pend, e);
			return e.frame;
		}
	} else {
		snprintf(buf, sizeof(buf), "0x%" PRIx64, addr);
		name = pd_intern_cstr(&p->strs, buf);
	}
	return pd_profile_frame(p, name, module);
}

uint32_t pd_etl_frame(struct etl_state *st, struct pd_profile *p, int64_t pid,
		      uint64_t addr)
{
	size_t j;

	if (2 * (st->nfused + 1) > st->nfslots)
		grow(st);
	j = slot_hash(pid, addr) & (st->nfslots - 1);
	while (st->fslots[j].used) {
		if (st->fslots[j].pid == pid && st->fslots[j].addr == addr)
			return st->fslots[j].frame;
		j = (j + 1) & (st->nfslots - 1);
	}
	st->fslots[j].used = 1;
	st->fslots[j].pid = pid;
	st->fslots[j].addr = addr;
	st->fslots[j].frame = name_frame(st, p, pid, addr);
	st->nfused++;
	return st->fslots[j].frame;
}
