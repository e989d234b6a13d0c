// SPDX-License-Identifier: GPL-2.0-only
/*
 * A program one of whose threads runs at nice -20 and makes threads all
 * the time, for tests/patchsite/attach.sh: a thread the program creates
 * while an attach runs boosted (cmd/attach/attach_boost.c) must keep its
 * creator's nice, not get the borrowed thread's.  The main thread (the
 * program's nice) reads stdin; the thread "spawner" sets nice -20 (root)
 * and makes a thread every 5 ms, up to MAX, each of which waits for the
 * end (it inherits the name and the nice).  Says "ready" once the spawner
 * runs at -20; "quit" on stdin ends it (status 0).
 */
#define _GNU_SOURCE	/* pthread_setname_np */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define MAX	2000

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int stop, ready;

__attribute__((noinline)) int spawned(int n)
{
	return n + 1;
}

static void *child(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	while (!stop)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
	return NULL;
}

static void *spawner(void *arg)
{
	struct timespec ms5 = { 0, 5000000 };
	int n = 0;

	(void)arg;
	if (setpriority(PRIO_PROCESS, 0, -20))
		perror("setpriority -20");
	pthread_mutex_lock(&lock);
	ready = 1;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
	for (; n < MAX; n = spawned(n)) {
		pthread_t th;

		pthread_mutex_lock(&lock);
		if (stop) {
			pthread_mutex_unlock(&lock);
			break;
		}
		pthread_mutex_unlock(&lock);
		if (!pthread_create(&th, NULL, child, NULL))
			pthread_detach(th);
		nanosleep(&ms5, NULL);
	}
	return NULL;
}

int main(void)
{
	char line[64];
	pthread_t th;

	setvbuf(stdout, NULL, _IOLBF, 0);
	pthread_create(&th, NULL, spawner, NULL);
	pthread_setname_np(th, "spawner");
	pthread_mutex_lock(&lock);
	while (!ready)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
	printf("ready\n");
	while (fgets(line, sizeof(line), stdin) && strcmp(line, "quit\n"))
		;
	pthread_mutex_lock(&lock);
	stop = 1;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
	pthread_join(th, NULL);
	return 0;
}
