// SPDX-License-Identifier: GPL-2.0-only
/*
 * The function tracer: one entry word and the parent address per call.
 * Its fast path is the arch's (tramp_func); this is its C path, taken when
 * a setting needs C (ps_record_slow) or other ops are registered too.
 */
#include "arch/entry.h"
#include "ring.h"

static void func_entry(uint32_t idw, unsigned long parent, struct patchsite_regs *regs)
{
	uint64_t tsc;
	struct ps_thread *t = begin_event(&tsc);
	unsigned rv;

	if (!t || !ps_gate_open(t))
		return;
	put_func(t, &ps_fast, tsc, idw, parent);
	put_args(NULL, idw, regs, &rv);
}

/* From the fast trampoline (arch/entry.h): a[0] id << 2, a[2] the return into the caller. */
void ps_func_entry_slow(unsigned long *a)
{
	func_entry((uint32_t)a[0], a[2], NULL);
}

/* From the late trampoline: a[0] id << 2, a[1] the address of the return into the caller. */
void ps_func_late_slow(unsigned long *a)
{
	func_entry((uint32_t)a[0], *(unsigned long *)a[1], NULL);
}

/* The built-in ops, for the generic dispatcher (other ops registered too). */
static void function_call(unsigned long ip, unsigned long parent, struct patchsite_ops *op,
			  struct patchsite_regs *regs)
{
	struct ps_thread *t = ps_thread_self();

	(void)ip, (void)op;
	/* A return probe's ops ran first and hooked the return: the caller is in its frame. */
	if (parent == (uintptr_t)ps.arch->graph_return && regs)
		parent = ps_retprobe_parent(patchsite_regs_parent_loc(regs));
	if (t)
		func_entry(t->cur_idw, parent, regs);
}

/* The function tracer alone takes the arch's fast path unless a setting needs C. */
static uintptr_t function_fast(void)
{
	return ps_record_slow() ? 0 : (uintptr_t)ps.arch->tramp_func;
}

struct patchsite_ops ps_function_ops = { .func = function_call };
const struct ps_ops_props ps_function_props = { .fast = function_fast };
