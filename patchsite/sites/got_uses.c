// SPDX-License-Identifier: GPL-2.0-only
/*
 * The proof that a GLOB_DAT slot serves calls only (got_uses.h).
 *
 * A slot is part of its object's GOT, which no other object names: its
 * uses are all in the object itself.  Its code is read from the file (the
 * text pages stay untouched until start-up writes them, as scan.c does),
 * and the arch's slot_uses says, for each reference it may make to a slot,
 * whether it is a call or jump through it.  Its data is read from the
 * image, relocated: a word there that holds a slot's address (a RELATIVE
 * relocation, an absolute pointer in a non-PIE) is a use as data too.
 */
#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "got_uses.h"
#include "sites.h"

const char got_left_alone[] = "its address is also used as data (&func): a thunk in its slot "
			      "would change the program's function pointers";

static void found(void *arg, uintptr_t word, unsigned use)
{
	struct got_uses *u = arg;

	/* A reference into the middle of a word is no reference to a slot. */
	if (word >= u->lo && word < u->hi && !((word - u->lo) % sizeof(uintptr_t)))
		u->use[(word - u->lo) / sizeof(uintptr_t)] |= (uint8_t)use;
}

/* [lo, hi) of d's GLOB_DAT function slots; false when it has none. */
static bool slot_range(const struct dyn *d, uintptr_t bias, struct got_uses *u)
{
	size_t n = got_collect(d, bias, d->rela, d->relasz, ps.arch->glob_dat_type, true, NULL, 0);
	struct cand *c = n ? calloc(n, sizeof(*c)) : NULL;

	u->lo = UINTPTR_MAX;
	u->hi = 0;
	if (!c)
		return false;
	got_collect(d, bias, d->rela, d->relasz, ps.arch->glob_dat_type, true, c, 0);
	for (size_t i = 0; i < n; i++) {
		uintptr_t at = (uintptr_t)c[i].slot;

		u->lo = at < u->lo ? at : u->lo;
		u->hi = at + sizeof(uintptr_t) > u->hi ? at + sizeof(uintptr_t) : u->hi;
	}
	free(c);
	return u->hi > u->lo && !((u->hi - u->lo) % sizeof(uintptr_t));
}

/* w lies in the n bytes at table (the relocations' r_offset are no use of a slot). */
static bool in_table(const void *w, const void *table, size_t n)
{
	return table && (const char *)w >= (const char *)table &&
	       (const char *)w < (const char *)table + n;
}

/*
 * Words of the image's data (every readable PT_LOAD that is not code) holding a
 * slot's address.  Every word is read, the redzones an ASan-built object keeps
 * between its globals too: not a use of them, so not checked as one.
 */
__attribute__((no_sanitize("address")))
static void data_uses(const struct dl_phdr_info *info, const struct dyn *d, struct got_uses *u)
{
	for (unsigned i = 0; i < info->dlpi_phnum; i++) {
		const Elf64_Phdr *q = &info->dlpi_phdr[i];
		const uintptr_t *w, *end;

		if (q->p_type != PT_LOAD || (q->p_flags & PF_X) || !(q->p_flags & PF_R))
			continue;
		w = (const uintptr_t *)((info->dlpi_addr + q->p_vaddr + sizeof(*w) - 1) &
					~(sizeof(*w) - 1));
		end = (const uintptr_t *)((info->dlpi_addr + q->p_vaddr + q->p_filesz) &
					  ~(sizeof(*w) - 1));
		for (; w < end; w++)
			if (*w >= u->lo && *w < u->hi && !in_table(w, d->rela, d->relasz) &&
			    !in_table(w, d->jmprel, d->jmpsz))
				found(u, *w, SLOT_USE_DATA);
	}
}

void got_uses_find(const struct ps_module *m, const struct dl_phdr_info *info,
		   const struct dyn *d, struct got_uses *u)
{
	memset(u, 0, sizeof(*u));
	if (!slot_range(d, info->dlpi_addr, u)) {
		u->lo = u->hi = 0;	/* no such slot: nothing to prove, nothing to say */
		return;
	}
	if (!ps.arch->slot_uses) {
		u->why = ps.arch->slot_uses_why;
		return;
	}
	if (!(u->use = calloc((u->hi - u->lo) / sizeof(uintptr_t), 1))) {
		u->why = "out of memory";
		return;
	}
	for (unsigned i = 0; i < info->dlpi_phnum; i++) {
		const Elf64_Phdr *q = &info->dlpi_phdr[i];
		uintptr_t at = info->dlpi_addr + q->p_vaddr;
		const uint8_t *code;

		if (q->p_type != PT_LOAD || !(q->p_flags & PF_X))
			continue;
		code = ps_module_file_code(m, at, q->p_filesz);
		if (!code) {
			u->why = "its code could not be read from its file";
			free(u->use);
			u->use = NULL;
			return;
		}
		ps.arch->slot_uses(code, q->p_filesz, at, u->lo, u->hi, found, u);
	}
	data_uses(info, d, u);
}

unsigned got_uses_of(const struct got_uses *u, uintptr_t addr)
{
	if (!u->use || addr < u->lo || addr >= u->hi)
		return 0;
	return u->use[(addr - u->lo) / sizeof(uintptr_t)];
}

void got_uses_free(struct got_uses *u)
{
	free(u->use);
	free(u->calls);
	u->use = NULL;
	u->calls = NULL;
	u->ncalls = 0;
}
