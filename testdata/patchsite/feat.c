// SPDX-License-Identifier: GPL-2.0-only
/*
 * The oracle of the recording-feature tests (tests/patchsite/feat.sh): a
 * program that knows by construction which calls it made, with which
 * arguments, and which were slow.  It drives the runtime's control files
 * itself, through patchsite_ctl_write found at run time (libpatchsite is
 * preloaded by `patchsite record`).  usage: feat MODE
 *   onoff   100 calls of leaf, tracing_on 0, 50 calls, tracing_on 1, 25 calls
 *   pid     set_ftrace_pid = thread A's id; A calls leaf_a 300 times, B
 *           leaf_b 200 times, main leaf_c 100 times; then set_ftrace_pid =
 *           the process id and each calls once more
 *   thresh  main -> outer -> { mid -> fast (x3), mid -> slow (usleep 20 ms),
 *           fast (x5) } (tracing_thresh set by the caller)
 *   args    leaf2(i, 2 * i) = 3 * i for i = 1..3, leaf(7)
 *   trig    10 calls of outer() (each: mid -> fast) and 10 of leaf(i); then
 *           prints the filter commands' listing
 *   latency outer(u) for u = 1000, 20000, 2000 µs: the second is the longest;
 *           prints tracing_max_latency, writes 0 to it and prints it again
 *   storm   4 threads call outer(0) and leaf2 2000 times each while main
 *           switches tracing_on, set_ftrace_pid, tracing_thresh,
 *           set_ftrace_args and set_graph_notrace 300 times; then every
 *           switch back to its default, and each thread makes 10 more
 *           calls of leaf (all recorded)
 *   ctl     writes each recording control file and prints what reading it
 *           gives back (`FILE=TEXT`, newlines as |), errors as `ctl error`
 * It prints what it did (`calls=...`) and `ctl error: ...` when a write fails.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static volatile long sink;
static int (*ctl_write)(const char *, const char *, int);
static const char *(*last_error)(void);

#define NOINLINE __attribute__((noinline))
#define BARRIER() __asm__ volatile("" ::: "memory")

NOINLINE void leaf(long i) { sink += i; BARRIER(); }
NOINLINE void leaf_a(long i) { sink += i; BARRIER(); }
NOINLINE void leaf_b(long i) { sink += i; BARRIER(); }
NOINLINE void leaf_c(long i) { sink += i; BARRIER(); }
NOINLINE long leaf2(long a, long b) { BARRIER(); return a + b; }
NOINLINE void fast(void) { sink++; BARRIER(); }
NOINLINE void slow(long us) { usleep((useconds_t)us); BARRIER(); }

NOINLINE void mid(int which, long us)
{
	if (which)
		slow(us);
	else
		for (int i = 0; i < 3; i++)
			fast();
	BARRIER();
}

NOINLINE void outer(long us)
{
	mid(0, 0);
	if (us)
		mid(1, us);
	for (int i = 0; i < 5; i++)
		fast();
	BARRIER();
}

static void ctl(const char *file, const char *value)
{
	if (!ctl_write) {
		printf("ctl error: no libpatchsite\n");
		return;
	}
	if (ctl_write(file, value, 0))
		printf("ctl error: %s: %s\n", file, last_error());
}

/* What the runtime lists: the filter commands and their counts left. */
static void list_triggers(void)
{
	long (*get)(char *, unsigned long) = (long (*)(char *, unsigned long))dlsym(RTLD_DEFAULT,
								"patchsite_get_triggers");
	char buf[4096];

	if (get && get(buf, sizeof(buf)) >= 0)
		printf("%s", buf);
}

static pthread_barrier_t bar;
static pid_t tid_a;

static void *thread_a(void *arg)
{
	(void)arg;
	tid_a = (pid_t)syscall(SYS_gettid);
	pthread_barrier_wait(&bar);	/* main sets the list */
	pthread_barrier_wait(&bar);
	for (long i = 0; i < 300; i++)
		leaf_a(i);
	pthread_barrier_wait(&bar);	/* main lists the process */
	pthread_barrier_wait(&bar);
	leaf_a(0);
	return NULL;
}

static void *thread_b(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&bar);
	pthread_barrier_wait(&bar);
	for (long i = 0; i < 200; i++)
		leaf_b(i);
	pthread_barrier_wait(&bar);
	pthread_barrier_wait(&bar);
	leaf_b(0);
	return NULL;
}

static void pid_mode(void)
{
	pthread_t a, b;
	char buf[32];

	pthread_barrier_init(&bar, NULL, 3);
	pthread_create(&a, NULL, thread_a, NULL);
	pthread_create(&b, NULL, thread_b, NULL);
	pthread_barrier_wait(&bar);
	snprintf(buf, sizeof(buf), "%d", (int)tid_a);
	ctl("set_ftrace_pid", buf);
	pthread_barrier_wait(&bar);
	for (long i = 0; i < 100; i++)
		leaf_c(i);
	pthread_barrier_wait(&bar);
	snprintf(buf, sizeof(buf), "%d", (int)getpid());
	ctl("set_ftrace_pid", buf);
	pthread_barrier_wait(&bar);
	leaf_c(0);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("calls=leaf_a:301 leaf_b:201 leaf_c:101\n");
}

static _Atomic int storm_phase;
static pthread_barrier_t storm_bar;

