/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The C entry points the arch trampolines (arch/<arch>/) call: the one
 * reference that goes up the layers, from arch/ to sites/ and record/,
 * as in every tracer (the kernel's ftrace_caller -> ftrace_ops_list_func,
 * uftrace's mcount.S -> mcount_entry).  Declared here, once; nothing else
 * in a lower folder may name a higher one.  The fast trampolines also
 * read the ps_fast TLS (core/thread.c) at the PSF_* offsets (core/fast_offsets.h).
 */
#ifndef PS_ENTRY_H
#define PS_ENTRY_H

#include <stdint.h>

#include "host.h"
#include "patchsite.h"

#define PS_ENTRY __attribute__((visibility("hidden")))

/* sites/dispatch.c: the generic trampoline, any set of ops */
PS_ENTRY void ps_dispatch(uint32_t id, unsigned long ret, struct patchsite_regs *regs);

/* sites/cyg.c: a call to __cyg_profile_func_enter (exit 0) or _exit (1), from arch/<arch>/cyg.S */
PS_ENTRY void ps_cyg_dispatch(void *fn, unsigned exit, struct patchsite_regs *regs,
			      unsigned long call_site);

/* record/function.c, record/graph.c: the fast paths' C halves (a[0] id << 2, ...) */
PS_ENTRY void ps_func_entry_slow(unsigned long *a);
PS_ENTRY void ps_graph_entry_slow(unsigned long *a);
PS_ENTRY void ps_graph_word_slow(unsigned long *a);
PS_ENTRY void ps_graph_exit_slow(unsigned long *slot);
/* ... of the late trampolines (a site after the prologue): a[0] id << 2, a[1] the return slot */
PS_ENTRY void ps_func_late_slow(unsigned long *a);
PS_ENTRY void ps_graph_late_slow(unsigned long *a);
/*
 * Read, not called: x86-64's function_profile path (tramp.S) gates and
 * counts the common call itself, as graph.c and profile.c would (record/
 * profile_fast.c checks the offsets): the depth asked (ring.c), the
 * tracer still function_profile (graph_settings.c), the reset generation,
 * the thread's counters and the ticks-to-ns rate (profile.c).
 */
struct prof_thread;
extern unsigned ps_graph_max_depth;
extern _Atomic _Bool ps_graph_profile_on;
extern _Atomic unsigned ps_prof_generation;
extern __thread struct prof_thread *ps_prof_me __attribute__((tls_model("initial-exec")));
extern uint64_t ps_prof_ns_mult;
/*
 * events/probe_fast.c (x86-64): dynamic probes alone, r the nine integer
 * registers in struct patchsite_regs' order then the stub's id << 2;
 * non-zero: go on to the generic trampoline
 */
PS_ENTRY int ps_probe_fast_hit(unsigned long *r);
/* ... and arch/x86_64/probe_tramp.S's call for a return probe's entry, h its site's (the same r) */
struct ps_probe_hit;
PS_ENTRY int ps_probe_fast_ret(const struct ps_probe_hit *h, unsigned long *r);
/*
 * Read, not called: probe_tramp.S finds the site in events/probe.c's hit
 * table and compares the event's one probe with the recorder
 * (event_record.c); events/probe_tramp_layout.c checks the offsets.
 */
struct ps_probe_hits;
struct patchsite_event_info;
extern _Atomic(struct ps_probe_hits *) ps_probe_hits;
void ps_event_record(void *data, const struct patchsite_event_info *info,
		     const unsigned long long *args);
/*
 * Read, not called: x86-64's return probe record (arch/x86_64/
 * retprobe_tramp.S, ps_retprobe_fast_exit) reads the event and its probe
 * list as events/probe_fast.h does, and compares the only probe with the
 * recorder, ps_event_record (events/event_record.c); events/
 * probe_tramp_layout.c checks the offsets.
 */
/* record/graph_lost.c: where a lost hooked return goes (reached by a return, not a call) */
PS_ENTRY void ps_graph_lost(void) __attribute__((noreturn)) PS_REACHED_BY_RET;

#endif
