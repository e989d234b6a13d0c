// SPDX-License-Identifier: GPL-2.0-only
/*
 * Is a stopped thread of the target at a safe point to borrow
 * (attach_inject.c has the design)?  Blocked in one of the C library's
 * lock-free blocking calls, or in the program's own code, and not running
 * a signal handler (the kernel's signal frame looked for on its stack);
 * and the C library's instructions the borrowing needs (a `syscall`, the
 * signal return trampoline).  Apart from attach_inject.c because it only
 * reads the target: what it decides is where attach_inject.c may write.
 * x86-64 only, as the injection is.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "attach_safe.h"

#if defined(__x86_64__)

/*
 * A blocking call of the C library's that holds none of its locks.  A
 * futex wait qualifies only as FUTEX_WAIT_BITSET, which glibc (2.34 on)
 * uses to wait for an event (pthread_cond_wait, pthread_join, sem_wait,
 * rwlocks): its own lock waits (malloc's arena, stdio, the loader's
 * recursive locks, lowlevellock) use FUTEX_WAIT.
 */
static bool blocking_call(long nr, unsigned long arg2)
{
	if (nr == SYS_futex)
		return (arg2 & 127) == 9;	/* FUTEX_WAIT_BITSET, private or not */
	switch (nr) {
	case SYS_read: case SYS_readv: case SYS_pread64: case SYS_preadv: case SYS_poll:
	case SYS_select: case SYS_nanosleep: case SYS_pause: case SYS_accept:
	case SYS_recvfrom: case SYS_recvmsg: case SYS_wait4: case SYS_msgrcv:
	case SYS_rt_sigtimedwait: case SYS_rt_sigsuspend: case SYS_epoll_wait:
	case SYS_clock_nanosleep: case SYS_waitid: case SYS_pselect6: case SYS_ppoll:
	case SYS_epoll_pwait: case SYS_accept4: case SYS_recvmmsg:
		return true;
	}
	return false;
}

/*
 * Is the stopped thread at a safe point (attach_inject.c says which)?  The
 * first pass over the threads takes only one blocked in a system call: a
 * thread in the program's code might be in the program's own allocator,
 * which pthread_create's calloc would then wait for (a malloc the
 * program defines interposes on the C library's).
 */
const char *attach_safe_point(const struct target *t, const char *libc,
			      const struct user_regs_struct *r, bool blocked_only)
{
	long rc = (long)r->rax;

	if (!blocked_only && target_in_text(t, r->rip, t->exe))
		return "in the program's code";
	/* -ERESTARTSYS, -ERESTARTNOINTR, -ERESTARTNOHAND, -ERESTART_RESTARTBLOCK, -EINTR */
	if ((long)r->orig_rax >= 0 && (rc == -512 || rc == -513 || rc == -514 || rc == -516 ||
				       rc == -EINTR) &&
	    blocking_call((long)r->orig_rax, r->rsi) && target_in_text(t, r->rip, libc))
		return "blocked in a system call";
	return NULL;
}

/*
 * glibc's signal return trampoline, __restore_rt (not in the dynamic
 * symbols): the kernel pushes it as the return address of every handler.
 */
static const uint8_t restore_rt[] = {
	0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00,	/* mov $15,%rax (rt_sigreturn) */
	0x0f, 0x05,					/* syscall */
};

/* An instruction sequence in the C library's text; 0 if none. */
static unsigned long find_in_libc(const struct target *t, const char *libc, const uint8_t *seq,
				  size_t n)
{
	static uint8_t buf[1 << 16];

	for (size_t i = 0; i < t->nmaps; i++) {
		const struct map *m = &t->maps[i];

		if (m->perms[2] != 'x' || strcmp(m->path, libc))
			continue;
		for (unsigned long a = m->lo; a < m->hi; a += sizeof(buf) - n) {
			size_t len = m->hi - a < sizeof(buf) ? m->hi - a : sizeof(buf);
			ssize_t got = pread(t->mem, buf, len, (off_t)a);

			for (ssize_t k = 0; k + (ssize_t)n <= got; k++)
				if (!memcmp(buf + k, seq, n))
					return a + (unsigned long)k;
		}
	}
	return 0;
}

