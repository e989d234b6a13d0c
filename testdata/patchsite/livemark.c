// SPDX-License-Identifier: GPL-2.0-only
/*
 * For patchsite pipe, record --live, trace_marker and snapshot
 * (tests/patchsite/live.sh): THREADS threads each call leaf() CALLS times
 * (a pause of 1 ms every 1000 calls, so that a follower sees the threads
 * grow), and the program says what it did, as the oracle:
 *   calls N             leaf() calls made in all
 *   snapshot K B A      snapshot K taken (mode "snap") while the threads ran:
 *                       B leaf calls were complete before it began, A when
 *                       it had ended
 *   snapfile TEXT       the first line the snapshot control file reads then
 *   options LIST        (mode "opts") trace_options as read at start, one
 *                       comma-separated line
 *   overwrite RC        (mode "opts") what writing "overwrite" to it returned
 *                       (it is refused while recording); then "sym-offset" is
 *                       written, before the threads start
 * The runtime's entry points are looked up at run time (the program runs
 * under patchsite record, which preloads it): markers "start" and "end",
 * one of 1100 bytes that the runtime must cut, and "via ctl" written to
 * the trace_marker control file.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TRACED __attribute__((noinline, noipa))

static long calls;
static atomic_long done;

TRACED long leaf(long x)
{
	return x + 1;
}

static void *worker(void *arg)
{
	long s = 0;

	for (long i = 0; i < calls; i++) {
		s += leaf(i);
		atomic_fetch_add_explicit(&done, 1, memory_order_release);
		if (i % 1000 == 999) {
			struct timespec ts = { 0, 1000000 };

			nanosleep(&ts, NULL);
		}
	}
	return (void *)s;
}

int main(int argc, char **argv)
{
	long (*marker)(const char *) = (long (*)(const char *))dlsym(RTLD_DEFAULT, "patchsite_trace_marker");
	int (*snapshot)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "patchsite_snapshot");
	int (*ctl_write)(const char *, const char *, int) =
		(int (*)(const char *, const char *, int))dlsym(RTLD_DEFAULT, "patchsite_ctl_write");
	long (*ctl_read)(const char *, char *, unsigned long) =
		(long (*)(const char *, char *, unsigned long))dlsym(RTLD_DEFAULT, "patchsite_ctl_read");
	char text[256];
	int n = argc > 1 ? atoi(argv[1]) : 2;
	bool snap = argc > 3 && !strcmp(argv[3], "snap");
	bool opts = argc > 3 && !strcmp(argv[3], "opts");
	char big[1101];
	pthread_t t[64];

	calls = argc > 2 ? atol(argv[2]) : 10000;
	if (n < 1 || n > 64 || !marker || !snapshot || !ctl_write || !ctl_read) {
		fprintf(stderr, "livemark: bad arguments, or not run under libpatchsite\n");
		return 2;
	}
	marker("start\n");
	if (opts && ctl_read("trace_options", text, sizeof(text)) > 0) {
		for (char *c = text; *c; c++)
			*c = *c == '\n' && c[1] ? ',' : *c;
		printf("options %s", text);
		printf("overwrite %d\n", ctl_write("trace_options", "overwrite", 0));
		if (ctl_write("trace_options", "sym-offset", 0))
			printf("sym-offset refused\n");
	}
	for (int i = 0; i < n; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	if (snap) {
		struct timespec ts = { 0, 5000000 };
		long before, after;
		int k;

		nanosleep(&ts, NULL);
		before = atomic_load_explicit(&done, memory_order_acquire);
		k = snapshot();
		after = atomic_load_explicit(&done, memory_order_acquire);
		printf("snapshot %d %ld %ld\n", k, before, after);
		if (ctl_read("snapshot", text, sizeof(text)) > 0)
			printf("snapfile %.*s\n", (int)strcspn(text, "\n"), text);
	}
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	marker(big);
	if (ctl_write("trace_marker", "via ctl", 0))
		printf("trace_marker control file refused\n");
	marker("end");
	printf("calls %ld\n", n * calls);
	return 0;
}
