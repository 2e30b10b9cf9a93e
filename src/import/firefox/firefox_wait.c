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
#include "import/firefox/firefox_int.h"
#include "model/func.h"

void pd_ff_add_waits(struct ff_state *s)
{
	struct pd_profile *p = s->p;
	size_t i;

	for (i = 0; i < s->waits.n; i++) {
		const struct ff_wait *w = &s->waits.v[i];
		uint32_t at = pd_profile_waiter(p, w->node), node;

		if (at == PD_ROOT)
			continue;
		node = pd_profile_wait_node(p, at, "waiting");
		pd_profile_add(p, node, w->weight, w->count);
		/* a gap is one wait, not gap / interval samples: judged as
		 * waits (docs/statistics.md, "Waiting time") */
		pd_profile_add_waits(p, p->nodes.v[node].frame, w->waits);
	}
}

void pd_ff_note_unshown(struct ff_state *s)
{
	if (s->unshown_wait > 0 && s->unshown_wait >= 0.01 * s->cpu_w)
		pd_profile_note(s->p,
				"%.1f ms of waiting beside %.1f ms of CPU time"
				" (the wall time of each stack beyond its CPU"
				" deltas) is not compared; --weight both"
				" compares it too",
				s->unshown_wait / 1e6, s->cpu_w / 1e6);
}
