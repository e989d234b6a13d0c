// SPDX-License-Identifier: GPL-2.0-only
/*
 * Return probes' hook (record.h ps_retprobe_hook): a return probe's
 * function gets its return hooked as function_graph hooks one, on the
 * same shadow stack and through the same return trampoline, so that
 * everything that keeps hooked returns right (record/unwind.c: C++
 * exceptions, longjmp, thread exits, a stack unwound by a debugger's
 * backtrace) keeps these right too.  Only the probed functions pay: the
 * hook is set from the probes' ops callback, every other function keeps
 * its NOP or its fast trampoline.
 *
 * The probe's entry values ($argN, names: the kernel's fprobe entry data)
 * are kept in the frame's slow info, in the words a graph frame's ring
 * positions take (a probe's frame has none): a frame moved below a
 * longjmp's dead ones (graph.c) takes them along.
 *
 * The frame hooks nothing but the probe: it writes no entry or exit word
 * (key bit PS_FRAME_SLOW sends its return to C, where graph.c hands it
 * here), and a frame closed by anything but its own return fires nothing,
 * as the kernel's fprobe exit handler never runs for a call a longjmp
 * left: a value it would show is not one the function returned.
 *
 * When function_graph hooked the same return first, this frame's return
 * address is the hook itself: its return runs the trampoline a second
 * time, for the graph's frame below (record/unwind.c already reads past
 * frames whose saved address is the hook, as tail calls make them).
 */
#include "arch/regs.h"
#include "graph.h"

void (*ps_retprobe_fire)(void *data, uint64_t x, uint64_t fp, const uint64_t *edata,
			 uint64_t caller);

bool ps_retprobe_hook(unsigned long *loc, void *data, const uint64_t *edata, unsigned n)
{
	struct ps_fast *f = &ps_fast;
	struct ps_thread *t = thread_setup();
	uintptr_t slot = frame_key_slot(loc);
	struct ps_frame *fr;
	struct ps_fslow *x;

	if (!t || !own_stack(f, slot) || f->fp >= t->frames_end)
		return false;
	fr = f->fp;
	fr->ret = *loc;
	fr->key = (slot - PS_FRAME_KEY_BIAS) | PS_FRAME_SLOW;
	fr->idw = 0;
	x = &t->fslow[fr - t->frames];
	*x = (struct ps_fslow){ .flags = PS_FS_PROBE, .prof = data };
	/* The frame's copy: moved with it when frames below a longjmp are compacted (graph.c). */
	for (unsigned i = 0; i < n && i < PS_FS_EDATA; i++)
		x->edata[i] = edata[i];
	f->fp++;
	*loc = (uintptr_t)ps.arch->graph_return;
	return true;
}

/*
 * The return of a probe's frame (graph.c ps_graph_exit_slow), slot as the
 * return trampoline handed it: the probe fired in a reader's section, as
 * the dispatcher runs ops, so that a probe's recorder removed meanwhile
 * is freed only after it.
 */
void ps_retprobe_exit(struct ps_thread *t, const struct ps_fslow *x, const unsigned long *slot,
		      uintptr_t caller)
{
	void (*fire)(void *, uint64_t, uint64_t, const uint64_t *, uint64_t) = ps_retprobe_fire;
	unsigned long seq;

	if (!fire)
		return;
	if (t->depth) {
		if (!ps_own)
			lose(t);	/* a signal handler's return, inside the runtime's ops */
		return;
	}
	t->depth = 1;		/* what the probe calls is not traced */
	seq = ps_reader_enter(t);
	fire(x->prof, ps_regs_exit_value(slot, false), ps_regs_exit_value(slot, true), x->edata,
	     caller);
	ps_reader_exit(t, seq);
	t->depth = 0;
}

unsigned long ps_retprobe_parent(unsigned long *loc)
{
	struct ps_thread *t = ps_self;
	struct ps_fast *f = &ps_fast;
	uintptr_t slot = frame_key_slot(loc);
	unsigned long ret = *loc;

	/* Newest first: a slot hooked twice (the graph's, then a probe's) holds the hook in the newer. */
	for (struct ps_frame *fr = f->fp; t && ret == (uintptr_t)ps.arch->graph_return &&
	     fr-- > t->frames + 1;)
		if (frame_slot(fr) == slot)
			ret = fr->ret;
	return ret;
}
