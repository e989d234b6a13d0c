// SPDX-License-Identifier: GPL-2.0-only
/*
 * Linked into the real program of tests/patchsite/realprobes.sh with
 * -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free: the
 * program's own malloc, calloc, realloc and free take memory from an arena
 * at a fixed address, and never reuse it, so that its heap objects are at the same
 * addresses under gdb and under `patchsite record`, whose runtime mallocs
 * in the same process (from libc's heap, which the arena does not share).
 * Pointer arguments then compare as they are.  Not a general allocator:
 * nothing is freed, 1 GiB of address space is reserved (not committed).
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* Above ASan's shadow (x86-64: up to 0x10007fff7fff), under its allocator (0x600000000000):
 * the recorded run of a sanitized runtime preloads ASan. */
#define ARENA_AT	((uintptr_t)0x200000000000ull)
#define ARENA_SIZE	((size_t)1 << 30)

void *__real_realloc(void *p, size_t n);
void __real_free(void *p);

static char *next, *end;

static int in_arena(const void *p)
{
	return (uintptr_t)p >= ARENA_AT && (uintptr_t)p < ARENA_AT + ARENA_SIZE;
}

/* A block with its size in the 16 bytes before it. */
static void *take(size_t n)
{
	size_t need = 16 + ((n + 15) & ~(size_t)15);

	if (!next) {
		void *m = mmap((void *)ARENA_AT, ARENA_SIZE, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE,
			       -1, 0);

		if (m != (void *)ARENA_AT) {
			fputs("realprobes_alloc: the arena's fixed address is taken\n", stderr);
			abort();
		}
		next = m;
		end = next + ARENA_SIZE;
	}
	if ((size_t)(end - next) < need)
		return NULL;
	*(size_t *)next = n;
	next += need;
	return next - need + 16;
}

void *__wrap_realloc(void *p, size_t n)
{
	void *q;

	if (p && !in_arena(p))
		return __real_realloc(p, n);
	q = take(n);
	if (q && p)
		memcpy(q, p, ((size_t *)p)[-2] < n ? ((size_t *)p)[-2] : n);
	return q;
}

void *__wrap_malloc(size_t n)
{
	return take(n);
}

/* The arena's pages are fresh (zero) and never reused. */
void *__wrap_calloc(size_t k, size_t n)
{
	if (n && k > (size_t)-1 / n)
		return NULL;
	return take(k * n);
}

void __wrap_free(void *p)
{
	if (!in_arena(p))
		__real_free(p);
}
