/*
 * --weight both (docs/formats.md, "samply and the Firefox Profiler"):
 * samply samples a sleeping thread too, at the stack it sleeps in, with
 * no CPU time; a stack's wall time beyond its CPU time is waiting. It is
 * time of the program's function that waited, as a frame of its own,
 * "name (waiting)", above the kernel's frames and the system libraries'
 * (ntdll.dll, kernelbase.dll, libc, libsystem_kernel) where the wait was
 * made, as perf's off-CPU waits are (perf_wait.c). Placed after the
 * frames are named, so that the wait's name is its function's symbol.
 */
#include "core/buf.h"
#include "import/firefox/firefox_int.h"
#include "model/func.h"

static int passes_through(const struct pd_profile *p, uint32_t node)
{
	const struct pd_frame *fr = &p->frames.v[p->nodes.v[node].frame];
	const char *n = pd_intern_str(&p->strs, fr->name);
	const char *m = pd_intern_str(&p->strs, fr->module);
	size_t nl = pd_intern_len(&p->strs, fr->name);
	size_t ml = pd_intern_len(&p->strs, fr->module);

	return pd_frame_is_system(n, nl, m, ml) || pd_frame_is_runtime(m, ml);
}

/* The node a wait at leaf belongs to: the innermost of the program's. */
static uint32_t waiter(const struct pd_profile *p, uint32_t leaf)
{
	uint32_t n = leaf;

	while (n != PD_ROOT &&
	       !pd_profile_is_thread_frame(p, p->nodes.v[n].frame) &&
	       passes_through(p, n))
		n = p->nodes.v[n].parent;
	if (n == PD_ROOT || pd_profile_is_thread_frame(p, p->nodes.v[n].frame))
		return leaf; /* the system's frames alone: the leaf's */
	return n;
}

void pd_ff_add_waits(struct ff_state *s)
{
	struct pd_profile *p = s->p;
	struct pd_buf b = PD_BUF_INIT;
	size_t i;

	for (i = 0; i < s->waits.n; i++) {
		const struct ff_wait *w = &s->waits.v[i];
		uint32_t at = waiter(p, w->node), f, node;
		const struct pd_frame *fr;

		if (at == PD_ROOT)
			continue;
		fr = &p->frames.v[p->nodes.v[at].frame];
		pd_buf_reset(&b);
		pd_buf_add(&b, pd_intern_str(&p->strs, fr->name),
			   pd_intern_len(&p->strs, fr->name));
		pd_buf_adds(&b, " (waiting)");
		f = pd_profile_frame(p, pd_intern(&p->strs, b.buf, b.len),
				     fr->module);
		node = pd_profile_child(p, at, f);
		pd_profile_add(p, node, w->weight, w->count);
		/* a gap is one wait, not gap / interval samples: judged as
		 * waits (docs/statistics.md, "Waiting time") */
		pd_profile_add_waits(p, f, w->waits);
	}
	pd_buf_release(&b);
}
