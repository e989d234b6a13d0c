// SPDX-License-Identifier: GPL-2.0-only
/*
 * Per-site stubs: each object's stubs are mapped within reach of its code
 * (a rel32 call on x86-64, a BL on aarch64), in a gap of the address space
 * read from /proc/self/maps, then filled by the arch (ps_arch make_stub).
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sites.h"

/* Mapped ranges from /proc/self/maps, in address order. */
struct range {
	uintptr_t lo, hi;
};

/* Room for /proc/self/maps at vm.max_map_count (65530) lines of up to 128 bytes. */
#define MAPS_BYTES	(8ul << 20)

/*
 * Every mapping, at r[1..n], with room for a sentinel on each side; *mem
 * is the mapping to munmap (MAPS_BYTES).  NULL on failure.  Nothing is
 * allocated once the list is read: a mapping made then (by malloc, or
 * ASan's allocator) would be missing from it, in the very gap we choose.
 * So the buffer is mapped first, and the ranges overwrite the text they
 * are read from (a line is longer than a range).
 */
static struct range *read_maps(size_t *np, void **mem)
{
	char *buf = mmap(NULL, MAPS_BYTES, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0), *line, *nl;
	struct range *r = (struct range *)buf;
	size_t n = 0, have = 0;
	ssize_t got = 0;
	int fd;

	if (buf == MAP_FAILED)
		return NULL;
	fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	while (fd >= 0 && have < MAPS_BYTES - 1 &&
	       (got = read(fd, buf + have, MAPS_BYTES - 1 - have)) > 0)
		have += (size_t)got;
	if (fd >= 0)
		close(fd);
	if (fd < 0 || got < 0 || have >= MAPS_BYTES - 1)
		goto fail;
	buf[have] = '\0';
	for (line = buf; (nl = strchr(line, '\n')); line = nl + 1) {
		unsigned long lo, hi;

		*nl = '\0';
		if (sscanf(line, "%lx-%lx", &lo, &hi) != 2)
			continue;
		if ((char *)&r[n + 2] > nl + 1)
			goto fail;	/* cannot be: a line shorter than a range */
		r[1 + n++] = (struct range){ lo, hi };
	}
	*np = n;
	*mem = buf;
	return r;
fail:
	munmap(buf, MAPS_BYTES);
	return NULL;
}

/*
 * Where the stubs of m go: in a gap of the address space within the call reach of
 * every site, as close to the text as we can get; 0 if there is none.
 */
static uintptr_t stub_place(const struct ps_module *m, size_t size, uintptr_t align)
{
	const uintptr_t reach = ps.arch->reach;
	uintptr_t lo_bound, hi_bound, best = 0, best_dist = UINTPTR_MAX;
	struct range *maps;
	void *mem;
	size_t n;

	lo_bound = m->text_hi > reach ? m->text_hi - reach : ps_page_size() * 16;
	if (lo_bound < 0x10000)
		lo_bound = 0x10000;
	hi_bound = m->text_lo + reach;
	maps = read_maps(&n, &mem);
	if (!maps)
		return 0;
	/* Sentinels: the gaps before the first and after the last mapping. */
	maps[0] = (struct range){ 0, 0x10000 };
	maps[n + 1] = (struct range){ 0x7ffffffff000ul, 0x7ffffffff000ul };
	n += 2;
	for (size_t i = 0; i + 1 < n; i++) {
		uintptr_t glo = maps[i].hi, ghi = maps[i + 1].lo, a, dist;

		if (glo < lo_bound)
			glo = ps_page_up(lo_bound);
		if (ghi > hi_bound)
			ghi = ps_page_down(hi_bound);
		if (ghi <= glo || ghi - glo < size)
			continue;
		if (ghi <= m->text_lo) {
			/* Below the text: right under it, away from brk and the stack. */
			a = (ghi - size) & ~(align - 1);
			if (a < glo)
				continue;
			dist = m->text_lo - a;
		} else if (glo >= m->text_hi) {
			/* Above: leave room for the heap to grow if this gap follows it. */
			uintptr_t margin = (ghi - glo - size) / 2;

			if (margin > (256ul << 20))
				margin = 256ul << 20;
			a = (glo + margin + align - 1) & ~(align - 1);
			if (a + size > ghi || a + size < a)
				continue;
			dist = (a - m->text_hi) + (1ul << 40);	/* prefer below */
		} else {
			continue;
		}
		if (dist < best_dist) {
			best = a;
			best_dist = dist;
		}
	}
	munmap(mem, MAPS_BYTES);
	return best;
}

