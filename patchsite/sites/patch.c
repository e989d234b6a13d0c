// SPDX-License-Identifier: GPL-2.0-only
/*
 * Writing sites: live batches (ps_patch_update), code other than sites
 * (ps_patch_code), and the primitives nop.c shares (an object's sites
 * checked and NOPed at start-up or when it is loaded).
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
#include "sites/got.h"

void ps_format_bytes(char *buf, size_t len, const uint8_t *p, unsigned n)
{
	size_t off = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < n && off + 4 < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%02x", i ? " " : "", p[i]);
}

static void ps_sync_cores(void)
{
	/* Registered at start-up (and inherited by fork), so this cannot fail but loudly. */
	if (syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE, 0, 0))
		ps_log(PATCHSITE_LOG_ERROR, "membarrier(SYNC_CORE) failed: %s", strerror(errno));
}

/*
 * A late site's first late_back bytes are the program's own (aarch64: the
 * instruction gcc put before its bl _mcount) and stay as built: make
 * writes the arch's bytes, then those are put back.  A site's idle bytes:
 * make_nop's, or where they depend on the stub (riscv64) make_idle's.
 */
bool ps_site_idle_bytes(const struct ps_site *s, uint8_t *out)
{
	uint8_t head[8];
	unsigned back = s->kind == SITE_ENTRY_LATE ? ps.arch->late_back : 0;

	_Static_assert(sizeof(head) >= 4, "room for late_back");
	memcpy(head, (const void *)s->addr, back);
	if (ps.arch->make_idle && !(s->mod->stubs && ps.arch->make_idle(out, s->addr, ps_stub_of(s))))
		return false;
	if (!ps.arch->make_idle)
		ps.arch->make_nop(out);
	memcpy(out, head, back);
	return true;
}

/* The bytes a site holds in a state. */
static bool site_bytes(const struct ps_site *s, enum site_state st, uint8_t *out)
{
	uint8_t head[8];
	unsigned back = s->kind == SITE_ENTRY_LATE ? ps.arch->late_back : 0;

	if (st == SITE_NOP)
		return ps_site_idle_bytes(s, out);
	memcpy(head, (const void *)s->addr, back);
	if (!s->mod->stubs || !ps.arch->make_call(out, s->addr, ps_stub_of(s)))
		return false;
	memcpy(out, head, back);
	return true;
}

int ps_text_protect(struct ps_module *m, const bool *touched, bool writable)
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

void ps_mark_segment(const struct ps_module *m, uintptr_t addr, bool *touched)
{
	for (unsigned i = 0; i < m->nsegs; i++)
		if (addr >= m->segs[i].lo && addr < m->segs[i].hi)
			touched[i] = true;
}

/*
 * Live text is written through its own (briefly writable) mapping while other
 * threads execute it; the breakpoint protocol and membarrier order this, not
 * the C memory model.  Not instrumented by ThreadSanitizer, whose shadow of an
 * object's text is a read-only page (it assumes text is never written).
 */
__attribute__((no_sanitize("thread")))
void ps_poke_bytes(uintptr_t addr, const uint8_t *b, unsigned from, unsigned to)
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
void ps_poke_words(uintptr_t addr, const uint8_t *b, unsigned n)
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
	if (s->state == SITE_REFUSED || s->state == SITE_INTERPOSED)
		return false;
	*to = atomic_load_explicit(&s->want, memory_order_relaxed) ? SITE_CALL : SITE_NOP;
	return *to != s->state;
}

/*
 * An unloaded object's text is gone (its sites left the index); got.c's
 * slots are data; one loaded late and not yet NOPed is as built (nop.c).
 */
static bool module_pokable(const struct ps_module *m)
{
	return !m->gone && !m->late_pending && m->stubs && !ps_got_module(m);
}

/* Check the bytes of every site that will change; refuse the ones that differ.  Returns how many. */
static size_t check_pending(bool (*touched)[8])
{
	const unsigned n = ps.arch->patch_len;
	size_t np = 0;

	for (unsigned k = 0; k < ps.nmods; k++) {
		struct ps_module *m = ps.mods[k];

		for (size_t i = 0; module_pokable(m) && i < m->nsites; i++) {
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
			ps_mark_segment(m, s->addr, touched[k]);
			np++;
		}
	}
	return np;
}

/*
 * Which pending sites a step works on: those from (k, i) up to (k_end,
 * i_end), the first PS_LIVE_BATCH of them from (k, i), fixed by the
 * breakpoint step (the first byte's step takes them out of the pending
 * ones); PS_LIVE_BATCH in sites.h says why.
 */
struct site_batch {
	unsigned k, k_end;
	size_t i, i_end;
};

static void poke_one(struct ps_site *s, enum site_state to, enum poke_step step)
{
	const unsigned n = ps.arch->patch_len;
	uint8_t b[8];

	switch (step) {
	case POKE_BREAKPOINT:
		atomic_store(&s->emulate_call, to == SITE_CALL);
		ps_poke_bytes(s->addr, &ps.arch->breakpoint, 0, 1);
		break;
	case POKE_TAIL:
		site_bytes(s, to, b);	/* checked by check_pending */
		ps_poke_bytes(s->addr, b, 1, n);
		break;
	case POKE_FIRST:
		site_bytes(s, to, b);
		ps_poke_bytes(s->addr, b, 0, 1);
		s->state = to;
		break;
	case POKE_ONE_STEP:
		site_bytes(s, to, b);
		ps_poke_words(s->addr, b, n);
		s->state = to;
		break;
	}
}

