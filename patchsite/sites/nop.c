// SPDX-License-Identifier: GPL-2.0-only
/*
 * An object's sites written the first time: at start-up (ps_patch_startup:
 * one thread, nothing else runs the code yet) and when it is loaded later
 * (ps_patch_late: other threads may run it, so the live protocol of
 * patch.c).  Each recorded site is checked, as the kernel's
 * ftrace_check_current_call does, and every recognised site turned into
 * the arch's NOP.  A site holding anything else is refused: reported and
 * never written.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "sites.h"
#include "sites/got.h"

/* The site already holds the NOP we write (another NOP form, clang's, is rewritten). */
static bool our_nop(const struct ps_site *s, const struct site_insn *in, const uint8_t *p)
{
	uint8_t nop[16];

	if (in->form != FORM_NOP || in->len != ps.arch->patch_len || !ps_site_idle_bytes(s, nop))
		return false;
	return !memcmp(p, nop, ps.arch->patch_len);
}

/* A site that calls a hook: an entry hook's call is ours to write, a late one's is refused. */
static bool entry_hook(unsigned hook)
{
	return hook && hook - 1 < ps.arch->late_hook;
}

/*
 * A site after its function's prologue (-pg without -mfentry: a call to a
 * late hook, or a NOP that replaced one) becomes SITE_ENTRY_LATE, whose
 * trampolines find the return slot in the frame (ps_arch.late_site says
 * where the prologue puts it).  A NOP that is not after such a prologue
 * is an entry site as before (-fpatchable-function-entry, -mfentry).
 * false: a call to a late hook we cannot trace; the caller refuses it
 * and why is said here.
 */
static bool classify_late(struct ps_module *m, struct ps_site *s, unsigned hook)
{
	bool late_hook = hook && !entry_hook(hook);
	const struct ps_sym *fn;
	const char *why = NULL;
	uint16_t arg;
	size_t off;

	if (s->kind == SITE_EXIT || (!late_hook && !m->mcount_table))
		return !late_hook;	/* (only -pg's __mcount_loc lists late NOPs) */
	ps_module_syms(m);
	fn = s->sym ? s->sym : ps_module_sym(m, s->addr);
	off = fn ? s->addr - fn->addr : 0;
	if (fn && off && ps.arch->late_site && ps.arch->tramp_late &&
	    ps_module_has_code(m, fn->addr, off + ps.arch->patch_len) &&
	    ps.arch->late_site((const uint8_t *)fn->addr, off + ps.arch->patch_len, off, &arg,
			       &why)) {
		if (s->kind != SITE_ENTRY_HOOK) {
			ps_log_site(PATCHSITE_LOG_WARNING, s, "a site after the prologue in a function "
				    "with exit sites (-minstrument-return needs -mfentry): site "
				    "refused");
			return false;
		}
		s->kind = SITE_ENTRY_LATE;
		s->sym = fn;	/* (stubs.c asks its prologue again) */
		return true;
	}
	if (!late_hook)
		return true;
	if (!fn)
		ps_log_site(PATCHSITE_LOG_WARNING, s, "a call to %s after a prologue, in code with no "
			    "function symbol (stripped?): its return slot is not known: site "
			    "refused", ps.arch->hooks[hook - 1]);
	else if (!ps.arch->late_site || !ps.arch->tramp_late)
		ps_log_site(PATCHSITE_LOG_WARNING, s, "a call to %s after the prologue (built -pg "
			    "without -mfentry): %s: site refused", ps.arch->hooks[hook - 1],
			    ps.arch->mcount_refused ? ps.arch->mcount_refused : "not traced here");
	else if (why)
		ps_log_site(PATCHSITE_LOG_WARNING, s, "a call to %s in %s: %s: site refused",
			    ps.arch->hooks[hook - 1], fn->name, why);
	else
		ps_log_site(PATCHSITE_LOG_WARNING, s, "a call to %s, but not after a frame-pointer "
			    "prologue at %s's start (%s: the return slot is not known; a realigned "
			    "stack?): site refused", ps.arch->hooks[hook - 1], fn->name,
			    ps.arch->late_prologue);
	return false;
}

