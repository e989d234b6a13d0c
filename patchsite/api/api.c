// SPDX-License-Identifier: GPL-2.0-only
/*
 * Public entry points: start the runtime (patchsite_init, which wires the
 * parts together), ops, filters, tracers, tracing on/off, the function
 * list and counters.  Start-up from the environment is start.c's.
 *
 * Every change (ops, filters, the tracing switch) takes ps.lock, recomputes
 * which sites are wanted and patches the difference live.  Ops callbacks
 * must not call back into this API: unregistering waits for callbacks to
 * return while holding the lock.  Before it takes the lock, each change
 * looks for objects loaded behind our back (ps_loader_prepare), which the
 * change then adds.
 *
 * A copy of this library loaded into another link-map namespace (dlmopen)
 * cannot see the program's objects; it says so once and does nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/textbuf.h"
#include "internal.h"
#include "record/sched_switch.h"
#include "record/profile.h"
#include "events/event.h"
#include "events/probe.h"
#include "sites/got.h"
#include "sites/late.h"

static atomic_bool demangle_looked_up;
static _Atomic unsigned long init_ns, init_cpu_ns;	/* set under lock, read without */

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

static int ret(int err)
{
	if (err < 0)
		errno = -err;
	return err;
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
 * first (only the caller survives), then what asks per thread (the pid
 * gate), then the lock, then the trace directory (the child records in a
 * process directory of its own).  Start-up's own part (start.c) follows.
 */
static void after_fork_child(void)
{
	struct ps_thread *me = ps_thread_forked();

	if (me)
		ps_gate_forked(me);
	pthread_mutex_unlock(&ps.lock);
	ps_store_forked(ps_fast.t);
	ps_fast.budget = 0;
	ps_profile_reset();	/* function_profile: the parent's counts stay the parent's */
	ps_own_leave();
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
	ps_graph_thread_exit = pthread_exit;	/* record/unwind.c's wrapper, as graph.c called it */
	ps_globs_track(&ps_graph_trigger);
	ps_watch_add(&ps_store_watch);
	ps_watch_add(&ps_branches_watch);
	ps_watch_add(&ps_events_watch);
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

int patchsite_init(void)
{
	const char *log = getenv("PATCHSITE_LOG");
	size_t refused = 0, sites = 0, mods = 0;
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
	/*
	 * Started from the environment, nothing else would show what is not
	 * traced: warnings now; errors once the settings are in (env_bad says
	 * a failing setting's error in one line).
	 */
	if (log && *log)
		ps_log_stderr(strcmp(log, "0") ? PATCHSITE_LOG_NOTE : PATCHSITE_LOG_ERROR + 1,
			      PATCHSITE_LOG_ERROR);
	else if (getenv("PATCHSITE_TRACER") && *getenv("PATCHSITE_TRACER"))
		ps_log_stderr(PATCHSITE_LOG_WARNING, PATCHSITE_LOG_WARNING);
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
	if (!ps_attach_late())
		ps_noflag_load();	/* proof files: objects built without any flag (sites/noflag.c) */
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
	/* Loaded into a running process (attach): other threads run the sites, so the live protocol. */
	if (ps_attach_late())
		for (unsigned i = 0; i < ps.nmods && ps.can_write; i++)
			ps_attach_patch(ps.mods[i]);
	else
		for (unsigned i = 0; i < ps.nmods && ps.can_write; i++)
			ps_patch_startup(ps.mods[i]);
	if (!ps.can_write) {
		say_no_write();
		goto out;
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
		goto out;
	}
	if (ps.can_sync && !ps.arch->one_step && ps_trap_install())
		ps.can_sync = false;
	for (unsigned i = 0; i < ps.nmods; i++)
		ps_events_found(ps.mods[i]);
	ps_log(PATCHSITE_LOG_NOTE, "%zu sites in %zu objects, %zu refused", sites, mods, refused);
	atomic_store_explicit(&init_ns, now_ns() - t0, memory_order_relaxed);
	atomic_store_explicit(&init_cpu_ns, cpu_ns() - c0, memory_order_relaxed);
out:
	err = ps.init_err;
	pthread_mutex_unlock(&ps.lock);
	ps_own_leave();
	return ret(err);
}

/*
 * Re-derive site masks from the registered ops and patch the difference,
 * adding the objects of arrivals (ps_loader_prepare, or NULL).  ps.lock held.
 */
static int update(const struct ps_arrivals *arrivals)
{
	ps_recompute_want();
	return ps_loader_sync(arrivals);
}

/* Before a glob is applied: it may name functions of objects loaded behind our back. */
static int add_arrivals(const struct ps_arrivals *a)
{
	return a->n ? ps_loader_sync(a) : 0;
}

int patchsite_register_function(struct patchsite_ops *ops)
{
	struct ps_arrivals a;
	int err;

	if (!ops || !ops->func)
		return ret(-EINVAL);
	err = patchsite_init();
	if (err)
		return err;
	ps_loader_prepare(&a);
	pthread_mutex_lock(&ps.lock);
	err = ps_ops_register(ops, &a);
	pthread_mutex_unlock(&ps.lock);
	ps_loader_done(&a);
	return ret(err);
}

int patchsite_unregister_function(struct patchsite_ops *ops)
{
	struct ps_arrivals a;
	int err;

	if (!ops)
		return ret(-EINVAL);
	ps_loader_prepare(&a);
	pthread_mutex_lock(&ps.lock);
	err = ps_ops_unregister(ops, &a);
	pthread_mutex_unlock(&ps.lock);
	ps_loader_done(&a);
	return ret(err);
}

int patchsite_ops_release(struct patchsite_ops *ops)
{
	int err = 0;

	if (!ops)
		return ret(-EINVAL);
	pthread_mutex_lock(&ps.lock);
	if (ops->state && ops->state->s.registered) {
		err = -EBUSY;
	} else if (ops->state) {
		struct ps_ops_state **p = &ps.states;

		while (*p && *p != &ops->state->s)
			p = &(*p)->next;
		if (*p)
			*p = ops->state->s.next;
		ps_globs_free(&ops->state->s.filter);
		ps_globs_free(&ops->state->s.notrace);
		free(ops->state);
		ops->state = NULL;
	}
	pthread_mutex_unlock(&ps.lock);
	return ret(err);
}

static int set_globs(struct patchsite_ops *ops, const char *globs, int reset, bool notrace)
{
	struct ps_arrivals a;
	struct ps_ops_state *st;
	int err;

	err = patchsite_init();
	if (err)
		return err;
	ps_loader_prepare(&a);
	pthread_mutex_lock(&ps.lock);
	err = add_arrivals(&a);
	/*
	 * NULL: both built-in tracers, which keep one filter whichever runs:
	 * the globs are matched once, for the function tracer's, and copied.
	 */
	for (int k = 0; k < 2 && !err; k++) {
		struct patchsite_ops *o = ops ? ops : k ? &ps_graph_ops : &ps_function_ops;
		struct ps_ops_state *fst = ps_function_ops.state ? &ps_function_ops.state->s : NULL;

		st = ps_ops_state(o);
		if (!st)
			err = -ENOMEM;
		else if (!k)
			err = ps_filter_apply(notrace ? &st->notrace : &st->filter, globs, reset,
					      notrace ? "notrace" : "filter");
		else
			err = ps_globs_copy(notrace ? &st->notrace : &st->filter,
					 notrace ? &fst->notrace : &fst->filter);
		if (!err && st->registered)
			err = update(NULL);
		if (ops)
			break;
	}
	pthread_mutex_unlock(&ps.lock);
	ps_loader_done(&a);
	return ret(err);
}

/*
 * Conditions on arguments among the filter's lines (events/filter_if.c):
 * the tracers' globs from the plain lines, each condition a probe that
 * hands the calls it keeps to the tracer.  With conditions, the tracers'
 * filter left empty selects nothing.
 */
static int set_filter_if(const char *globs, int reset)
{
	struct patchsite_ops *o[2] = { &ps_function_ops, &ps_graph_ops };
	struct ps_filter_if *fi;
	bool was[2] = { false, false };
	int err = ps_filter_if_parse(globs, &fi);

	if (err)
		return ret(err);
	pthread_mutex_lock(&ps.lock);
	for (int i = 0; i < 2 && !err; i++) {
		struct ps_ops_state *st = ps_ops_state(o[i]);

		if (st) {
			was[i] = st->filter.keep_empty;
			st->filter.keep_empty = ps_filter_if_keep_empty(fi, reset);
		} else {
			err = -ENOMEM;
		}
	}
	pthread_mutex_unlock(&ps.lock);
	if (!err && (err = set_globs(NULL, fi->plain, reset, false))) {
		pthread_mutex_lock(&ps.lock);	/* refused: the filter as it was */
		for (int i = 0; i < 2; i++)
			if (o[i]->state)
				o[i]->state->s.filter.keep_empty = was[i];
		pthread_mutex_unlock(&ps.lock);
	}
	if (!err)
		err = ps_probes_trace_if(fi->defs, fi->n, reset);
	if (!err)
		ps_filter_if_done(fi, reset);
	ps_filter_if_free(fi);
	return ret(err);
}

int patchsite_set_filter(struct patchsite_ops *ops, const char *globs, int reset)
{
	if (!ops && ps_filter_if_wants(globs, reset))
		return set_filter_if(globs, reset);
	return set_globs(ops, globs, reset, false);
}

int patchsite_set_notrace(struct patchsite_ops *ops, const char *globs, int reset)
{
	return set_globs(ops, globs, reset, true);
}

int patchsite_set_graph_function(const char *globs, int reset)
{
	struct ps_arrivals a;
	int err = patchsite_init();

	if (err)
		return err;
	ps_loader_prepare(&a);
	pthread_mutex_lock(&ps.lock);
	err = add_arrivals(&a);
	if (!err)
		err = ps_filter_apply(&ps_graph_trigger, globs, reset, "graph function");
	/* The graph tracer's fast path cannot test the trigger: use the generic one. */
	if (!err)
		ps_tramp_select(false);
	pthread_mutex_unlock(&ps.lock);
	ps_loader_done(&a);
	return ret(err);
}

static int set_tracing(bool on)
{
	struct ps_arrivals a;
	int err = patchsite_init();

	if (err)
		return err;
	/* Objects loaded or unloaded since the last call are taken in, as by every call here. */
	ps_loader_prepare(&a);
	pthread_mutex_lock(&ps.lock);
	err = ps_loader_sync(&a);
	pthread_mutex_unlock(&ps.lock);
	ps_loader_done(&a);
	if (!err)
		err = ps_gate_set_tracing(on);
	return ret(err);
}

int patchsite_tracing_on(void)
{
	return set_tracing(true);
}

int patchsite_tracing_off(void)
{
	return set_tracing(false);
}

int patchsite_tracing_is_on(void)
{
	return atomic_load_explicit(&ps.tracing_on, memory_order_relaxed);
}

struct func_entry {
	char *name, *module;
	uintptr_t addr;
	unsigned flags;
};

/* The site's function, then its other names (aliases) if any: copies, as the list holds them. */
static int list_site(const struct ps_site *s, struct func_entry *list, size_t *n)
{
	const struct ps_sym *a = s->sym;
	size_t na = s->sym ? ps_sym_aliases(s->mod, s->sym, &a) : 1;
	bool interposed_on = s->state == SITE_INTERPOSED && atomic_load(&s->want);
	unsigned flags = (s->state == SITE_CALL || interposed_on ? PATCHSITE_FUNC_ENABLED : 0) |
			 (s->state == SITE_REFUSED ? PATCHSITE_FUNC_REFUSED : 0);

	for (size_t k = 0; k <= na; k++) {
		const struct ps_sym *sym = k ? &a[k - 1] : s->sym;
		struct func_entry *e = &list[*n];

		if (k && sym == s->sym)
			continue;	/* the first entry named it */
		if (k && (sym->size ? s->addr >= sym->addr + sym->size : s->addr != sym->addr))
			continue;	/* a name at the address that does not cover the site */
		e->name = sym ? strdup(sym->name) : NULL;
		if (e->name && ps_got_library(s)) {
			/* A library call: "malloc@libc.so.6", the module the object that calls. */
			free(e->name);
			if (asprintf(&e->name, "%s@%s", sym->name, ps_got_library(s)) < 0)
				e->name = NULL;
		}
		e->module = strdup(s->mod->name);
		if (!e->module || (sym && !e->name)) {
			free(e->name);
			free(e->module);
			return -ENOMEM;
		}
		e->addr = s->addr;
		e->flags = flags | (k ? PATCHSITE_FUNC_ALIAS : 0);
		(*n)++;
		if (!sym)
			break;
	}
	return 0;
}

int patchsite_for_each_function(patchsite_func_cb cb, void *arg)
{
	struct func_entry *list;
	struct ps_arrivals a;
	size_t n = 0, cap = 0;
	int err = patchsite_init();

	if (err)
		return err;
	/*
	 * Objects loaded or unloaded meanwhile change the index: the
	 * callbacks get a copy, made under the lock (and without the lock
	 * held, they may call this API).
	 */
	ps_loader_prepare(&a);
	pthread_mutex_lock(&ps.lock);
	ps_loader_sync(&a);
	ps_loader_done(&a);
	ps_all_syms();
	for (size_t i = 0; i < ps.nsites; i++) {
		const struct ps_site *s = ps.site_index[i];
		const struct ps_sym *first;

		if (s && s->kind != SITE_EXIT)
			cap += s->sym ? ps_sym_aliases(s->mod, s->sym, &first) : 1;
	}
	list = malloc((cap ? cap : 1) * sizeof(*list));
	for (size_t i = 0; list && i < ps.nsites && !err; i++) {
		const struct ps_site *s = ps.site_index[i];

		if (!s || s->kind == SITE_EXIT)
			continue;	/* an unloaded object's; an exit is listed through its function */
		err = list_site(s, list, &n);
	}
	pthread_mutex_unlock(&ps.lock);
	if (!list)
		return ret(-ENOMEM);
	for (size_t i = 0; i < n && !err; i++) {
		char buf[32];

		if (!list[i].name)
			snprintf(buf, sizeof(buf), "0x%lx", (unsigned long)list[i].addr);
		err = cb(list[i].name ? list[i].name : buf, list[i].module, list[i].addr,
			 list[i].flags, arg);
	}
	for (size_t i = 0; i < n; i++) {
		free(list[i].name);
		free(list[i].module);
	}
	free(list);
	return err;
}

unsigned long patchsite_stat(const char *name)
{
	size_t n = 0;

	if (!name)
		goto bad;
	if (!strcmp(name, "traps_emulated"))
		return atomic_load(&ps.traps_emulated);
	if (!strcmp(name, "traps_retried"))
		return atomic_load(&ps.traps_retried);
	if (!strcmp(name, "batches"))
		return atomic_load_explicit(&ps.batches, memory_order_relaxed);
	if (!strcmp(name, "pokes"))
		return atomic_load_explicit(&ps.pokes, memory_order_relaxed);
	if (!strcmp(name, "sites")) {
		pthread_mutex_lock(&ps.lock);
		for (size_t i = 0; i < ps.nsites; i++)
			n += ps.site_index[i] != NULL;
		pthread_mutex_unlock(&ps.lock);
		return n;
	}
	if (!strcmp(name, "init_ns"))
		return atomic_load_explicit(&init_ns, memory_order_relaxed);
	if (!strcmp(name, "init_cpu_ns"))
		return atomic_load_explicit(&init_cpu_ns, memory_order_relaxed);
	if (!strcmp(name, "refused") || !strcmp(name, "enabled")) {
		enum site_state st = name[0] == 'r' ? SITE_REFUSED : SITE_CALL;

		pthread_mutex_lock(&ps.lock);
		for (size_t i = 0; i < ps.nsites; i++)
			n += ps.site_index[i] && ps.site_index[i]->state == st;
		pthread_mutex_unlock(&ps.lock);
		return n;
	}
	if (!strcmp(name, "missed")) {
		for (struct ps_thread *t = atomic_load(&ps.threads); t; t = t->next)
			n += atomic_load_explicit(&t->missed, memory_order_relaxed);
		return n;
	}
bad:
	errno = EINVAL;
	return 0;
}
