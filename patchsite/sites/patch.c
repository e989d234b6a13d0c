// SPDX-License-Identifier: GPL-2.0-only
/*
 * Writing sites.
 *
 * Start-up (one thread, nothing else runs the code yet): check what each
 * recorded site holds, as the kernel's ftrace_check_current_call does, and
 * turn every recognised site into the arch's NOP with plain stores.  A site
 * holding anything else is refused: reported and never written.
 *
 * Live changes (other threads may be executing the sites) follow the
 * kernel's text_poke_bp_batch, with membarrier(SYNC_CORE) as the
 * process-wide core serialisation that text_poke_sync's IPI gives:
 *
 *   1. plant the breakpoint on byte 0 of every site        sync
 *   2. write bytes 1..n-1                                  sync
 *   3. write byte 0                                        sync
 *
 * A thread that reaches a site while its byte 0 is the breakpoint traps;
 * the handler emulates the site's new instruction (call the stub, or skip
 * the NOP).  If the handler runs late, after step 3, it finds no
 * breakpoint and resumes at the site to execute the real instruction.
 * Every state a thread can observe is therefore the old instruction, the
 * new one, or the breakpoint, never a mix.  Before step 1 every site's
 * bytes are compared with what we last wrote; a site that changed behind
 * our back is refused and left alone.
 *
 * Where the arch says every site is aligned words that may be swapped
 * while other threads run them (ps_arch.one_step: aarch64's NOP <-> BL),
 * a live change is one store per changed word, the cache maintenance for
 * it, and one membarrier(SYNC_CORE) for the batch; no breakpoint.
 *
 * Text is writable only while a batch runs; its protection is restored
 * from the program header afterwards.  The SIGTRAP handler is trap.c's.
 */
#include <errno.h>
#include <linux/membarrier.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sites.h"

void ps_format_bytes(char *buf, size_t len, const uint8_t *p, unsigned n)
{
	size_t off = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < n && off + 4 < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%02x", i ? " " : "", p[i]);
}

static void sync_cores(void)
{
	/* Registered at start-up (and inherited by fork), so this cannot fail but loudly. */
	if (syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE, 0, 0))
		ps_log(PATCHSITE_LOG_ERROR, "membarrier(SYNC_CORE) failed: %s", strerror(errno));
}

/* The bytes a site holds in a state. */
static bool site_bytes(const struct ps_site *s, enum site_state st, uint8_t *out)
{
	if (st == SITE_NOP) {
		ps.arch->make_nop(out);
		return true;
	}
	return s->mod->stubs && ps.arch->make_call(out, s->addr, ps_stub_of(s));
}

