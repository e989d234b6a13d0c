// SPDX-License-Identifier: GPL-2.0-only
/*
 * Where AAPCS64 passes what Lua and googletest seldom do, for
 * tests/patchsite-qemu/realprobes.sh (check_real_probes.py against gdb):
 * integer arguments past x7 and floating ones past v7 (on the stack, 8
 * bytes a slot), floats and doubles in the v registers among integers, a
 * homogeneous float aggregate by value (in v0-v2: refused by name, and the
 * float after it in v3), narrow integers, float and double returns.  The
 * values come from argv's count so that the compiler folds none of them.
 */
#include <stdio.h>

struct hfa {
	float x, y, z;
};

__attribute__((noinline)) long ints10(long a1, long a2, long a3, long a4, long a5, long a6,
				      long a7, long a8, long a9, long a10)
{
	return a1 + 2 * a2 + 3 * a3 + a4 - a5 + a6 * a7 + a8 - a9 + 7 * a10;
}

__attribute__((noinline)) double dbl10(double d1, double d2, double d3, double d4, double d5,
				       double d6, double d7, double d8, double d9, double d10)
{
	return d1 + d2 * d3 - d4 + d5 + d6 * d7 - d8 + d9 * 0.5 + d10;
}

__attribute__((noinline)) float mixed(float f, int i, double d, signed char c, float g,
				      unsigned short u, long l, double e, int j, int k, int m,
				      int n, short last)
{
	return f + (float)i + (float)d + c + g + u + (float)l + (float)e + j + k + m + n + last;
}

__attribute__((noinline)) float hfa_sum(struct hfa h, float w)
{
	return h.x + h.y + h.z + w;
}

__attribute__((noinline)) int narrow(_Bool b, unsigned char uc, signed char sc, short s,
				     unsigned short us, unsigned u)
{
	return b + uc + sc + s + us + (int)u;
}

__attribute__((noinline)) unsigned long floats_and_ints(float f1, long a1, float f2, long a2,
							float f3, long a3, double d4, long a4,
							float f5, long a5, float f6, long a6,
							float f7, long a7, float f8, long a8,
							float f9, long a9, double d10)
{
	return (unsigned long)(f1 + f2 + f3 + d4 + f5 + f6 + f7 + f8 + f9 + d10) +
	       (unsigned long)(a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9);
}

int main(int argc, char **argv)
{
	volatile double sink = 0;
	long k = argc;

	(void)argv;
	for (int r = 0; r < 7; r++) {
		long v = k + r;
		struct hfa h = { 0.5f * v, 1.25f + v, -2.0f * v };

		sink += ints10(v, -v, 3 * v, 4, 5 + v, 6, 7 - v, 8, 9 * v, -10 - v);
		sink += dbl10(0.5 * v, 1.5, 2.5 + v, -3.25, 4, 5.5 * v, 6, 7.75, 8.5 - v, 9.125 * v);
		sink += mixed(1.5f + v, (int)v, 2.25 * v, (signed char)(-3 - v), -4.5f, 65535,
			      -7 * v, 8.0625, 9, 10 + (int)v, -11, 12, (short)(-13 * v));
		sink += hfa_sum(h, 3.75f * v);
		sink += narrow(v & 1, (unsigned char)(200 + v), (signed char)(-100 - v),
			       (short)(-30000 + v), (unsigned short)(60000 + v), 4000000000u + v);
		sink += floats_and_ints(0.25f * v, v, 1.5f, -v, 2.5f, 3 * v, 4.125 * v, 4, 5.5f,
					5 * v, -6.5f, 6, 7.25f * v, -7, 8.75f, 8 + v, 9.5f * v, -9,
					10.0625 + v);
	}
	printf("%.4f\n", sink);
	return 0;
}
