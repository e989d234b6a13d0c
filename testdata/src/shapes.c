/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Functions whose prologues differ in length, so that with
 * -ffunction-sections the hook call sits at a different offset in each
 * section (MIPS64 -O2: fs_tail +0x4, fs_one +0xc, fs_keep +0x10,
 * fs_keep2 +0x14).  A real call at "previous call + 4" in the next section
 * is what the kernel's MIPS fake-relocation filter, whose state is never
 * reset between sections, takes for the second half of a long call and
 * drops.
 */
extern int ext(int);
extern int ext2(int, int);

int fs_tail(int x) { return ext(x + 2); }
int fs_one(int x) { return ext(x) + 1; }
int fs_keep(int x) { int y = ext(x); return ext(y) + x; }
int fs_keep2(int x, int z) { int y = ext(x); y = ext2(y, z); return ext(y) + x + z; }
int fs_tail2(int x) { return ext(x + 3); }
int fs_one2(int x) { return ext(x) + 4; }
