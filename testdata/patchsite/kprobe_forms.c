// SPDX-License-Identifier: GPL-2.0-only
/*
 * The program tests/patchsite/kprobe_syntax.sh probes with the kernel's
 * fetch-argument forms: a struct with a char * member, a char array and a
 * pointer to another, a const char * argument, negative values, globals
 * (for @SYM, with -rdynamic), a thread name (for $comm), a return value of
 * 2000, arguments on the stack (many's 7th and 8th, for $stackN), a void
 * function.  Each function is called once, with the values the test expects.
 */
#include <stdio.h>
#include <sys/prctl.h>

#define F __attribute__((noinline, noclone))

struct conn {
	const char *name;	/* +0 */
	int port;		/* +8 */
	char tag[8];		/* +12 */
	struct conn *peer;	/* +24 */
	unsigned flags;		/* +32 */
};

char greeting[] = "hello";		/* @greeting:string: the array's bytes */
const char *motd = "message of the day";	/* +0(@motd):string: what it points to */
long counter = -5;			/* @counter:s64 */
volatile long sink;
/* Globals: gcc sees which members send_msg reads, and would drop a local's other stores. */
struct conn beta = { "beta", 443, "tagB", NULL, 0x5 };
struct conn alpha = { "alpha", -2, "tagA", &beta, 0xa5 };

F int send_msg(struct conn *c, int len, const char *host)
{
	sink += c->port + len + (host != NULL);
	return 2000;
}

F void nothing(void)
{
	sink++;
}

F long many(long a1, long a2, long a3, long a4, long a5, long a6, long a7, long a8)
{
	sink += a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8;
	return a8;
}

int main(void)
{
	prctl(PR_SET_NAME, "kpforms", 0, 0, 0);
	sink += send_msg(&alpha, -7, "example.org");
	sink += many(1, 2, 3, 4, 5, 6, -70, 80);
	nothing();
	printf("%ld\n", sink);
	return 0;
}
