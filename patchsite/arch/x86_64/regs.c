// SPDX-License-Identifier: GPL-2.0-only
/*
 * x86-64's register map for probes (arch/regs.h).  The generic trampoline
 * saves the six argument registers, rax, r10, r11 and xmm0-7 (frame.h);
 * at the entry %rsp points at the return address, so $stack0 is the
 * return address and the seventh integer argument is $stack1 (SysV ABI
 * 3.2.3: arguments left to right on the stack above the return address).
 */
#include <string.h>

#include "frame.h"
#include "regs.h"

static const char *const gprs[] = { "rdi", "rsi", "rdx", "rcx", "r8", "r9", "rax", "r10", "r11" };
#define NGPR (int)(sizeof(gprs) / sizeof(gprs[0]))

const char ps_regs_known[] = "rdi, rsi, rdx, rcx, r8, r9, rax, r10, r11, xmm0..xmm7";

int ps_regs_index(const char *name)
{
	for (int i = 0; i < NGPR; i++)
		if (!strcmp(name, gprs[i]))
			return i;
	if (!strncmp(name, "xmm", 3) && name[3] >= '0' && name[3] <= '7' && !name[4])
		return NGPR + name[3] - '0';
	return -1;
}

int ps_regs_arg_index(unsigned n)
{
	return (int)n;	/* rdi, rsi, rdx, rcx, r8, r9: gprs[0..5] */
}

/* An xmm register: its low 64 bits (a double, or a float in the low 32). */
uint64_t ps_regs_get(const struct patchsite_regs *r, int index)
{
	const unsigned long *g = &r->rdi;
	uint64_t v;

	if (index < NGPR)
		return g[index];
	memcpy(&v, r->xmm[index - NGPR], 8);
	return v;
}

const bool ps_regs_stack_known = true;

uintptr_t ps_regs_entry_sp(const struct patchsite_regs *r)
{
	return (uintptr_t)r->parent_loc;
}

int ps_regs_stack_arg(unsigned n)
{
	return n >= 6 ? (int)n - 5 : -1;
}

/*
 * ps_x86_64_graph_return's slow path pushed rax just below the slot, then
 * called ps_x86_64_call_saved, whose frame puts xmm0 at the 16-aligned
 * (slot - 216): slot - 8 rdi, - 16 the call's return, - 24 rbp, 5 pushes,
 * 128 bytes, aligned down (tramp.S; a change there shows in the double
 * returns of tests/patchsite/retprobe.sh).
 */
uint64_t ps_regs_exit_value(const unsigned long *slot, bool fp)
{
	uint64_t v;

	if (!fp)
		return slot[-1];
	memcpy(&v, (const void *)(((uintptr_t)slot - 216) & ~(uintptr_t)15), 8);
	return v;
}
