// SPDX-License-Identifier: GPL-2.0-only
/*
 * The runtime's own threads (the control channel, the trace store's
 * helper, the switch drainer, the warm-up of attach): detached, and made
 * with every signal but SIGTRAP blocked, so that a signal meant for the
 * program never lands in one of them.  SIGTRAP stays open: a live change
 * refuses to write breakpoints while a thread blocks it (sites/trap.c
 * ps_trap_ready), and ours run no site; one sent with kill() may land
 * here, where our handler passes it to the program's.
 */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>

#include "core/core.h"

/*
 * ps_spawn returns once the thread runs its start routine: until then
 * glibc keeps every signal blocked in it, SIGTRAP too, and a live change
 * in that window (the switch drainer is made as tracing starts) was
 * refused by ps_trap_ready when the new thread waited for a CPU longer
 * than its 0.3 s of looks (an ASan run beside other suites).
 */
struct spawn_start {
	void *(*fn)(void *);
	void *arg;
	sem_t started;
};

static void *spawn_main(void *p)
{
	struct spawn_start *st = p;
	void *(*fn)(void *) = st->fn;
	void *arg = st->arg;

	sem_post(&st->started);		/* st is the creator's, gone after this */
	return fn(arg);
}

int ps_spawn(void *(*fn)(void *), void *arg, size_t stack, pthread_t *out)
{
	struct spawn_start st = { .fn = fn, .arg = arg };
	pthread_attr_t attr;
	sigset_t all, old;
	pthread_t th;
	int err;

	sigfillset(&all);
	sigdelset(&all, SIGTRAP);
	pthread_attr_init(&attr);
	if (stack)
		pthread_attr_setstacksize(&attr, stack);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	if (sem_init(&st.started, 0, 0))
		return errno;
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&th, &attr, spawn_main, &st);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	while (!err && sem_wait(&st.started) && errno == EINTR)
		;
	sem_destroy(&st.started);
	if (!err && out)
		*out = th;
	return err;
}
