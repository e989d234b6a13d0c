// SPDX-License-Identifier: GPL-2.0-only
/*
 * A process whose stack holds stale copies of the signal return address
 * (tests/patchsite/attach.sh), as Lua's did: sigaction() builds its
 * request, which holds glibc's __restore_rt, on the stack, and deeper
 * frames later leave words they do not write as they were.  Here a frame
 * below main leaves copies of that address in a block of its own (where
 * glibc's request lands depends on glibc), then the program recurses
 * through frames that write one word in 32, so that copies stay inside
 * live frames above the stack pointer while no handler runs.  Its only
 * thread is always in its own code.  It prints "stale N" (the copies its
 * deepest frame sees above it, the test's proof that the case is staged),
 * runs until SIGUSR2, then prints "ok" and exits 0.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static volatile sig_atomic_t stop;
static unsigned long restorer;
static uintptr_t top;

static void on_usr2(int sig)
{
	(void)sig;
	stop = 1;
}

__attribute__((noinline)) static void install(void)
{
	struct sigaction sa, old;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr2;
	sigaction(SIGUSR2, &sa, NULL);
	sigaction(SIGUSR2, NULL, &old);
	restorer = (unsigned long)old.sa_restorer;
}

/* What sigaction() leaves on the stack, in more copies. */
__attribute__((noinline)) static void leave_copies(void)
{
	volatile unsigned long words[256];

	for (unsigned i = 0; i < 256; i++)
		words[i] = restorer;
	(void)words[0];
}

/*
 * Copies of the return address between this frame and main's; the first
 * time, said; then again until SIGUSR2, from down here (never above the
 * copies, where an attach could take the thread).
 */
__attribute__((noinline)) static long scan(void)
{
	volatile unsigned long here = 0;
	const volatile unsigned long *p = (const volatile unsigned long *)((uintptr_t)&here & ~7ul);
	long n = 0;

	for (; (uintptr_t)p < top; p++)
		n += *p == restorer;
	printf("stale %ld\n", n);
	fflush(stdout);
	while (!stop)
		for (p = (const volatile unsigned long *)((uintptr_t)&here & ~7ul); (uintptr_t)p < top; p++)
			n += *p == restorer;
	return n;
}

/* Not a loop (noipa, the sum after the call): a frame for each depth. */
__attribute__((noipa)) static long deep(int depth)
{
	volatile unsigned long pad[32];	/* one word written: the rest keeps what was there */

	pad[depth & 31] = (unsigned long)depth;
	if (!depth)
		return scan();
	return deep(depth - 1) + (long)pad[depth & 31];
}

int main(void)
{
	volatile int anchor = 0;

	top = (uintptr_t)&anchor;
	install();
	leave_copies();
	deep(64);
	printf("ok\n");
	return anchor;
}
