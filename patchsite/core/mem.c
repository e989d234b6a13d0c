// SPDX-License-Identifier: GPL-2.0-only
/*
 * Zeroed anonymous memory for the large tables (sites, the global index,
 * stubs) and the rings.
 *
 * What costs here is not the bytes but the pages: on the VMs we measure on
 * (shadow paging), the first touch of each 4 KB page costs 3-12 us even
 * after the kernel populated it, so 100,000 sites' tables (about 1,700
 * pages) took longer than everything else at start-up put together.  A
 * 2 MB-aligned region with MADV_HUGEPAGE is one page table entry per 2 MB;
 * MADV_POPULATE_WRITE (Linux 5.14) fills it in one call.  Both are hints:
 * where transparent huge pages are off or the kernel is older, the memory
 * is the same, only slower to touch.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/core.h"

#define HUGE_SIZE	(2ul << 20)
#define HUGE_FROM	(512ul << 10)	/* smaller tables: 4 KB pages */

/* Hints only: without them the memory is the same, its pages come one fault at a time. */
static void populate(void *p, size_t size)
{
	(void)madvise(p, size, MADV_HUGEPAGE);
	(void)madvise(p, size, MADV_POPULATE_WRITE);	/* Linux 5.14 */
}

/* Kernels before 4.17 take MAP_FIXED_NOREPLACE as a mere hint. */
static bool at_hint(void *p, size_t size, uintptr_t hint)
{
	if (!hint || (uintptr_t)p == hint)
		return true;
	munmap(p, size);
	errno = EEXIST;
	return false;
}

/*
 * At least *bytes zeroed bytes, read-write, at hint if not 0 (then exactly
 * there, MAP_FIXED_NOREPLACE, and the caller has aligned it); *bytes is
 * set to the size to munmap.  round: a region of 512 KB or more grows to
 * whole huge pages (at most 2 MB more); else only its whole 2 MB extents
 * are huge.  NULL (errno set) when mmap fails.
 */
void *ps_map_zero(size_t *bytes, bool round, uintptr_t hint)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t size = (*bytes + page - 1) & ~(page - 1), span;
	uint8_t *p, *a;

	if (!size)
		size = page;
	if (size < HUGE_FROM) {
		p = mmap((void *)hint, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS |
			 MAP_POPULATE | (hint ? MAP_FIXED_NOREPLACE : 0), -1, 0);
		if (p == MAP_FAILED || !at_hint(p, size, hint))
			return NULL;
		*bytes = size;
		return p;
	}
	if (round)
		size = (size + HUGE_SIZE - 1) & ~(HUGE_SIZE - 1);
	if (hint) {
		a = mmap((void *)hint, size, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
		if (a == MAP_FAILED || !at_hint(a, size, hint))
			return NULL;
	} else {
		/* Over-allocate, keep the 2 MB-aligned part. */
		span = size + HUGE_SIZE;
		p = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return NULL;
		a = (uint8_t *)(((uintptr_t)p + HUGE_SIZE - 1) & ~(HUGE_SIZE - 1));
		if (a > p)
			munmap(p, (size_t)(a - p));
		if (p + span > a + size)
			munmap(a + size, (size_t)(p + span - (a + size)));
	}
	populate(a, size);
	*bytes = size;
	return a;
}

/*
 * calloc(n, size) that free() and realloc() take, with 2 MB pages from
 * 512 KB up (the size grows to whole huge pages).  NULL on overflow or
 * when out of memory.
 */
void *ps_calloc_large(size_t n, size_t size)
{
	size_t bytes;
	void *p;

	if (size && n > SIZE_MAX / size)
		return NULL;
	bytes = n * size;
	if (bytes < HUGE_FROM)
		return calloc(n ? n : 1, size ? size : 1);
	bytes = (bytes + HUGE_SIZE - 1) & ~(HUGE_SIZE - 1);
	if (posix_memalign(&p, HUGE_SIZE, bytes))
		return NULL;
	populate(p, bytes);
	memset(p, 0, bytes);	/* malloc may reuse memory */
	return p;
}
