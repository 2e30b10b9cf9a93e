/* Shape c, multi-threaded: three threads doing different work, joined at
 * the end. hot_worker runs hot_kernel (planted, PLANT_FN 1), aux_worker
 * runs aux_parse and aux_sum, mem_worker strides over a 16 MiB array in
 * mem_scan.
 * usage: threads [ITEMS] */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "plant.h"

SHAPES_SINK;

static long items;

__attribute__((noinline)) static uint64_t hot_kernel(uint64_t h)
{
	for (int r = 0; r < PLANTED(1, 200); r++)
		h = mix64(h, 0xabcdef0123456789ULL);
	return h;
}

__attribute__((noinline)) static uint64_t aux_parse(uint64_t h)
{
	for (int r = 0; r < 100; r++)
		h = mix64(h, 0x0123456789abcdefULL + (uint64_t)r);
	return h;
}

__attribute__((noinline)) static uint64_t aux_sum(uint64_t h)
{
	for (int r = 0; r < 60; r++)
		h = mix64(h, 0x5bd1e9955bd1e995ULL);
	return h;
}

#define MEM_WORDS (2L << 20) /* 16 MiB */

__attribute__((noinline)) static uint64_t mem_scan(const uint64_t *a, uint64_t h)
{
	/* 64 dependent loads a call, each to another cache line */
	for (int r = 0; r < 64; r++)
		h += a[(h * 8 + (uint64_t)r * 4099) & (MEM_WORDS - 1)];
	return h;
}

static void *hot_worker(void *arg)
{
	uint64_t h = (uint64_t)(uintptr_t)arg;
	for (long i = 0; i < items; i++)
		h = hot_kernel(h + (uint64_t)i);
	return (void *)(uintptr_t)h;
}

static void *aux_worker(void *arg)
{
	uint64_t h = (uint64_t)(uintptr_t)arg;
	for (long i = 0; i < items; i++)
		h = aux_sum(aux_parse(h + (uint64_t)i));
	return (void *)(uintptr_t)h;
}

static void *mem_worker(void *arg)
{
	uint64_t *a = arg, h = 1;
	for (long i = 0; i < MEM_WORDS; i++)
		a[i] = mix64((uint64_t)i, 7);
	for (long i = 0; i < items / 2; i++)
		h = mem_scan(a, h);
	return (void *)(uintptr_t)h;
}

int main(int argc, char **argv)
{
	items = argc > 1 ? atol(argv[1]) : 230000;
	uint64_t *a = malloc(MEM_WORDS * sizeof *a);
	pthread_t t[3];
	void *res[3];
	if (!a)
		return 1;
	pthread_create(&t[0], NULL, hot_worker, (void *)1);
	pthread_create(&t[1], NULL, aux_worker, (void *)2);
	pthread_create(&t[2], NULL, mem_worker, a);
	uint64_t h = 0;
	for (int i = 0; i < 3; i++) {
		pthread_join(t[i], &res[i]);
		h ^= (uint64_t)(uintptr_t)res[i];
	}
	shapes_sink = h;
	printf("%llu\n", (unsigned long long)h);
	free(a);
	return 0;
}
