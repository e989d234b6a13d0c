// SPDX-License-Identifier: GPL-2.0-only
/*
 * The program of tests/patchsite/script.sh: calls at several depths, a
 * recursion (report counts a recursive function's total once per outer
 * call), a second thread, and a function whose argument and return value
 * are known (twice(i) returns 2 * i + 1).  usage: scripted N
 * It prints the calls it made of each function.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static int fibs;

__attribute__((noinline)) int twice(int i)
{
	return 2 * i + 1;
}

__attribute__((noinline)) int sum(int n)
{
	int s = 0;

	for (int i = 0; i < n; i++)
		s += twice(i);
	return s;
}

__attribute__((noinline)) int fib(int n)
{
	fibs++;
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

__attribute__((noinline)) void *worker(void *arg)
{
	*(int *)arg = sum(*(int *)arg);
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 5, s = 0, w = n;
	pthread_t t;

	if (pthread_create(&t, NULL, worker, &w) || pthread_join(t, NULL))
		return 1;
	for (int i = 0; i < n; i++)
		s += sum(i);
	s += fib(7);
	printf("main=1 worker=1 sum=%d twice=%d fib=%d result=%d\n", n + 1, n * (n - 1) / 2 + n,
	       fibs, s + w);
	return 0;
}
