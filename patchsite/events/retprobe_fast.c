// SPDX-License-Identifier: GPL-2.0-only
/*
 * The common return probe's return on x86-64 is assembly
 * (arch/x86_64/retprobe_tramp.S, ps_retprobe_fast_exit), as the graph
 * tracer's exit word is: a frame that probe_fast.c hooked
 * (PS_FS_PROBE_FAST) is recorded there from the return trampoline,
 * straight into the ring with the probe's precomputed layout, or sent to
 * graph.c's C path (record/retprobe.c), which handles any frame.  It
 * reads the structures below by offset; these are those offsets, checked
 * against the C here, where the structures are known (retprobe_tramp.S
 * has the same numbers), with what the assembly assumes of them: the
 * checks of probe_fast.h ps_probe_plain_record and the packing of
 * ps_probe_put, done the same way.
 *
 * The C version took about 95 instructions and a call saving three more
 * registers; the assembly about 60 with one field.
 */
#if defined(__x86_64__)
#include <stddef.h>

#include "event.h"
#include "record/record.h"
#include "probe_hits.h"

#define PSF_WP		0
#define PSF_BUDGET	8
#define PSF_FP		16
#define PS_TRACING_ON	58
#define T_SEQ		0
#define T_DEPTH		12
#define X_RFAST		56
#define PF_EV		0
#define PF_HEAD		8
#define PF_MASK		16
#define PF_N		80
#define PF_UNITS	81
#define PF_WORDS	82
#define PF_REG		83
#define PF_WORD		91
#define PF_POS		99
#define PF_RETVAL	5
#define EV_ID		24
#define EV_PROBES	104
#define EV_GONE		113
#define EV_FILTER	120
#define PL_N		0
#define PL_FN		8
#define PL_DATA		16

#define AT(type, field, off) _Static_assert(offsetof(type, field) == (off), #type "." #field)
#define SIZE(type, field, n) _Static_assert(sizeof(((type *)0)->field) == (n), #type "." #field)
AT(struct ps_fast, wp, PSF_WP);
AT(struct ps_fast, budget, PSF_BUDGET);
SIZE(struct ps_fast, budget, 4);
AT(struct ps_fast, fp, PSF_FP);
_Static_assert(sizeof(struct ps_frame) == 24 && offsetof(struct ps_frame, ret) == 0, "ps_frame");
AT(struct ps_state, tracing_on, PS_TRACING_ON);
SIZE(struct ps_state, tracing_on, 1);
AT(struct ps_thread, seq, T_SEQ);
SIZE(struct ps_thread, seq, 8);
AT(struct ps_thread, depth, T_DEPTH);
SIZE(struct ps_thread, depth, 4);
AT(struct ps_fslow, edata, 0);
AT(struct ps_fslow, rfast, X_RFAST);
AT(struct ps_probe_fast, ev, PF_EV);
AT(struct ps_probe_fast, head, PF_HEAD);
AT(struct ps_probe_fast, mask, PF_MASK);
SIZE(struct ps_probe_fast, mask[0], 8);
AT(struct ps_probe_fast, n, PF_N);
AT(struct ps_probe_fast, units, PF_UNITS);
AT(struct ps_probe_fast, words, PF_WORDS);
AT(struct ps_probe_fast, reg, PF_REG);
AT(struct ps_probe_fast, word, PF_WORD);
AT(struct ps_probe_fast, pos, PF_POS);
SIZE(struct ps_probe_fast, n, 1);
SIZE(struct ps_probe_fast, units, 1);
SIZE(struct ps_probe_fast, words, 1);
SIZE(struct ps_probe_fast, reg[0], 1);
SIZE(struct ps_probe_fast, word[0], 1);
SIZE(struct ps_probe_fast, pos[0], 1);
_Static_assert(PS_PROBE_FAST_RETVAL == PF_RETVAL, "$retval's register index");
_Static_assert(PS_FS_EDATA == PS_PROBE_RET_ENTRY, "a frame keeps every entry value");
AT(struct ps_event, info.id, EV_ID);
SIZE(struct ps_event, info.id, 4);
AT(struct ps_event, probes, EV_PROBES);
AT(struct ps_event, gone, EV_GONE);
SIZE(struct ps_event, gone, 1);
AT(struct ps_event, filter, EV_FILTER);
AT(struct ps_probe_list, n, PL_N);
SIZE(struct ps_probe_list, n, 4);
AT(struct ps_probe_list, e[0].fn, PL_FN);
AT(struct ps_probe_list, e[0].data, PL_DATA);
#endif