/*
 * What a late site's stub passes its trampoline (ps_arch.late_site: on
 * aarch64 where the sp at entry is), asked of the prologue again here
 * rather than kept per site: nop.c accepted it and named its function.
 * Should the prologue say otherwise now, the site is refused (it is idle:
 * no stub has been written for it yet), never traced with a wrong arg.
 */
static uint16_t late_arg(struct ps_site *s)
{
	const char *why = NULL;
	uint16_t arg = 0;
	size_t off;

	if (s->kind != SITE_ENTRY_LATE || !ps.arch->late_site)
		return 0;
	off = s->sym ? s->addr - s->sym->addr : 0;
	if (!s->sym || !ps.arch->late_site((const uint8_t *)s->sym->addr,
					   off + ps.arch->patch_len, off, &arg, &why)) {
		ps_log_site(PATCHSITE_LOG_WARNING, s, "its prologue no longer reads as at start-up "
			    "(%s): site refused", why ? why : "no function symbol");
		s->state = SITE_REFUSED;
	}
	return arg;
}

/*
 * The stub page of m, mapped where stub_place says.  The gap may be taken
 * between reading the maps and mapping (another thread's malloc, ASan's
 * allocator): then we look again, a few times.
 */
int ps_stubs_map(struct ps_module *m)
{
	size_t size, stub_bytes, mapped;
	uintptr_t best = 0, align = ps_page_size();
	uint8_t *p = NULL;
	int err = 0;

	/* Mapped already: by patch.c first, where the idle site aims at its stub (make_idle). */
	if (!m->nsites || m->stubs)
		return 0;
	/* The stubs, room for noflag_arm.c's out-of-line ones, then one data page for the slots. */
	stub_bytes = ps_page_up(m->nsites * ps.arch->stub_size);
	if (stub_bytes >= (512ul << 10)) {
		/* Whole 2 MB pages of stubs (see mem.c): far fewer first-touch faults. */
		align = 2ul << 20;
		stub_bytes = (stub_bytes + align - 1) & ~(align - 1);
	}
	size = stub_bytes + m->stubs_extra + ps_page_size();
	for (int tries = 0; !p && tries < 8; tries++) {
		best = stub_place(m, size, align);
		if (!best) {
			ps_log(PATCHSITE_LOG_WARNING, "%s: no free address within %lu MB of its code "
			       "for %zu stubs: not traced", m->name, (unsigned long)(ps.arch->reach >> 20),
			       m->nsites);
			return -ENOMEM;
		}
		mapped = size;
		p = ps_map_zero(&mapped, false, best);
		err = p ? 0 : errno;
		if (err != EEXIST)
			break;
	}
	if (!p) {
		ps_log(PATCHSITE_LOG_WARNING, "%s: cannot map stubs at %#lx: %s: not traced",
		       m->name, (unsigned long)best, strerror(err));
		return -err;
	}
	m->tramp_slot = (_Atomic uintptr_t *)(p + size - ps_page_size());
	for (unsigned k = 0; k < SITE_KINDS; k++)
		atomic_store(&m->tramp_slot[k], (uintptr_t)(k == SITE_ENTRY_LATE ? ps.arch->tramp_late
							    : k == SITE_ENTRY_NOFLAG || k == SITE_NOFLAG_DEEP
							    ? ps.arch->tramp_noflag
							    : ps.arch->tramp));
	for (size_t i = 0; i < m->nsites; i++) {
		uintptr_t at = (uintptr_t)p + i * ps.arch->stub_size;
		struct ps_site *s = &m->sites[i];

		if (!ps.arch->write_stub((uint8_t *)at, at, s->id, s->kind == SITE_EXIT, late_arg(s),
					 (uintptr_t)&m->tramp_slot[s->kind])) {
			munmap(p, size);
			m->tramp_slot = NULL;
			return -ERANGE;
		}
	}
	/* The stubs are new code: make them coherent before any site can reach them. */
	ps.arch->sync_icache(p, size - ps_page_size());
	if (mprotect(p, size - ps_page_size(), PROT_READ | PROT_EXEC) < 0) {
		int err = errno;

		munmap(p, size);
		m->tramp_slot = NULL;
		ps_log(PATCHSITE_LOG_ERROR, "%s: cannot make the stub page executable: %s%s",
		       m->name, strerror(err), err == EACCES || err == EPERM
		       ? " (a W^X policy: SELinux execmem, MemoryDenyWriteExecute or PR_SET_MDWE)"
		       : "");
		if (err == EACCES || err == EPERM)
			ps.can_write = false;
		return -err;
	}
	m->stubs = p;
	m->stubs_size = size;
	if (m->stubs_extra) {
		m->ool_lo = (uintptr_t)p + stub_bytes;
		m->ool_hi = m->ool_lo + m->stubs_extra;
	}
	return 0;
}