static void refuse(struct ps_site *s, const struct site_insn *in, const uint8_t *p, unsigned hook)
{
	char found[64];

	s->state = SITE_REFUSED;
	if (hook && !entry_hook(hook))
		return;		/* classify_late said why */
	ps_format_bytes(found, sizeof(found), p, in->len > ps.arch->max_site_len ?
			ps.arch->max_site_len : in->len);
	if (in->why)
		ps_log_site(PATCHSITE_LOG_WARNING, s, "%s (found %s): site refused", in->why, found);
	else if (in->form == FORM_CALL)
		ps_log_site(PATCHSITE_LOG_WARNING, s, "expected a call to %s, found a call to %#lx "
			    "(%s): site refused", ps.arch->hooks[0], (unsigned long)in->target, found);
	else if (in->form == FORM_CALL_SLOT)
		ps_log_site(PATCHSITE_LOG_WARNING, s, "expected a call to %s, found a call through "
			    "%#lx (%s): site refused", ps.arch->hooks[0], (unsigned long)in->slot,
			    found);
	else
		ps_log_site(PATCHSITE_LOG_WARNING, s, "expected a call to %s or a %u-byte NOP, "
			    "found %s: site refused", ps.arch->hooks[0], ps.arch->patch_len, found);
}

/*
 * -fpatchable-function-entry=N,M with M > 0 (gcc and clang) puts M of the
 * NOPs before the function's label, and the table lists the first of
 * them: a site written there crosses the function's entry (or lies wholly
 * before it), and every call lands inside our instruction (SIGILL,
 * SIGSEGV).  The function that starts within or right after the site's
 * bytes, or NULL.  Asked only of sites of NOPs or of bytes we do not know
 * (the symbols are read for it); a stripped object without the function's
 * symbol cannot show it.
 */
static const struct ps_sym *entry_inside(struct ps_module *m, const struct ps_site *s,
					 const struct site_insn *in)
{
	const size_t len = in->len > ps.arch->patch_len ? in->len : ps.arch->patch_len;
	const struct ps_sym *fn;

	if (in->form != FORM_NOP_BYTES && in->form != FORM_UNKNOWN)
		return NULL;
	ps_module_syms(m);
	fn = ps_module_sym_after(m, s->addr);
	if (!fn)
		return NULL;
	/*
	 * A site at a function's own first byte has M = 0: the next function
	 * right after its bytes is a short function's neighbour (riscv64's two
	 * c.nop of a tiny function), not a crossing; only one starting inside is.
	 */
	const struct ps_sym *own = ps_module_sym(m, s->addr);
	if (own && own->addr == s->addr)
		return fn->addr < s->addr + len ? fn : NULL;
	return fn->addr <= s->addr + len ? fn : NULL;
}

/* The sites entry_inside refused, said once for the module. */
struct before_entry {
	size_t n;
	const struct ps_sym *first;
	uintptr_t first_off;
};

static bool refuse_before_entry(struct ps_module *m, struct ps_site *s, const struct site_insn *in,
				struct before_entry *b)
{
	const struct ps_sym *fn = entry_inside(m, s, in);

	if (!fn)
		return false;
	s->state = SITE_REFUSED;
	if (!b->n++) {
		b->first = fn;
		b->first_off = fn->addr - s->addr;
	}
	return true;
}

static void said_before_entry(const struct ps_module *m, const struct before_entry *b)
{
	if (b->n)
		ps_log(PATCHSITE_LOG_WARNING, "%s: %zu site%s start%s before the function's entry "
		       "(-fpatchable-function-entry=N,M with M > 0: %s's NOPs begin %zu bytes before "
		       "it): a site there would cross the entry: not traced", m->name, b->n,
		       b->n == 1 ? "" : "s", b->n == 1 ? "s" : "", b->first->name,
		       (size_t)b->first_off);
}

/* The code segment that holds [addr, addr + len), or NULL (as ps_module_has_code). */
static const struct ps_seg *segment_of(const struct ps_module *m, uintptr_t addr, size_t len)
{
	for (unsigned i = 0; i < m->nsegs; i++)
		if (addr >= m->segs[i].lo && addr + len <= m->segs[i].hi && addr + len > addr)
			return &m->segs[i];
	return NULL;
}

/*
 * Will start-up write this module's text?  Asked of the file, before the
 * text is read: a text page that was read is mapped from the page cache
 * and its copy on write must also flush the old mapping, which on our VMs
 * costs 10-40 us a page; a page written first is copied in about 1 us.
 * A sample of sites is enough: one build form covers a module.  Only a
 * prediction: the sites themselves are checked in memory.
 */
