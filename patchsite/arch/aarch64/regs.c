// SPDX-License-Identifier: GPL-2.0-only
/*
 * aarch64's register map for probes (arch/regs.h).  The generic trampoline
 * saves x0-x8, x10-x15 and q0-q7 (frame.h); its frame's top word, a[2],
 * is the entry sp - 8, so the entry sp is parent_loc + 1.  Integer
 * arguments beyond x7 are on the stack from the entry sp (AAPCS64 6.8.2,
 * each in an 8-byte slot for the types probes read).
 */
#include <string.h>

#include "frame.h"
#include "regs.h"

const char ps_regs_known[] = "x0..x8, x10..x15, d0..d7 (the low 64 bits of q0..q7)";

static int num(const char *s, int lo, int hi)
{
	int v = 0;

	if (!*s || (s[0] == '0' && s[1]))
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > 100)
			return -1;
		v = v * 10 + *s - '0';
	}
	return v >= lo && v <= hi ? v : -1;
}

/* 0..8: x0..x8; 10..15: x10..x15; 16..23: d0..d7. */
int ps_regs_index(const char *name)
{
	int n;

	if (name[0] == 'x' && (n = num(name + 1, 0, 15)) >= 0 && n != 9)
		return n;
	if (name[0] == 'd' && (n = num(name + 1, 0, 7)) >= 0)
		return 16 + n;
	return -1;
}

int ps_regs_arg_index(unsigned n)
{
	return (int)n;	/* x0..x7 */
}

uint64_t ps_regs_get(const struct patchsite_regs *r, int index)
{
	uint64_t v;

	if (index <= 8)
		return r->x[index];
	if (index < 16)
		return r->x10_15[index - 10];
	memcpy(&v, r->q[index - 16], 8);
	return v;
}

const bool ps_regs_stack_known = true;

uintptr_t ps_regs_entry_sp(const struct patchsite_regs *r)
{
	return (uintptr_t)(r->parent_loc + 1);
}

int ps_regs_stack_arg(unsigned n)
{
	return n >= 8 ? (int)n - 8 : -1;
}

/*
 * ps_aarch64_graph_return_slow (tramp.S) built its frame as the generic
 * trampoline's and handed ps_graph_exit_slow sp + A2 (296): struct
 * patchsite_regs is at sp + 16, so x0 is at slot - 280 and q0 at
 * slot - 200.
 */
uint64_t ps_regs_exit_value(const unsigned long *slot, bool fp)
{
	const struct patchsite_regs *r = (const void *)((uintptr_t)slot - 296 + 16);
	uint64_t v;

	if (!fp)
		return r->x[0];
	memcpy(&v, r->q[0], 8);
	return v;
}
