// SPDX-License-Identifier: GPL-2.0-only
/*
 * Return probes' sample (tests/patchsite/retprobe.sh): one function per
 * return type, each called with values that reach its limits, and one that
 * longjmps out of every other call (no return value exists for those).
 * noclone: the probes name the functions, not gcc's .constprop copies.
 */
#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#if defined(__clang__)
#define F __attribute__((noinline, used))
#else
#define F __attribute__((noinline, noclone, used))
#endif

enum color { RED, GREEN = 5, BLUE = -3 };
static const char *const names[] = { "zero", "one", "", "three" };
volatile int vn = 9;
volatile double sink;
static jmp_buf env;

F int r_int(int x) { return x * 3 - 7; }
F unsigned r_unsigned(unsigned x) { return x * 2654435761u; }
F long r_long(long x) { return x * -1000000007L; }
F short r_short(int x) { return (short)(x * 12345); }
F signed char r_schar(int x) { return (signed char)(x * 77); }
F unsigned char r_uchar(int x) { return (unsigned char)(x * 77); }
F bool r_bool(int x) { return x & 1; }
F enum color r_enum(int x) { return x % 3 == 0 ? RED : x % 3 == 1 ? GREEN : BLUE; }
F double r_double(int x) { return x / 3.0 - 1; }
F float r_float(int x) { return (float)x * 0.25f - 0.5f; }
F const char *r_str(int x) { return names[x & 3]; }
F const void *r_ptr(int x) { return x & 1 ? (const void *)&names[x & 3] : NULL; }
F void r_void(int x) { sink += x; }
F int r_jump(int x)
{
	if (x & 1)
		longjmp(env, 1);
	return x + 100;
}

int main(void)
{
	int n = vn;

	for (volatile int i = 0; i < n; i++) {
		sink += r_int(i) + r_unsigned((unsigned)i) + r_long(i) + r_short(i) + r_schar(i) +
			r_uchar(i) + r_bool(i) + r_enum(i) + r_double(i) + r_float(i) +
			r_str(i)[0] + (r_ptr(i) != NULL);
		r_void(i);
		if (!setjmp(env))
			sink += r_jump(i);
	}
	printf("%.6f\n", sink);
	return 0;
}
