/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The runtime's map, and the folders' headers in one include for the top
 * three folders (api/, ctl/, hooks/).  Each
 * folder declares what it offers the ones above in its own header, which
 * includes only the headers of the folders below: core/core.h (the data
 * model: state, threads, TLS, log, clock), sites/site.h (objects, sites,
 * ops, filters, watchers), record/record.h (tracers, rings, the trace
 * directory writer), events/event.h, ctl/control.h and ctl/channel.h (start.c
 * includes the last one itself); a
 * file of core/, sites/, record/, events/ or arch/ includes its folder's
 * header, so the compiler, not only `make check-layers`, keeps it from
 * naming anything above.  The folders, lowest layer first; a file never calls into a
 * folder above its own (it registers a hook instead, api_init.c wire), except
 * the arch trampolines' C entry points (arch/entry.h); `make check-layers`
 * (tests/layers.sh) fails on any other:
 *   core/     services that know no site: the global `ps` (state.c), thread
 *             records, ps_fast TLS and grace periods (thread.c), the clock,
 *             text buffers (textbuf.c), the C library's dlopen and the
 *             wrappers' lock (libc.c), the message sink (log.c), large
 *             zeroed memory (mem.c), C++ names
 *   arch/     the arch ops interface (arch.h), the trampolines' C entry points
 *             (entry.h), one folder per arch (x86_64, aarch64, riscv64):
 *             arch.c, host.h, tramp.S, libpatchsite.map
 *   sites/    the site machinery (sites.h has its map): the file behind an
 *             object, symbols, site tables, stubs; nop.c (an object's sites
 *             checked and NOPed), patch.c (live batches, the breakpoint
 *             protocol), trap.c (the SIGTRAP handler); dispatch.c (ops, want
 *             masks, the dispatcher, which trampoline), ops.c (an ops joins
 *             or leaves); filter.c (globs -> one byte per site); sync.c
 *             (every live change of objects, then patching; its watchers)
 *   record/   what runs while the program records: rings (ring.[ch]), the
 *             tracer table (tracers.c: where a tracer is added), the function
 *             and function_graph tracers, unwinding hooks, arguments, the
 *             tracing_on/pid gate, filter commands, markers, snapshots,
 *             trace_options, the trace directory writer (store.c,
 *             store_thread.c), branch counts, output.c (PATCHSITE_OUTPUT
 *             through render/)
 *   events/   static trace events (event.h has their map)
 *   api/      public entry points: api_init.c patchsite_init (wire: every
 *             hook); api.c ops, filters, tracing on/off, the function list,
 *             counters;
 *             api_tracers.c the tracer in use; api_record.c recording
 *             settings and filter commands; api_events.c the events API
 *   ctl/      control files by name (control.c, control.h) and their tables
 *             (*_files.c), the channel (channel.c)
 *   hooks/    what the process and its loader call: start.c the constructor
 *             and destructor, start-up from the environment (PATCHSITE_*);
 *             dl.c the dlopen/dlmopen/dlclose wrappers; gprof.c gprof's
 *             start-up (__monstartup) kept out while traced; exit.c the
 *             _exit and _Exit wrappers (the trace ended with the status);
 *             spawn.c the execve/posix_spawn wrappers (an explicit environment
 *             keeps the runtime's variables)
 * Beside them, shared with the patchsite command: data/ (the trace
 * directory's format, data/format.h, and its reader), render/ (what is
 * printed from a recording), ctl/proto.c (the channel's wire format).
 *
 * Where to look:
 *   a site is patched   sites/nop.c ps_patch_startup (start-up), ps_patch_late
 *                       (an object dlopened); sites/patch.c ps_patch_update (a
 *                       live batch), ps_patch_code (event sites); the bytes from
 *                       arch/<arch>/arch.c; which sites: sites/dispatch.c
 *                       ps_recompute_want; when: sites/sync.c ps_loader_sync
 *   an event is written arch/<arch>/tramp.S (the fast paths), record/function.c
 *                       and record/graph.c -> record/ring.c (the C path,
 *                       ps_ring_ext); events/event_record.c (static events);
 *                       record/marker.c; into a chunk record/store_thread.c maps
 *   a control file is   ctl/channel.c (the socket) -> ctl/control.c
 *   served              (patchsite_ctl_read/_write) -> the row in
 *                       ctl/{tracer,record,trace,event}_files.c (or
 *                       record/branch_counts.c) -> a patchsite_* in api/
 *                       -> its owner
 *   the trace directory data/format.h and man/patchsite-data.5 (the layout);
 *   is read             data/read.c psr_open, data/read_thread.c psr_next,
 *                       data/read_syms.c, data/read_follow.c (live); written
 *                       by record/store.c and record/store_thread.c
 * Everything here has hidden visibility (see build.mk); only patchsite_* is exported.
 */
#ifndef PS_INTERNAL_H
#define PS_INTERNAL_H


/*
 * The folders' headers, lowest first; a file of a folder includes its own
 * folder's header (or this one, above the folders).
 */
#include <errno.h>

#include "core/core.h"
#include "core/demangle.h"
#include "core/libc.h"
#include "sites/site.h"
#include "record/record.h"

/* api/api_init.c: how long patchsite_init took, set once (patchsite_stat's init_ns, init_cpu_ns). */
extern _Atomic unsigned long ps_init_ns, ps_init_cpu_ns;

/* An entry point's result: err, with errno set to -err when it failed (libbpf's convention). */
static inline int ps_api_ret(int err)
{
	if (err < 0)
		errno = -err;
	return err;
}

/* gprof.c: our constructor ran; answer a __monstartup put off until then. */
void ps_gprof_started(void);

#endif
