// SPDX-License-Identifier: GPL-2.0-only
/*
 * The thunk a GOT slot points to while the library calls through it are
 * traced (sites/got.c switches the slot).  A call through the slot (the
 * PLT's `adrp x16; ldr x17; add x16; br x17`, or -fno-plt's `ldr xN, got;
 * blr xN`) lands here as on the function's first instruction: x30 the
 * return into the caller, arguments in x0-x7, x8 (indirect result) and
 * q0-q7, the stack as the caller left it.  The thunk then does what a
 * patched entry site does (arch.c: `mov x9, x30; bl stub`), so every
 * trampoline of tramp.S, fast or generic, serves it unchanged; "the
 * function" the trampoline resumes is the jump to the real target:
 *
 *   at+0   bti c                 (a landing pad, should the page ever be guarded)
 *   at+4   mov x9, x30           the caller's return, where tramp.S wants it
 *   at+8   bl at+24              x30 = at+12, the resume address
 *   at+12  adrp x17, target      the function, with x30 as the trampoline left
 *   at+16  ldr x17, [x17, lo]    it (the caller's return, or the graph hook,
 *   at+20  br x17                which the function's paciasp then signs)
 *   at+24  movz w16, #idw        the stub word, id << 2 (an entry), as a
 *   at+28  movk w16, #idw >> 16  site's stub passes it
 *   at+32  adrp x17, tramp       the trampoline of entry sites
 *   at+36  ldr x17, [x17, lo]
 *   at+40  br x17
 *   at+44  brk                   never reached
 *
 * Only x9, x16 and x17 change before the function runs: x16/x17 are IP0/IP1,
 * which any PLT or veneer may change between a caller and its callee (so no
 * caller keeps anything there across a call), and x9 is a caller-saved
 * temporary, no argument register.  The jump is `br x17` because that is a
 * branch `bti c` accepts, the landing pad of a BTI-built library's function.
 * The trampoline's return to at+12 pairs with the bl at at+8.  sp is never
 * moved: the graph tracer keys the shadow frame by the sp the function
 * sees at entry, as for an entry site.
 */
#include <string.h>

#include "a64_insn.h"
#include "got_thunk.h"

#define X16	16
#define X17	17
#define WORDS	(PS_AARCH64_SLOT_THUNK / 4)

/* adrp xd, slot; ldr xd, [xd, #lo12]; br xd at p (at) */
static bool load_and_jump(uint32_t *w, uintptr_t at, uintptr_t slot)
{
	if (slot & 7 || !a64_adrp(X17, at, slot, &w[0]) ||
	    !a64_ldr_x_imm(X17, X17, slot & 0xfff, &w[1]))
		return false;
	w[2] = a64_br(X17);
	return true;
}

bool ps_aarch64_write_slot_thunk(uint8_t *p, uintptr_t at, uint32_t id, uintptr_t tramp_slot,
				 uintptr_t target_slot)
{
	uint32_t idw = id << 2, w[WORDS];	/* type 0: an entry */

	if (id > (UINT32_MAX >> 2))
		return false;
	w[0] = a64_bti_c();
	w[1] = a64_mov_x9_lr();
	if (!a64_bl(at + 8, at + 24, &w[2]) || !load_and_jump(&w[3], at + 12, target_slot))
		return false;
	w[6] = a64_movz_w(X16, (uint16_t)idw, 0);
	w[7] = a64_movk_w(X16, (uint16_t)(idw >> 16), 1);
	if (!load_and_jump(&w[8], at + 32, tramp_slot))
		return false;
	w[11] = a64_brk(0x5053);		/* "PS", as a site's stub pads */
	memcpy(p, w, sizeof(w));
	return true;
}