/*
 * One step of the protocol on the batch's pending sites, in address order.
 * The first step of a batch (breakpoint, or the one step) takes the next
 * PS_LIVE_BATCH pending sites and sets where the batch ends.
 */
static void poke_pending(enum poke_step step, struct site_batch *b)
{
	const bool first = step == POKE_BREAKPOINT || step == POKE_ONE_STEP;
	size_t left = PS_LIVE_BATCH;
	unsigned k;
	size_t i;

	for (k = b->k, i = b->i; k < ps.nmods; k++, i = 0) {
		struct ps_module *m = ps.mods[k];

		for (; module_pokable(m) && i < m->nsites; i++) {
			struct ps_site *s = &m->sites[i];
			enum site_state to;

			if (first ? !left : k == b->k_end && i == b->i_end)
				goto out;
			if (!site_pending(s, &to))
				continue;
			poke_one(s, to, step);
			left--;
		}
		if (!first && k == b->k_end)
			break;
	}
out:
	if (first)
		b->k_end = k, b->i_end = i;
}

/* The next batch, after b's: false when no site is pending after it. */
static bool next_batch(struct site_batch *b)
{
	b->k = b->k_end;
	b->i = b->i_end;
	for (unsigned k = b->k; k < ps.nmods; k++) {
		const struct ps_module *m = ps.mods[k];
		enum site_state to;

		for (size_t i = k == b->k ? b->i : 0; module_pokable(m) && i < m->nsites; i++)
			if (site_pending(&m->sites[i], &to)) {
				b->k = k;
				b->i = i;
				return true;
			}
	}
	return false;
}

void ps_poke_steps(const struct poke_ops *o)
{
	bool more;

	if (ps.arch->one_step) {
		do
			o->poke(POKE_ONE_STEP, o->arg);
		while (o->next && o->next(o->arg));
		ps_sync_cores();
		return;
	}
	o->poke(POKE_BREAKPOINT, o->arg);
	ps_sync_cores();
	do {
		o->poke(POKE_TAIL, o->arg);
		ps_sync_cores();
		o->poke(POKE_FIRST, o->arg);
		more = o->next && o->next(o->arg);
		if (more)
			o->poke(POKE_BREAKPOINT, o->arg);
		ps_sync_cores();
	} while (more);
}

/*
 * The protocol's frame, shared by function sites and other code (the
 * events' jump labels): the SIGTRAP handler (breakpoint protocol), the
 * touched code segments writable once each, ps_poke_steps, read-only
 * again.  np changes are counted.
 */
static int patch_live(bool (*touched)[8], size_t np, const struct poke_ops *o)
{
	int err = ps.arch->one_step ? 0 : ps_trap_ready();

	if (err)
		return err;
	for (unsigned m = 0; m < ps.nmods; m++) {
		err = ps_text_protect(ps.mods[m], touched[m], true);
		if (err) {
			while (m-- > 0)
				ps_text_protect(ps.mods[m], touched[m], false);
			return err;
		}
	}
	ps_poke_steps(o);
	ps.batches++;
	ps.pokes += np;
	for (unsigned m = 0; m < ps.nmods; m++) {
		int e = ps_text_protect(ps.mods[m], touched[m], false);

		if (e && !err)
			err = e;
	}
	return err;
}

/* Function sites: the batch's pending ones, then the code of every object with sites made coherent. */
static void poke_sites(enum poke_step step, void *arg)
{
	poke_pending(step, arg);
	if (step != POKE_FIRST)
		return;		/* the one step makes each site coherent itself (ps_poke_words) */
	for (unsigned m = 0; m < ps.nmods; m++)
		if (ps.mods[m]->nsites)
			ps.arch->sync_icache((void *)ps.mods[m]->text_lo,
					     ps.mods[m]->text_hi - ps.mods[m]->text_lo);
}

static bool next_sites(void *arg)
{
	return next_batch(arg);
}

/*
 * Bring every site to the state the registered ops and the tracing switch
 * ask for.  Called with ps.lock held, which keeps what each site should
 * become fixed across the passes: one check pass, then the three steps
 * over the sites that change, in batches of PS_LIVE_BATCH (ps_poke_steps: two
 * membarriers a batch), and one mprotect each way per code segment (not
 * per site or page).  Nothing is allocated:
 * each pass finds the changing sites again from their state and want mask.
 */
int ps_patch_update(void)
{
	static bool touched[PS_MAX_MODULES][8];
	struct site_batch b = { 0 };
	const struct poke_ops o = { poke_sites, next_sites, &b };
	size_t np;

	/* Library-call slots first: data stores, no protocol (got.c). */
	np = ps_got_update();
	ps.pokes += np;
	if (!ps.can_write || !ps.can_sync)
		return ps.can_write ? -ENOSYS : -EACCES;
	memset(touched, 0, sizeof(touched));
	np = check_pending(touched);
	return np && next_batch(&b) ? patch_live(touched, np, &o) : 0;
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
			ps_poke_words(k->addr, k->new, k->len);
			break;
		case POKE_BREAKPOINT:
			ps_poke_bytes(k->addr, &ps.arch->breakpoint, 0, 1);
			break;
		case POKE_TAIL:
			ps_poke_bytes(k->addr, k->new, 1, k->len);
			break;
		case POKE_FIRST:
			ps_poke_bytes(k->addr, k->new, 0, 1);
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
			ps_mark_segment(pk[i].m, pk[i].addr, touched[pk[i].m->index]);
			np++;
		}
	}
	return np ? patch_live(touched, np, &(const struct poke_ops){ poke_code, NULL, &c }) : 0;
}
