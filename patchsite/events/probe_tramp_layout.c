// SPDX-License-Identifier: GPL-2.0-only
/*
 * The probes' x86-64 fast paths are assembly: arch/x86_64/probe_tramp.S
 * records the common entry probe, retprobe_tramp.S (ps_retprobe_fast_exit)
 * the common return probe at its hooked return, from the return
 * trampoline, straight into the ring with the probe's precomputed layout
 * (probe_hits.h struct ps_probe_fast, packed as probe_fast.h
 * ps_probe_put does); anything else goes to the C paths (probe_fast.c,
 * record/retprobe.c).  They read the structures below by the offsets of
 * arch/x86_64/asm_offsets.h: each is checked here against the C, so a
 * change of a struct breaks the build, not a record
 * (record/profile_fast.c checks the core structures' ones).
 */
#if defined(__x86_64__) && !defined(__SANITIZE_THREAD__)
#include <stddef.h>

#include "event.h"
#include "record/record.h"
#include "probe_hits.h"
#include "arch/x86_64/asm_offsets.h"

LAYOUT_AT(struct ps_probe_hits, n, HITS_N);
LAYOUT_AT(struct ps_probe_hits, e, HITS_E);
_Static_assert(sizeof(struct ps_probe_hit) == HIT_SIZE, "HIT_SIZE");
LAYOUT_AT(struct ps_probe_hit, id, HIT_ID);
LAYOUT_AT(struct ps_probe_hit, fast, HIT_FAST);
LAYOUT_AT(struct ps_probe_fast, ev, PRF_EV);
LAYOUT_AT(struct ps_probe_fast, head, PRF_HEAD);
LAYOUT_AT(struct ps_probe_fast, mask, PRF_MASK);
LAYOUT_SIZE(struct ps_probe_fast, mask[0], 8);
LAYOUT_AT(struct ps_probe_fast, n, PRF_N);
LAYOUT_AT(struct ps_probe_fast, units, PRF_UNITS);
LAYOUT_AT(struct ps_probe_fast, words, PRF_WORDS);
LAYOUT_AT(struct ps_probe_fast, reg, PRF_REG);
LAYOUT_AT(struct ps_probe_fast, word, PRF_WORD);
LAYOUT_AT(struct ps_probe_fast, pos, PRF_POS);
LAYOUT_AT(struct ps_probe_fast, ret, PRF_RET);
LAYOUT_SIZE(struct ps_probe_fast, n, 1);
LAYOUT_SIZE(struct ps_probe_fast, units, 1);
LAYOUT_SIZE(struct ps_probe_fast, words, 1);
LAYOUT_SIZE(struct ps_probe_fast, reg[0], 1);
LAYOUT_SIZE(struct ps_probe_fast, word[0], 1);
LAYOUT_SIZE(struct ps_probe_fast, pos[0], 1);
_Static_assert(PS_PROBE_FAST_NO == PRF_NO, "PRF_NO");
_Static_assert(PS_PROBE_FAST_RETVAL == PRF_RETVAL, "$retval's register index");
_Static_assert(PS_PROBE_FAST_CALLER == PRF_CALLER, "the caller's register index");
_Static_assert(PS_FS_EDATA == PS_PROBE_RET_ENTRY, "a frame keeps every entry value");
LAYOUT_AT(struct ps_event, info.id, EV_ID);
LAYOUT_SIZE(struct ps_event, info.id, 4);
LAYOUT_AT(struct ps_event, probes, EV_PROBES);
LAYOUT_AT(struct ps_event, gone, EV_GONE);
LAYOUT_SIZE(struct ps_event, gone, 1);
LAYOUT_AT(struct ps_event, filter, EV_FILTER);
LAYOUT_AT(struct ps_probe_list, n, PL_N);
LAYOUT_SIZE(struct ps_probe_list, n, 4);
LAYOUT_AT(struct ps_probe_list, e[0].fn, PL_FN);
LAYOUT_AT(struct ps_probe_list, e[0].data, PL_DATA);
#endif