/* glibc's __restore_rt in the C library's text, or 0. */
unsigned long attach_find_restorer(const struct target *t, const char *libc)
{
	return find_in_libc(t, libc, restore_rt, sizeof(restore_rt));
}

/*
 * The kernel's x86-64 signal frame (arch/x86/kernel/signal_64.c, struct
 * rt_sigframe), in 8-byte words from the handler's return address:
 * uc_flags (UC_FP_XSTATE, UC_SIGCONTEXT_SS, UC_STRICT_RESTORE_SS: 7 today;
 * up to 16 bits taken, so that a flag a later kernel adds still matches: a
 * handler missed is a deadlock, a copy taken for one only a retry),
 * uc_stack's flags (0, SS_ONSTACK or SS_DISABLE, maybe with SS_AUTODISARM),
 * and uc_mcontext's fpstate, the saved FPU state the kernel puts just above
 * the frame (64-byte aligned for XSAVE): sigcontext's 24th word.
 */
#define SIGFRAME_UC_FLAGS	1
#define SIGFRAME_SS_FLAGS	4
#define SIGFRAME_FPSTATE	(1 + 5 + 23)
#define SIGFRAME_FP_WITHIN	(64 * 1024)	/* fpstate this far above the frame at most */

/*
 * Is words[i], equal to the handler's return address, a signal frame's
 * first word?  A stale copy is common: sigaction() builds its request on
 * the stack with the same address in it, and deeper frames later leave
 * that word where they do not write (Lua, attached while it recursed, was
 * refused every time that way); the frame's other words rule such a copy
 * out.
 */
static bool sigframe_at(const uint64_t *words, size_t n, size_t i, unsigned long at)
{
	uint32_t ss_flags;
	uint64_t fp;

	if (i + SIGFRAME_FPSTATE >= n)
		return false;
	ss_flags = (uint32_t)words[i + SIGFRAME_SS_FLAGS] & ~(1u << 31);
	fp = words[i + SIGFRAME_FPSTATE];
	return words[i + SIGFRAME_UC_FLAGS] < 1u << 16 && ss_flags <= 2 && fp % 64 == 0 &&
	       fp > at && fp - at < SIGFRAME_FP_WITHIN;
}

/*
 * Is the thread running a signal handler?  Its stack (or alternate stack)
 * then holds the kernel's signal frame, which starts with the handler's
 * return address (__restore_rt), above the stack pointer.  Program code in a
 * handler may have interrupted malloc or a lock of the C library, which
 * pthread_create would then wait for: not a safe point.  The live part of
 * the stack is read up to 256 KiB.
 */
bool attach_in_handler(const struct target *t, unsigned long restorer, unsigned long sp)
{
	static uint64_t words[32768];
	unsigned long top = 0;
	ssize_t got;

	if (!restorer)
		return false;
	for (size_t i = 0; i < t->nmaps; i++)
		if (sp >= t->maps[i].lo && sp < t->maps[i].hi)
			top = t->maps[i].hi;
	sp &= ~7UL;
	if (!top)
		return false;
	if (top - sp > sizeof(words))
		top = sp + sizeof(words);
	got = pread(t->mem, words, top - sp, (off_t)sp);
	for (ssize_t i = 0; i < got / 8; i++)
		if (words[i] == restorer &&
		    sigframe_at(words, (size_t)got / 8, (size_t)i, sp + 8 * (unsigned long)i))
			return true;
	return false;
}

/* A `syscall` instruction (0f 05) in the C library's text. */
unsigned long attach_find_syscall_insn(const struct target *t, const char *libc)
{
	static uint8_t buf[1 << 16];

	for (size_t i = 0; i < t->nmaps; i++) {
		const struct map *m = &t->maps[i];

		if (m->perms[2] != 'x' || strcmp(m->path, libc))
			continue;
		for (unsigned long a = m->lo; a < m->hi; a += sizeof(buf) - 1) {
			size_t n = m->hi - a < sizeof(buf) ? m->hi - a : sizeof(buf);
			ssize_t got = pread(t->mem, buf, n, (off_t)a);

			for (ssize_t k = 0; k + 1 < got; k++)
				if (buf[k] == 0x0f && buf[k + 1] == 0x05)
					return a + (unsigned long)k;
		}
	}
	return 0;
}

#endif /* __x86_64__ */
