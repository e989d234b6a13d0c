/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A section whose only function is weak.  Built without unwind tables,
 * binutils 2.40 emits no .text section symbol, so the kernel's
 * recordmcount finds no non-weak symbol to refer to and fails with
 * "Cannot find symbol for section 1: .text." (kernel/elfcore.c had this
 * shape).  The call site is still real and must be recorded.
 */
int __attribute__((weak)) wonly(int x) { return x + 1; }
