// SPDX-License-Identifier: GPL-2.0-only
/*
 * function_profile's x86-64 fast path is assembly (arch/x86_64/tramp.S:
 * ps_x86_64_prof_entry, and the return hook's profile half), as the graph
 * tracer's is: it reads and counts into the structures below by offset.
 * Those offsets (arch/x86_64/asm_offsets.h, which tramp.S includes) are
 * checked against the C here, where the structures are known, with the
 * core structures' every x86-64 fast path shares (events/probe_tramp_layout.c
 * checks the probes' own; core.h those every arch's assembly reads, from
 * core/fast_offsets.h).  The C path (graph.c, profile.c, profile_counters.h)
 * takes every other call and counts the same way; aarch64, riscv64 and the
 * TSan build have it alone.
 */
#if defined(__x86_64__)
#include <stddef.h>

#include "profile_counters.h"
#include "arch/x86_64/asm_offsets.h"

LAYOUT_AT(struct ps_thread, seq, PST_SEQ);
LAYOUT_SIZE(struct ps_thread, seq, 8);
LAYOUT_AT(struct ps_thread, depth, PST_DEPTH);
LAYOUT_SIZE(struct ps_thread, depth, 4);
LAYOUT_AT(struct ps_fslow, edata, FS_EDATA);
LAYOUT_AT(struct ps_fslow, rfast, FS_RFAST);
LAYOUT_AT(struct ps_thread, frames, PST_FRAMES);
LAYOUT_AT(struct ps_thread, fslow, PST_FSLOW);
LAYOUT_AT(struct ps_thread, notrace, PST_NOTRACE);
_Static_assert(sizeof(((struct ps_thread *)0)->notrace) == 4, "notrace: cmpl");
LAYOUT_AT(struct ps_fslow, tsc, FS_TSC);
LAYOUT_AT(struct ps_fslow, units, FS_UNITS);
LAYOUT_AT(struct ps_fslow, flags, FS_FLAGS);
LAYOUT_AT(struct ps_fslow, prof, FS_PROF);
LAYOUT_AT(struct ps_fslow, child_ns, FS_CHILD);
_Static_assert(sizeof(struct ps_fslow) == FS_SIZE, "ps_fslow size");
LAYOUT_AT(struct prof_thread, gen, PPT_GEN);
LAYOUT_AT(struct prof_thread, mods, PPT_MODS);
_Static_assert(sizeof(unsigned) == 4, "gen: cmpl");
LAYOUT_AT(struct prof_fn, total, PF_TOTAL);
LAYOUT_AT(struct prof_fn, sum, PF_SUM);
LAYOUT_AT(struct prof_fn, self, PF_SELF);
LAYOUT_AT(struct prof_fn, sumsq, PF_SUMSQ);
LAYOUT_AT(struct prof_fn, open, PF_OPEN);
LAYOUT_AT(struct prof_fn, seq, PF_SEQ);
LAYOUT_AT(struct prof_fn, pend, PF_PEND);
LAYOUT_AT(struct prof_fn, h.n, PF_HN);
LAYOUT_AT(struct prof_fn, h.min, PF_HMIN);
LAYOUT_AT(struct prof_fn, h.max, PF_HMAX);
LAYOUT_AT(struct prof_fn, h.count, PF_HCOUNT);
LAYOUT_AT(struct ps_state, tracing_on, PS_TRACING_ON);
LAYOUT_SIZE(struct ps_state, tracing_on, 1);
#endif
