// SPDX-License-Identifier: GPL-2.0-only
/*
 * Starting the runtime (patchsite_init): the hooks the lower layers call
 * wired once, the fork handlers, every object scanned and its sites made
 * NOPs, and how long that took (patchsite_stat's init_ns).  Apart from
 * api.c, whose entry points call it first: this runs once a process, and
 * what it sets up is what every other call assumes.
 *
 * A copy of this library loaded into another link-map namespace (dlmopen)
 * cannot see the program's objects; it says so once and does nothing.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"
#include "record/sched_switch.h"
#include "record/profile.h"
#include "events/event.h"
#include "sites/late.h"

static atomic_bool demangle_looked_up;
_Atomic unsigned long ps_init_ns, ps_init_cpu_ns;	/* set under lock, read without (patchsite_stat) */

static unsigned long cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (unsigned long)ts.tv_sec * 1000000000ul + (unsigned long)ts.tv_nsec;
}

static unsigned long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long)ts.tv_sec * 1000000000ul + (unsigned long)ts.tv_nsec;
}

/* No fork may copy the lock held, or the code writable, in the middle of a change. */
static void before_fork(void)
{
	ps_own_enter();		/* to after_fork_*: the other handlers' calls are ours too */
	pthread_mutex_lock(&ps.lock);
}

static void after_fork_parent(void)
{
	pthread_mutex_unlock(&ps.lock);
	ps_own_leave();
}

/*
 * The one fork sequence of the child, in this order: the thread records
 * first (only the caller survives) and the runtime's threads being made
 * (core/spawn.c), then what asks per thread (the pid gate), then the
 * lock, then the trace directory (the child records in a process
 * directory of its own), then the calls open at the fork, written there
 * first.  Start-up's own part (start.c) follows.
 */
static void after_fork_child(void)
{
	struct ps_thread *me = ps_thread_forked();

	ps_spawn_forked();
	if (me)
		ps_gate_forked(me);
	pthread_mutex_unlock(&ps.lock);
	ps_store_forked(ps_fast.t);
	ps_fast.budget = 0;
	ps_profile_reset();	/* function_profile: the parent's counts stay the parent's */
	ps_own_leave();
	ps_graph_forked();	/* recorded, not the runtime's own: after ps_own_leave */
}

/*
 * Every hook the lower layers call, registered once, before anything can
 * call them (a lower layer never names a higher one):
 *   - the ops' properties the dispatcher reads (dispatch.c);
 *   - what ends a thread (core/thread.c), and how the graph tracer ends
 *     one whose return it lost (unwind.c's pthread_exit);
 *   - sets that grow with new objects besides the ops' (filter.c);
 *   - who hears of objects arriving and going, in this order (sites/sync.c;
 *     the reverse order when they go): mod.N, branch counts, events;
 *   - what else the trace directory holds (store.c): events, branch counts;
 *   - traps at sites other than functions' (patch.c): events'.
 */
static void wire(void)
{
	ps_ops_describe(&ps_function_ops, &ps_function_props);
	ps_ops_describe(&ps_graph_ops, &ps_graph_props);
	ps_ops_describe(&ps_trigger_ops, &ps_trigger_props);
	ps_thread_on_exit(ps_graph_thread_end);
	ps_thread_on_ended(ps_store_thread_ended);
	ps_thread_on_lost(ps_store_lost);
	ps_graph_thread_exit = pthread_exit;	/* record/unwind.c's wrapper, as graph.c called it */
	ps_globs_track(&ps_graph_trigger);
	ps_watch_add(&ps_store_watch);
	ps_watch_add(&ps_branches_watch);
	ps_watch_add(&ps_events_watch);
	ps_noflag_watch(ps_store_noflag);
	ps_store_add_part(&ps_events_part);
	ps_store_add_part(&ps_branches_part);
	ps_store_add_part(&ps_profile_part);
	ps_patch_add_lookup(ps_event_trap);
}

/*
 * The code cannot be made writable (a W^X policy): one line with the
 * object and the reason patch.c gave, kept to say again to each request
 * that needs it (ctl/control.c).
 */
static void say_no_write(void)
{
	ps_error_copy(ps.write_refused, sizeof(ps.write_refused));
	ps_log(PATCHSITE_LOG_ERROR, "%s: tracing nothing", ps.write_refused);
}

/*
 * Started from the environment, nothing else would show what is not
 * traced: warnings now; errors once the settings are in (env_bad says a
 * failing setting's error in one line).
 */
static void log_from_env(void)
{
	const char *log = getenv("PATCHSITE_LOG");

	if (log && *log)
		ps_log_stderr(strcmp(log, "0") ? PATCHSITE_LOG_NOTE : PATCHSITE_LOG_ERROR + 1,
			      PATCHSITE_LOG_ERROR);
	else if (getenv("PATCHSITE_TRACER") && *getenv("PATCHSITE_TRACER"))
		ps_log_stderr(PATCHSITE_LOG_WARNING, PATCHSITE_LOG_WARNING);
}

