// SPDX-License-Identifier: GPL-2.0-only
/*
 * The SIGTRAP handler of live patching (patch.c has the protocol): a
 * thread that reaches a site while its first byte is the breakpoint is
 * sent where the site's new instruction would send it (the stub, or past
 * the NOP), or back to the site once the change is done.  A trap at no
 * function site is asked of the lookups other code registered (event
 * sites); one that is nobody's goes to the program's own handler.
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sites.h"

/*
 * Other code that writes int3 into the program (event sites: ps_patch_code
 * on behalf of events/), asked in turn when a trap is at no function site.
 * Registered once at init (api.c wire), before the handler is installed.
 */
static ps_trap_lookup_fn *lookups[2];
static unsigned nlookups;

void ps_patch_add_lookup(ps_trap_lookup_fn *fn)
{
	if (nlookups < sizeof(lookups) / sizeof(lookups[0]))
		lookups[nlookups++] = fn;
}

static struct sigaction old_trap;

/*
 * A trap that is not ours: to the program's own handler, as it would
 * have seen it, with its sa_mask blocked around it, but never SIGTRAP
 * (ours is installed SA_NODEFER): that handler is code with sites, and a
 * breakpoint of ours reached in it with SIGTRAP blocked would end the
 * process (ps_trap_ready says why).
 */
static void chain(int sig, siginfo_t *si, void *ctx)
{
	sigset_t mask = old_trap.sa_mask, was;

	if (!(old_trap.sa_flags & SA_SIGINFO) && old_trap.sa_handler == SIG_IGN)
		return;
	if (!(old_trap.sa_flags & SA_SIGINFO) && old_trap.sa_handler == SIG_DFL) {
		signal(SIGTRAP, SIG_DFL);
		raise(SIGTRAP);
		return;
	}
	sigdelset(&mask, SIGTRAP);
	pthread_sigmask(SIG_BLOCK, &mask, &was);
	if (old_trap.sa_flags & SA_SIGINFO) {
		if (old_trap.sa_sigaction)
			old_trap.sa_sigaction(sig, si, ctx);
	} else {
		old_trap.sa_handler(sig);
	}
	pthread_sigmask(SIG_SETMASK, &was, NULL);
}

static void trap_handler(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;

	if (ps.arch->is_breakpoint_trap(si)) {
		uintptr_t addr = ps.arch->trap_site(uc);
		/* Module records are freed after a grace period: be seen while reading them. */
		struct ps_thread *t = ps_thread_self();
		unsigned long seq = t ? ps_reader_enter(t) : 1;
		struct ps_site *s = ps_site_by_addr(addr);
		uintptr_t resume;
		bool handled = false;

		if (s) {
			if (*(volatile uint8_t *)addr == ps.arch->breakpoint) {
				bool call = atomic_load(&s->emulate_call);
				unsigned len = s->len > ps.arch->patch_len ? s->len : ps.arch->patch_len;

				/* As a NOP: skip the whole instruction as built (see ps_patch_late). */
				ps.arch->emulate(uc, addr, call, call ? ps_stub_of(s) : addr + len);
				atomic_fetch_add_explicit(&ps.traps_emulated, 1, memory_order_relaxed);
			} else {
				ps.arch->retry(uc, addr);
				atomic_fetch_add_explicit(&ps.traps_retried, 1, memory_order_relaxed);
			}
		}
		for (unsigned i = 0; !s && !handled && i < nlookups; i++)
			handled = lookups[i](addr, &resume);
		if (handled) {
			/* An event site changing (ps_patch_code): a NOP, or a jump to resume. */
			if (*(volatile uint8_t *)addr == ps.arch->breakpoint) {
				ps.arch->emulate(uc, addr, false, resume);
				atomic_fetch_add_explicit(&ps.traps_emulated, 1, memory_order_relaxed);
			} else {
				ps.arch->retry(uc, addr);
				atomic_fetch_add_explicit(&ps.traps_retried, 1, memory_order_relaxed);
			}
			handled = true;
		}
		if (t)
			ps_reader_exit(t, seq);
		if (s || handled)
			return;
	}
	chain(sig, si, ctx);
}

/* (Re)install the SIGTRAP handler, chaining to whatever the program set since. */
int ps_trap_install(void)
{
	struct sigaction sa, cur;

	if (sigaction(SIGTRAP, NULL, &cur) < 0)
		return -errno;
	if ((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == trap_handler)
		return 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = trap_handler;
	/* SA_NODEFER: a breakpoint of ours in a handler the trap runs (chain) must not find SIGTRAP blocked */
	sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGTRAP, &sa, &old_trap) < 0)
		return -errno;
	return 0;
}

/* Name and blocked set of thread tid, from /proc/self/task/TID/status; false if unreadable. */
static bool thread_blocked(long tid, char name[32], unsigned long long *blk)
{
	char path[64], line[256];
	bool got = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%ld/status", tid);
	f = fopen(path, "re");
	if (!f)
		return false;	/* it ended meanwhile */
	name[0] = '\0';
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Name: %31[^\n]", name) == 1)
			continue;
		if (sscanf(line, "SigBlk: %llx", blk) == 1) {
			got = true;
			break;
		}
	}
	fclose(f);
	return got;
}

