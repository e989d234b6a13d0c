// SPDX-License-Identifier: GPL-2.0-only
/*
 * A program that starts and ends many threads one after another, under a
 * low limit of open files: it prints how many threads it ran and whether it
 * can still open a file, and on stderr how many descriptors it gained.  Traced, the numbers must be the ones
 * of an untraced run (the oracle): a tracer that kept a descriptor per ended
 * thread would show more, and past the limit the program's own opens fail.
 */
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

__attribute__((noinline)) void *work(void *arg)
{
	__asm__ volatile("" ::: "memory");
	return arg;
}

static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	if (!d)
		return -1;
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

int main(int argc, char **argv)
{
	int threads = argc > 1 ? atoi(argv[1]) : 200, ran = 0;
	struct rlimit r = { 64, 64 };
	int before;

	if (setrlimit(RLIMIT_NOFILE, &r))
		return 2;
	before = open_fds();
	for (int i = 0; i < threads; i++) {
		pthread_t t;

		if (pthread_create(&t, NULL, work, NULL) == 0 && pthread_join(t, NULL) == 0)
			ran++;
	}
	FILE *f = fopen("/dev/null", "r");
	printf("threads %d; fopen %s\n", ran, f ? "ok" : "failed");
	fprintf(stderr, "grew %d\n", open_fds() - before);
	return f ? 0 : 1;
}
