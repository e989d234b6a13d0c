// SPDX-License-Identifier: GPL-2.0-only
/*
 * A library whose constructor starts a thread that calls its traced
 * functions in a loop, so that the thread runs this code while the
 * runtime NOPs its sites (dlopen returns only after that).  The
 * constructor returns once the thread has made its first calls;
 * spin_stop() lets it make `more` further calls, stops and joins it, and
 * returns how many calls it made (negative if a result was wrong).
 * Used by testdata/patchsite/drivers/dlspin.c; run.sh builds it -pg -fPIC -shared.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#define TRACED __attribute__((noinline, noipa))

static pthread_t th;
static bool started;
static atomic_bool stop;
static atomic_long calls, wrong;

TRACED int spin_leaf(int x)
{
	return x * 3;
}

TRACED int spin_mid(int x)
{
	return spin_leaf(x) + 1;	/* not a tail call */
}

static void *spin(void *arg)
{
	(void)arg;
	for (int i = 0; !atomic_load_explicit(&stop, memory_order_relaxed); i = (i + 1) & 0xffff) {
		if (spin_mid(i) != 3 * i + 1)
			atomic_fetch_add(&wrong, 1);
		atomic_fetch_add_explicit(&calls, 1, memory_order_relaxed);
	}
	return NULL;
}

__attribute__((constructor)) static void spin_start(void)
{
	started = pthread_create(&th, NULL, spin, NULL) == 0;
	while (started && atomic_load(&calls) < 100)
		;
}

long spin_stop(long more)
{
	long want = atomic_load(&calls) + more;

	if (!started)
		return 0;
	while (atomic_load(&calls) < want)
		;
	atomic_store(&stop, true);
	pthread_join(th, NULL);
	started = false;
	return atomic_load(&wrong) ? -1 : atomic_load(&calls);
}
