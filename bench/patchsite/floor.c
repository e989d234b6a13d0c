// SPDX-License-Identifier: GPL-2.0-only
/*
 * The time-stamp floor of function_graph on this machine
 * (bench/patchsite/compare.sh), CPU time, best of 5:
 *   rdtsc_ns     one rdtsc, in a loop of 10,000,000 that uses each value;
 *   graph_ns     per call, above the untraced loop, of loop.c's workload
 *                (mid -> leaf) where each function itself stores an 8-byte
 *                word stamped with rdtsc at entry and at exit: what any
 *                function_graph recorder pays here at the very least,
 *                with no trampoline, no check and no call.
 * Prints "rdtsc_ns X" and "graph_ns Y".
 *
 * `floor fib N DIR` does the same on a recursive workload, fib(N) (about
 * 1M calls for N = 28), wall time, best of 5, per call above the untraced
 * fib: "fib_calls C", "fib_mem_ns" with the two stamped words stored into
 * memory touched beforehand, "fib_file_ns" into a file in DIR mapped
 * MAP_SHARED 1 MiB at a time as it fills (the recording thread pays for
 * every fresh page-cache page).
 */
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <x86intrin.h>

#define N 10000000L	/* rdtsc loop */
#define NL 2000000L	/* workload iterations, as compare.sh's */

static uint64_t *ring, *wp;
static volatile int stamped;

static double cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static inline void stamp(uint64_t id)
{
	if (stamped)
		*wp++ = __rdtsc() << 32 | id;
}

__attribute__((noinline)) static int leaf(int x)
{
	stamp(4);
	__asm__ volatile("");
	stamp(5);
	return x + 1;
}

__attribute__((noinline)) static int mid(int x)
{
	int r;

	stamp(8);
	__asm__ volatile("");
	r = leaf(x) * 2;
	stamp(9);
	return r;
}

/* CPU ns of NL iterations of the loop, best of 5 (each run rewrites the same ring). */
static double loop(int with_stamps)
{
	double best = 1e30;
	volatile long s = 0;

	stamped = with_stamps;
	for (int r = 0; r < 5; r++) {
		double t = cpu_ns();

		wp = ring;
		for (long i = 0; i < NL; i++)
			s += mid((int)i);
		t = cpu_ns() - t;
		if (t < best)
			best = t;
	}
	return best;
}

static uint64_t *fend;
static int ffd = -1;
static off_t foff;
static long fcalls;
#define FCHUNK (1l << 20)

static void next_chunk(void)
{
	if (wp)
		munmap(fend - FCHUNK / 8, FCHUNK);
	if (ftruncate(ffd, foff + FCHUNK))
		abort();
	wp = mmap(NULL, FCHUNK, PROT_READ | PROT_WRITE, MAP_SHARED, ffd, foff);
	if (wp == MAP_FAILED)
		abort();
	foff += FCHUNK;
	fend = wp + FCHUNK / 8;
}

static inline void fstamp(uint64_t id)
{
	if (stamped == 2 && wp + 1 > fend)
		next_chunk();
	if (stamped)
		*wp++ = __rdtsc() << 32 | id;
}

__attribute__((noinline, optimize("no-optimize-sibling-calls"))) static long fib(int n)
{
	long r;

	fstamp(4);
	fcalls++;
	r = n < 2 ? n : fib(n - 1) + fib(n - 2);
	fstamp(5);
	return r;
}

static double wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* Wall ns of fib(n), best of 5; mode 0 untraced, 1 into memory, 2 into a file in dir. */
static double fib_run(int n, int mode, const char *dir)
{
	double best = 1e30;
	volatile long s = 0;
	char path[4096];

	for (int r = 0; r < 5; r++) {
		double t;

		stamped = mode;
		wp = ring;
		if (mode == 2) {
			snprintf(path, sizeof(path), "%s/floor.data", dir);
			ffd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
			if (ffd < 0)
				abort();
			foff = 0;
			wp = NULL;
			fend = NULL;
		}
		fcalls = 0;
		t = wall_ns();
		if (mode == 2)
			next_chunk();
		s += fib(n);
		t = wall_ns() - t;
		if (mode == 2) {
			munmap(fend - FCHUNK / 8, FCHUNK);
			close(ffd);
			unlink(path);
		}
		if (t < best)
			best = t;
	}
	return best;
}

static int fib_main(int n, const char *dir)
{
	double base, mem, file;

	stamped = 0;
	fcalls = 0;
	fib(n);
	ring = calloc(2 * (size_t)fcalls + 16, sizeof(*ring));
	if (!ring)
		return 1;
	for (long i = 0; i < 2 * fcalls; i += 512)
		ring[i] = 1;
	printf("fib_calls %ld\n", fcalls);
	base = fib_run(n, 0, dir);
	mem = fib_run(n, 1, dir);
	file = fib_run(n, 2, dir);
	printf("fib_mem_ns %.2f\nfib_file_ns %.2f\n", (mem - base) / fcalls, (file - base) / fcalls);
	return 0;
}

int main(int argc, char **argv)
{
	double best = 1e30, base, graph;
	volatile uint64_t sink = 0;

	if (argc == 4 && !strcmp(argv[1], "fib"))
		return fib_main(atoi(argv[2]), argv[3]);

	for (int r = 0; r < 5; r++) {
		uint64_t s = 0;
		double t = cpu_ns();

		for (long i = 0; i < N; i++)
			s += __rdtsc();
		t = (cpu_ns() - t) / N;
		sink += s;
		if (t < best)
			best = t;
	}
	printf("rdtsc_ns %.2f\n", best);
	ring = calloc(4 * NL, sizeof(*ring));	/* 4 words an iteration; touched once before timing */
	if (!ring)
		return 1;
	for (long i = 0; i < 4 * NL; i += 512)
		ring[i] = 1;
	base = loop(0);
	graph = loop(1);
	printf("graph_ns %.2f\n", (graph - base) / (2.0 * NL));
	return 0;
}
