// SPDX-License-Identifier: GPL-2.0-only
/*
 * A long-running threaded program for the control channel's tests
 * (tests/patchsite/ctl.sh), driven by lines on stdin:
 *   run N   every thread calls alpha(), beta() and gamma() N times each
 *           (gamma from beta), then "done A B C" gives the calls made
 *   spin    the threads call them without end (256 at a time, 0.5 ms apart), until
 *   stop    "stopped A B C"
 *   fork    a child that says "child PID" and lives until killed (or 60 s)
 *   exec    run itself again (a new image under the same pid), "ready" again
 *   quit    exit 0
 * It counts its own calls: those counts are the tests' oracle.
 */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_THREADS 16

static atomic_long calls[3];
static atomic_int spinning;
static volatile long sink;

__attribute__((noinline)) void gamma_leaf(long x)
{
	atomic_fetch_add_explicit(&calls[2], 1, memory_order_relaxed);
	sink += x;
}

__attribute__((noinline)) void alpha(long x)
{
	atomic_fetch_add_explicit(&calls[0], 1, memory_order_relaxed);
	sink += x;
}

__attribute__((noinline)) void beta(long x)
{
	atomic_fetch_add_explicit(&calls[1], 1, memory_order_relaxed);
	gamma_leaf(x);
}

struct job {
	pthread_t th;
	long n;		/* calls; 0: until spinning drops */
};

static void *worker(void *arg)
{
	struct job *j = arg;

	for (long i = 0; j->n ? i < j->n : atomic_load(&spinning); i++) {
		alpha(i);
		beta(i);
		/* Spinning, bursts of 256 calls: what is recorded meanwhile stays some MB. */
		if (!j->n && i % 256 == 255)
			usleep(500);
	}
	return NULL;
}

static void start(struct job *jobs, int nth, long n)
{
	for (int i = 0; i < nth; i++) {
		jobs[i].n = n;
		if (pthread_create(&jobs[i].th, NULL, worker, &jobs[i]))
			exit(2);
	}
}

static void join_all(struct job *jobs, int nth, const char *what)
{
	for (int i = 0; i < nth; i++)
		pthread_join(jobs[i].th, NULL);
	printf("%s %ld %ld %ld\n", what, atomic_exchange(&calls[0], 0),
	       atomic_exchange(&calls[1], 0), atomic_exchange(&calls[2], 0));
	fflush(stdout);
}

int main(int argc, char **argv)
{
	int nth = argc > 1 ? atoi(argv[1]) : 4;
	struct job jobs[MAX_THREADS];
	char line[128];

	if (nth < 1 || nth > MAX_THREADS)
		return 2;
	printf("ready\n");
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin)) {
		if (!strncmp(line, "run ", 4)) {
			start(jobs, nth, atol(line + 4));
			join_all(jobs, nth, "done");
		} else if (!strcmp(line, "spin\n")) {
			atomic_store(&spinning, 1);
			start(jobs, nth, 0);
		} else if (!strcmp(line, "stop\n")) {
			atomic_store(&spinning, 0);
			join_all(jobs, nth, "stopped");
		} else if (!strcmp(line, "fork\n")) {
			pid_t pid;

			signal(SIGCHLD, SIG_IGN);	/* reaped at once: a killed child is gone */
			pid = fork();

			if (!pid) {
				printf("child %d\n", (int)getpid());
				fflush(stdout);
				sleep(60);
				_exit(0);
			}
		} else if (!strcmp(line, "exec\n")) {
			execv("/proc/self/exe", argv);
			return 3;
		} else if (!strcmp(line, "quit\n")) {
			break;
		}
	}
	return 0;
}
