// SPDX-License-Identifier: GPL-2.0-only
/*
 * Per-thread records and grace periods: what every reader of shared
 * runtime data without the lock (the dispatcher, the SIGTRAP handler, the
 * tracers) marks itself with, and what a writer waits on before it frees.
 *
 * Grace periods, user-space RCU with asymmetric fences: each thread has a
 * sequence number, odd while it is inside the dispatcher.  The reader side
 * is two plain stores and compiler barriers.  A writer publishes a new list,
 * then membarrier(PRIVATE_EXPEDITED) makes every running thread execute a
 * full barrier, so afterwards either a thread's odd sequence is visible or
 * the thread will load the new list.  The writer then waits until each
 * thread seen odd has moved on.  Only then is an old list freed or an
 * unregistered ops handed back to its owner.
 *
 * Thread records are allocated with mmap on a thread's first trip through
 * the dispatcher (which can be inside a signal handler) and never freed.
 */
#include <errno.h>
#include <linux/membarrier.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core/core.h"

__thread struct ps_thread *ps_self __attribute__((tls_model("initial-exec")));
__thread struct ps_fast ps_fast __attribute__((tls_model("initial-exec")));
__thread unsigned ps_own __attribute__((tls_model("initial-exec")));
static pthread_key_t thread_key;
static void (*on_exit_fn)(void);	/* the graph tracer closes the calls left open */
static void (*on_ended_fn)(struct ps_thread *);	/* its trace file finished, closed */

static void (*on_lost_fn)(struct ps_thread *);	/* the recorder counts it in the thread's file */

/* Who counts a thread's lost event besides t->lost (once, at init: api_init.c wire). */
void ps_thread_on_lost(void (*fn)(struct ps_thread *))
{
	on_lost_fn = fn;
}

/* An event of t's not recorded: counted where every loss is (replay, report, info say it). */
void ps_thread_lost(struct ps_thread *t)
{
	atomic_fetch_add_explicit(&t->lost, 1, memory_order_relaxed);
	if (on_lost_fn)
		on_lost_fn(t);
}

/* What runs first when a thread ends (once, at init: api.c wire). */
void ps_thread_on_exit(void (*fn)(void))
{
	on_exit_fn = fn;
}

/* What runs last when a thread ends, once its state is copied (once, at init: api_init.c wire). */
void ps_thread_on_ended(void (*fn)(struct ps_thread *))
{
	on_ended_fn = fn;
}

/*
 * The thread's TLS goes away with it: keep its tracer state where the
 * reader finds it, and close the calls still open (left by pthread_exit
 * or a cancel).  Asking to run again once lets destructors of other
 * keys still record (their events are kept only up to this copy).
 */
static void thread_exit(void *arg)
{
	struct ps_thread *t = arg;

	ps_own_enter();
	if (t->exit_rounds == 0 && on_exit_fn)
		on_exit_fn();
	if (t->base && t->fast == &ps_fast) {
		t->fast_copy = ps_fast;
		atomic_store(&t->fast, &t->fast_copy);
	}
	if (t->exit_rounds++ == 0) {
		pthread_setspecific(thread_key, t);
		ps_own_leave();
		return;
	}
	if (t->base) {
		t->fast_copy = ps_fast;
		atomic_store(&t->fast, &t->fast_copy);
		if (on_ended_fn)
			on_ended_fn(t);
	}
	atomic_store(&t->dead, true);
	ps_own_leave();
}

void ps_own_enter(void)
{
	ps_own++;
	ps_fast.budget = 0;	/* the fast paths take none: every call asks the gate */
}

void ps_own_leave(void)
{
	ps_own--;
}

struct ps_thread *ps_thread_self(void)
{
	struct ps_thread *t = ps_self, *head;

	if (t)
		return t;
	t = mmap(NULL, sizeof(*t), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (t == MAP_FAILED)
		return NULL;
	t->tid = (pid_t)syscall(SYS_gettid);
	prctl(PR_GET_NAME, t->comm, 0, 0, 0);
	head = atomic_load(&ps.threads);
	do
		t->next = head;
	while (!atomic_compare_exchange_weak(&ps.threads, &head, t));
	ps_self = t;
	pthread_setspecific(thread_key, t);
	return t;
}

/*
 * In a forked child, first of all (api.c after_fork_child): only the
 * calling thread exists, so nobody else can be inside the dispatcher.
 * Returns the caller's record, NULL when it had none.
 */
struct ps_thread *ps_thread_forked(void)
{
	struct ps_thread *me = NULL;

	for (struct ps_thread *t = atomic_load(&ps.threads); t; t = t->next) {
		if (t == ps_self) {
			t->tid = (pid_t)syscall(SYS_gettid);
			me = t;
			continue;
		}
		atomic_store(&t->dead, true);
		if (atomic_load(&t->seq) & 1)
			atomic_fetch_add(&t->seq, 1);
	}
	return me;
}

int ps_thread_init(void)
{
	int err = pthread_key_create(&thread_key, thread_exit);

	return err ? -err : 0;
}

/* Wait until every thread that may have seen the old state has left the dispatcher. */
void ps_sync_dispatchers(void)
{
	struct ps_thread *me = ps_self;

	syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
	for (struct ps_thread *t = atomic_load(&ps.threads); t; t = t->next) {
		unsigned long seq = atomic_load(&t->seq);

		if (!(seq & 1) || t == me)
			continue;
		while (atomic_load(&t->seq) == seq) {
			struct timespec ts = { 0, 20000 };

			if (atomic_load(&t->dead))
				break;
			nanosleep(&ts, NULL);
		}
	}
}

/*
 * Other readers of module data outside the lock (the SIGTRAP handler)
 * mark themselves the same way, so that one grace period covers them too.
 * Nested entries (a handler interrupting the dispatcher) leave seq alone.
 */
unsigned long ps_reader_enter(struct ps_thread *t)
{
	unsigned long seq = atomic_load_explicit(&t->seq, memory_order_relaxed);

	if (!(seq & 1)) {
		atomic_store_explicit(&t->seq, seq + 1, memory_order_relaxed);
		atomic_signal_fence(memory_order_seq_cst);
	}
	return seq;
}

void ps_reader_exit(struct ps_thread *t, unsigned long seq)
{
	if (seq & 1)
		return;
	atomic_signal_fence(memory_order_seq_cst);
	atomic_store_explicit(&t->seq, seq + 2, memory_order_release);
}
