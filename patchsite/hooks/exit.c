// SPDX-License-Identifier: GPL-2.0-only
/*
 * _exit and _Exit: a process that ends with them (a forked child after its
 * work, as servers' RDB/AOF children do) ends cleanly, with its status, in
 * the trace directory: its threads' files are closed and `end` is written
 * with an `exit N` line (store.c ps_store_finish_exit), then the next
 * definition is called (a sanitizer's, or the C library's).  Only a signal
 * or a kill leaves a process without `end`.
 *
 * Defined where libpatchsite is preloaded or linked into the program; the
 * C library's own calls of _exit (exit() after the destructors) do not come
 * here, and need not: the destructor has written `end` by then.
 */
#include <dlfcn.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"

typedef void (*exit_fn)(int) __attribute__((noreturn));

static __attribute__((noreturn)) void exit_next(const char *name, int status)
{
	exit_fn next = (exit_fn)dlsym(RTLD_NEXT, name);

	if (next)
		next(status);
	for (;;)
		syscall(SYS_exit_group, status);
}

__attribute__((visibility("default"), noreturn)) void _exit(int status)
{
	ps_store_finish_exit(status);
	exit_next("_exit", status);
}

__attribute__((visibility("default"), noreturn)) void _Exit(int status)
{
	ps_store_finish_exit(status);
	exit_next("_Exit", status);
}
