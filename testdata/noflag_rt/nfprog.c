// SPDX-License-Identifier: GPL-2.0-only
/*
 * A program built at -O2 without any tracing flag (tests/patchsite/noflag.sh):
 * its functions are traced through no-flag sites from a proof file.
 *   mix        called in a loop; its first instruction is an imul with a
 *              32-bit immediate (6 bytes: form a)
 *   bump       reads and writes a global: a rip-relative first instruction
 *   leaf       a static leaf its caller keeps values live across (gcc's
 *              -fipa-ra: caller-saved registers the leaf does not write)
 *   fscale     SSE math on a rip-relative constant; its caller keeps
 *              doubles in xmm registers across the call
 *   walk       recursive, not a tail call (its first instruction reads a global)
 *   callhook   calls through a function pointer in memory (call *hook(%rip)):
 *              the runtime must refuse that site (its return address would
 *              be in the stub)
 *   carry_in   hand-written: takes the carry flag as an input, which no
 *              compiler's code does (the ABI says flags do not survive a
 *              call) but assembly may; its first instruction, adc $imm32,
 *              %rax (6 bytes: form a), adds CF, so a tracer that changed the
 *              flags before it would change the sum
 * The output depends on every value, so a register or flag the tracer
 * changed would change it.
 */
#include <stdio.h>
#include <stdlib.h>

volatile int g_base = 7;
long g_count;
double g_off = 0.25;

__attribute__((noinline)) unsigned mix(unsigned x)
{
	return x * 2654435761u + (x >> 7);
}

__attribute__((noinline)) long bump(long x)
{
	g_count += x;
	return g_count;
}

static __attribute__((noinline)) unsigned leaf(unsigned a)
{
	return a * 1000003u + 17;
}

__attribute__((noinline)) unsigned live(unsigned a, unsigned b, unsigned c, unsigned d,
					unsigned e, unsigned f)
{
	unsigned p = a * 3 + b, q = b * 5 + c, r = c * 7 + d, s = d * 11 + e, t = e * 13 + f;
	unsigned u = f * 17 + a, v = a ^ c, w = b ^ d;
	unsigned x = leaf(a + f);

	x += leaf(x ^ b);
	return x + p + q * 2 + r * 3 + s * 5 + t * 7 + u * 11 + v * 13 + w * 17;
}

static __attribute__((noinline)) double fscale(double x)
{
	return x * 1.0009765625 + g_off;
}

__attribute__((noinline)) double fsum(double a, double b, double c)
{
	double p = a * b, q = b * c + a, r = c / (a + 1.0);
	double y = fscale(a + b);

	y += fscale(y - c);
	return y + p * 3.0 + q * 5.0 + r * 7.0;
}

unsigned long g_step = 0x9e3779b97f4a7c15ul;

__attribute__((noinline)) unsigned long walk(unsigned long n)
{
	unsigned long k = g_step;

	if (n == 0)
		return k + (unsigned long)g_base;
	return (walk(n - 1) ^ (n * k)) + (k >> 29);
}

static void hooked(void)
{
	g_count += 3;
}

void (*hook)(void) = hooked;

__attribute__((noinline)) int callhook(void)
{
	hook();
	return 1;
}

/* carry_call(x, cf): x + 0x12345 + (cf & 1), CF set by bt and passed to carry_in. */
#if defined(__x86_64__)
__asm__(".text\n"
	".globl carry_in\n.type carry_in, @function\ncarry_in:\n"
	"\tadcq $0x12345, %rax\n\tret\n.size carry_in, . - carry_in\n"
	".globl carry_call\n.type carry_call, @function\ncarry_call:\n"
	"\tsubq $8, %rsp\n\tmovq %rdi, %rax\n\tbtl $0, %esi\n\tcall carry_in\n"
	"\taddq $8, %rsp\n\tret\n.size carry_call, . - carry_call\n");
unsigned long carry_call(unsigned long x, unsigned cf);
#else
/* Elsewhere (the qemu suites build this too) the same sum, without the flag. */
__attribute__((noinline)) unsigned long carry_call(unsigned long x, unsigned cf)
{
	return x + 0x12345 + (cf & 1);
}
#endif

int main(int argc, char **argv)
{
	unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 1000, h = 1, l = 0;
	unsigned long c = 0;
	double f = 0.5;

	for (unsigned i = 0; i < n; i++) {
		h = mix(h + i);
		bump(h & 0xff);
	}
	for (unsigned i = 0; i < 50; i++) {
		l += live(i, i + 1, i * 3, h, l, i ^ h);
		f = fsum(f, (double)i, 1.5) / 1000.0;
	}
	l += (unsigned)callhook();
	for (unsigned i = 0; i < 8; i++)
		c = carry_call(c, i % 3 == 0);
	printf("mix %u bump %ld live %u fsum %.17g walk %lu carry %lu\n", h, g_count, l, f,
	       walk(20), c);
	return (int)(h & 0x3f);
}
