/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The probed sites' table (probe_hit.c builds it, replaced whole and freed
 * after a grace period), shared with the x86-64 fast path (probe_fast.c),
 * which records the common probe straight from the trampoline's pushed
 * registers and goes through no dispatcher; and the probes it points at,
 * which probe.c defines and probe_hit.c fires.
 */
#ifndef PS_PROBE_HITS_H
#define PS_PROBE_HITS_H

#include <stdatomic.h>
#include <stdint.h>

#include "probe.h"
#include "probe_fetch.h"

struct probe;
struct ps_arrivals;
struct ps_event;

/*
 * What the fast path needs of a probe, precomputed when the table is
 * made: the record's first word but its time stamp (head), the ring's
 * units it takes, its payload words (the id word, then the fields as
 * event.c laid them out: integers at their size, aligned, so none spans
 * two words), and n values, each the saved register reg[i] (struct
 * patchsite_regs' order, integer registers only) masked to its size
 * (mask[i]) at bit pos[i] of payload word word[i].  n = PS_PROBE_FAST_NO:
 * the probe takes the C path (a return probe, memory, strings, floats,
 * the stack), as does a site with several probes.
 */
#define PS_PROBE_FAST_NO	0xff
/*
 * A return probe (ret set) whose entry values are integer registers and
 * whose fields are the caller's address, those kept values and an integer
 * $retval: at the entry the frame keeps edata[k] = register ereg[k]
 * (k < nent) and points at own, the probe's copy of this layout (a frame
 * outlives the table); at the return reg[i] indexes
 * { edata[0..PS_PROBE_RET_ENTRY-1], rax, the frame's return address }
 * instead of the registers (arch/x86_64/retprobe_tramp.S).
 */
#define PS_PROBE_FAST_RETVAL	PS_PROBE_RET_ENTRY
#define PS_PROBE_FAST_CALLER	(PS_PROBE_RET_ENTRY + 1)
struct ps_probe_fast {
	struct ps_event *ev;
	uint64_t head;
	uint64_t mask[PS_PROBE_MAX_ARGS];
	uint8_t n, units, words;
	uint8_t reg[PS_PROBE_MAX_ARGS], word[PS_PROBE_MAX_ARGS], pos[PS_PROBE_MAX_ARGS];
	uint8_t ret, nent, ereg[PS_PROBE_RET_ENTRY];
	const struct ps_probe_fast *own;
};

/*
 * The integer registers the fast path's trampoline saves, first in struct
 * patchsite_regs on x86-64 (rdi .. r11), the one arch with such a path:
 * a register index below this reads the same word in both frames.
 */
#define PS_PROBE_FAST_REGS	9

struct ps_probe_hit {
	uintptr_t addr;
	uint32_t id;			/* the site's */
	struct probe *p;
	struct ps_probe_fast fast;
};

/* Sorted by site id (a site can have several probes: adjacent). */
struct ps_probe_hits {
	size_t n;
	struct ps_probe_hit e[];
};

extern _Atomic(struct ps_probe_hits *) ps_probe_hits;

/* A dynamic probe (probe.c). */
struct probe {
	struct ps_probe_def def;
	struct ps_fetch_prog prog;
	struct patchsite_event *desc;	/* the event's descriptor; desc->rt is ev */
	struct ps_event *ev;
	uint8_t *set;			/* the function's sites, by global index */
	size_t nset;
	_Atomic unsigned long faults;
	_Atomic unsigned long unhooked;	/* %return: calls whose return could not be hooked */
	bool trace_if;			/* set_ftrace_filter's "FUNC if COND": no event recorded;
					   the tracer gets the calls the condition keeps */
	struct ps_probe_fast rfast;	/* %return: the fast layout its frames point at */
	struct probe *next;
};

/* The probes, in the order defined (ps.lock; probe_hit.c). */
extern struct probe *ps_probe_defs;
/*
 * The hit table and the ops' sites from the enabled probes (a disabled one
 * costs its function nothing); ps.lock held, a may be NULL (probe_hit.c).
 */
int ps_probe_publish(struct ps_arrivals *a);
/* A hooked return (record/retprobe.c calls it through ps_retprobe_fire; probe_hit.c). */
void ps_probe_ret(void *data, uint64_t x, uint64_t fp, const uint64_t *edata, uint64_t caller);

#endif