static void *storm_thread(void *arg)
{
	long sum = 0;

	(void)arg;
	for (long i = 0; i < 2000; i++) {
		outer(0);
		sum += leaf2(i, i);
	}
	pthread_barrier_wait(&storm_bar);	/* main resets every switch */
	pthread_barrier_wait(&storm_bar);
	for (long i = 0; i < 10; i++)
		leaf(i);
	return (void *)sum;
}

static void storm_mode(void)
{
	static const char *const sets[][2] = {
		{ "tracing_on", "0" }, { "tracing_on", "1" },
		{ "set_ftrace_pid", "1" }, { "set_ftrace_pid", "" },
		{ "tracing_thresh", "5" }, { "tracing_thresh", "0" },
		{ "set_ftrace_args", "leaf2@arg1,arg2,retval" }, { "set_ftrace_args", "" },
		{ "set_graph_notrace", "mid" }, { "set_graph_notrace", "" },
	};
	pthread_t th[4];

	pthread_barrier_init(&storm_bar, NULL, 5);
	for (int i = 0; i < 4; i++)
		pthread_create(&th[i], NULL, storm_thread, NULL);
	for (int r = 0; r < 300; r++) {
		ctl(sets[r % 10][0], sets[r % 10][1]);
		usleep(100);
	}
	pthread_barrier_wait(&storm_bar);
	for (int k = 1; k < 10; k += 2)
		ctl(sets[k][0], sets[k][1]);
	pthread_barrier_wait(&storm_bar);
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	printf("calls=leaf:40 after the storm\n");
}

/* FILE=TEXT of what reading FILE gives, newlines shown as |. */
static void show(const char *file)
{
	long (*rd)(const char *, char *, unsigned long) = (long (*)(const char *, char *,
		unsigned long))dlsym(RTLD_DEFAULT, "patchsite_ctl_read");
	char buf[512];

	if (!rd || rd(file, buf, sizeof(buf)) < 0) {
		printf("ctl error: reading %s\n", file);
		return;
	}
	for (char *p = buf; *p; p++)
		if (*p == '\n')
			*p = '|';
	printf("%s=%s\n", file, buf);
}

static void ctl_mode(void)
{
	show("tracing_on");
	ctl("tracing_on", "0");
	show("tracing_on");
	ctl("tracing_on", "1");
	show("set_ftrace_pid");
	ctl("set_ftrace_pid", "30 10,20");
	show("set_ftrace_pid");
	ctl_write("set_ftrace_pid", "5", 1);
	show("set_ftrace_pid");
	ctl("set_ftrace_pid", "");
	show("set_ftrace_pid");
	ctl("tracing_thresh", "250\n");
	show("tracing_thresh");
	ctl("tracing_thresh", "0");
	ctl("set_ftrace_args", "leaf2@arg1,arg2,retval leaf@arg1");
	show("set_ftrace_args");
	ctl("set_ftrace_args", "");
	show("set_ftrace_args");
	ctl("set_graph_notrace", "mid");
	show("set_graph_notrace");
	ctl("set_graph_notrace", "");
	show("tracing_max_latency");
	if (ctl_write("tracing_on", "2", 0) && ctl_write("tracing_thresh", "-1", 0) &&
	    ctl_write("set_ftrace_pid", "12x", 0))
		printf("refused: %s\n", last_error());
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	ctl_write = (int (*)(const char *, const char *, int))dlsym(RTLD_DEFAULT,
								  "patchsite_ctl_write");
	last_error = (const char *(*)(void))dlsym(RTLD_DEFAULT, "patchsite_last_error");
	if (!strcmp(mode, "onoff")) {
		for (long i = 0; i < 100; i++)
			leaf(i);
		ctl("tracing_on", "0");
		for (long i = 0; i < 50; i++)
			leaf(i);
		ctl("tracing_on", "1\n");
		for (long i = 0; i < 25; i++)
			leaf(i);
		printf("calls=175\n");
	} else if (!strcmp(mode, "pid")) {
		pid_mode();
	} else if (!strcmp(mode, "thresh")) {
		outer(20000);
		printf("calls=outer:1 mid:2 slow:1 fast:8\n");
	} else if (!strcmp(mode, "args")) {
		for (long i = 1; i <= 3; i++)
			sink += leaf2(i, 2 * i);
		leaf(7);
		printf("calls=leaf2:3 leaf:1\n");
	} else if (!strcmp(mode, "trig")) {
		for (long i = 0; i < 10; i++) {
			outer(0);
			leaf(i);
		}
		printf("calls=outer:10 leaf:10\n");
		list_triggers();
	} else if (!strcmp(mode, "latency")) {
		long (*rd)(const char *, char *, unsigned long) = (long (*)(const char *, char *,
			unsigned long))dlsym(RTLD_DEFAULT, "patchsite_ctl_read");
		char buf[64] = "";

		outer(1000);
		outer(20000);
		outer(2000);
		printf("calls=outer:3\n");
		if (rd && rd("tracing_max_latency", buf, sizeof(buf)) > 0)
			printf("max_latency=%s", buf);
		ctl("tracing_max_latency", "0");
		if (rd && rd("tracing_max_latency", buf, sizeof(buf)) > 0)
			printf("max_latency=%s", buf);
	} else if (!strcmp(mode, "storm")) {
		storm_mode();
	} else if (!strcmp(mode, "ctl")) {
		ctl_mode();
	} else {
		fprintf(stderr, "usage: feat onoff|pid|thresh|args|trig|latency|ctl\n");
		return 2;
	}
	return 0;
}
