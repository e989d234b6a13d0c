// SPDX-License-Identifier: GPL-2.0-only
/* Huge pages for the big arrays of huge objects: big_calloc(), big_heap(). */
#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bigalloc.h"

#define HUGE_SIZE (2u << 20)

void *big_calloc(size_t n, size_t size)
{
	void *p;

	if (size && n > SIZE_MAX / size) {
		errno = ENOMEM;
		return NULL;
	}
	size *= n;
	if (size < HUGE_SIZE)
		return calloc(1, size ? size : 1);
	if (posix_memalign(&p, HUGE_SIZE, size))
		return NULL;
	/* Advice only: without THP the pages are merely small. */
	madvise(p, size, MADV_HUGEPAGE);
	return memset(p, 0, size);
}

/*
 * libelf keeps one record of about 250 bytes per section, allocated with
 * one calloc inside elf_begin(); on an object with 68,000 sections that is
 * 17 MB touched a 4 KiB page at a time, and those faults cost more than all
 * the rest of the work in a VM.  So before opening a big file, grow the
 * heap once by what it will need, ask for huge pages on it, and keep it
 * (no trimming): libelf's records and ours then come from 2 MiB pages.
 * Blocks above glibc's largest mmap threshold (32 MiB) still come from
 * mmap, with small pages.  Advice only: without THP nothing changes.
 */
void big_heap(size_t expect)
{
	const size_t most = 31u << 20;
	uintptr_t lo, hi;
	void *p;

	if (expect < 4 * HUGE_SIZE)
		return;
	if (expect > most)
		expect = most;
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, INT32_MAX);
	mallopt(M_TOP_PAD, (int)expect);
	p = malloc(expect);
	if (!p)
		return;
	lo = ((uintptr_t)p + HUGE_SIZE - 1) & ~(uintptr_t)(HUGE_SIZE - 1);
	hi = (uintptr_t)sbrk(0);
	if (hi > lo)
		madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
	free(p);
}

void big_heap_for(const char *path)
{
	struct stat st;

	/* libelf's records plus ours come to about 4 times the file's size. */
	if (!stat(path, &st) && st.st_size > 0)
		big_heap((size_t)st.st_size * 4);
}
