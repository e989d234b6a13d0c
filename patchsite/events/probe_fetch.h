/* SPDX-License-Identifier: GPL-2.0-only */
/* A probe's fetch program (probe_fetch.c): compiled at definition, run at each hit. */
#ifndef PS_PROBE_FETCH_H
#define PS_PROBE_FETCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "patchsite_event.h"
#include "probe.h"

#define PS_FETCH_STR_BYTES	(PATCHSITE_EVENT_STR_MAX + 2)	/* the cap, one more to see a cut, NUL */

struct patchsite_regs;

struct ps_fetch_arg {
	uint8_t base, type, size, nderef;
	uint8_t bw, bo;			/* a bitfield's (struct ps_probe_arg) */
	int reg;			/* PF_REG: ps_regs_index */
	int8_t ent;			/* %return: its entry value's index in the frame, or -1 */
	uint8_t ent_derefs;		/* reads done at the entry (a stack slot's: 1) */
	uint64_t v;			/* argument index, stack slot, address, immediate */
	int64_t deref[PS_PROBE_MAX_DEREF];
};

struct ps_fetch_prog {
	unsigned n;
	bool regs_only;			/* every argument a saved integer register: the short path */
	unsigned nent;			/* %return: entry values kept (ps_fetch_entry) */
	struct ps_fetch_arg a[PS_PROBE_MAX_ARGS];
};

/* 0, or -EINVAL / -ENOTSUP with the reason in err (the argument named). */
int ps_fetch_compile(const struct ps_probe_def *d, struct ps_fetch_prog *p, char *err,
		     size_t errlen);
/*
 * The values as an event's probes get them (small signed ones sign-extended,
 * floats as doubles, strings as copies in strs); -EFAULT when a value's
 * memory cannot be read.
 */
int ps_fetch_run(const struct ps_fetch_prog *p, const struct patchsite_regs *r, uint64_t *out,
		 char (*strs)[PS_FETCH_STR_BYTES]);
/*
 * A return probe's values to keep at the entry (p->nent of them, into
 * edata): each argument's register or stack word, a stack slot read;
 * -EFAULT when one cannot be read.
 */
int ps_fetch_entry(const struct ps_fetch_prog *p, const struct patchsite_regs *r,
		   uint64_t *edata);
/*
 * The values at a hooked return (FUNC%return): ret[0] the integer return
 * register, ret[1] the floating-point one's low 64 bits, edata what
 * ps_fetch_entry kept; what is read through them is read now.
 */
int ps_fetch_run_ret(const struct ps_fetch_prog *p, const uint64_t ret[2], const uint64_t *edata,
		     uint64_t *out, char (*strs)[PS_FETCH_STR_BYTES]);

#endif
