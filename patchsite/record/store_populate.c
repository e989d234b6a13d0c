// SPDX-License-Identifier: GPL-2.0-only
/*
 * A new chunk's pages, put in before the recording thread writes it (a
 * fresh page-cache page met in the hot path costs a fault).
 *
 * Not with MADV_POPULATE_WRITE: it holds the process's mmap lock (for
 * read) while it fills the chunk, and every mmap, munmap or arena growth
 * of the traced program's threads (the write lock), ours at a chunk switch
 * included, waits behind it: a tracer changing the program's scheduling.
 * Cutting it in 64 KB pieces did not help (the lock is held as much of
 * the time): with 4 busy loops on 2 CPUs, the worker threads' voluntary
 * switches per run (median of 10, schedload.c of bench/patchsite) were
 * 34 and 43 with one call per chunk (two builds), 40 in pieces, 2 touching
 * each page, 0 untraced.  A page fault is served under the VMA's own lock on Linux 6.7
 * and later (shared file faults; 6.4 anonymous), so the program's mmap
 * calls do not wait for it; older kernels (Debian 12's 6.1) take the mmap
 * lock per fault and let it go between pages, so a writer waits for one
 * page at most.  It costs the helper thread about as much as the madvise
 * (10-25% more per MiB here, off the recording thread).  The chunk is
 * reserved on disk first (store_reserve.c), so a touch finds its block.
 *
 * The touch must not change a word: a helper scheduled late may still be
 * touching chunk N when its thread, finding it not ready, has mapped chunk
 * N itself and written events there (map_next): a plain store of 0 lost
 * them (tests/patchsite/tsan.sh's trace directory, 1 run in 4).  An atomic
 * add of 0 is a write (so a write fault) that keeps whatever is stored
 * meanwhile, on every architecture.
 */
#include <stdint.h>
#include <unistd.h>

#include "store.h"

/*
 * Hidden from ThreadSanitizer: in that late-helper case it races with the
 * thread's plain stores by design, and changes nothing they wrote.
 */
__attribute__((no_sanitize("thread")))
void ps_store_populate(void *p, size_t len)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	/* a write, not a read: a read fault would leave the write fault to the hot path */
	for (size_t o = 0; o < len; o += page)
		(void)__atomic_fetch_add((volatile uint64_t *)((char *)p + o), 0, __ATOMIC_RELAXED);
}