static bool writes_likely(const struct ps_module *m)
{
	const unsigned n = ps.arch->patch_len, samples = 16;
	uint8_t nop[16];

	ps.arch->make_nop(nop);
	for (unsigned k = 0; k < samples && k < m->nsites; k++) {
		const struct ps_site *s = &m->sites[m->nsites / samples * k];
		const uint8_t *p = ps_module_file_code(m, s->addr, ps.arch->max_site_len + 4);
		struct site_insn in;

		if (!p)
			return true;
		ps.arch->decode_site(p, s->addr, &in);
		if (in.form != FORM_NOP || in.len != n)
			return true;
	}
	return false;
}

/*
 * Is a site's instruction what we expect (a call to the hook, or a NOP)?
 * Consecutive sites nearly always call the same PLT entry: remember the
 * last target's answer.
 */
static bool site_ok(const struct ps_module *m, const struct site_insn *in, uintptr_t *last_target,
		    unsigned *last_hook, unsigned *hook)
{
	*hook = 0;
	switch (in->form) {
	case FORM_CALL:
		if (in->target != *last_target) {
			*last_target = in->target;
			*last_hook = ps_module_calls_hook(m, in);
		}
		*hook = *last_hook;
		return entry_hook(*hook);
	case FORM_CALL_SLOT:
		*hook = ps_module_calls_hook(m, in);
		return entry_hook(*hook);
	case FORM_NOP:
	case FORM_NOP_BYTES:
		return true;
	default:
		return false;
	}
}

/*
 * Where the idle bytes aim at the stubs (make_idle), the stubs come first;
 * without them the sites stay as built (NOPs) and are refused
 * (ps_stubs_map said why).
 */
static int stubs_first(struct ps_module *m)
{
	int err = ps.arch->make_idle ? ps_stubs_map(m) : 0;

	if (err)
		for (size_t i = 0; i < m->nsites; i++)
			m->sites[i].state = SITE_REFUSED;
	return err;
}

/*
 * Check and NOP every site of a module that is loaded but not yet running
 * on any other thread.  The text is made writable first (every segment with
 * sites, even when nothing needs writing: a W^X policy shows here, at
 * start-up, not at the first live change), then one pass checks each site
 * and writes it.  If the text cannot be made writable, the pass still checks
 * (refused sites are reported) but writes nothing.
 */
int ps_patch_startup(struct ps_module *m)
{
	const unsigned n = ps.arch->patch_len, reach = ps.arch->max_site_len + 4;
	bool touched[8] = { false };
	unsigned last_hook = 0, hook;
	uintptr_t last_target = 0;
	const struct ps_seg *sg = NULL;	/* the segment of the last site (sites are sorted) */
	struct before_entry before = { 0 };
	int err;

	/* got.c's slots are data, cyg.c's sites are never written: no code to change */
	if (!m->nsites || ps_got_module(m) || ps_module_interposed(m))
		return 0;
	if (m->noflag)
		return ps_noflag_arm(m);	/* the sites are its stubs' slots, written idle */
	err = stubs_first(m);
	if (err)
		return err;
	for (size_t i = 0; i < m->nsites; i++) {
		uintptr_t a = m->sites[i].addr;

		/* Where the site may be: after an endbr64, up to max_site_len bytes. */
		if (sg && a >= sg->lo && a + reach <= sg->hi)
			continue;
		ps_mark_segment(m, a, touched);
		ps_mark_segment(m, a + reach - 1, touched);
		sg = segment_of(m, a, reach);
	}
	sg = NULL;
	err = ps_text_protect(m, touched, true);
	if (err)
		ps.can_write = false;
	else if (writes_likely(m))
		/* Copy the text pages in one call, before anything reads them (Linux 5.14; else no-op). */
		for (unsigned i = 0; i < m->nsegs; i++)
			if (touched[i])
				madvise((void *)m->segs[i].lo, m->segs[i].hi - m->segs[i].lo,
					MADV_POPULATE_WRITE);
	for (size_t i = 0; i < m->nsites; i++) {
		struct ps_site *s = &m->sites[i];
		const uint8_t *p = (const uint8_t *)s->addr;
		struct site_insn in;

		ps.arch->decode_site(p, s->addr, &in);
		s->addr += in.skip;
		p += in.skip;
		if (!(sg && s->addr >= sg->lo && s->addr + in.len <= sg->hi) &&
		    !(sg = segment_of(m, s->addr, in.len))) {
			ps_log_site(PATCHSITE_LOG_WARNING, s, "site runs past the end of the code: "
				    "refused");
			s->state = SITE_REFUSED;
			continue;
		}
		if (refuse_before_entry(m, s, &in, &before))
			continue;
		if (!site_ok(m, &in, &last_target, &last_hook, &hook) &&
		    !(hook && !entry_hook(hook))) {
			refuse(s, &in, p, hook);
			continue;
		}
		if (!classify_late(m, s, hook)) {
			refuse(s, &in, p, hook);
			continue;
		}
		s->state = SITE_NOP;
		if (err || our_nop(s, &in, p))
			continue;
		if (!ps_site_idle_bytes(s, (uint8_t *)s->addr)) {
			ps_log_site(PATCHSITE_LOG_WARNING, s, "stub out of reach: site refused");
			s->state = SITE_REFUSED;
			continue;
		}
		if (in.len > n)
			ps.arch->fill_tail((uint8_t *)s->addr + n, in.len - n);
	}
	said_before_entry(m, &before);
	if (err)
		return err;
	ps.arch->sync_icache((void *)m->text_lo, m->text_hi - m->text_lo);
	return ps_text_protect(m, touched, false);
}