/*
 * Every object's sites made NOPs (the live protocol when attached to), its
 * stubs mapped, its events found; the counts said.  false: the code cannot
 * be made writable (said).
 */
static bool patch_modules(void)
{
	size_t refused = 0, sites = 0, mods = 0;

	/* Loaded into a running process (attach): other threads run the sites, so the live protocol. */
	if (ps_attach_late())
		for (unsigned i = 0; i < ps.nmods && ps.can_write; i++)
			ps_attach_patch(ps.mods[i]);
	else
		for (unsigned i = 0; i < ps.nmods && ps.can_write; i++)
			ps_patch_startup(ps.mods[i]);
	if (!ps.can_write) {
		say_no_write();
		return false;
	}
	for (unsigned i = 0; i < ps.nmods; i++) {
		struct ps_module *m = ps.mods[i];

		if (!m->nsites)
			continue;
		if (ps_module_links_gprof(m))
			ps_log(PATCHSITE_LOG_NOTE, "%s: linked with -pg: gprof's start-up does not run "
			       "while traced (gprof.c: no gmon.out)", m->name);
		mods++;
		sites += m->nsites;
		for (size_t j = 0; j < m->nsites; j++)
			refused += m->sites[j].state == SITE_REFUSED;
		ps_stubs_map(m);
	}
	if (!ps.can_write) {
		say_no_write();
		return false;
	}
	if (ps.can_sync && !ps.arch->one_step && ps_trap_install())
		ps.can_sync = false;
	for (unsigned i = 0; i < ps.nmods; i++)
		ps_events_found(ps.mods[i]);
	ps_log(PATCHSITE_LOG_NOTE, "%zu sites in %zu objects, %zu refused", sites, mods, refused);
	return true;
}

int patchsite_init(void)
{
	unsigned long t0 = now_ns(), c0 = cpu_ns();
	long ns;
	int err;

	ps_own_enter();
	/* Once: dlsym resets the program's dlerror(); libraries loaded later are seen by dl.c. */
	if (!atomic_exchange(&demangle_looked_up, true))
		ps_demangle_lookup(NULL);
	pthread_mutex_lock(&ps.lock);
	if (ps.inited)
		goto out;
	ps.inited = true;
	/* The host arch, from the build (-DPS_HOST_ARCH): nothing reads it before init. */
	__atomic_store_n(&ps.arch, &PS_HOST_ARCH, __ATOMIC_RELEASE);
	log_from_env();
	ns = ps_libc_namespace();
	if (ns != 0) {
		ps.init_err = -ENOTSUP;
		ps_log(PATCHSITE_LOG_NOTE, "this copy was loaded into namespace %ld (dlmopen): "
		       "inert, only a copy in the base namespace traces", ns);
		goto out;
	}
	wire();
	err = ps_thread_init();
	if (!err)
		err = pthread_atfork(before_fork, after_fork_parent, after_fork_child);
	if (err) {
		ps.init_err = err < 0 ? err : -err;
		goto out;
	}
	ps_libc_fork_init();
	ps_clock_init();
	ps_unwind_init();	/* libgcc_s when loaded, else at the first unwinding */
	ps.tramp = (uintptr_t)ps.arch->tramp;
	ps.can_write = true;
	/* Attached to: the kernel's switch hooks turned on meanwhile (record/sched_switch.c). */
	if (ps_attach_late())
		ps_sched_warm_async();
	ps_noflag_load(ps_attach_started_late());	/* proof files: objects built without any flag */
	err = ps_modules_scan();
	ps_noflag_unused();
	/*
	 * After the scan, which only reads: in a process with threads (attach)
	 * each registration waits for an RCU grace period, and the injector
	 * starts two threads that register while we scan (cmd/attach/attach_inject.c).
	 * (Waiting for theirs by polling the commands, which fail with EPERM
	 * until registered, instead of registering here stalled for seconds
	 * twice in eight attaches under load: not done.)
	 */
	ps.can_sync = ps_sync_register() == 0;
	if (err == -ENOMEM) {
		ps.init_err = err;
		ps.can_write = false;
		goto out;
	}
	if (!patch_modules())
		goto out;
	atomic_store_explicit(&ps_init_ns, now_ns() - t0, memory_order_relaxed);
	atomic_store_explicit(&ps_init_cpu_ns, cpu_ns() - c0, memory_order_relaxed);
out:
	err = ps.init_err;
	pthread_mutex_unlock(&ps.lock);
	ps_own_leave();
	return ps_api_ret(err);
}
