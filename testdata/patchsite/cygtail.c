// SPDX-License-Identifier: GPL-2.0-only
/*
 * -finstrument-functions -O2 with traceoff/traceon triggers (tests/
 * patchsite/uft.sh): gcc ends each function with a jump to
 * __cyg_profile_func_exit after its epilogue, so mem_alloc's exit hook
 * runs with its frame where foo's enter hook's was.  main calls foo,
 * which calls mem_alloc (traceoff), bar, then mem_free (traceon).
 */
#include <stdlib.h>

__attribute__((noinline)) void *mem_alloc(void)
{
	void *p = malloc(16);

	__asm__ volatile("" ::: "memory");
	return p;
}

__attribute__((noinline)) void mem_free(void *p)
{
	free(p);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void bar(void)
{
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void foo(void)
{
	void *p = mem_alloc();

	bar();
	mem_free(p);
}

int main(void)
{
	foo();
	return 0;
}