/* One site's new bytes (ps_patch_late). */
struct poke {
	struct ps_site *site;
	uint8_t bytes[8];
};

/* Is the site what start-up accepts (a call to the hook or a NOP)?  Refuses it if not. */
static bool site_check(struct ps_module *m, struct ps_site *s, struct site_insn *in,
		       struct before_entry *before)
{
	const uint8_t *p = (const uint8_t *)s->addr;
	unsigned hook = 0;
	bool ok = false;

	ps.arch->decode_site(p, s->addr, in);
	s->addr += in->skip;
	p += in->skip;
	if (!ps_module_has_code(m, s->addr, in->len)) {
		ps_log_site(PATCHSITE_LOG_WARNING, s, "site runs past the end of the code: refused");
		s->state = SITE_REFUSED;
		return false;
	}
	if (refuse_before_entry(m, s, in, before))
		return false;
	if (in->form == FORM_CALL || in->form == FORM_CALL_SLOT)
		ok = (hook = ps_module_calls_hook(m, in)) != 0;
	else if (in->form == FORM_NOP || in->form == FORM_NOP_BYTES)
		ok = true;
	if (ok)
		ok = classify_late(m, s, hook) && (!hook || entry_hook(hook) ||
						   s->kind == SITE_ENTRY_LATE);
	if (!ok)
		refuse(s, in, p, hook);
	return ok;
}

/* The sites of ps_patch_late's list being changed: [lo, hi), PS_LIVE_BATCH of them. */
struct late_batch {
	struct ps_module *m;
	struct poke *pk;
	size_t np, lo, hi;
};

/* One step of the protocol on the batch (ps_poke_steps). */
static void poke_late(enum poke_step step, void *arg)
{
	struct late_batch *b = arg;

	if (step == POKE_BREAKPOINT || step == POKE_ONE_STEP)
		b->hi = b->np - b->lo < PS_LIVE_BATCH ? b->np : b->lo + PS_LIVE_BATCH;
	for (size_t i = b->lo; i < b->hi; i++) {
		const struct poke *k = &b->pk[i];

		if (step == POKE_BREAKPOINT)
			ps_poke_bytes(k->site->addr, &ps.arch->breakpoint, 0, 1);
		else if (step == POKE_TAIL)
			ps_poke_bytes(k->site->addr, k->bytes, 1, k->site->len);
		else if (step == POKE_FIRST)
			ps_poke_bytes(k->site->addr, k->bytes, 0, 1);
		else
			ps_poke_words(k->site->addr, k->bytes, k->site->len);
	}
	if (step == POKE_FIRST)
		ps.arch->sync_icache((void *)b->m->text_lo, b->m->text_hi - b->m->text_lo);
}

static bool next_late(void *arg)
{
	struct late_batch *b = arg;

	b->lo = b->hi;
	return b->lo < b->np;
}

