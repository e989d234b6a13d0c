// SPDX-License-Identifier: GPL-2.0-only
/*
 * An idle thread pool to attach to (tests/patchsite/attach.sh): 4 threads
 * wait on a condition variable (waking every 50 ms to call wake(), a
 * traced function) and the main thread waits in pthread_join: every
 * thread sits in a futex wait, none in the program's code or in a plain
 * blocking call.  After SECONDS (argv[1], default 2) the pool ends and
 * "ok N" gives the number of wakes; exit 0.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t work = PTHREAD_COND_INITIALIZER;
static struct timespec end;
static atomic_long wakes;

__attribute__((noinline)) void wake(void)
{
	atomic_fetch_add_explicit(&wakes, 1, memory_order_relaxed);
}

static void *pool(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	for (;;) {
		struct timespec now, until;

		clock_gettime(CLOCK_REALTIME, &now);
		if (now.tv_sec > end.tv_sec ||
		    (now.tv_sec == end.tv_sec && now.tv_nsec >= end.tv_nsec))
			break;
		until = now;
		until.tv_nsec += 50 * 1000000L;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&work, &lock, &until);
		wake();
	}
	pthread_mutex_unlock(&lock);
	return NULL;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 2;
	pthread_t th[4];

	clock_gettime(CLOCK_REALTIME, &end);
	end.tv_sec += (time_t)secs;
	end.tv_nsec += (long)((secs - (double)(time_t)secs) * 1e9);
	if (end.tv_nsec >= 1000000000L) {
		end.tv_sec++;
		end.tv_nsec -= 1000000000L;
	}
	for (int i = 0; i < 4; i++)
		if (pthread_create(&th[i], NULL, pool, NULL))
			return 2;
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	printf("ok %ld\n", atomic_load(&wakes));
	return 0;
}
