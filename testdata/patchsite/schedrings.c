// SPDX-License-Identifier: GPL-2.0-only
/*
 * The perf rings of the switch events as the kernel maps them (sched.sh,
 * 10.): N threads each make a traced call and wait; main then counts the
 * anon_inode:[perf_event] mappings of /proc/self/maps by size and prints
 * "rings PAGES COUNT" (PAGES: data pages, the mapping less its header
 * page).  After those threads end and their rings are gone from the maps,
 * M more do the same ("again PAGES COUNT").
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pthread_barrier_t in, out;
static volatile long sink;

__attribute__((noinline)) void leaf(long i)
{
	sink += i;
	__asm__ volatile("" ::: "memory");
}

static void *thread(void *arg)
{
	leaf((long)arg);
	pthread_barrier_wait(&in);
	pthread_barrier_wait(&out);
	return NULL;
}

/* Rings mapped now, by data pages: counts[p] for p < 64; returns how many in all. */
static int rings(int counts[64])
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	int all = 0;

	memset(counts, 0, 64 * sizeof(int));
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long a, b, pages;

		if (!strstr(line, "anon_inode:[perf_event]") || sscanf(line, "%lx-%lx", &a, &b) != 2)
			continue;
		pages = (b - a) / (unsigned long)sysconf(_SC_PAGESIZE) - 1;
		if (pages < 64)
			counts[pages]++;
		all++;
	}
	if (f)
		fclose(f);
	return all;
}

static void round_of(int n, const char *what)
{
	pthread_t t[256];
	int counts[64];

	pthread_barrier_init(&in, NULL, (unsigned)n + 1);
	pthread_barrier_init(&out, NULL, (unsigned)n + 1);
	for (int i = 0; i < n; i++)
		pthread_create(&t[i], NULL, thread, (void *)(long)i);
	pthread_barrier_wait(&in);
	rings(counts);
	for (int p = 0; p < 64; p++)
		if (counts[p])
			printf("%s %d %d\n", what, p, counts[p]);
	pthread_barrier_wait(&out);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_destroy(&in);
	pthread_barrier_destroy(&out);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 40, m = argc > 2 ? atoi(argv[2]) : 10, counts[64];

	if (n < 1 || n > 256 || m < 1 || m > 256)
		return 2;
	leaf(-1);
	round_of(n, "rings");
	/* The ended threads' rings are let go by the drain thread (their events hang up). */
	for (int tries = 0; rings(counts) > 1 && tries < 3000; tries++)
		usleep(10000);
	usleep(100000);	/* its count of large rings is lowered just after the unmap */
	round_of(m, "again");
	return 0;
}
