// SPDX-License-Identifier: GPL-2.0-only
/*
 * A program that knows how many traced calls it made, then ends in a
 * chosen way: the oracle of the trace directory tests (tests/patchsite/
 * record.sh).  usage: ending N HOW [M]
 *   N calls of leaf() from main(), then HOW:
 *   normal  return from main        segv   a write through NULL
 *   abort   abort()                 kill   SIGKILL to itself
 *   term    SIGTERM to itself       _exit  _exit(3)
 *   fork    a child makes M calls of leaf() and returns; the parent, after
 *           waiting, makes M more and returns
 *   exec    execs itself as `ending M normal`
 *   fib     calls fib(N) and prints how many calls of fib it made
 *   threads 4 threads make N calls of leaf() each
 * It prints `calls=...` with what it did, before the end.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile long sink, fib_calls;

__attribute__((noinline)) void leaf(long i)
{
	sink += i;
	__asm__ volatile("" ::: "memory");
}

/* Not turned into a loop plus an accumulator (gcc's tail recursion pass): every call is one. */
__attribute__((noinline, optimize("no-optimize-sibling-calls"))) long fib(int n)
{
	fib_calls++;
	__asm__ volatile("" ::: "memory");
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

static void calls(long n)
{
	for (long i = 0; i < n; i++)
		leaf(i);
}

static void *thread(void *arg)
{
	calls((long)arg);
	return NULL;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10, m = argc > 3 ? atol(argv[3]) : 5;
	const char *how = argc > 2 ? argv[2] : "normal";
	int st;

	if (!strcmp(how, "fib")) {
		long r = fib((int)n);

		printf("fib=%ld calls=%ld\n", r, fib_calls);
		return 0;
	}
	if (!strcmp(how, "threads")) {
		pthread_t t[4];

		for (int i = 0; i < 4; i++)
			pthread_create(&t[i], NULL, thread, (void *)n);
		for (int i = 0; i < 4; i++)
			pthread_join(t[i], NULL);
		printf("calls=%ld\n", 4 * n);
		return 0;
	}
	calls(n);
	printf("calls=%ld\n", n);
	fflush(stdout);
	if (!strcmp(how, "segv"))
		*(volatile int *)0 = 1;
	else if (!strcmp(how, "abort"))
		abort();
	else if (!strcmp(how, "kill"))
		kill(getpid(), SIGKILL);
	else if (!strcmp(how, "term"))
		kill(getpid(), SIGTERM);
	else if (!strcmp(how, "_exit"))
		_exit(3);
	else if (!strcmp(how, "exec")) {
		char num[32];

		snprintf(num, sizeof(num), "%ld", m);
		execl("/proc/self/exe", argv[0], num, "normal", (char *)NULL);
		return 1;
	} else if (!strcmp(how, "fork")) {
		pid_t pid = fork();

		if (pid == 0) {
			calls(m);
			return 0;
		}
		waitpid(pid, &st, 0);
		calls(m);
	}
	return 0;
}
