// SPDX-License-Identifier: GPL-2.0-only
/* big_calloc(): calloc that asks for transparent huge pages when large. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

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
