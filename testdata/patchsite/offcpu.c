// SPDX-License-Identifier: GPL-2.0-only
/*
 * Time off the CPU, with its own oracles (tests/patchsite/sched.sh):
 * usage: [OFFCPU_DENY_PERF=1] offcpu switches|sleep|naps
 *   switches  4 threads and main each read their context-switch counts
 *             (/proc/self/task/TID/status: voluntary_ctxt_switches,
 *             nonvoluntary_ctxt_switches) before and after work() (spins
 *             and 10 sleeps of 3 ms), with CLOCK_MONOTONIC read either side
 *             of each reading; prints per thread
 *               tid T a1 A2 b1 b2 vol0 nonvol0 vol1 nonvol1
 *             (a1 < reading 0 < a2 <= work <= b1 < reading 1 < b2, in ns).
 *   sleep     sleeper(): 10 x (2 ms of this thread's CPU time spent
 *             spinning, then a 3 ms sleep); prints its CLOCK_THREAD_CPUTIME_ID
 *             and CLOCK_MONOTONIC deltas and the CLOCK_MONOTONIC reads either
 *             side as `cpu_ns=C wall_ns=W t0=T0 t1=T1`.
 *   naps      3 threads call nap() until standard input ends (the test
 *             decides when: a follower is stopped half way first), and
 *             print nothing.
 * OFFCPU_DENY_PERF=1: before anything is traced (a constructor not
 * traced itself), a seccomp filter makes perf_event_open fail with EACCES,
 * as perf_event_paranoid 3 would for a user.
 */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static volatile long sink;

static uint64_t now(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

__attribute__((noinline)) void spin(uint64_t cpu_ns)
{
	uint64_t end = now(CLOCK_THREAD_CPUTIME_ID) + cpu_ns;

	while (now(CLOCK_THREAD_CPUTIME_ID) < end)
		sink++;
}

/*
 * 3 ms: a switch lost around it moves sleeper()'s on-CPU time by more than
 * the steal tolerance of tests/patchsite/sched.sh (3.).
 */
__attribute__((noinline)) void nap(void)
{
	struct timespec ms = { 0, 3000000 };

	nanosleep(&ms, NULL);
}

__attribute__((noinline)) void sleeper(void)
{
	for (int i = 0; i < 10; i++) {
		spin(2000000);
		nap();
	}
}

__attribute__((noinline)) void work(void)
{
	for (int i = 0; i < 10; i++) {
		spin(200000);
		nap();
	}
}

/* This thread's switch counts, from its own status file. */
static void counts(long *vol, long *nonvol)
{
	char path[64], line[256];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%ld/status", (long)syscall(SYS_gettid));
	f = fopen(path, "r");
	*vol = *nonvol = -1;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		sscanf(line, "voluntary_ctxt_switches: %ld", vol);
		sscanf(line, "nonvoluntary_ctxt_switches: %ld", nonvol);
	}
	fclose(f);
}

static pthread_mutex_t out = PTHREAD_MUTEX_INITIALIZER;

static void *measured(void *arg)
{
	uint64_t a1, a2, b1, b2;
	long v0, n0, v1, n1;

	(void)arg;
	nap();		/* a first traced call: the thread's file and switch event are made */
	a1 = now(CLOCK_MONOTONIC);
	counts(&v0, &n0);
	a2 = now(CLOCK_MONOTONIC);
	work();
	b1 = now(CLOCK_MONOTONIC);
	counts(&v1, &n1);
	b2 = now(CLOCK_MONOTONIC);
	pthread_mutex_lock(&out);
	printf("tid %ld %llu %llu %llu %llu %ld %ld %ld %ld\n", (long)syscall(SYS_gettid),
	       (unsigned long long)a1, (unsigned long long)a2, (unsigned long long)b1,
	       (unsigned long long)b2, v0, n0, v1, n1);
	pthread_mutex_unlock(&out);
	return NULL;
}

static int switches(void)
{
	pthread_t th[4];

	for (int i = 0; i < 4; i++)
		if (pthread_create(&th[i], NULL, measured, NULL))
			return 1;
	measured(NULL);
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	return 0;
}

static volatile int naps_end;

static void *napper(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&naps_end, __ATOMIC_RELAXED))
		nap();
	return NULL;
}

static int naps(void)
{
	pthread_t th[3];
	char buf[64];

	for (int i = 0; i < 3; i++)
		if (pthread_create(&th[i], NULL, napper, NULL))
			return 1;
	while (read(0, buf, sizeof(buf)) > 0)
		;
	__atomic_store_n(&naps_end, 1, __ATOMIC_RELAXED);
	for (int i = 0; i < 3; i++)
		pthread_join(th[i], NULL);
	return 0;
}

/* The CPU clock's and CLOCK_MONOTONIC's reads around sleeper(), the second at its instants. */
static void sleep_measured(void)
{
	uint64_t c0 = now(CLOCK_THREAD_CPUTIME_ID), w0 = now(CLOCK_MONOTONIC), w1, c1;

	sleeper();
	w1 = now(CLOCK_MONOTONIC);
	c1 = now(CLOCK_THREAD_CPUTIME_ID);
	printf("cpu_ns=%llu wall_ns=%llu t0=%llu t1=%llu\n", (unsigned long long)(c1 - c0),
	       (unsigned long long)(w1 - w0), (unsigned long long)w0, (unsigned long long)w1);
}

/* perf_event_open fails with EACCES from here on, everything else as before. */
__attribute__((constructor, no_instrument_function)) static void deny_perf(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_perf_event_open, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EACCES),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };
	const char *deny = getenv("OFFCPU_DENY_PERF");

	if (!deny || strcmp(deny, "1"))
		return;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0)) {
		perror("offcpu: seccomp");
		exit(1);
	}
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "";

	if (!strcmp(how, "switches"))
		return switches();
	if (!strcmp(how, "naps"))
		return naps();
	if (!strcmp(how, "sleep")) {
		sleep_measured();
		return 0;
	}
	fprintf(stderr, "usage: offcpu switches|sleep|naps\n");
	return 2;
}
