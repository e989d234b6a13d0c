// SPDX-License-Identifier: GPL-2.0-only
/*
 * SIGTRAP around an attach (tests/patchsite/attach.sh, issue 44).
 *
 * The program has a SIGTRAP handler of its own (code with a site) and
 * executes an int3 of its own (not at a patch site) without end; the
 * handler counts them.  An
 * attach must leave that handler in charge of the program's own traps: the
 * runtime's handler chains to it.  The kernel resets a signal's action to
 * SIG_DFL when it forces that signal on a thread that blocks it
 * (force_sig_info_to_task), so a breakpoint of the runtime's reached in
 * that handler with SIGTRAP blocked (the runtime's handler, which calls it,
 * must not block it), or a trap the injection takes on a thread it
 * made block every signal (its single step, the int3 its call returns
 * onto) would silently take the program's handler away, and the next int3
 * of the program would kill it.  Without "own", the program sets no handler:
 * after the attach the runtime's handler must be installed (SigCgt), which
 * that reset undoes when it races the runtime's start-up (the SIGTRAP
 * deaths of issue 44).
 *
 * With "block", a second thread blocks every signal (as many servers' worker
 * threads do) and calls a traced function without end: a breakpoint of the
 * live patching protocol reached there would be fatal for the same reason,
 * so the runtime must refuse a live change while such a thread exists.
 *
 * With "handler", its SIGUSR1 handler (code with sites) blocks every signal
 * while it runs (sigfillset sa_mask): refused by name likewise.
 *
 * argv: [own] [block] [handler]; it prints "ready", runs until SIGUSR2, then prints
 * "ok TRAPS CALLS" and exits 0.
 */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static atomic_int quit;
static atomic_long traps, calls;
static volatile long sink;

__attribute__((noinline)) void work(long i);

/* Most of the program's time is here: its calls of work() meet the sites as they change. */
static void on_trap(int sig)
{
	for (long i = 0; i < 100000; i++)
		work(i + sig);
	atomic_fetch_add_explicit(&traps, 1, memory_order_relaxed);
}

__attribute__((noinline)) void on_usr1(int sig)
{
	work(sig);
}

static void on_quit(int sig)
{
	(void)sig;
	atomic_store(&quit, 1);
}

__attribute__((noinline)) void work(long i)
{
	sink += i;
}

static void *blocked_worker(void *arg)
{
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	for (long i = 0; !atomic_load(&quit); i++) {
		work(i);
		atomic_fetch_add_explicit(&calls, 1, memory_order_relaxed);
	}
	return arg;
}

int main(int argc, char **argv)
{
	int own = 0, block = 0, handler = 0;
	struct sigaction sa = { .sa_handler = on_usr1 };
	pthread_t th;

	for (int i = 1; i < argc; i++) {
		own |= !strcmp(argv[i], "own");
		block |= !strcmp(argv[i], "block");
		handler |= !strcmp(argv[i], "handler");
	}
	sigfillset(&sa.sa_mask);
	if (handler)
		sigaction(SIGUSR1, &sa, NULL);
	if (own)
		signal(SIGTRAP, on_trap);
	signal(SIGUSR2, on_quit);
	if (block && pthread_create(&th, NULL, blocked_worker, NULL))
		return 2;
	printf("ready\n");
	fflush(stdout);
	for (long i = 0; !atomic_load(&quit); i++) {
		work(i);
		if (own)
			__asm__ volatile("int3");	/* all the time: on_trap runs as its site changes */
		else
			usleep(1000);
	}
	if (block)
		pthread_join(th, NULL);
	printf("ok %ld %ld\n", own ? atomic_load(&traps) : 0L, atomic_load(&calls));
	return 0;
}
