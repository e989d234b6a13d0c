// SPDX-License-Identifier: GPL-2.0-only
/*
 * Driving one seized, stopped thread of the target (x86-64): wait for its
 * stops with a time limit, make it run one raw system call (single-stepped
 * over a `syscall` instruction of the C library) or one function call
 * (returning onto an int3), and put it back exactly as it was.  Signals
 * that arrive on the way are kept and delivered when it is let go.
 */
#if defined(__x86_64__)
#include <elf.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/ptrace.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "attach_ptrace.h"

static void on_alarm(int sig)
{
	(void)sig;	/* only to interrupt waitpid */
}

/* The next stop of tid, for up to ms (a timer interrupts the wait). */
int hijack_wait(int tid, int *status, long ms)
{
	struct itimerval it = { .it_value = { ms / 1000, ms % 1000 * 1000 } }, off = { 0 };
	struct sigaction sa = { .sa_handler = on_alarm }, old;
	pid_t r;
	int err;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, &old);
	setitimer(ITIMER_REAL, &it, NULL);
	r = waitpid(tid, status, __WALL);
	err = r == tid ? 0 : errno == EINTR ? -ETIMEDOUT : -errno;
	setitimer(ITIMER_REAL, &off, NULL);
	sigaction(SIGALRM, &old, NULL);
	return err;
}

static int set_regs(int tid, struct user_regs_struct *r)
{
	return ptrace(PTRACE_SETREGS, tid, NULL, r) ? -errno : 0;
}

/* Resume the thread as it was, with the signal that stopped it, if any. */
int hijack_restore(struct hijack *h)
{
	int err = set_regs(h->tid, &h->saved);

	if (h->have_x && ptrace(PTRACE_SETREGSET, h->tid, (void *)NT_X86_XSTATE, &h->xio) && !err)
		err = -errno;
	if (ptrace(PTRACE_SETSIGMASK, h->tid, (void *)sizeof(h->mask), &h->mask) && !err)
		err = -errno;
	if (ptrace(PTRACE_DETACH, h->tid, NULL, (void *)(long)h->pending) && !err)
		err = -errno;
	return err;
}

/* A stop on the way to the expected one: keep a signal for later, go on. */
static bool other_stop(struct hijack *h, int status)
{
	int sig = WSTOPSIG(status);

	if (status >> 16)	/* a group-stop or our interrupt: nothing to deliver */
		return true;
	if (sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE)
		return false;	/* the injected code faulted: give up */
	if (!h->pending)
		h->pending = sig;
	return true;
}

/* One raw system call on the stopped thread, single-stepped over the C library's `syscall`. */
int hijack_syscall(struct hijack *h, long nr, const long a[6], long *ret)
{
	struct user_regs_struct r = h->saved;
	int status, err;

	r.rax = (unsigned long)nr;
	r.rdi = (unsigned long)a[0], r.rsi = (unsigned long)a[1], r.rdx = (unsigned long)a[2];
	r.r10 = (unsigned long)a[3], r.r8 = (unsigned long)a[4], r.r9 = (unsigned long)a[5];
	r.rip = h->syscall_insn;
	r.orig_rax = (unsigned long)-1;		/* nothing to restart */
	err = set_regs(h->tid, &r);
	while (!err) {
		if (ptrace(PTRACE_SINGLESTEP, h->tid, NULL, NULL))
			return -errno;
		err = hijack_wait(h->tid, &status, CALL_WAIT_MS);
		if (err)
			return err;
		if (!WIFSTOPPED(status))
			return -ESRCH;
		if (ptrace(PTRACE_GETREGS, h->tid, NULL, &r))
			return -errno;
		if (r.rip == h->syscall_insn + 2) {
			*ret = (long)r.rax;
			return 0;
		}
		if (r.rip != h->syscall_insn || !other_stop(h, status))
			return -EFAULT;
	}
	return err;
}

/* The stack pointer of a call by hijack_call: 256 bytes below the red zone. */
static unsigned long call_sp(const struct hijack *h)
{
	return ((h->saved.rsp - 128 - 256) & ~15UL) - 8;
}

unsigned long hijack_scratch(const struct hijack *h)
{
	return call_sp(h) + 8;	/* above the return address: the called function's caller's */
}

/* fn(a0..a3) on the stopped thread, below its red zone, returning onto the code page's int3. */
int hijack_call(struct hijack *h, const struct target *t, unsigned long fn,
		       unsigned long trap, const unsigned long a[4], long *ret)
{
	struct user_regs_struct r = h->saved;
	unsigned long sp = call_sp(h);
	int status, err;

	if (pwrite(t->mem, &trap, sizeof(trap), (off_t)sp) != sizeof(trap))
		return -errno;
	r.rsp = sp;			/* as after a call: (rsp + 8) % 16 == 0 */
	r.rip = fn;
	r.rdi = a[0], r.rsi = a[1], r.rdx = a[2], r.rcx = a[3];
	r.rax = 0;
	r.orig_rax = (unsigned long)-1;
	err = set_regs(h->tid, &r);
	while (!err) {
		if (ptrace(PTRACE_CONT, h->tid, NULL, NULL))
			return -errno;
		err = hijack_wait(h->tid, &status, CALL_WAIT_MS);
		if (err)
			return err;
		if (!WIFSTOPPED(status))
			return -ESRCH;
		if (WSTOPSIG(status) == SIGTRAP && !(status >> 16)) {
			if (ptrace(PTRACE_GETREGS, h->tid, NULL, &r))
				return -errno;
			if (r.rip == trap + 1) {
				*ret = (long)r.rax;
				return 0;
			}
			return -EFAULT;
		}
		if (!other_stop(h, status))
			return -EFAULT;
	}
	return err;
}

#endif /* __x86_64__ */