/* The site already holds the NOP we write (another NOP form, clang's, is rewritten). */
static bool our_nop(const struct site_insn *in, const uint8_t *p)
{
	uint8_t nop[16];

	if (in->form != FORM_NOP || in->len != ps.arch->patch_len)
		return false;
	ps.arch->make_nop(nop);
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
	size_t off;

	if (s->kind == SITE_EXIT || (!late_hook && !m->mcount_table))
		return !late_hook;	/* (only -pg's __mcount_loc lists late NOPs) */
	ps_module_syms(m);
	fn = s->sym ? s->sym : ps_module_sym(m, s->addr);
	off = fn ? s->addr - fn->addr : 0;
	if (fn && off && ps.arch->late_site && ps.arch->tramp_late &&
	    ps_module_has_code(m, fn->addr, off) &&
	    ps.arch->late_site((const uint8_t *)fn->addr, off, off)) {
		if (s->kind != SITE_ENTRY_HOOK) {
			ps_log_site(PATCHSITE_LOG_WARNING, s, "a site after the prologue in a function "
				    "with exit sites (-minstrument-return needs -mfentry): site "
				    "refused");
			return false;
		}
		s->kind = SITE_ENTRY_LATE;
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
	else
		ps_log_site(PATCHSITE_LOG_WARNING, s, "a call to %s, but not after a frame-pointer "
			    "prologue at %s's start (push %%rbp; mov %%rsp,%%rbp: the return slot is "
			    "not known; a realigned stack?): site refused", ps.arch->hooks[hook - 1],
			    fn ? fn->name : "the function");
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
	if (in->form == FORM_CALL)
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

static int protect(struct ps_module *m, const bool *touched, bool writable)
{
	for (unsigned i = 0; i < m->nsegs; i++) {
		struct ps_seg *sg = &m->segs[i];
		int prot = writable ? sg->prot | PROT_WRITE : sg->prot;

		if (!touched[i])
			continue;
		if (mprotect((void *)sg->lo, sg->hi - sg->lo, prot) < 0) {
			int err = errno;

			ps_log(PATCHSITE_LOG_ERROR, "%s: cannot make its code %s: %s%s", m->name,
			       writable ? "writable" : "read-only again", strerror(err),
			       writable && (err == EACCES || err == EPERM)
				       ? " (a W^X policy: SELinux execmod, MemoryDenyWriteExecute or "
					 "PR_SET_MDWE)" : "");
			return -err;
		}
	}
	return 0;
}

/* The code segment that holds [addr, addr + len), or NULL (as ps_module_has_code). */
static const struct ps_seg *segment_of(const struct ps_module *m, uintptr_t addr, size_t len)
{
	for (unsigned i = 0; i < m->nsegs; i++)
		if (addr >= m->segs[i].lo && addr + len <= m->segs[i].hi && addr + len > addr)
			return &m->segs[i];
	return NULL;
}

static void mark_segment(const struct ps_module *m, uintptr_t addr, bool *touched)
{
	for (unsigned i = 0; i < m->nsegs; i++)
		if (addr >= m->segs[i].lo && addr < m->segs[i].hi)
			touched[i] = true;
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
	int err;

	if (!m->nsites)
		return 0;
	for (size_t i = 0; i < m->nsites; i++) {
		uintptr_t a = m->sites[i].addr;

		/* Where the site may be: after an endbr64, up to max_site_len bytes. */
		if (sg && a >= sg->lo && a + reach <= sg->hi)
			continue;
		mark_segment(m, a, touched);
		mark_segment(m, a + reach - 1, touched);
		sg = segment_of(m, a, reach);
	}
	sg = NULL;
	err = protect(m, touched, true);
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
		if (err || our_nop(&in, p))
			continue;
		ps.arch->make_nop((uint8_t *)s->addr);
		if (in.len > n)
			ps.arch->fill_tail((uint8_t *)s->addr + n, in.len - n);
	}
	if (err)
		return err;
	ps.arch->sync_icache((void *)m->text_lo, m->text_hi - m->text_lo);
	return protect(m, touched, false);
}

/*
 * Live text is written through its own (briefly writable) mapping while other
 * threads execute it; the breakpoint protocol and membarrier order this, not
 * the C memory model.  Not instrumented by ThreadSanitizer, whose shadow of an
 * object's text is a read-only page (it assumes text is never written).
 */
__attribute__((no_sanitize("thread")))
static void poke_bytes(uintptr_t addr, const uint8_t *b, unsigned from, unsigned to)
{
	volatile uint8_t *p = (volatile uint8_t *)addr;

	for (unsigned i = from; i < to; i++)
		p[i] = b[i];
}

/*
 * The one-step protocol: each aligned 32-bit word of the site that differs
 * is stored once (single-copy atomic), then its cache lines are made
 * coherent; the caller's membarrier(SYNC_CORE) follows.
 */
__attribute__((no_sanitize("thread")))
static void poke_words(uintptr_t addr, const uint8_t *b, unsigned n)
{
	for (unsigned i = 0; i + 4 <= n; i += 4) {
		uint32_t w;

		memcpy(&w, b + i, 4);
		if (*(volatile uint32_t *)(addr + i) != w)
			__atomic_store_n((uint32_t *)(addr + i), w, __ATOMIC_RELAXED);
	}
	ps.arch->sync_icache((void *)addr, n);
}

/* Does the site need to change, and to what?  Stable while ps.lock is held. */
static bool site_pending(const struct ps_site *s, enum site_state *to)
{
	if (s->state == SITE_REFUSED)
		return false;
	*to = atomic_load_explicit(&s->want, memory_order_relaxed) ? SITE_CALL : SITE_NOP;
	return *to != s->state;
}

/* Check the bytes of every site that will change; refuse the ones that differ.  Returns how many. */
static size_t check_pending(bool (*touched)[8])
{
	const unsigned n = ps.arch->patch_len;
	size_t np = 0;

	for (unsigned k = 0; k < ps.nmods; k++) {
		struct ps_module *m = ps.mods[k];

		/* An unloaded object's text is gone (its sites left the index). */
		for (size_t i = 0; !m->gone && m->stubs && i < m->nsites; i++) {
			struct ps_site *s = &m->sites[i];
			enum site_state to;
			uint8_t cur[8], next[8];

			if (!site_pending(s, &to))
				continue;
			if (!site_bytes(s, s->state, cur) || !site_bytes(s, to, next)) {
				ps_log_site(PATCHSITE_LOG_WARNING, s, "stub out of reach: site refused");
				s->state = SITE_REFUSED;
				continue;
			}
			if (memcmp((const void *)s->addr, cur, n)) {
				char found[32], expected[32];

				ps_format_bytes(found, sizeof(found), (const uint8_t *)s->addr, n);
				ps_format_bytes(expected, sizeof(expected), cur, n);
				ps_log_site(PATCHSITE_LOG_WARNING, s, "expected %s, found %s: code "
					    "changed behind our back, site refused", expected, found);
				s->state = SITE_REFUSED;
				continue;
			}
			mark_segment(m, s->addr, touched[k]);
			np++;
		}
	}
	return np;
}

enum poke_step { POKE_BREAKPOINT, POKE_TAIL, POKE_FIRST, POKE_ONE_STEP };

/* One step of the protocol on every pending site, in address order. */
static void poke_pending(enum poke_step step)
{
	const unsigned n = ps.arch->patch_len;

	for (unsigned k = 0; k < ps.nmods; k++) {
		struct ps_module *m = ps.mods[k];

		/* An unloaded object's text is gone (its sites left the index). */
		for (size_t i = 0; !m->gone && m->stubs && i < m->nsites; i++) {
			struct ps_site *s = &m->sites[i];
			enum site_state to;
			uint8_t b[8];

			if (!site_pending(s, &to))
				continue;
			switch (step) {
			case POKE_BREAKPOINT:
				atomic_store(&s->emulate_call, to == SITE_CALL);
				poke_bytes(s->addr, &ps.arch->breakpoint, 0, 1);
				break;
			case POKE_TAIL:
				site_bytes(s, to, b);	/* checked by check_pending */
				poke_bytes(s->addr, b, 1, n);
				break;
			case POKE_FIRST:
				site_bytes(s, to, b);
				poke_bytes(s->addr, b, 0, 1);
				s->state = to;
				break;
			case POKE_ONE_STEP:
				site_bytes(s, to, b);
				poke_words(s->addr, b, n);
				s->state = to;
				break;
			}
		}
	}
}

/*
 * The protocol's frame, shared by function sites and other code (the
 * events' jump labels): the SIGTRAP handler (breakpoint protocol), the
 * touched code segments writable once each, poke() for each step with one
 * membarrier after each, read-only again.  np changes are counted.
 */
static int patch_live(bool (*touched)[8], size_t np, void (*poke)(enum poke_step, void *),
		      void *arg)
{
	int err = ps.arch->one_step ? 0 : ps_trap_install();

	if (err) {
		ps_log(PATCHSITE_LOG_ERROR, "cannot install the SIGTRAP handler: %s",
		       strerror(-err));
		return err;
	}
	for (unsigned m = 0; m < ps.nmods; m++) {
		err = protect(ps.mods[m], touched[m], true);
		if (err) {
			while (m-- > 0)
				protect(ps.mods[m], touched[m], false);
			return err;
		}
	}
	if (ps.arch->one_step) {
		poke(POKE_ONE_STEP, arg);
	} else {
		poke(POKE_BREAKPOINT, arg);
		sync_cores();
		poke(POKE_TAIL, arg);
		sync_cores();
		poke(POKE_FIRST, arg);
	}
	sync_cores();
	ps.batches++;
	ps.pokes += np;
	for (unsigned m = 0; m < ps.nmods; m++) {
		int e = protect(ps.mods[m], touched[m], false);

		if (e && !err)
			err = e;
	}
	return err;
}

/* Function sites: every pending one, then the code of every object with sites made coherent. */
static void poke_sites(enum poke_step step, void *arg)
{
	(void)arg;
	poke_pending(step);
	if (step != POKE_FIRST)
		return;
	for (unsigned m = 0; m < ps.nmods; m++)
		if (ps.mods[m]->nsites)
			ps.arch->sync_icache((void *)ps.mods[m]->text_lo,
					     ps.mods[m]->text_hi - ps.mods[m]->text_lo);
}

/*
 * Bring every site to the state the registered ops and the tracing switch
 * ask for.  Called with ps.lock held, which keeps what each site should
 * become fixed across the passes: one check pass, then the three steps
 * over all sites that change, one membarrier after each, and one mprotect
 * each way per code segment (not per site or page).  Nothing is allocated:
 * each pass finds the changing sites again from their state and want mask.
 */
int ps_patch_update(void)
{
	static bool touched[PS_MAX_MODULES][8];
	size_t np;

	if (!ps.can_write || !ps.can_sync)
		return ps.can_write ? -ENOSYS : -EACCES;
	memset(touched, 0, sizeof(touched));
	np = check_pending(touched);
	return np ? patch_live(touched, np, poke_sites, NULL) : 0;
}

/* Register for SYNC_CORE once; without it we do not patch live. */
int ps_sync_register(void)
{
	long cmds = syscall(__NR_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);

	if (cmds < 0 || !(cmds & MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE) ||
	    !(cmds & MEMBARRIER_CMD_PRIVATE_EXPEDITED)) {
		ps_log(PATCHSITE_LOG_WARNING, "membarrier(PRIVATE_EXPEDITED_SYNC_CORE) is not "
		       "available (Linux >= 4.16 needed): no live patching");
		return -ENOSYS;
	}
	if (syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE, 0, 0) ||
	    syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0)) {
		int err = errno;

		ps_log(PATCHSITE_LOG_WARNING, "membarrier registration failed: %s: no live patching",
		       strerror(err));
		return -err;
	}
	return 0;
}

