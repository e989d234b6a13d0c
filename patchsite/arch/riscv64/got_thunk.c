// SPDX-License-Identifier: GPL-2.0-only
/*
 * The thunk a GOT slot points to while the library calls through it are
 * traced (sites/got.c switches the slot).  A call through the slot (the
 * PLT's `auipc t3; ld t3; jalr t1, t3`, or -fno-plt's `ld aN, got; jalr
 * aN`) lands here as on the function's first instruction: ra the return
 * into the caller, arguments in a0-a7 and fa0-fa7, the stack as the caller
 * left it.  The thunk then does what a patched entry site and its stub do
 * (arch.c: `auipc t0; jalr t0` to the stub, which passes the address of its
 * word in t1), so every trampoline of tramp.S serves it unchanged; "the
 * function" the trampoline resumes at (t0) is the jump to the real target:
 *
 *   at+0   jal t0, at+16         t0 = at+4, the resume address
 *   at+4   auipc t1, target      the function, with ra as the trampoline
 *   at+8   ld t1, lo(t1)         left it (the caller's return, or the
 *   at+12  jr t1                 graph tracer's hook)
 *   at+16  auipc t1, tramp       the trampoline of entry sites, as a
 *   at+20  ld t1, lo(t1)         site's stub enters it
 *   at+24  jalr t1, t1           t1 = at+28, the word's address
 *   at+28  id << 2               the stub word (an entry): data, never run
 *
 * Only t0 and t1 change before the function runs: temporaries, no
 * argument registers, and the PLT itself clobbers t1 and t3 (t2, the
 * static chain, is kept).  sp is never moved: the graph tracer keys the
 * shadow frame by the sp the function sees at entry, as for an entry site.
 */
#include <string.h>

#include "got_thunk.h"
#include "rv_insn.h"

#define WORDS	(PS_RISCV64_SLOT_THUNK / 4)

/* auipc t1, slot; ld t1, lo(t1) at w (at), then the jalr the caller puts after them */
static bool load_t1(uint32_t *w, uintptr_t at, uintptr_t slot)
{
	uint32_t hi;
	int32_t lo;

	if (slot & 7 || !rv_pcrel_split((int64_t)(slot - at), &hi, &lo))
		return false;
	w[0] = rv_auipc(RV_T1, hi);
	w[1] = rv_ld(RV_T1, RV_T1, lo);
	return true;
}

bool ps_riscv64_write_slot_thunk(uint8_t *p, uintptr_t at, uint32_t id, uintptr_t tramp_slot,
				 uintptr_t target_slot)
{
	uint32_t w[WORDS];

	if (id > (UINT32_MAX >> 2) || !rv_jal(at, at + 16, RV_T0, &w[0]) ||
	    !load_t1(&w[1], at + 4, target_slot) || !load_t1(&w[4], at + 16, tramp_slot))
		return false;
	w[3] = rv_jalr(RV_ZERO, RV_T1, 0);
	w[6] = rv_jalr(RV_T1, RV_T1, 0);
	w[7] = id << 2;				/* type 0: an entry */
	memcpy(p, w, sizeof(w));
	return true;
}
