// SPDX-License-Identifier: GPL-2.0-only
/*
 * function_graph's hooked returns that this thread's shadow stack does not
 * hold (graph.c ps_graph_exit_slow found no frame for the slot): the frame
 * another thread pushed, or, when none did, the thread ends.
 */
#include "arch/entry.h"	/* ps_graph_lost is reached by a return: its stack alignment */
#include "graph.h"

/*
 * The frame of the thread that hooked this slot, in any thread's shadow
 * stack (a context that moved to another thread with hooked returns on
 * it); 0 when none.  Reads other threads' frames racily: a frame found is
 * only ever read, and frames are never unmapped.
 */
uintptr_t ps_graph_other_thread_ret(struct ps_thread *me, uintptr_t key)
{
	for (struct ps_thread *t = atomic_load(&ps.threads); t; t = t->next) {
		struct ps_fast *f = atomic_load(&t->fast);
		struct ps_frame *top = f ? *(struct ps_frame *volatile *)&f->fp : NULL;

		if (t == me || !t->frames || !top || top <= t->frames || top > t->frames_end)
			continue;
		for (struct ps_frame *fr = top; fr-- > t->frames + 1;)
			if ((*(volatile uintptr_t *)&fr->key & ~(uintptr_t)PS_FRAME_SLOW) == key)
				return fr->ret;
	}
	return 0;
}

/*
 * How a thread ends when its hooked return is lost: pthread_exit as the
 * program sees it, that is record/unwind.c's wrapper, which undoes the
 * thread's hooked returns first.  Set once at init (api.c wire), so that
 * this file, below unwind.c, does not name it.
 */
void (*ps_graph_thread_exit)(void *ret) __attribute__((noreturn));

/*
 * The thread could not tell where a hooked return goes (see patchsite(7):
 * a program that copies its stacks around).  Nothing can continue that
 * call; the runtime must not abort the program, so the thread alone ends.
 */
/* Reached by a return, not a call: PS_REACHED_BY_RET (host.h) fixes the stack alignment where needed. */
void ps_graph_lost(void)
{
	ps_log(PATCHSITE_LOG_ERROR, "function_graph: a hooked return address was lost "
	       "(stack copied?): ending this thread");
	ps_graph_thread_exit(NULL);
}