/*
 * Check and NOP every site of an object loaded after start-up.  Other
 * threads may already run its code (its constructors may have started
 * some), so the writes follow the live protocol.  A thread that traps
 * on a site meanwhile skips the whole instruction as built (s->len
 * bytes): its call to the hook did nothing either, and the NOP that
 * replaces it has the same length.
 *
 *   before:  ff 15 a1 2e 00 00   call *__fentry__@GOTPCREL(%rip)
 *   step 1:  cc 15 a1 2e 00 00   int3 (skips 6 bytes)        sync
 *   step 2:  cc 1f 44 00 00 90                               sync
 *   step 3:  0f 1f 44 00 00 90   nopl 0x0(%rax,%rax,1); nop  sync
 *
 * gcc's five one-byte NOPs (-fpatchable-function-entry) are rewritten the
 * same way; a thread stopped between two of them when that happens is the
 * one case this cannot make safe (see patchsite(7)).  ps.lock held, inside
 * ps_loader_sync (the object cannot be unmapped meanwhile).
 */
int ps_patch_late(struct ps_module *m)
{
	const unsigned n = ps.arch->patch_len;
	bool touched[8] = { false };
	struct before_entry before = { 0 };
	struct poke *pk = NULL;
	size_t np = 0;
	int err = 0;

	/* got.c's slots are data, cyg.c's sites are never written: no code to change */
	if (!m->nsites || ps_got_module(m) || ps_module_interposed(m))
		return 0;
	if (m->noflag)
		return ps_noflag_arm(m);	/* stubs only: the program's jumps are live pokes */
	err = stubs_first(m);
	if (err)
		return err;
	pk = malloc(m->nsites * sizeof(*pk));
	if (!pk)
		return -ENOMEM;
	for (size_t i = 0; i < m->nsites; i++) {
		struct ps_site *s = &m->sites[i];
		struct site_insn in;

		if (!site_check(m, s, &in, &before))
			continue;
		s->state = SITE_NOP;
		s->len = (uint8_t)in.len;
		atomic_store(&s->emulate_call, false);
		ps_mark_segment(m, s->addr, touched);
		if (our_nop(s, &in, (const uint8_t *)s->addr))
			continue;
		_Static_assert(sizeof(pk->bytes) >= 8, "room for the longest site");
		if (!ps_site_idle_bytes(s, pk[np].bytes)) {
			ps_log_site(PATCHSITE_LOG_WARNING, s, "stub out of reach: site refused");
			s->state = SITE_REFUSED;
			continue;
		}
		ps.arch->fill_tail(pk[np].bytes + n, in.len - n);
		pk[np++].site = s;
	}
	said_before_entry(m, &before);
	if (!np)
		goto out;
	err = !ps.can_sync ? -ENOSYS : ps.arch->one_step ? 0 : ps_trap_ready();
	if (!err)
		err = ps_text_protect(m, touched, true);
	if (err == -EDEADLK) {
		/* A thread blocks SIGTRAP now: as built until a live change finds it safe. */
		m->late_pending = true;
		goto out;
	}
	m->late_pending = false;
	if (err) {
		/* As built they call the hook, which does nothing: leave them so, for good. */
		ps_log(PATCHSITE_LOG_WARNING, "%s: cannot NOP its sites: %s: not traced", m->name,
		       strerror(-err));
		for (size_t i = 0; i < m->nsites; i++)
			m->sites[i].state = SITE_REFUSED;
		goto out;
	}
	/*
	 * aarch64, riscv64 (one step): NOP -> mov x9, x30 is outside the CMODX
	 * list, two c.nop -> auipc likewise (a thread between them); see
	 * patchsite(7).
	 */
	ps_poke_steps(&(const struct poke_ops){ poke_late, next_late,
						&(struct late_batch){ m, pk, np, 0, 0 } });
	err = ps_text_protect(m, touched, false);
out:
	free(pk);
	return err;
}

/*
 * The objects loaded late whose NOPing waited (a thread blocked SIGTRAP,
 * ps_trap_ready): again, before a live change (sync.c).  ps.lock held.
 */
int ps_patch_late_pending(void)
{
	for (unsigned k = 0; k < ps.nmods; k++) {
		struct ps_module *m = ps.mods[k];
		int err = m->late_pending && !m->gone ? ps_patch_late(m) : 0;

		if (err)
			return err;	/* still unsafe, said; or refused for good, said */
	}
	return 0;
}
