// SPDX-License-Identifier: GPL-2.0-only
/* make demo's traced program: two worker threads sum primes, main reports. */
#include <pthread.h>
#include <stdio.h>

static int is_prime(int n)
{
	for (int d = 2; d * d <= n; d++)
		if (n % d == 0)
			return 0;
	return n > 1;
}

static long sum_primes(int lo, int hi)
{
	long s = 0;

	for (int n = lo; n < hi; n++)
		if (is_prime(n))
			s += n;
	return s;
}

static void *worker(void *arg)
{
	long *range = arg;

	range[2] = sum_primes((int)range[0], (int)range[1]);
	return NULL;
}

int main(void)
{
	long a[3] = { 0, 200, 0 }, b[3] = { 200, 400, 0 };
	pthread_t ta, tb;

	pthread_create(&ta, NULL, worker, a);
	pthread_create(&tb, NULL, worker, b);
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	printf("sum of primes below 400: %ld\n", a[2] + b[2]);
	return 0;
}
