// SPDX-License-Identifier: GPL-2.0-only
/*
 * The SIGTRAP handler of live patching (patch.c has the protocol): a
 * thread that reaches a site while its first byte is the breakpoint is
 * sent where the site's new instruction would send it (the stub, or past
 * the NOP), or back to the site once the change is done.  A trap at no
 * function site is asked of the lookups other code registered (event
 * sites); one that is nobody's goes to the program's own handler.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>

#include "sites.h"

/*
 * Other code that writes int3 into the program (event sites: ps_patch_code
 * on behalf of events/), asked in turn when a trap is at no function site.
 * Registered once at init (api.c wire), before the handler is installed.
 */
static ps_trap_lookup_fn *lookups[2];
static unsigned nlookups;

void ps_patch_add_lookup(ps_trap_lookup_fn *fn)
{
	if (nlookups < sizeof(lookups) / sizeof(lookups[0]))
		lookups[nlookups++] = fn;
}

static struct sigaction old_trap;

static void trap_handler(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;

	if (ps.arch->is_breakpoint_trap(si)) {
		uintptr_t addr = ps.arch->trap_site(uc);
		/* Module records are freed after a grace period: be seen while reading them. */
		struct ps_thread *t = ps_thread_self();
		unsigned long seq = t ? ps_reader_enter(t) : 1;
		struct ps_site *s = ps_site_by_addr(addr);
		uintptr_t resume;
		bool handled = false;

		if (s) {
			if (*(volatile uint8_t *)addr == ps.arch->breakpoint) {
				bool call = atomic_load(&s->emulate_call);
				unsigned len = s->len > ps.arch->patch_len ? s->len : ps.arch->patch_len;

				/* As a NOP: skip the whole instruction as built (see ps_patch_late). */
				ps.arch->emulate(uc, addr, call, call ? ps_stub_of(s) : addr + len);
				atomic_fetch_add_explicit(&ps.traps_emulated, 1, memory_order_relaxed);
			} else {
				ps.arch->retry(uc, addr);
				atomic_fetch_add_explicit(&ps.traps_retried, 1, memory_order_relaxed);
			}
		}
		for (unsigned i = 0; !s && !handled && i < nlookups; i++)
			handled = lookups[i](addr, &resume);
		if (handled) {
			/* An event site changing (ps_patch_code): a NOP, or a jump to resume. */
			if (*(volatile uint8_t *)addr == ps.arch->breakpoint) {
				ps.arch->emulate(uc, addr, false, resume);
				atomic_fetch_add_explicit(&ps.traps_emulated, 1, memory_order_relaxed);
			} else {
				ps.arch->retry(uc, addr);
				atomic_fetch_add_explicit(&ps.traps_retried, 1, memory_order_relaxed);
			}
			handled = true;
		}
		if (t)
			ps_reader_exit(t, seq);
		if (s || handled)
			return;
	}
	/* Not ours: pass it on as the program's own handler would have seen it. */
	if (old_trap.sa_flags & SA_SIGINFO) {
		if (old_trap.sa_sigaction)
			old_trap.sa_sigaction(sig, si, ctx);
	} else if (old_trap.sa_handler == SIG_IGN) {
		return;
	} else if (old_trap.sa_handler == SIG_DFL) {
		signal(SIGTRAP, SIG_DFL);
		raise(SIGTRAP);
	} else {
		old_trap.sa_handler(sig);
	}
}

/* (Re)install the SIGTRAP handler, chaining to whatever the program set since. */
int ps_trap_install(void)
{
	struct sigaction sa, cur;

	if (sigaction(SIGTRAP, NULL, &cur) < 0)
		return -errno;
	if ((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == trap_handler)
		return 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = trap_handler;
	sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGTRAP, &sa, &old_trap) < 0)
		return -errno;
	return 0;
}
