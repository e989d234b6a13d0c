// SPDX-License-Identifier: GPL-2.0-only
/*
 * The runtime's own threads (the control channel, the trace store's
 * helper, the switch drainer, the warm-up of attach): detached, and made
 * with every signal blocked, so that they start with all of them blocked
 * and a signal meant for the program never lands in one of them.
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
