// SPDX-License-Identifier: GPL-2.0-only
/*
 * Arming an object's no-flag sites (noflag.c found them; the model is
 * there): at start-up, one thread, before main (windows of forms c and p are
 * written only then); attached, or for an object dlopened later, the same
 * but windows are refused by name when wanted (window_why).  Each site's bytes in memory are compared with its
 * proof's; the stubs are mapped (stubs.c leaves room after the sites' own
 * stubs) and the arch writes each out-of-line stub; then the program's SITE
 * gets its jump.  Every site starts idle.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "noflag.h"

/*
 * Windows of several instructions (forms c and p) are written only at
 * start-up, in the constructor, while the process has one thread: the proof
 * says no branch lands inside the window, but a thread preempted inside it (or
 * a signal frame's PC there) would resume in the middle of the new jump.  A
 * single instruction (forms a and b) needs nothing of the kind: the breakpoint
 * protocol writes it while threads run.  Decided at the first object armed;
 * closed by ps_noflag_startup_done.
 */
static enum { WINDOWS_UNDECIDED, WINDOWS_OPEN, WINDOWS_THREADS, WINDOWS_CLOSED, WINDOWS_ATTACHED } windows;

/* The process has one thread (/proc/self/task); false when that cannot be read. */
static bool one_thread(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	unsigned n = 0;

	if (!d)
		return false;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n == 1;
}

static void (*watch)(struct ps_module *m, size_t i);

void ps_noflag_watch(void (*fn)(struct ps_module *m, size_t i))
{
	watch = fn;
}

/* i refused, or PS_NOFLAG_ARMED */
static void tell(struct ps_module *m, size_t i)
{
	if (watch)
		watch(m, i);
}

void ps_noflag_startup_done(bool attached)
{
	windows = attached ? WINDOWS_ATTACHED : WINDOWS_CLOSED;
}

/*
 * "prog: name (SITE 0x1139): why: not traced", and kept for the trace
 * directory (why: a literal or strerror's, never freed) and told to the
 * watch (one refused after start-up: the control thread's log is quiet).
 */
