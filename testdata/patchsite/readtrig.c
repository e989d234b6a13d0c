// SPDX-License-Identifier: GPL-2.0-only
/*
 * read= triggers' oracle (tests/patchsite/readtrig.sh): touch() maps and
 * writes N fresh pages, grow() maps N pages and writes them; each prints
 * what the kernel says about itself around the call, as the oracle:
 *	faults MAJ MIN		getrusage(RUSAGE_THREAD)'s deltas over touch()
 *	statm SIZE RSS SHARED	/proc/self/statm's deltas over grow(), in KB
 * usage  readtrig [N]  (default 64)
 *        readtrig threads K: K threads one after the other, each calling
 *        touch(4); prints "fds BEFORE AFTER", its open descriptors
 *        (/proc/self/fd) before the first and after the last has ended
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

static long page;

__attribute__((noinline)) void *touch(int n)
{
	char *p = mmap(NULL, (size_t)n * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	for (int i = 0; i < n; i++)
		p[(long)i * page] = 1;
	return p;
}

__attribute__((noinline)) void *grow(int n)
{
	return touch(n);
}

static void statm(long v[3])
{
	FILE *f = fopen("/proc/self/statm", "r");

	if (!f || fscanf(f, "%ld %ld %ld", &v[0], &v[1], &v[2]) != 3)
		exit(2);
	fclose(f);
}

static int fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	while (d && readdir(d))
		n++;
	if (d)
		closedir(d);
	return n;
}

static void *thread(void *arg)
{
	(void)arg;
	return touch(4);
}

static int threads(int k)
{
	int before = fds();

	for (int i = 0; i < k; i++) {
		pthread_t t;

		if (pthread_create(&t, NULL, thread, NULL) || pthread_join(t, NULL))
			return 1;
	}
	printf("fds %d %d\n", before, fds());
	return 0;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 64;
	struct rusage a, b;
	long s0[3], s1[3];

	page = sysconf(_SC_PAGESIZE);
	if (argc > 2 && !strcmp(argv[1], "threads"))
		return threads(atoi(argv[2]));
	getrusage(RUSAGE_THREAD, &a);
	if (!touch(n))
		return 1;
	getrusage(RUSAGE_THREAD, &b);
	printf("faults %ld %ld\n", b.ru_majflt - a.ru_majflt, b.ru_minflt - a.ru_minflt);
	statm(s0);
	if (!grow(n))
		return 1;
	statm(s1);
	printf("statm %ld %ld %ld\n", (s1[0] - s0[0]) * page / 1024, (s1[1] - s0[1]) * page / 1024,
	       (s1[2] - s0[2]) * page / 1024);
	return 0;
}
