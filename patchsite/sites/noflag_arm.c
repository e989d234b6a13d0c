// SPDX-License-Identifier: GPL-2.0-only
/*
 * Arming an object's no-flag sites at start-up (noflag.c found them; the
 * model is there): one thread, before main.  Each site's bytes in memory
 * are compared with its proof's; the stubs are mapped (stubs.c leaves room
 * after the sites' own stubs) and the arch writes each out-of-line stub;
 * then the program's SITE gets its jump.  Every site starts idle.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "noflag.h"

/* "prog: name (SITE 0x1139): why: not traced" */
static void refuse(struct ps_module *m, struct ps_site *s, const char *why, const char *more)
{
	const struct nf_keep *k = ps_noflag_keep(m, s);

	s->state = SITE_REFUSED;
	m->noflag->refused++;
	ps_log(PATCHSITE_LOG_WARNING, "%s: %s (site %#llx): %s%s: not traced", m->name,
	       s->sym->name, (unsigned long long)k->site, why, more);
}

/* The record as the arch reads it. */
static void record_of(const struct nf_keep *k, struct nf_record *r)
{
	*r = (struct nf_record){ .rec = NF_SITE, .form = k->form, .entry = k->entry, .site = k->site,
				 .depth = k->depth, .nbytes = k->nbytes, .ninsns = k->ninsns };
	memcpy(r->bytes, k->bytes, sizeof(r->bytes));
	memcpy(r->insns, k->insns, sizeof(r->insns));
}

/*
 * The out-of-line stubs, in the room stubs.c left (m->ool_lo): each site's
 * addr becomes its slot.  A site refused before (bytes-changed) or here
 * keeps a place in the order.  The page is written as the sites' stubs
 * were: writable, then executable again.
 */
static int write_stubs(struct ps_module *m)
{
	const unsigned size = ps.arch->noflag_stub_size;
	uint8_t *p = (uint8_t *)m->ool_lo;
	struct nf_record *r = malloc(sizeof(*r));

	if (!r)
		return -ENOMEM;
	if (mprotect(p, m->ool_hi - m->ool_lo, PROT_READ | PROT_WRITE) < 0) {
		free(r);
		return -errno;
	}
	for (size_t i = 0; i < m->nsites; i++) {
		struct ps_site *s = &m->sites[i];
		uintptr_t at = m->ool_lo + i * size;
		const char *why = NULL;
		unsigned slot = 0;

		if (s->state != SITE_REFUSED) {
			record_of(ps_noflag_keep(m, s), r);
			slot = ps.arch->write_noflag_stub(p + i * size, at, s->addr, r, &why);
			if (!slot)
				refuse(m, s, why ? why : "not relocatable", "");
		}
		s->addr = at + (slot ? slot : 8);	/* in order, inside its stub */
		s->len = (uint8_t)ps.arch->patch_len;
	}
	free(r);
	ps.arch->sync_icache(p, m->ool_hi - m->ool_lo);
	return mprotect(p, m->ool_hi - m->ool_lo, PROT_READ | PROT_EXEC) < 0 ? -errno : 0;
}

/* The program's SITE of each site (write_stubs moves addr to the slot). */
static uintptr_t *program_sites(struct ps_module *m, bool *touched)
{
	uintptr_t *at = malloc(m->nsites * sizeof(*at));

	for (size_t i = 0; at && i < m->nsites; i++) {
		struct ps_site *s = &m->sites[i];
		const struct nf_keep *k = ps_noflag_keep(m, s);
		char want[3 * NF_MAX_BYTES + 1], found[3 * NF_MAX_BYTES + 1], more[200];

		at[i] = s->addr;
		if (!ps_module_has_code(m, s->addr, k->nbytes)) {
			refuse(m, s, "outside-code", " (not in the object's code as loaded)");
			continue;
		}
		if (memcmp((const void *)s->addr, k->bytes, k->nbytes)) {
			ps_format_bytes(want, sizeof(want), k->bytes, k->nbytes);
			ps_format_bytes(found, sizeof(found), (const uint8_t *)s->addr, k->nbytes);
			snprintf(more, sizeof(more), " (the proof has %.60s, memory %.60s)", want, found);
			refuse(m, s, "bytes-changed", more);
			m->noflag->bytes_changed++;
			continue;
		}
		ps_mark_segment(m, s->addr, touched);
		ps_mark_segment(m, s->addr + k->nbytes - 1, touched);
	}
	return at;
}

static void refuse_all(struct ps_module *m, const char *why)
{
	for (size_t i = 0; i < m->nsites; i++)
		m->sites[i].state = SITE_REFUSED;
	m->noflag->refused = m->nsites;
	ps_log(PATCHSITE_LOG_WARNING, "%s: no-flag sites from %s: %s: none armed", m->name,
	       m->noflag->proof->file, why);
}

/*
 * Start-up (nop.c, one thread, before main): check each site's bytes, write
 * the stubs, then the program's jumps to them.  Every site starts idle:
 * its slot is the NOP, so an armed function costs a jump there and back
 * until a tracer wants it.
 */
int ps_noflag_arm(struct ps_module *m)
{
	struct ps_noflag *nf = m->noflag;
	const unsigned size = ps.arch->noflag_stub_size;
	bool touched[8] = { false };
	uintptr_t *at;
	size_t armed = 0;
	int err;

	if (m->nsegs == sizeof(m->segs) / sizeof(m->segs[0])) {
		refuse_all(m, "the object has too many code segments");
		return 0;
	}
	at = program_sites(m, touched);
	if (!at)
		return -ENOMEM;
	err = ps_stubs_map(m);
	if (!err && !m->ool_lo)
		err = -ENOMEM;
	if (!err)
		err = write_stubs(m);
	if (err) {
		refuse_all(m, strerror(-err));
		err = err == -ENOMEM ? err : 0;
		goto out;
	}
	m->segs[m->nsegs++] = (struct ps_seg){ m->ool_lo, m->ool_hi, PROT_READ | PROT_EXEC };
	err = ps_text_protect(m, touched, true);
	if (err) {
		refuse_all(m, strerror(-err));
		goto out;
	}
	for (size_t i = 0; i < m->nsites; i++) {
		const struct nf_keep *k = ps_noflag_keep(m, &m->sites[i]);
		uint8_t jump[16];

		if (m->sites[i].state == SITE_REFUSED)
			continue;
		if (!ps.arch->make_jump(jump, at[i], m->ool_lo + i * size + 8)) {
			refuse(m, &m->sites[i], "stub-out-of-reach", "");
			continue;
		}
		ps.arch->fill_tail(jump + ps.arch->jump_len, k->nbytes - ps.arch->jump_len);
		memcpy((void *)at[i], jump, k->nbytes);
		armed++;
	}
	ps.arch->sync_icache((void *)m->text_lo, m->text_hi - m->text_lo);
	err = ps_text_protect(m, touched, false);
	ps_log(PATCHSITE_LOG_NOTE, "%s: no-flag sites from %s: %zu armed, %zu refused (%zu "
	       "bytes-changed)", m->name, nf->proof->file, armed, nf->refused, nf->bytes_changed);
out:
	free(at);
	return err;
}

