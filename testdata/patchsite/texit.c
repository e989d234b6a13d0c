// SPDX-License-Identifier: GPL-2.0-only
/* function_graph and thread exit: one thread returns, one calls pthread_exit two calls deep. */
#include <pthread.h>
#include <stdio.h>

#define TRACED __attribute__((noinline, noipa))

TRACED void quit_deep(long x)
{
	if (x)
		pthread_exit((void *)x);
}

TRACED void quit_mid(long x)
{
	quit_deep(x);
}

TRACED void *worker(void *arg)
{
	quit_mid((long)arg);
	return (void *)5;
}

int main(void)
{
	pthread_t a, b;
	void *ra, *rb;

	pthread_create(&a, NULL, worker, (void *)0);
	pthread_join(a, &ra);
	pthread_create(&b, NULL, worker, (void *)7);
	pthread_join(b, &rb);
	quit_mid(0);
	printf("ret=%ld,%ld\n", (long)ra, (long)rb);
	return 0;
}
