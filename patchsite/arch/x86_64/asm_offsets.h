/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The offsets and constants by which the x86-64 fast paths (tramp.S,
 * probe_tramp.S, retprobe_tramp.S) read the runtime's C structures: one
 * copy, included by them and by the C files that check each against its
 * structure where that is known (record/profile_fast.c, the profile's and
 * ps_thread's and ps_fslow's; events/probe_tramp_layout.c, the probes').
 * What every arch reads (struct ps_fast: PSF_*, the shadow frame, the
 * frame flags, the event types) is core's, core/fast_offsets.h, included
 * here.  Only #defines: the assembler reads it.
 */
#ifndef PS_X86_64_ASM_OFFSETS_H
#define PS_X86_64_ASM_OFFSETS_H

#include "core/fast_offsets.h"

/* struct ps_thread */
#define PST_SEQ		0
#define PST_DEPTH	12
#define PST_FRAMES	152
#define PST_FSLOW	168
#define PST_NOTRACE	176

/* struct ps_fslow, a shadow frame's slow half */
#define FS_EDATA	0
#define FS_TSC		32
#define FS_UNITS	40
#define FS_FLAGS	44
#define FS_PROF		48
#define FS_CHILD	56
#define FS_RFAST	56	/* a probe frame's: the union with child_ns */
#define FS_SIZE		64

/* ps.tracing_on */
#define PS_TRACING_ON	58

/* function_profile: struct prof_thread (PPT_), struct prof_fn and its struct hist (PF_) */
#define PPT_GEN		28
#define PPT_MODS	32
#define PF_TOTAL	0
#define PF_SUM		8
#define PF_SELF		16
#define PF_SUMSQ	32
#define PF_OPEN		52
#define PF_SEQ		56
#define PF_PEND		60
#define PF_HN		64
#define PF_HMIN		72
#define PF_HMAX		80
#define PF_HCOUNT	88

/* probes: struct ps_probe_hits (HITS_), struct ps_probe_hit (HIT_), struct ps_probe_fast (PRF_) */
#define HITS_N		0
#define HITS_E		8
#define HIT_SIZE	152
#define HIT_ID		8
#define HIT_FAST	24
#define PRF_EV		0
#define PRF_HEAD	8
#define PRF_MASK	16
#define PRF_N		80
#define PRF_UNITS	81
#define PRF_WORDS	82
#define PRF_REG		83
#define PRF_WORD	91
#define PRF_POS		99
#define PRF_RET		107
#define PRF_NO		0xff	/* PS_PROBE_FAST_NO */
#define PRF_RETVAL	5	/* PS_PROBE_FAST_RETVAL: $retval's register index */
#define PRF_CALLER	6	/* PS_PROBE_FAST_CALLER: the caller's address */

/* struct ps_event (EV_) and struct ps_probe_list (PL_) */
#define EV_ID		24
#define EV_PROBES	104
#define EV_GONE		113
#define EV_FILTER	120
#define PL_N		0
#define PL_FN		8
#define PL_DATA		16

#endif
