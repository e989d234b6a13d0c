/* SPDX-License-Identifier: GPL-2.0-only */
/* One borrowed thread of the target, driven with ptrace (attach_ptrace.c, x86-64). */
#ifndef PS_CMD_ATTACH_PTRACE_H
#define PS_CMD_ATTACH_PTRACE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>
#include <sys/user.h>

#include "attach_boost.h"
#include "attach_target.h"

#define CALL_WAIT_MS	10000	/* pthread_create on the borrowed thread */

struct hijack {
	int tid;
	struct user_regs_struct saved;
	uint8_t xstate[16384];
	struct iovec xio;
	bool have_x;
	uint64_t mask;
	int pending;		/* a signal that stopped it, delivered when we leave */
	unsigned long syscall_insn;
	struct attach_prio prio; /* its own, while attach_boost_stop boosts it */
};

/* The next stop of tid, for up to ms: 0, -ETIMEDOUT or -errno. */
int hijack_wait(int tid, int *status, long ms);
/* One raw system call nr(a) on the stopped thread; its result in *ret. */
int hijack_syscall(struct hijack *h, long nr, const long a[6], long *ret);
/* fn(a0..a3) on the stopped thread, returning onto the int3 at trap; its result in *ret. */
int hijack_call(struct hijack *h, const struct target *t, unsigned long fn, unsigned long trap,
		const unsigned long a[4], long *ret);
/*
 * 8 bytes on the stopped thread's stack, below its red zone, that a call by
 * hijack_call leaves alone: a place for what the call writes back.
 */
unsigned long hijack_scratch(const struct hijack *h);
/* Registers, vector state and signal mask back as saved; detach with the pending signal. */
int hijack_restore(struct hijack *h);

#endif
