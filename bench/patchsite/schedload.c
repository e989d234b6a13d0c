// SPDX-License-Identifier: GPL-2.0-only
/*
 * The traced side of sched_loss.sh: THREADS threads, each fib(DEPTH)
 * REPS times (about 3.3 million traced calls a thread at 28 x 2: a
 * thread that writes events fast and switches chunks often), and as many
 * threads again that spin with a traced call only at their start and end
 * (no chunk switch, so only the drain thread drains their switches: the
 * case that needs its wake-ups).  Before it returns it prints the schedstat
 * of patchsite's drain thread (comm "patchsite-sched"): its CPU time is
 * what draining costs, beside the program's.
 */
#define _GNU_SOURCE	/* RUSAGE_THREAD */
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

static volatile long sink;

__attribute__((noinline, optimize("no-optimize-sibling-calls"))) long fib(int n)
{
	__asm__ volatile("" ::: "memory");
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

__attribute__((noinline)) void mark(long i)
{
	sink += i;
	__asm__ volatile("" ::: "memory");
}

static int depth, reps;
static _Atomic long vol_sum, flt_sum;

/* This thread's voluntary switches so far (/proc/thread-self/status, the kernel's count). */
static long voluntary(void)
{
	FILE *f = fopen("/proc/thread-self/status", "r");
	char line[128];
	long n = 0;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "voluntary_ctxt_switches: %ld", &n) == 1)
			break;
	if (f)
		fclose(f);
	return n;
}

static void *caller(void *arg)
{
	for (int r = 0; r < reps; r++)
		sink += fib(depth);
	vol_sum += voluntary();
	{	/* page faults met while recording (the trace store's pages are faulted in ahead) */
		struct rusage ru;

		if (!getrusage(RUSAGE_THREAD, &ru))
			flt_sum += ru.ru_minflt;
	}
	return arg;
}

/* About as long as a caller's work, without a traced call in between. */
static void *spinner(void *arg)
{
	mark(0);
	for (long i = 0; i < 200000000l * reps / 2; i++)
		sink += i;
	mark(1);
	vol_sum += voluntary();
	return arg;
}

/* The drain thread's "on-CPU ns, waiting ns, slices" (/proc/self/task/T/schedstat). */
static void drain_cost(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	char path[300], comm[64], stat[128];

	while (d && (e = readdir(d))) {
		FILE *f;

		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (!fgets(comm, sizeof(comm), f) || strcmp(comm, "patchsite-sched\n")) {
			fclose(f);
			continue;
		}
		fclose(f);
		snprintf(path, sizeof(path), "/proc/self/task/%s/schedstat", e->d_name);
		f = fopen(path, "r");
		if (f && fgets(stat, sizeof(stat), f))
			printf("drain %s", stat);
		if (f)
			fclose(f);
	}
	if (d)
		closedir(d);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 2;
	pthread_t t[64];

	depth = argc > 2 ? atoi(argv[2]) : 28;
	reps = argc > 3 ? atoi(argv[3]) : 2;
	if (n < 1 || n > 32)
		return 2;
	for (int i = 0; i < n; i++) {
		pthread_create(&t[2 * i], NULL, caller, NULL);
		pthread_create(&t[2 * i + 1], NULL, spinner, NULL);
	}
	for (int i = 0; i < 2 * n; i++)
		pthread_join(t[i], NULL);
	printf("vol %ld\n", (long)vol_sum);	/* the worker threads' voluntary switches */
	printf("faults %ld\n", (long)flt_sum);	/* the fib threads' minor page faults */
	drain_cost();
	return 0;
}
