// SPDX-License-Identifier: GPL-2.0-only
/*
 * The thunk a GOT slot points to while the library calls through it are
 * traced (sites/got.c switches the slot).  A call through the slot (PLT
 * stub, or -fno-plt's `call *foo@GOTPCREL(%rip)`) lands here with the
 * return into its caller on top of the stack, exactly as a function's
 * first instruction sees it.  The thunk then makes the stack an entry
 * site's stub makes (id, return into "the function", return into the
 * caller), so every trampoline, fast or generic, serves it unchanged, and
 * "the function" it returns into is the jump to the real target:
 *
 *   at+0   f3 0f 1e fa        endbr64           (an indirect call's target)
 *   at+4   e8 06 00 00 00     call at+15        (the return is at+9)
 *   at+9   ff 25 <disp32>     jmp *target(%rip) (the function, registers untouched)
 *   at+15  68 <id << 2>       push $idw         (as a site's stub)
 *   at+20  ff 25 <disp32>     jmp *tramp(%rip)  (the trampoline of entry sites)
 *   at+26  cc ...             int3 padding
 *
 * The trampolines keep every argument register, %rax (varargs' vector
 * count) and xmm0-7; a hooked return comes back through graph_return, to
 * the caller.  The CPU's return stack stays paired: the trampoline's ret
 * goes back to at+9, which the call at at+4 pushed.
 */
#include <string.h>

#include "got_thunk.h"
#include "x86_insn.h"

static const uint8_t endbr64[] = { 0xf3, 0x0f, 0x1e, 0xfa };	/* endbr64 */

static bool disp32(uintptr_t next, uintptr_t to, uint8_t *out)
{
	intptr_t d = (intptr_t)(to - next);
	int32_t v;

	if (d < INT32_MIN || d > INT32_MAX)
		return false;
	v = (int32_t)d;
	memcpy(out, &v, 4);
	return true;
}

bool ps_x86_64_write_slot_thunk(uint8_t *p, uintptr_t at, uint32_t id, uintptr_t tramp_slot,
				uintptr_t target_slot)
{
	uint32_t idw = id << 2;		/* type 0: an entry */

	if (id > (INT32_MAX >> 2))
		return false;
	memset(p, X86_OP_INT3, PS_X86_64_SLOT_THUNK);
	memcpy(p, endbr64, sizeof(endbr64));
	p[4] = X86_OP_CALL_REL32;
	if (!disp32(at + 9, at + 15, p + 5))
		return false;
	memcpy(p + 9, x86_jmp_rip, sizeof(x86_jmp_rip));
	if (!disp32(at + 15, target_slot, p + 11))
		return false;
	p[15] = X86_OP_PUSH_IMM32;
	memcpy(p + 16, &idw, 4);
	memcpy(p + 20, x86_jmp_rip, sizeof(x86_jmp_rip));
	return disp32(at + 26, tramp_slot, p + 22);
}
