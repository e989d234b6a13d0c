// SPDX-License-Identifier: GPL-2.0-only
/*
 * The sample of tests/patchsite/probes.sh: one function per fetch type,
 * each called with values that reach its type's limits; gdb reads the
 * values at each function's entry (the oracle).  noipa: the ABI the raw
 * $argN fetches assume holds (no clone with another signature).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef __clang__
#define F __attribute__((noinline))	/* clang has no noipa; external functions keep their ABI */
#else
#define F __attribute__((noipa))
#endif

struct host {
	int port;
	const char *name;
};

long counter = 41;	/* @counter (the program is linked -rdynamic) */
static volatile long sink;

F void f_u8(unsigned char a)
{
	sink += a;
}
F void f_s8(signed char a)
{
	sink += a;
}
F void f_u16(unsigned short a)
{
	sink += a;
}
F void f_s16(short a)
{
	sink += a;
}
F void f_u32(unsigned a)
{
	sink += a;
}
F void f_s32(int a)
{
	sink += a;
}
F void f_u64(unsigned long a)
{
	sink += (long)a;
}
F void f_s64(long a)
{
	sink += a;
}
F void f_x32(unsigned a)
{
	sink += a;
}
F void f_char(char c)
{
	sink += c;
}
F void f_str(const char *s)
{
	sink += s != NULL;
}
F void f_float(float x)
{
	sink += (long)x;
}
F void f_double(double x)
{
	sink += (long)x;
}
F void f_many(long a1, long a2, long a3, long a4, long a5, long a6, long a7, long a8)
{
	sink += a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8;
}
F int send_msg(struct host *h, unsigned len)
{
	sink += h->port; return (int)(len % 7);
}

int main(void)
{
	static const long v[] = { 0, 1, -1, 127, -128, 255, 32767, -32768, 65535, 2147483647,
				  -2147483648L, 4294967295L, 0x7fffffffffffffffL, 1500 };
	static const double d[] = { 0.0, -0.0, 2.5, -0.125, 1e300, 0.1, 3.4028234e38, 1e-45 };
	char *big = malloc(400);
	struct host h = { 80, "a.b" };

	if (!big)
		return 1;
	memset(big, 'x', 399);
	big[399] = '\0';
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		f_u8((unsigned char)v[i]);
		f_s8((signed char)v[i]);
		f_u16((unsigned short)v[i]);
		f_s16((short)v[i]);
		f_u32((unsigned)v[i]);
		f_s32((int)v[i]);
		f_u64((unsigned long)v[i]);
		f_s64(v[i]);
		f_x32((unsigned)v[i]);
		f_char((char)(' ' + i));
		f_many(v[i], 2, 3, 4, 5, 6, -v[i], (long)i * 1000);
		counter++;
		h.port = (int)i;
		send_msg(&h, (unsigned)v[i]);
	}
	for (size_t i = 0; i < sizeof(d) / sizeof(d[0]); i++) {
		f_float((float)d[i]);
		f_double(d[i]);
	}
	f_str("hello world");
	f_str("");
	f_str(NULL);
	f_str("(null)");		/* a string that reads (null): shown quoted, NULL is not */
	f_str(big);			/* longer than the cap: cut */
	errno = 77;
	f_str((const char *)16);	/* unmapped: the probe's failed read leaves errno alone */
	if (errno != 77) {
		free(big);
		return 3;
	}
	f_str(big + 399 - 5);
	free(big);		/* LeakSanitizer checks the runs under san */
	printf("%ld\n", sink);
	return 0;
}
