// SPDX-License-Identifier: GPL-2.0-only
/*
 * A signal handler that runs while the thread is inside the runtime
 * (tests/patchsite/probes.sh): gdb stops the thread in the probe's ops
 * (the dispatcher's recursion guard held) at outer()'s first call and
 * delivers SIGUSR1 there.  The handler's calls cannot be recorded; they
 * must be counted lost: on_usr1 and its 5 calls of inner(), which it
 * counts ("handled 5").
 */
#include <signal.h>
#include <stdio.h>

static volatile int sink, handled;

__attribute__((noinline)) void inner(int x)
{
	sink += x;
}

void on_usr1(int sig)
{
	for (int i = 0; i < 5; i++) {
		inner(sig);
		handled++;
	}
}

__attribute__((noinline)) void outer(int x)
{
	sink += x;
}

int main(void)
{
	signal(SIGUSR1, on_usr1);
	outer(1);
	outer(2);
	inner(3);
	printf("handled %d\n", handled);
	return 0;
}
