// SPDX-License-Identifier: GPL-2.0-only
/*
 * riscv64's register map for probes (arch/regs.h): a0-a7 and fa0-fa7 as
 * the generic trampoline saved them (frame.h).  Where its frame leaves
 * the entry sp is not established here yet: $stack, $stackN and stack
 * arguments are refused by name on riscv64 (ps_regs_entry_sp is 0).
 */
#include <string.h>

#include "frame.h"
#include "regs.h"

const char ps_regs_known[] = "a0..a7, fa0..fa7";

int ps_regs_index(const char *name)
{
	if (name[0] == 'a' && name[1] >= '0' && name[1] <= '7' && !name[2])
		return name[1] - '0';
	if (!strncmp(name, "fa", 2) && name[2] >= '0' && name[2] <= '7' && !name[3])
		return 8 + name[2] - '0';
	return -1;
}

int ps_regs_arg_index(unsigned n)
{
	return (int)n;	/* a0..a7 */
}

uint64_t ps_regs_get(const struct patchsite_regs *r, int index)
{
	return index < 8 ? r->a[index] : r->fa[index - 8];
}

const bool ps_regs_stack_known = false;

uintptr_t ps_regs_entry_sp(const struct patchsite_regs *r)
{
	(void)r;
	return 0;
}

int ps_regs_stack_arg(unsigned n)
{
	(void)n;
	return -1;
}

/* ps_riscv64_graph_return_slow (tramp.S) saved a0 at sp and fa0 at sp + 112, slot = sp + 200. */
uint64_t ps_regs_exit_value(const unsigned long *slot, bool fp)
{
	uint64_t v;

	memcpy(&v, (const char *)slot - 200 + (fp ? 112 : 0), 8);
	return v;
}
