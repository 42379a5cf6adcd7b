/*
 * The memory floor of a report on the whole graph, in C: GraphQueries.listedResourcesNamed's walk (for
 * each resource of a list, resource -> ref -> name -> its bytes, the length read) over n resources that
 * each hold the graph's retained bytes per resource (about 740, docs/performance.md section 3), so that
 * 1k, 10k and 100k span the same memory as the Java graph. Nothing is built: what the time per resource
 * does from 1k to 100k is what touching that much memory does on this machine, with no collector and no
 * JIT.
 *
 * Two placements of the same objects:
 *   in-order  each resource's four objects together in its own block, the blocks in list order (the best
 *             case: what an allocator that never moves anything gives a list walked in creation order);
 *   scattered each object of each resource in a block of its own chosen at random (what a heap whose
 *             objects were allocated at different times and moved by a collector looks like to the walk).
 *
 * Prints "<placement> <n> <ns per resource>" per measurement, after one warm-up walk.
 *
 * usage: graph_walk [measurements, default 5] [sizes, default 1000,10000,100000]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The Java objects' shapes, header included: a byte[], a String, a ResourceRef, a resource. */
struct bytes { uint64_t header; uint32_t klass; uint32_t length; char data[8]; };
struct string { uint64_t header; struct bytes *value; uint32_t hash; uint32_t coder; };
struct ref { uint64_t header; struct string *name; long id; void *device; };
struct resource { uint64_t header; struct ref *ref; long id; void *lifetime; void *parent; void *details; };

/* The graph's retained bytes per resource; every object of a resource lies in one such block. */
#define BLOCK 768

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

/* A block index for each of the n * 4 objects: in order, or a random permutation of them all. */
static size_t *placement(size_t n, int scattered)
{
	size_t *at = malloc(sizeof *at * n * 4);

	for (size_t i = 0; i < n * 4; i++)
		at[i] = scattered ? i : i / 4;
	if (scattered) {
		for (size_t i = n * 4 - 1; i > 0; i--) {
			size_t j = (size_t) random() % (i + 1), t = at[i];

			at[i] = at[j];
			at[j] = t;
		}
		for (size_t i = 0; i < n * 4; i++)
			at[i] /= 4; /* four objects to a block, as in order */
	}
	return at;
}

static long walk(struct resource **list, size_t n)
{
	long sum = 0;

	for (size_t i = 0; i < n; i++)
		sum += list[i]->ref->name->value->length;
	return sum;
}

static void measure(size_t n, int scattered, int rounds)
{
	char *heap = aligned_alloc(4096, n * BLOCK);
	size_t *at = placement(n, scattered);
	struct resource **list = malloc(sizeof *list * n);
	/* Block b's first free offset: each object takes the next slot of its block. */
	uint32_t *used = calloc(n, sizeof *used);
	long sum = 0;

	memset(heap, 0, n * BLOCK);
	for (size_t i = 0; i < n; i++) {
		void *o[4];
		size_t sizes[4] = { sizeof(struct resource), sizeof(struct ref), sizeof(struct string),
			sizeof(struct bytes) };

		for (int k = 0; k < 4; k++) {
			size_t b = at[i * 4 + k];

			o[k] = heap + b * BLOCK + used[b];
			used[b] += (uint32_t) ((sizes[k] + 15) & ~(size_t) 15);
		}
		struct resource *r = o[0];
		struct ref *f = o[1];
		struct string *s = o[2];
		struct bytes *y = o[3];

		y->length = 6 + (uint32_t) (i % 4);
		s->value = y;
		f->name = s;
		r->ref = f;
		list[i] = r;
	}
	long reps = 50000000L / (long) n;

	if (reps < 20)
		reps = 20;
	sum += walk(list, n);
	for (int round = 0; round < rounds; round++) {
		double t0 = now_ns();

		for (long k = 0; k < reps; k++)
			sum += walk(list, n);
		printf("%s %zu %.3f\n", scattered ? "scattered" : "in-order", n, (now_ns() - t0) / reps / n);
	}
	if (sum == 42) /* keeps the walks */
		puts("");
	free(used);
	free(list);
	free(at);
	free(heap);
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 5;
	char sizes[256] = "1000,10000,100000";

	if (argc > 2)
		snprintf(sizes, sizeof sizes, "%s", argv[2]);
	srandom(1);
	for (int scattered = 0; scattered <= 1; scattered++) {
		char copy[256];

		memcpy(copy, sizes, sizeof copy);
		for (char *s = strtok(copy, ","); s; s = strtok(NULL, ","))
			measure((size_t) atol(s), scattered, rounds);
	}
	return 0;
}