/* One site's new bytes (ps_patch_late). */
struct poke {
	struct ps_site *site;
	uint8_t bytes[8];
};

/* Is the site what start-up accepts (a call to the hook or a NOP)?  Refuses it if not. */
static bool site_check(struct ps_module *m, struct ps_site *s, struct site_insn *in)
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
	struct poke *pk = NULL;
	size_t np = 0;
	int err = 0;

	if (!m->nsites)
		return 0;
	pk = malloc(m->nsites * sizeof(*pk));
	if (!pk)
		return -ENOMEM;
	for (size_t i = 0; i < m->nsites; i++) {
		struct ps_site *s = &m->sites[i];
		struct site_insn in;

		if (!site_check(m, s, &in))
			continue;
		s->state = SITE_NOP;
		s->len = (uint8_t)in.len;
		atomic_store(&s->emulate_call, false);
		mark_segment(m, s->addr, touched);
		if (our_nop(&in, (const uint8_t *)s->addr))
			continue;
		_Static_assert(sizeof(pk->bytes) >= 8, "room for the longest site");
		ps.arch->make_nop(pk[np].bytes);
		ps.arch->fill_tail(pk[np].bytes + n, in.len - n);
		pk[np++].site = s;
	}
	if (!np)
		goto out;
	err = !ps.can_sync ? -ENOSYS : ps.arch->one_step ? 0 : ps_trap_install();
	if (!err)
		err = protect(m, touched, true);
	if (err) {
		/* As built they call the hook, which does nothing: leave them so, for good. */
		ps_log(PATCHSITE_LOG_WARNING, "%s: cannot NOP its sites: %s: not traced", m->name,
		       strerror(-err));
		for (size_t i = 0; i < m->nsites; i++)
			m->sites[i].state = SITE_REFUSED;
		goto out;
	}
	if (ps.arch->one_step) {
		/* aarch64: NOP -> mov x9, x30 is outside the CMODX list; see patchsite(7). */
		for (size_t i = 0; i < np; i++)
			poke_words(pk[i].site->addr, pk[i].bytes, pk[i].site->len);
		sync_cores();
		goto protect;
	}
	for (size_t i = 0; i < np; i++)
		poke_bytes(pk[i].site->addr, &ps.arch->breakpoint, 0, 1);
	sync_cores();
	for (size_t i = 0; i < np; i++)
		poke_bytes(pk[i].site->addr, pk[i].bytes, 1, pk[i].site->len);
	sync_cores();
	for (size_t i = 0; i < np; i++)
		poke_bytes(pk[i].site->addr, pk[i].bytes, 0, 1);
	ps.arch->sync_icache((void *)m->text_lo, m->text_hi - m->text_lo);
	sync_cores();
