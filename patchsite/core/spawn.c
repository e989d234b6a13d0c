// SPDX-License-Identifier: GPL-2.0-only
/*
 * The runtime's own threads (the control channel, the trace store's
 * helper, the switch drainer, the warm-up of attach): detached, and made
 * with every signal but SIGTRAP blocked, so that a signal meant for the
 * program never lands in one of them.  SIGTRAP stays open: a live change
 * refuses to write breakpoints while a thread blocks it (sites/trap.c
 * ps_trap_ready), and ours run no site; one sent with kill() may land
 * here, where our handler passes it to the program's.
 *
 * Until its start routine runs, glibc keeps every signal blocked in a new
 * thread, SIGTRAP too.  On a busy machine that window lasted past
 * ps_trap_ready's looks, and a live change made just after tracing began
 * (the switch drainer is made then) was refused for one of our own
 * threads.  So each thread is kept in a slot from its creation until its
 * start routine runs, and ps_spawn_starting() tells ps_trap_ready to pass
 * it over: it runs no site before it starts.  The creator never waits for
 * the thread (a thread made in a forked child's handler under ASan waited
 * on ASan's registry, and its creator with it); the thread waits, at most
 * a few instructions, for its creator to have stored its id.
 */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/core.h"

#define SPAWN_SLOTS 8		/* the runtime makes four at most at once */
#define SLOT_FREE 0
#define SLOT_CLAIMED (-1L)	/* made, its id not stored yet */

static struct spawn_slot {
	_Atomic long tid;	/* SLOT_FREE, SLOT_CLAIMED, or the thread's id until it starts */
	void *(*fn)(void *);
	void *arg;
} slots[SPAWN_SLOTS];

static struct spawn_slot *slot_claim(void)
{
	for (unsigned i = 0; i < SPAWN_SLOTS; i++) {
		long free = SLOT_FREE;

		if (atomic_compare_exchange_strong(&slots[i].tid, &free, SLOT_CLAIMED))
			return &slots[i];
	}
	return NULL;	/* all in use: that thread's start window is only looked at (trap.c) */
}

/* The start routine: the slot is let go once the creator stored this thread's id. */
static void *spawn_main(void *p)
{
	struct spawn_slot *s = p;
	void *(*fn)(void *) = s->fn;
	void *arg = s->arg;
	long me = (long)syscall(SYS_gettid), expect = me;

	while (!atomic_compare_exchange_weak(&s->tid, &expect, SLOT_FREE)) {
		expect = me;
		sched_yield();
	}
	return fn(arg);
}

/*
 * The kernel id of a thread just made: glibc's thread CPU clock encodes it
 * (the kernel's per-thread clock id, ~tid << 3 | flags), and a pthread_t
 * has no other public way to it before glibc 2.42's pthread_gettid_np.
 */
static long thread_id(pthread_t th)
{
	clockid_t cid;

	if (pthread_getcpuclockid(th, &cid))
		return 0;
	return ~((long)cid >> 3);
}

int ps_spawn(void *(*fn)(void *), void *arg, size_t stack, pthread_t *out)
{
	struct spawn_slot *s = slot_claim();
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
	if (s) {
		s->fn = fn;
		s->arg = arg;
	}
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = s ? pthread_create(&th, &attr, spawn_main, s) : pthread_create(&th, &attr, fn, arg);
	/* alive until this store: spawn_main waits for it */
	if (s)
		atomic_store(&s->tid, err ? SLOT_FREE : thread_id(th));
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	if (!err && out)
		*out = th;
	return err;
}

bool ps_spawn_starting(long tid)
{
	for (unsigned i = 0; i < SPAWN_SLOTS; i++)
		if (tid > 0 && atomic_load(&slots[i].tid) == tid)
			return true;
	return false;
}

/* In a forked child: the parent's threads that had not started are not here. */
void ps_spawn_forked(void)
{
	for (unsigned i = 0; i < SPAWN_SLOTS; i++)
		atomic_store(&slots[i].tid, SLOT_FREE);
}
