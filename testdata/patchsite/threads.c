// SPDX-License-Identifier: GPL-2.0-only
/*
 * Threads and fork under the function tracer: two threads one after the
 * other, then a child that calls traced code and exits normally (it must
 * not write the parent's trace), then the parent again.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define TRACED __attribute__((noinline, noipa))

TRACED int work_leaf(int x)
{
	return x + 1;
}

TRACED int work_mid(int x)
{
	return work_leaf(x) * 2;
}

TRACED void *work_thread(void *arg)
{
	return (void *)(long)work_leaf((int)(long)arg);
}

int main(void)
{
	long sum = 0;
	pthread_t t;
	void *r;
	pid_t pid;
	int status;

	for (long i = 0; i < 2; i++) {
		pthread_create(&t, NULL, work_thread, (void *)i);
		pthread_join(t, &r);
		sum += (long)r;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0)
		exit(work_mid(5) == 12 ? 0 : 1);
	waitpid(pid, &status, 0);
	sum += work_mid(1);
	printf("sum=%ld child=%d\n", sum, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	return 0;
}
