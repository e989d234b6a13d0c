// SPDX-License-Identifier: GPL-2.0-only
/*
 * A program interpreter that never loads anything (tests/patchsite/attach.sh):
 * linked -nostdlib -static and named in a sample's PT_INTERP
 * (-Wl,--dynamic-linker), it leaves the process as it is just after exec,
 * before a real loader would have mapped the C library: it pause()s until
 * killed.
 */
void _start(void)
{
	for (;;)
		__asm__ volatile("syscall" : : "a"(34) /* SYS_pause */ : "rcx", "r11", "memory");
}
