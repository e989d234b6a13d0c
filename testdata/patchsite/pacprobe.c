// SPDX-License-Identifier: GPL-2.0-only
/*
 * Does the machine sign return addresses?  Built -mbranch-protection=standard
 * for aarch64: paciasp signs x30 before the frame record saves it; the saved
 * word differs from itself without its PAC (xpaclri) only where FEAT_PAuth
 * is on (qemu's default cpu has it).  Prints "signed" or "unsigned", so that
 * a test of signed hooks can tell it is not passing vacuously.
 */
#include <stdint.h>
#include <stdio.h>

__attribute__((noinline)) static uintptr_t saved_lr(void)
{
	uintptr_t *fp = __builtin_frame_address(0);

	return fp[1];
}

int main(void)
{
	uintptr_t v = saved_lr(), s;

	__asm__("mov x30, %1\n\thint #7\n\tmov %0, x30" : "=r"(s) : "r"(v) : "x30");
	puts(v != s ? "signed" : "unsigned");
	return 0;
}
