// SPDX-License-Identifier: GPL-2.0-only
/*
 * dlopens a plugin and calls it (tests/patchsite/libcall_dl.sh):
 *   libcall_dlmain once PLUGIN N      open, N calls, close; twice (a reopen)
 *   libcall_dlmain deep PLUGIN N      the same, opened with RTLD_DEEPBIND
 *   libcall_dlmain reopen PLUGIN N    N times: open, one call, close
 *   libcall_dlmain threads PLUGIN N   100 cycles: 4 threads each open, call,
 *       close N times while the main thread does the same, then every
 *       handle is closed and glibc must say the plugin is unloaded
 *       (dlopen RTLD_NOLOAD fails) before the next cycle reopens it.
 *   libcall_dlmain hold PLUGIN DIR    open, write DIR/pid, wait for DIR/go1,
 *       one call, close, write DIR/closed, wait for DIR/go2
 * Prints only what does not depend on timing.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define THREADS	4
#define CYCLES	100

typedef long (*work_fn)(long);

static const char *plugin;
static long per_thread;
static int open_flags = RTLD_LAZY;
static pthread_barrier_t start, done;

/* Open, call n times, close: the sum of what it returned. */
static long use_plugin(long n)
{
	void *h = dlopen(plugin, open_flags);
	work_fn f;
	long sum = 0;

	if (!h) {
		fprintf(stderr, "dlopen %s: %s\n", plugin, dlerror());
		exit(1);
	}
	f = (work_fn)(uintptr_t)dlsym(h, "plug_work");
	if (!f) {
		fprintf(stderr, "dlsym plug_work: %s\n", dlerror());
		exit(1);
	}
	for (long i = 0; i < n; i++)
		sum += f(i);
	if (dlclose(h)) {
		fprintf(stderr, "dlclose: %s\n", dlerror());
		exit(1);
	}
	return sum;
}

static void *worker(void *arg)
{
	long *sum = arg;

	for (int c = 0; c < CYCLES; c++) {
		pthread_barrier_wait(&start);
		for (long k = 0; k < per_thread; k++)
			*sum += use_plugin(1);
		pthread_barrier_wait(&done);
	}
	return NULL;
}

static int threads(void)
{
	pthread_t t[THREADS];
	long sums[THREADS] = { 0 }, sum = 0, unloaded = 0;

	pthread_barrier_init(&start, NULL, THREADS + 1);
	pthread_barrier_init(&done, NULL, THREADS + 1);
	for (int i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, worker, &sums[i]);
	for (int c = 0; c < CYCLES; c++) {
		void *h;

		pthread_barrier_wait(&start);
		sum += use_plugin(per_thread);
		pthread_barrier_wait(&done);
		h = dlopen(plugin, RTLD_LAZY | RTLD_NOLOAD);
		if (h)
			dlclose(h);
		else
			unloaded++;
	}
	for (int i = 0; i < THREADS; i++) {
		pthread_join(t[i], NULL);
		sum += sums[i];
	}
	printf("threads %d cycles %d calls %ld unloaded %ld sum %ld\n", THREADS, CYCLES,
	       (THREADS + 1) * CYCLES * per_thread, unloaded, sum);
	return 0;
}

/* Until DIR/name exists (the test's signal, a condition, not a time). */
static void wait_for(const char *dir, const char *name)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	while (access(path, F_OK))
		usleep(10000);
}

static void put(const char *dir, const char *name, long v)
{
	char path[4096], tmp[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	snprintf(tmp, sizeof(tmp), "%s/%s.tmp", dir, name);
	f = fopen(tmp, "w");
	if (!f || fprintf(f, "%ld\n", v) < 0 || fclose(f) || rename(tmp, path)) {
		perror(path);
		exit(1);
	}
}

static int hold(const char *dir)
{
	void *h = dlopen(plugin, RTLD_LAZY);
	work_fn f = h ? (work_fn)(uintptr_t)dlsym(h, "plug_work") : NULL;
	long v;

	if (!f) {
		fprintf(stderr, "%s: %s\n", plugin, dlerror());
		return 1;
	}
	put(dir, "pid", (long)getpid());
	wait_for(dir, "go1");
	v = f(3);
	dlclose(h);
	put(dir, "closed", 1);
	wait_for(dir, "go2");
	printf("hold: %ld\n", v);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: %s once|deep|reopen|threads PLUGIN N, or hold PLUGIN DIR\n", argv[0]);
		return 2;
	}
	plugin = argv[2];
	if (argv[1][0] == 'h')
		return hold(argv[3]);
	per_thread = atol(argv[3]);
	if (argv[1][0] == 't')
		return threads();
	if (argv[1][0] == 'd')
		open_flags |= RTLD_DEEPBIND;
	if (argv[1][0] == 'r') {
		long sum = 0;

		for (long i = 0; i < per_thread; i++)
			sum += use_plugin(1);
		printf("reopened %ld times: sum %ld\n", per_thread, sum);
		return 0;
	}
	for (int k = 0; k < 2; k++)
		printf("open %d: sum %ld\n", k, use_plugin(per_thread));
	return 0;
}
