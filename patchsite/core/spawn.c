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
#include <pthread.h>
#include <signal.h>

#include "core/core.h"

int ps_spawn(void *(*fn)(void *), void *arg, size_t stack, pthread_t *out)
{
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
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&th, &attr, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	if (!err && out)
		*out = th;
	return err;
}