static void refuse(struct ps_module *m, struct ps_site *s, const char *why, const char *more)
{
	const struct nf_keep *k = ps_noflag_keep(m, s);
	size_t i = (size_t)(s->sym - m->noflag->syms);

	s->state = SITE_REFUSED;
	m->noflag->refused++;
	m->noflag->why[i] = why;
	tell(m, i);
	ps_log_tell("%s: %s (site %#llx): %s%s: not traced", m->name,
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

/* The bytes of each site checked against its proof before anything is written. */
static void check_bytes(struct ps_module *m)
{
	for (size_t i = 0; i < m->nsites; i++) {
		struct ps_site *s = &m->sites[i];
		const struct nf_keep *k = ps_noflag_keep(m, s);
		char want[3 * NF_MAX_BYTES + 1], found[3 * NF_MAX_BYTES + 1], more[200];

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
		}
	}
}

static void refuse_all(struct ps_module *m, const char *why)
{
	for (size_t i = 0; i < m->nsites; i++) {
		m->sites[i].state = SITE_REFUSED;
		m->noflag->why[i] = why;
	}
	m->noflag->refused = m->nsites;
	ps_log(PATCHSITE_LOG_WARNING, "%s: no-flag sites from %s: %s: none armed", m->name,
	       m->noflag->proof->file, why);
}

/* The stub entry of the site whose program SITE is addr, in a module with no-flag sites. */
static bool stub_entry(const struct ps_module *m, uintptr_t addr, uintptr_t *entry)
{
	const struct nf_proof *p = m->noflag->proof;
	size_t lo = 0, hi = p->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		uintptr_t at = m->bias + p->s[mid].site;

		if (at == addr) {
			*entry = m->ool_lo + mid * ps.arch->noflag_stub_size + 8;
			return true;
		}
		if (at < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/*
 * A thread that meets the breakpoint while a SITE is being armed (the live
 * protocol, ps_patch_code) goes to its stub, as the jump will send it.
 * Async-signal-safe: modules, proofs and stubs never change once published.
 */
static bool site_trap(uintptr_t addr, uintptr_t *resume)
{
	unsigned n = atomic_load_explicit(&ps.nmods, memory_order_acquire);

	for (unsigned i = 0; i < n; i++) {
		const struct ps_module *m = ps.mods[i];

		if (m->noflag && m->ool_lo && addr >= m->text_lo && addr < m->text_hi)
			return stub_entry(m, addr, resume);
	}
	return false;
}

/*
 * Start-up (nop.c, one thread, before main): check each site's bytes and
 * write the stubs.  The program's code is not written here: a site's jump
 * is written the first time a tracer wants its function
 * (ps_noflag_arm_wanted), so functions never traced are never written.
 */
int ps_noflag_arm(struct ps_module *m)
{
	struct ps_noflag *nf = m->noflag;
	static bool lookup;
	int err;

	if (m->nsegs == sizeof(m->segs) / sizeof(m->segs[0])) {
		refuse_all(m, "the object has too many code segments");
		return 0;
	}
	if (windows == WINDOWS_UNDECIDED)
		windows = one_thread() ? WINDOWS_OPEN : WINDOWS_THREADS;
	nf->armed = calloc(m->nsites, 1);
	if (!nf->armed)
		return -ENOMEM;
	check_bytes(m);
	err = ps_stubs_map(m);
	if (!err && !m->ool_lo)
		err = -ENOMEM;
	if (!err)
		err = write_stubs(m);
	if (err) {
		refuse_all(m, strerror(-err));
		return err == -ENOMEM ? err : 0;
	}
	m->segs[m->nsegs++] = (struct ps_seg){ m->ool_lo, m->ool_hi, PROT_READ | PROT_EXEC };
	if (!lookup) {
		ps_patch_add_lookup(site_trap);
		lookup = true;
	}
	ps_log(PATCHSITE_LOG_NOTE, "%s: no-flag sites from %s: %zu ready, %zu refused (%zu "
	       "bytes-changed)", m->name, nf->proof->file, m->nsites - nf->refused, nf->refused,
	       nf->bytes_changed);
	return 0;
}

/*
 * Why a window is not written now: the process had threads at start-up, the
 * runtime was loaded into it running (attach: sites/late.c), or start-up is over
 * (ctl, an object dlopened later).
 */
static const char *window_why(void)
{
	if (windows == WINDOWS_THREADS)
		return "window-with-threads";
	return windows == WINDOWS_ATTACHED ? "window-at-attach" : "window-after-start-up";
}

/* Whether the site i of m is wanted by a tracer and has no jump yet. */
static bool unarmed_want(const struct ps_module *m, size_t i)
{
	const struct ps_site *s = &m->sites[i];

	return !m->noflag->armed[i] && s->state != SITE_REFUSED &&
	       atomic_load_explicit(&s->want, memory_order_relaxed);
}

/* How many windows (forms c, p) wanted now will be refused (counted first, said once). */
static size_t windows_wanted(const struct ps_module *m)
{
	size_t n = 0;

	for (size_t i = 0; windows != WINDOWS_OPEN && i < m->nsites; i++)
		n += unarmed_want(m, i) && (ps_noflag_keep(m, &m->sites[i])->form == 'c' ||
					   ps_noflag_keep(m, &m->sites[i])->form == 'p');
	return n;
}

/* m's sites a tracer wants whose program SITE has no jump yet, as pokes: how many. */
static size_t wanted(struct ps_module *m, struct ps_code_poke *pk, size_t *idx)
{
	const unsigned len = ps.arch->jump_len;
	size_t n = 0;

	for (size_t i = 0; i < m->nsites; i++) {
		struct ps_site *s = &m->sites[i];
		const struct nf_keep *k = ps_noflag_keep(m, s);
		uintptr_t at = m->bias + k->site;

		if (!unarmed_want(m, i))
			continue;
		if ((k->form == 'c' || k->form == 'p') && windows != WINDOWS_OPEN) {
			refuse(m, s, window_why(), " (a window of several instructions is "
			       "written only at start-up, while the process has one thread)");
			continue;
		}
		pk[n] = (struct ps_code_poke){ .m = m, .addr = at, .len = len };
		memcpy(pk[n].old, k->bytes, len);
		idx[n] = i;
		if (ps.arch->make_jump(pk[n].new, at, m->ool_lo + i * ps.arch->noflag_stub_size + 8))
			n++;
		else
			refuse(m, s, "stub-out-of-reach", "");
	}
	return n;
}

/*
 * Before sync.c switches the sites: the jumps of the functions now wanted
 * for the first time, through the live protocol (other threads may run
 * them).  Only the jump's bytes are written; the rest of the displaced
 * instruction is never reached again.  A site that cannot be armed is
 * refused (its slot is then never switched).  ps.lock held.
 */
int ps_noflag_arm_wanted(void)
{
	for (unsigned k = 0; k < ps.nmods; k++) {
		struct ps_module *m = ps.mods[k];
		struct ps_code_poke *pk;
		size_t n, done = 0, nwin = 0, *idx;
		int err;

		if (!m->noflag || m->gone || !m->noflag->armed)
			continue;
		pk = malloc(m->nsites * sizeof(*pk));
		idx = malloc(m->nsites * sizeof(*idx));
		if (!pk || !idx) {
			free(pk);
			free(idx);
			return -ENOMEM;
		}
		nwin = windows_wanted(m);
		if (nwin)
			ps_log_tell("%s: %zu no-flag sites of several instructions (forms c, p) "
				    "refused: %s (each named below and by patchsite info)", m->name,
				    nwin, window_why());
		n = wanted(m, pk, idx);
		err = n ? ps_patch_code(pk, n) : 0;
		for (size_t i = 0; i < n; i++) {
			if (!err && pk[i].ok) {
				m->noflag->armed[idx[i]] = 1;
				done++;
			} else {
				refuse(m, &m->sites[idx[i]], err ? strerror(-err) : "bytes-changed",
				       err ? "" : " (changed since start-up)");
			}
		}
		m->noflag->narmed += done;
		if (done)
			tell(m, PS_NOFLAG_ARMED);
		if (n)
			ps_log(PATCHSITE_LOG_NOTE, "%s: no-flag sites: %zu armed now, %zu in all (of "
			       "%zu)", m->name, done, m->noflag->narmed, m->nsites);
		free(pk);
		free(idx);
	}
	return 0;
}
