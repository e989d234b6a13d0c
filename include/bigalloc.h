/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Zeroed allocations for the per-section and per-symbol arrays of huge
 * objects (68,000 sections and more).  Each first touch of a page costs a
 * fault, which is dear in a VM; from 2 MiB up these arrays ask for
 * transparent huge pages, one fault per 2 MiB.  Free with free().
 */
#ifndef PS_BIGALLOC_H
#define PS_BIGALLOC_H

#include <stddef.h>

void *big_calloc(size_t n, size_t size);
/* Before opening a big ELF file: let the heap grow once, on huge pages. */
void big_heap(size_t expect);
void big_heap_for(const char *path);

#endif
