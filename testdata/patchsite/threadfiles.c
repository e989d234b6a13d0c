// SPDX-License-Identifier: GPL-2.0-only
/*
 * The moments at which a thread's file can be made badly (issue 23: thread
 * files of zeros or no bytes in a server that ended cleanly): the oracle
 * of tests/patchsite/record.sh "thread files".  usage: threadfiles HOW
 *   shutdown  16 threads start recording as main calls exit(0)
 *   killed    the same, the process killed (SIGKILL) instead
 *   fork      one thread forks children (each records, then _exit) while
 *             64 threads start and record once
 *   clone     a thread that never recorded makes a child with clone(2),
 *             which runs no fork handler, and the child records; prints
 *             clone=PID
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

__attribute__((noinline)) int leaf(int x)
{
	__asm__ volatile("");
	return x + 1;
}

static volatile int stop;

static void *worker(void *arg)
{
	int s = 0;

	(void)arg;
	while (!stop)
		s += leaf(s);
	return NULL;
}

static void *once(void *arg)
{
	(void)arg;
	leaf(1);
	return NULL;
}

static void *forker(void *arg)
{
	(void)arg;
	for (int i = 0; i < 20; i++) {
		pid_t p = fork();

		if (!p) {
			leaf(2);
			_exit(0);
		}
		if (p > 0)
			waitpid(p, NULL, 0);
	}
	return NULL;
}

static int clone_child(void *arg)
{
	(void)arg;
	leaf(3);
	syscall(SYS_exit_group, 0);
	return 0;
}

/* Not traced: the thread has no record when its child records. */
__attribute__((no_instrument_function)) static void *cloner(void *arg)
{
	static char stack[1 << 16];
	pid_t p = clone(clone_child, stack + sizeof(stack), SIGCHLD, NULL);

	(void)arg;
	printf("clone=%d\n", (int)p);
	fflush(stdout);
	if (p > 0)
		waitpid(p, NULL, 0);
	return NULL;
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "shutdown";
	pthread_t th[64];

	leaf(0);
	if (!strcmp(how, "shutdown") || !strcmp(how, "killed")) {
		for (int i = 0; i < 16; i++)
			pthread_create(&th[i], NULL, worker, NULL);
		if (!strcmp(how, "killed"))
			kill(getpid(), SIGKILL);
		exit(0);
	}
	if (!strcmp(how, "fork")) {
		pthread_t f;

		pthread_create(&f, NULL, forker, NULL);
		for (int i = 0; i < 64; i++)
			pthread_create(&th[i], NULL, once, NULL);
		for (int i = 0; i < 64; i++)
			pthread_join(th[i], NULL);
		pthread_join(f, NULL);
		return 0;
	}
	if (!strcmp(how, "clone")) {
		pthread_t c;

		pthread_create(&c, NULL, cloner, NULL);
		pthread_join(c, NULL);
		return 0;
	}
	return 2;
}