/* The first thread but the caller that blocks SIGTRAP: its id (0: none) and name. */
static long trap_blocker_once(char name[32])
{
	const unsigned long long trap = 1ULL << (SIGTRAP - 1);
	long self = (long)gettid(), found = 0;
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;

	while (d && !found && (e = readdir(d))) {
		long tid = strtol(e->d_name, NULL, 10);
		unsigned long long blk;

		if (tid > 0 && tid != self && !ps_spawn_starting(tid) &&
		    thread_blocked(tid, name, &blk) && (blk & trap))
			found = tid;
	}
	if (d)
		closedir(d);
	return found;
}

/*
 * A thread that blocks SIGTRAP in every look for 0.3 s (150, 2 ms
 * apart).  glibc's pthread_create starts every new thread with all
 * signals blocked until its start routine, and some of its calls
 * (posix_spawn, abort) block them for their duration: C library code, no
 * site; and a program's own SIGTRAP handler runs with it blocked when the
 * kernel called it (before ours was installed).  Each is soon gone, if
 * preempted for a while on a busy machine (0.1 s was not always enough
 * beside two busy loops).  A thread that keeps SIGTRAP blocked (a worker
 * that blocked every signal) is there in every look.  Its id (0: none)
 * and name.
 */
static long trap_blocker(char name[32])
{
	long tid = trap_blocker_once(name);
	int seen = 1;

	/* 400 looks at most (0.8 s): a program that blocks it now here, now there is refused */
	for (int look = 0; tid && seen < 150 && look < 400; look++) {
		struct timespec ts = { 0, 2000000 };
		unsigned long long blk;

		nanosleep(&ts, NULL);
		if (!ps_spawn_starting(tid) && thread_blocked(tid, name, &blk) &&
		    (blk & (1ULL << (SIGTRAP - 1)))) {
			seen++;
		} else {
			tid = trap_blocker_once(name);	/* that one let it go: look at all again */
			seen = 1;
		}
	}
	return tid;
}

/* Is addr in the code of an object with sites? */
static bool in_traced_code(uintptr_t addr)
{
	for (unsigned i = 0; i < ps.nmods; i++)
		if (ps.mods[i]->nsites && !ps.mods[i]->gone && addr >= ps.mods[i]->text_lo &&
		    addr < ps.mods[i]->text_hi)
			return true;
	return false;
}

/*
 * The first signal whose handler runs with SIGTRAP blocked and is code
 * with sites; 0: none.  A handler elsewhere (gprof's SIGPROF counter in
 * the C library, which blocks every signal) reaches no site.
 */
static int handler_blocking_trap(void)
{
	for (int sig = 1; sig < NSIG; sig++) {
		struct sigaction sa;

		if (sig == SIGTRAP || sigaction(sig, NULL, &sa) < 0)
			continue;	/* ours; or one the C library keeps (SIGCANCEL) */
		if (sa.sa_handler != SIG_DFL && sa.sa_handler != SIG_IGN &&
		    sigismember(&sa.sa_mask, SIGTRAP) && in_traced_code((uintptr_t)sa.sa_handler))
			return sig;
	}
	return 0;
}

/*
 * PATCHSITE_TRAP_BLOCKED=warn: a thread that blocks SIGTRAP is only named.
 * For threads the user knows run no traced code: a sanitizer's own thread
 * (ThreadSanitizer's background thread blocks every signal), a runtime's
 * service threads.  The default refuses.
 */
static bool warn_only(void)
{
	const char *v = getenv("PATCHSITE_TRAP_BLOCKED");

	return v && !strcmp(v, "warn");
}

/*
 * Before a live change writes breakpoints: our handler in place, and no
 * thread of the program but the caller (which writes them, and runs no
 * site meanwhile) blocks SIGTRAP, nor does any of its handlers while it
 * runs (its sa_mask).  The kernel forces a trap's SIGTRAP on the thread
 * that took it; where that thread blocks it, the kernel unblocks it and
 * resets its action to SIG_DFL for the whole process
 * (force_sig_info_to_task), so a breakpoint reached there ends the
 * process (issue 44: a worker that blocks every signal, as many servers'
 * do, died in 8 of 10 attaches).  Refused by name instead, nothing
 * written.  It is a snapshot: a thread that blocks SIGTRAP after it is
 * not seen (patchsite(7)).  -EDEADLK when refused.
 */
int ps_trap_ready(void)
{
	char name[32];
	long tid;
	int err = ps_trap_install(), sig;

	if (err) {
		ps_log(PATCHSITE_LOG_ERROR, "cannot install the SIGTRAP handler: %s", strerror(-err));
		return err;
	}
	tid = trap_blocker(name);
	if (tid && warn_only()) {
		ps_log(PATCHSITE_LOG_WARNING, "thread %ld (%s) blocks SIGTRAP: changed all the same "
		       "(PATCHSITE_TRAP_BLOCKED=warn): a breakpoint reached there would end the "
		       "process", tid, name);
	} else if (tid) {
		ps_log(PATCHSITE_LOG_ERROR, "thread %ld (%s) blocks SIGTRAP: a breakpoint of a live "
		       "change reached there would end the process (the kernel kills a thread "
		       "that traps with SIGTRAP blocked); code not changed (PATCHSITE_TRAP_BLOCKED="
		       "warn if it never runs traced code)", tid, name);
		return -EDEADLK;
	}
	sig = handler_blocking_trap();
	if (sig) {
		ps_log(PATCHSITE_LOG_ERROR, "the program's handler of signal %d (%s) blocks SIGTRAP "
		       "while it runs (its sa_mask): a breakpoint of a live change reached there "
		       "would end the process; code not changed", sig, strsignal(sig));
		return -EDEADLK;
	}
	return 0;
}