protect:
	err = protect(m, touched, false);
out:
	free(pk);
	return err;
}

struct code_batch {
	struct ps_code_poke *pk;
	size_t n;
};

/* Code other than sites: one step on every change that was checked. */
static void poke_code(enum poke_step step, void *arg)
{
	const struct code_batch *c = arg;

	for (size_t i = 0; i < c->n; i++) {
		const struct ps_code_poke *k = &c->pk[i];

		if (!k->ok)
			continue;
		switch (step) {
		case POKE_ONE_STEP:
			poke_words(k->addr, k->new, k->len);
			break;
		case POKE_BREAKPOINT:
			poke_bytes(k->addr, &ps.arch->breakpoint, 0, 1);
			break;
		case POKE_TAIL:
			poke_bytes(k->addr, k->new, 1, k->len);
			break;
		case POKE_FIRST:
			poke_bytes(k->addr, k->new, 0, 1);
			ps.arch->sync_icache((void *)k->addr, k->len);
			break;
		}
	}
}

/*
 * Change code other than function sites (the events' jump labels) while
 * threads run it, with the same protocol as ps_patch_update: every change
 * is checked first (the bytes must be pk->old, else pk->ok stays false and
 * nothing is written there), then breakpoint, tail, first byte, one
 * membarrier after each (aarch64: one store per word).  A thread that
 * traps meanwhile is sent where ps_event_trap says.  ps.lock held.
 */
int ps_patch_code(struct ps_code_poke *pk, size_t n)
{
	static bool touched[PS_MAX_MODULES][8];
	struct code_batch c = { pk, n };
	size_t np = 0;

	if (!ps.can_write || !ps.can_sync)
		return ps.can_write ? -ENOSYS : -EACCES;
	memset(touched, 0, sizeof(touched));
	for (size_t i = 0; i < n; i++) {
		pk[i].ok = !memcmp((const void *)pk[i].addr, pk[i].old, pk[i].len);
		if (pk[i].ok) {
			mark_segment(pk[i].m, pk[i].addr, touched[pk[i].m->index]);
			np++;
		}
	}
	return np ? patch_live(touched, np, poke_code, &c) : 0;
}
