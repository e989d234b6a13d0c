/* SPDX-License-Identifier: GPL-2.0-only */
/* Where a thread of the target may be borrowed (attach_safe.c, x86-64). */
#ifndef PS_CMD_ATTACH_SAFE_H
#define PS_CMD_ATTACH_SAFE_H

#include <stdbool.h>
#include <sys/user.h>

#include "attach_target.h"

/*
 * Where the stopped thread (registers r) is, if a safe point: "in the
 * program's code" (not with blocked_only) or "blocked in a system call";
 * NULL if not one.
 */
const char *attach_safe_point(const struct target *t, const char *libc,
			      const struct user_regs_struct *r, bool blocked_only);
/* Is the thread whose stack pointer is sp running a signal handler (restorer: __restore_rt)? */
bool attach_in_handler(const struct target *t, unsigned long restorer, unsigned long sp);
/* glibc's signal return trampoline (__restore_rt) in the C library libc's text, or 0. */
unsigned long attach_find_restorer(const struct target *t, const char *libc);
/* A `syscall` instruction (0f 05) in the C library libc's text, or 0. */
unsigned long attach_find_syscall_insn(const struct target *t, const char *libc);

#endif
