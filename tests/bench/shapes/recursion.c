/* Shape d, deep recursion: walk() recurses 60 levels deep (fan-out two
 * at every 20th level, 8 leaves a call) and each leaf runs cpu_kernel
 * (CPU-bound, PLANT_FN 1) and chase (a pointer chase through a random
 * cyclic permutation of 32 MiB of cache lines, memory-bound, PLANT_FN 2).
 * usage: recursion [CALLS] */
#include <stdio.h>
#include <stdlib.h>

#include "plant.h"

SHAPES_SINK;

#define NODES (1L << 19) /* 64-byte nodes: 32 MiB */
#define DEPTH 60

struct node {
	struct node *next;
	uint64_t pad[7];
};

static struct node *nodes, *cursor;

__attribute__((noinline)) static void build_list(void)
{
	long *perm = malloc(NODES * sizeof *perm);
	uint64_t s = 88172645463325252ULL;
	nodes = malloc(NODES * sizeof *nodes);
	if (!perm || !nodes)
		exit(1);
	for (long i = 0; i < NODES; i++)
		perm[i] = i;
	for (long i = NODES - 1; i > 0; i--) {
		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		long j = (long)(s % (uint64_t)(i + 1));
		long t = perm[i];
		perm[i] = perm[j];
		perm[j] = t;
	}
	for (long i = 0; i < NODES; i++)
		nodes[perm[i]].next = &nodes[perm[(i + 1) % NODES]];
	cursor = &nodes[perm[0]];
	free(perm);
}

__attribute__((noinline)) static uint64_t cpu_kernel(uint64_t h)
{
	for (int r = 0; r < PLANTED(1, 1600); r++)
		h = mix64(h, 0x94d049bb133111ebULL);
	return h;
}

__attribute__((noinline)) static uint64_t chase(uint64_t h)
{
	struct node *p = cursor;
	for (int r = 0; r < PLANTED(2, 40); r++)
		p = p->next;
	cursor = p;
	return h + (uint64_t)(uintptr_t)p;
}

__attribute__((noinline)) static uint64_t walk(int depth, uint64_t h)
{
	if (depth == 0)
		return chase(cpu_kernel(h));
	h = walk(depth - 1, h);
	if (depth % 20 == 0)
		h = walk(depth - 1, h ^ (uint64_t)depth);
	shapes_sink = h;
	return h + (uint64_t)depth;
}

int main(int argc, char **argv)
{
	long calls = argc > 1 ? atol(argv[1]) : 4000;
	uint64_t h = 3;
	build_list();
	for (long i = 0; i < calls; i++)
		h = walk(DEPTH, h + (uint64_t)i);
	shapes_sink = h;
	printf("%llu\n", (unsigned long long)h);
	return 0;
}
