// SPDX-License-Identifier: GPL-2.0-only
/*
 * A process to attach to at its worst moments (tests/patchsite/attach.sh):
 * the main thread calls malloc and free without end and takes a SIGALRM
 * every millisecond whose handler runs the program's own code for most of
 * that millisecond (so a thread stopped "in the program's code" is often
 * in a handler that interrupted malloc); another thread dlopens and
 * dlcloses libm in a loop (so the loader lock is often held); a third
 * stays in the program's code.  No thread blocks in a system call.  After
 * SECONDS (argv[1], default 3), or at SIGUSR2 (the test sends it once it
 * has attached, so a slow attach on a busy machine is not a failure), it
 * prints its counts and exits 0; a thread that deadlocked makes it hang
 * instead.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

static atomic_int stop, quit;
static atomic_long handled, allocs, loads, spins;
static volatile long sink;

static long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000L + ts.tv_nsec / 1000;
}

__attribute__((noinline)) void tick(long i)
{
	sink += i;
}

/* Runs the program's code for 0.7 ms: a stop here is a stop in a handler. */
__attribute__((noinline)) void on_alarm(int sig)
{
	long end = now_us() + 700;

	(void)sig;
	for (long i = 0; now_us() < end; i++)
		tick(i);
	atomic_fetch_add_explicit(&handled, 1, memory_order_relaxed);
}

static void on_quit(int sig)
{
	(void)sig;
	atomic_store(&quit, 1);
}

__attribute__((noinline)) void *churn(size_t n)
{
	void *p = malloc(n);

	if (p)
		((volatile char *)p)[0] = 1;
	return p;
}

static void *loader(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop)) {
		void *h = dlopen("libm.so.6", RTLD_NOW | RTLD_LOCAL);

		if (h)
			dlclose(h);
		atomic_fetch_add_explicit(&loads, 1, memory_order_relaxed);
	}
	return NULL;
}

__attribute__((noinline)) void spin_once(long i)
{
	sink += i;
}

static void *spinner(void *arg)
{
	(void)arg;
	for (long i = 0; !atomic_load(&stop); i++) {
		spin_once(i);
		atomic_fetch_add_explicit(&spins, 1, memory_order_relaxed);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 3;
	struct itimerval it = { { 0, 1000 }, { 0, 1000 } };
	struct sigaction sa = { .sa_handler = on_alarm, .sa_flags = SA_RESTART };
	sigset_t alrm;
	pthread_t th[2];
	long end;
	void *keep[64] = { 0 };

	/* Only the main thread takes SIGALRM (the threads inherit it blocked). */
	sigemptyset(&alrm);
	sigaddset(&alrm, SIGALRM);
	pthread_sigmask(SIG_BLOCK, &alrm, NULL);
	bool spin = argc > 2 && !strcmp(argv[2], "spin");

	if (pthread_create(&th[0], NULL, loader, NULL) ||
	    (spin && pthread_create(&th[1], NULL, spinner, NULL)))
		return 2;
	pthread_sigmask(SIG_UNBLOCK, &alrm, NULL);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	signal(SIGUSR2, on_quit);
	setitimer(ITIMER_REAL, &it, NULL);
	printf("ready\n");
	fflush(stdout);
	end = now_us() + (long)(secs * 1e6);
	for (unsigned i = 0; now_us() < end && !atomic_load(&quit); i++) {
		unsigned k = i % 64;

		free(keep[k]);
		keep[k] = churn(16 + (i * 37) % 4000);
		atomic_fetch_add_explicit(&allocs, 1, memory_order_relaxed);
	}
	it.it_value.tv_usec = it.it_interval.tv_usec = 0;
	setitimer(ITIMER_REAL, &it, NULL);
	atomic_store(&stop, 1);
	pthread_join(th[0], NULL);
	if (spin)
		pthread_join(th[1], NULL);
	for (unsigned k = 0; k < 64; k++)
		free(keep[k]);
	printf("ok %ld handled, %ld allocs, %ld loads, %ld spins\n", atomic_load(&handled),
	       atomic_load(&allocs), atomic_load(&loads), atomic_load(&spins));
	return 0;
}
