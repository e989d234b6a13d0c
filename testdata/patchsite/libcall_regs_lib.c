// SPDX-License-Identifier: GPL-2.0-only
/*
 * The library of libcall_regs.c (tests/patchsite-qemu/libcall.sh): its
 * functions are reached through the program's PLT, so a traced call goes
 * through a GOT slot's thunk, and each takes or returns its values in a
 * different part of the calling convention (AAPCS64 on aarch64): all
 * eight integer argument registers and the stack after them, all eight
 * vector registers and the stack after them, a structure returned through
 * the indirect result register (x8), a homogeneous floating-point aggregate
 * in d0-d3, varargs doubles, and a callback into the program.
 */
#include <stdarg.h>

struct lr_big { long v[5]; };		/* 40 bytes: returned in memory, at x8 */
struct lr_hfa { double a, b, c, d; };	/* four doubles: in d0-d3 both ways */

long lr_ints(long a, long b, long c, long d, long e, long f, long g, long h, long i, long j)
{
	return a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f + 7 * g + 8 * h + 9 * i + 10 * j;
}

double lr_doubles(double a, double b, double c, double d, double e, double f, double g,
		  double h, double i)
{
	return a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f + 7 * g + 8 * h + 9 * i;
}

struct lr_big lr_big(long seed, double scale)
{
	struct lr_big r;

	for (int k = 0; k < 5; k++)
		r.v[k] = seed * (k + 1) + (long)(scale * k);
	return r;
}

struct lr_hfa lr_hfa(struct lr_hfa x, double s)
{
	return (struct lr_hfa){ x.d * s, x.c * s, x.b * s, x.a * s };
}

double lr_vsum(int n, ...)
{
	va_list ap;
	double s = 0;

	va_start(ap, n);
	for (int k = 0; k < n; k++)
		s += va_arg(ap, double) * (k + 1);
	va_end(ap);
	return s;
}

long lr_apply(long (*fn)(long, double), long x, double y)
{
	return fn(x, y) + fn(x + 1, y * 2);
}
