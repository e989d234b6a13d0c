// SPDX-License-Identifier: GPL-2.0-only
/*
 * The process bench/patchsite/ctl.sh controls: THREADS threads call the N
 * generated functions round robin until standard input closes; untraced
 * until the bench sets a tracer through the control channel.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

extern int (*const bench_funcs[])(int);
extern const int bench_nfuncs;

static atomic_bool stop;
static atomic_long calls;

static void *caller(void *arg)
{
	long n = 0;

	(void)arg;
	for (int i = 0; !atomic_load_explicit(&stop, memory_order_relaxed); i++, n++)
		bench_funcs[i % bench_nfuncs](i);
	atomic_fetch_add(&calls, n);
	return NULL;
}

int main(int argc, char **argv)
{
	int nth = argc > 1 ? atoi(argv[1]) : 2;
	pthread_t th[16];

	if (nth < 1 || nth > 16)
		return 2;
	for (int i = 0; i < nth; i++)
		pthread_create(&th[i], NULL, caller, NULL);
	printf("ready\n");
	fflush(stdout);
	while (getchar() != EOF)
		;
	atomic_store(&stop, true);
	for (int i = 0; i < nth; i++)
		pthread_join(th[i], NULL);
	printf("%ld calls\n", atomic_load(&calls));
	return 0;
}
