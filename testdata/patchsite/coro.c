// SPDX-License-Identifier: GPL-2.0-only
/*
 * Stack switching under function_graph's return hooking:
 *   - a swapcontext coroutine on its own stack yields from inside traced
 *     calls, and the main stack switches to it from inside traced calls;
 *   - a signal handler on a sigaltstack, and one on the thread's stack,
 *     run traced functions while traced calls are open.
 * Calls on the thread's own stack are recorded with their returns; calls
 * on the coroutine's stack and the signal stack without (their returns
 * are not hooked).  Results are checked: a return gone astray shows.
 */
#include <signal.h>
#include <stdio.h>
#include <ucontext.h>

#define TRACED __attribute__((noinline, noipa))

static ucontext_t main_ctx, co_ctx;
static int co_sum, handled;

TRACED int co_leaf(int x)
{
	return x + 1;
}

/* Yields to main in the middle of a traced call, and finishes it when resumed. */
TRACED int co_yield_in(int x)
{
	swapcontext(&co_ctx, &main_ctx);
	return co_leaf(x) * 2;
}

TRACED void co_body(void)
{
	for (int i = 0; i < 3; i++)
		co_sum += co_yield_in(i);
}

/* Switches to the coroutine in the middle of a traced call on the main stack. */
TRACED int main_step(int i)
{
	swapcontext(&main_ctx, &co_ctx);
	return co_leaf(i) + 10;
}

TRACED int sig_leaf(int x)
{
	return x * 5;
}

TRACED void on_signal(int sig)
{
	handled += sig_leaf(sig == SIGUSR1 ? 1 : 2);
}

TRACED int raise_in(int sig)
{
	raise(sig);
	return co_leaf(sig == SIGUSR1 ? 100 : 200);
}

int main(void)
{
	static char co_stack[256 * 1024] __attribute__((aligned(16)));
	static char sig_stack[256 * 1024] __attribute__((aligned(16)));
	struct sigaction sa = { .sa_handler = on_signal };
	stack_t ss = { .ss_sp = sig_stack, .ss_size = sizeof(sig_stack) };
	int sum = 0;

	getcontext(&co_ctx);
	co_ctx.uc_stack.ss_sp = co_stack;
	co_ctx.uc_stack.ss_size = sizeof(co_stack);
	co_ctx.uc_link = &main_ctx;
	makecontext(&co_ctx, co_body, 0);
	for (int i = 0; i < 4; i++)	/* the fourth resume lets co_body finish */
		sum += main_step(i);

	sigaltstack(&ss, NULL);
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_ONSTACK;
	sigaction(SIGUSR1, &sa, NULL);
	sa.sa_flags = 0;
	sigaction(SIGUSR2, &sa, NULL);
	sum += raise_in(SIGUSR1);
	sum += raise_in(SIGUSR2);
	/* 10+11+12+13+10 = 56, co: 2+4+6 = 12, handlers: 5+10, raise_in: 101+201 */
	printf("sum=%d co=%d handled=%d\n", sum, co_sum, handled);
	return 0;
}
