/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What every arch's fast trampolines (arch/<arch>/tramp.S, x86-64's probe
 * and return probe ones) read of core's structures: one copy, included by
 * core.h for C and by the assembly, which cannot read a struct or an enum.
 * Only #defines, so that the assembler reads it; core.h checks each value
 * against the C it stands for, once, next to the structures.
 */
#ifndef PS_CORE_FAST_OFFSETS_H
#define PS_CORE_FAST_OFFSETS_H

/* struct ps_fast, the thread's initial-exec TLS words */
#define PSF_WP		0
#define PSF_BUDGET	8	/* 32 bits */
#define PSF_HI		12	/* 32 bits */
#define PSF_FP		16
#define PSF_T		24
#define PSF_STACK_LO	32
#define PSF_STACK_SIZE	40
#define PSF_FP_END	48

/* struct ps_frame { ret, key, idw }, a shadow frame */
#define PS_FRAME_SIZE	24
#define PS_FRAME_KEY_BIAS 24		/* the exit trampoline's %rsp after it saved 3 registers */
/*
 * Key bit 1: the frame's return must reach C (record/graph.c frame_exit: a
 * threshold, a return value); the fast return paths see a key that does
 * not match and take their slow path.  Compare keys with PS_FRAME_KEY.
 */
#define PS_FRAME_SLOW	2

/* struct ps_fslow's flags */
#define PS_FS_THRESH	1		/* tracing_thresh: a short call is taken back */
#define PS_FS_RETVAL	2		/* its return value is recorded */
#define PS_FS_NOTRACE	4		/* set_graph_notrace: nothing recorded until it returns */
#define PS_FS_LATENCY	8		/* the latency tracer's top-level call */
#define PS_FS_PROFILE	16		/* function_profile: counted at its end, nothing recorded */
#define PS_FS_PROBE	32		/* a return probe's hook alone (record/retprobe.c) */
#define PS_FS_READ_SHIFT 8		/* bits 8..15: read= triggers' kinds, read again at its exit */
#define PS_FS_READ	(0xffu << PS_FS_READ_SHIFT)
#define PS_FS_PROBE_FAST 64		/* ... hooked by x86-64's probe trampoline, recorded by
					   its return trampoline when it can (x86_64/retprobe_tramp.S) */

/*
 * The trace format's ring word types and site id split (data/format.h:
 * enum psd_ev_type, PSD_ID_*), which C reads as core.h's PS_EV_* and
 * PS_ID_*: a copy under other names (core.h checks it), given the C names
 * for the assembly only.
 */
#define PSA_EV_ENTRY	0
#define PSA_EV_EXIT	1
#define PSA_EV_FUNC	2
#define PSA_ID_SHIFT	21
#define PSA_ID_MASK	0x1fffff
#ifdef __ASSEMBLER__
#define PS_EV_ENTRY	PSA_EV_ENTRY
#define PS_EV_EXIT	PSA_EV_EXIT
#define PS_EV_FUNC	PSA_EV_FUNC
#define PS_ID_SHIFT	PSA_ID_SHIFT
#define PS_ID_MASK	PSA_ID_MASK
#endif

/* For the C that checks these values, and each arch's own, against the structures. */
#ifndef __ASSEMBLER__
#define LAYOUT_AT(type, field, off) \
	_Static_assert(__builtin_offsetof(type, field) == (off), #type "." #field)
#define LAYOUT_SIZE(type, field, n) \
	_Static_assert(sizeof(((type *)0)->field) == (n), #type "." #field)
#endif

#endif
