/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The probes' register map (events/probe_fetch.c): what a fetch argument
 * may read from the registers the generic trampoline saved at a function's
 * entry.  One regs.c per arch folder; the names are the ABI's own.
 */
#ifndef PS_REGS_H
#define PS_REGS_H

#include <stdbool.h>
#include <stdint.h>

struct patchsite_regs;

/* The index of register name for ps_regs_get, or -1 when the trampoline does not save it. */
int ps_regs_index(const char *name);
uint64_t ps_regs_get(const struct patchsite_regs *r, int index);
/* The index of the register holding integer argument n (0-based, below arg_regs). */
int ps_regs_arg_index(unsigned n);
/* The registers ps_regs_index knows, for an error message ("rdi, rsi, ..."). */
extern const char ps_regs_known[];
/*
 * The stack pointer at the function's entry (before its prologue): $stack,
 * $stackN and the integer arguments passed on the stack; 0 where unknown.
 */
uintptr_t ps_regs_entry_sp(const struct patchsite_regs *r);
/* ps_regs_entry_sp is known on this arch. */
extern const bool ps_regs_stack_known;
/* Integer argument n (0-based) beyond the registers: its word at entry sp, or -1. */
int ps_regs_stack_arg(unsigned n);
/*
 * A return probe's $retval (events/probe.c): the value a hooked function
 * returned, read where the arch's graph_return slow path saved it (slot is
 * what it handed ps_graph_exit_slow).  fp: the low 64 bits of the first
 * floating-point return register (xmm0, d0, fa0), else the integer one
 * (rax, x0, a0).
 */
uint64_t ps_regs_exit_value(const unsigned long *slot, bool fp);

#endif
