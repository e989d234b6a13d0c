// SPDX-License-Identifier: GPL-2.0-only
/*
 * report's rows against uftrace's (tests/patchsite/uftreport.sh): functions
 * with distinct call counts, so that an order by calls is one order, and
 * two threads besides main.  By construction:
 *   main: work(0) and work(1) in two threads, then top() 4 times (N times
 *         with an argument N: report --diff's two runs)
 *   work: mid() 3 times;  top: mid() 2 times, rare() once on the first
 *   mid: leaf() 4 times
 * so leaf 56, mid 14, top 4, work 2, rare 1, main 1 calls; the main thread
 * completes 1 + 4 + 8 + 32 + 1 = 46 calls, each worker 1 + 3 + 12 = 16.
 */
#include <pthread.h>
#include <stdlib.h>

#define TRACED __attribute__((noinline))

static volatile unsigned long sink;

TRACED void leaf(unsigned long x)
{
	for (int i = 0; i < 100; i++)
		sink += x * (unsigned long)i;
}

TRACED void mid(unsigned long x)
{
	for (int i = 0; i < 4; i++)
		leaf(x + (unsigned long)i);
}

TRACED void rare(void)
{
	for (int i = 0; i < 5000; i++)
		sink += (unsigned long)i;
}

TRACED void top(int first)
{
	mid(1);
	mid(2);
	if (first)
		rare();
}

TRACED void *work(void *arg)
{
	for (int i = 0; i < 3; i++)
		mid((unsigned long)arg + (unsigned long)i);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[2];
	int tops = argc > 1 ? atoi(argv[1]) : 4;

	for (long i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, work, (void *)i))
			return 1;
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < tops; i++)
		top(i == 0);
	return 0;
}
