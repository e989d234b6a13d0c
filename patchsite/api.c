// SPDX-License-Identifier: GPL-2.0-only
/*
 * Public entry points, and start-up.
 *
 * A constructor finds every site and NOPs it while the process still has
 * one thread (as the kernel does at boot).  If PATCHSITE_TRACER is set, the
 * built-in tracer is configured from the environment and its trace written
 * at exit.  A bad setting prints one line on stderr and leaves the program
 * untraced; nothing here ever exits or aborts the host.
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

#include "internal.h"
#include "attach.h"
#include "event.h"

struct ps_state ps = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.arch = &PS_HOST_ARCH,		/* from the build: ps_arch_$(ARCH) */
	.tracing_on = true,
};

static int env_out_fd = -1;
static bool env_tmp_data;	/* the trace directory is ours, for PATCHSITE_OUTPUT only */

/* Is the trace directory the private one of PATCHSITE_OUTPUT (removed once rendered)? */
bool ps_data_private(void)
{
	return env_tmp_data;
}
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
	pthread_mutex_lock(&ps.lock);
}

static void after_fork_parent(void)
{
	pthread_mutex_unlock(&ps.lock);
}

static void after_fork_child(void)
{
	pthread_mutex_unlock(&ps.lock);
	/* The parent writes the trace; the child's copy of the buffers is not ours to write. */
	if (env_out_fd >= 0)
		close(env_out_fd);
	env_out_fd = -1;
	/* The trace directory: the child records in a process directory of its own. */
	ps_store_forked(ps_fast.t);
	ps_fast.budget = 0;
	ps_channel_forked();
}

int patchsite_init(void)
{
	const char *log = getenv("PATCHSITE_LOG");
	size_t refused = 0, sites = 0, mods = 0;
	unsigned long t0 = now_ns(), c0 = cpu_ns();
	char why[sizeof(ps_last_error)];
	long ns;
	int err;

	/* Once: dlsym resets the program's dlerror(); libraries loaded later are seen by loader.c. */
	if (!atomic_exchange(&demangle_looked_up, true))
		ps_demangle_lookup(NULL);
	pthread_mutex_lock(&ps.lock);
	if (ps.inited)
		goto out;
	ps.inited = true;
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
	ns = ps_loader_namespace();
	if (ns != 0) {
		ps.init_err = -ENOTSUP;
		ps_log(PATCHSITE_LOG_NOTE, "this copy was loaded into namespace %ld (dlmopen): "
		       "inert, only a copy in the base namespace traces", ns);
		goto out;
	}
	err = ps_dispatch_init();
	if (!err)
		err = pthread_atfork(before_fork, after_fork_parent, after_fork_child);
	if (err) {
		ps.init_err = err < 0 ? err : -err;
		goto out;
	}
	ps_loader_init();
	ps_record_init();
	ps.tramp = (uintptr_t)ps.arch->tramp;
	ps.can_sync = ps_sync_register() == 0;
	ps.can_write = true;
	err = ps_modules_scan();
	if (err == -ENOMEM) {
		ps.init_err = err;
		ps.can_write = false;
		goto out;
	}
	/* Loaded into a running process (attach.c): other threads run the sites, so the live protocol. */
	if (ps_attach_late())
		for (unsigned i = 0; i < ps.nmods && ps.can_write; i++)
			ps_attach_patch(ps.mods[i]);
	else
		for (unsigned i = 0; i < ps.nmods && ps.can_write; i++)
			ps_patch_startup(ps.mods[i]);
	if (!ps.can_write) {
		/* One line with the object and the reason patch.c gave. */
		ps_log(PATCHSITE_LOG_ERROR, "%s: tracing nothing", ps_error_copy(why, sizeof(why)));
		goto out;
	}
	for (unsigned i = 0; i < ps.nmods; i++) {
		struct ps_module *m = ps.mods[i];

		if (!m->nsites)
			continue;
		if (ps_module_links_gprof(m))
			ps_log(PATCHSITE_LOG_WARNING, "%s: linked with -pg: gprof's start-up runs and "
			       "writes gmon.out at exit; compile with -pg but link without it "
			       "(build/patchsite-cc does)", m->name);
		mods++;
		sites += m->nsites;
		for (size_t j = 0; j < m->nsites; j++)
			refused += m->sites[j].state == SITE_REFUSED;
		ps_stubs_map(m);
	}
	if (!ps.can_write) {
		ps_log(PATCHSITE_LOG_ERROR, "%s: tracing nothing", ps_error_copy(why, sizeof(why)));
		goto out;
	}
	if (ps.can_sync && !ps.arch->one_step && ps_trap_install())
		ps.can_sync = false;
	for (unsigned i = 0; i < ps.nmods; i++)
		ps_event_module(ps.mods[i]);
	ps_log(PATCHSITE_LOG_NOTE, "%zu sites in %zu objects, %zu refused", sites, mods, refused);
	atomic_store_explicit(&init_ns, now_ns() - t0, memory_order_relaxed);
	atomic_store_explicit(&init_cpu_ns, cpu_ns() - c0, memory_order_relaxed);
out:
	err = ps.init_err;
	pthread_mutex_unlock(&ps.lock);
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
	struct ps_ops_state *st;
	int err, k;

	if (!ops || !ops->func)
		return ret(-EINVAL);
	err = patchsite_init();
	if (err)
		return err;
	ps_loader_prepare(&a);
	pthread_mutex_lock(&ps.lock);
	st = ps_ops_state(ops);
	err = -ENOMEM;
	if (!st)
		goto out;
	err = -EBUSY;
	if (st->registered)
		goto out;
	err = ps.can_write ? -ENOSYS : -EACCES;
	if (!ps.can_write || !ps.can_sync)
		goto out;
	for (k = 0; k < PS_MAX_OPS && ps.slots[k]; k++)
		;
	err = -ENOSPC;
	if (k == PS_MAX_OPS)
		goto out;
	ps_tramp_select(true);
	ps.slots[k] = ops;
	st->slot = k;
	__atomic_store_n(&st->registered, true, __ATOMIC_RELAXED);	/* exiting threads read it */
	ps_recompute_want();
	err = ps_ops_publish();
	if (!err)
		err = ps_loader_sync(&a);
	if (err) {
		ps.slots[k] = NULL;
		st->slot = -1;
		__atomic_store_n(&st->registered, false, __ATOMIC_RELAXED);
		ps_ops_publish();
		update(NULL);
	}
	ps_tramp_select(false);
out:
	pthread_mutex_unlock(&ps.lock);
	ps_loader_done(&a);
	return ret(err);
}

int patchsite_unregister_function(struct patchsite_ops *ops)
{
	struct ps_arrivals a;
	struct ps_ops_state *st;
	int err = -ENOENT;

	if (!ops)
		return ret(-EINVAL);
	ps_loader_prepare(&a);
	pthread_mutex_lock(&ps.lock);
	st = ops->state ? &ops->state->s : NULL;
	if (!st || !st->registered)
		goto out;
	ps_tramp_select(true);
	ps.slots[st->slot] = NULL;
	/* After this, no thread is inside ops->func. */
	err = ps_ops_publish();
	if (err) {
		ps.slots[st->slot] = ops;	/* still listed: still registered */
		goto out;
	}
	st->slot = -1;
	__atomic_store_n(&st->registered, false, __ATOMIC_RELAXED);
	err = update(&a);
	ps_tramp_select(false);
out:
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

/* The built-in tracers share one filter set: the one patchsite_set_filter(NULL) edits. */
static int copy_globs(struct ps_globs *to, const struct ps_globs *from)
{
	struct ps_globs g = { NULL, NULL };

	if (from->set && !(g.set = malloc(ps.nsites ? ps.nsites : 1)))
		return -ENOMEM;
	if (from->text && !(g.text = strdup(from->text))) {
		free(g.set);
		return -ENOMEM;
	}
	if (g.set)
		memcpy(g.set, from->set, ps.nsites);
	ps_globs_free(to);
	*to = g;
	return 0;
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
			err = copy_globs(notrace ? &st->notrace : &st->filter,
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

int patchsite_set_filter(struct patchsite_ops *ops, const char *globs, int reset)
{
	return set_globs(ops, globs, reset, false);
}

int patchsite_set_notrace(struct patchsite_ops *ops, const char *globs, int reset)
{
	return set_globs(ops, globs, reset, true);
}

/* The built-in tracer now registered, or NULL. */
static struct patchsite_ops *current_tracer(void)
{
	if (ps_function_ops.state && ps_function_ops.state->s.registered)
		return &ps_function_ops;
	if (ps_graph_ops.state && ps_graph_ops.state->s.registered)
		return &ps_graph_ops;
	return NULL;
}

static int copy_filters(struct patchsite_ops *to, struct patchsite_ops *from)
{
	struct ps_ops_state *a, *b;
	int err = -ENOMEM;

	pthread_mutex_lock(&ps.lock);
	a = ps_ops_state(to);
	b = ps_ops_state(from);
	if (a && b) {
		err = copy_globs(&a->filter, &b->filter);
		if (!err)
			err = copy_globs(&a->notrace, &b->notrace);
	}
	pthread_mutex_unlock(&ps.lock);
	return err;
}

/* The latency tracer is function_graph in the latency mode (record.c). */
static void set_latency(bool on)
{
	pthread_mutex_lock(&ps.lock);
	ps_graph_set_latency(on);
	ps_tramp_select(false);
	pthread_mutex_unlock(&ps.lock);
}

int patchsite_set_tracer(const char *name)
{
	struct patchsite_ops *cur = current_tracer(), *want;
	int err;

	if (!name)
		return ret(-EINVAL);
	if (!strcmp(name, "function"))
		want = &ps_function_ops;
	else if (!strcmp(name, "function_graph") || !strcmp(name, "latency"))
		want = &ps_graph_ops;
	else if (!strcmp(name, "nop"))
		want = NULL;
	else {
		ps_log(PATCHSITE_LOG_ERROR, "no tracer named '%s' (function, function_graph, "
		       "latency, nop)", name);
		return ret(-EINVAL);
	}
	set_latency(!strcmp(name, "latency"));
	if (cur == want)
		return 0;
	if (cur) {
		err = patchsite_unregister_function(cur);
		if (err)
			return err;
	}
	if (!want)
		return 0;
	/* Filters set through ops NULL live on the function ops; the graph tracer shares them. */
	if (want == &ps_graph_ops) {
		err = ps_graph_unwinder_check();
		if (!err)
			err = ps_attach_graph_check();
		if (!err)
			err = copy_filters(&ps_graph_ops, &ps_function_ops);
		if (err)
			return ret(err);
	}
	return patchsite_register_function(want);
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

const char *patchsite_get_tracer(void)
{
	struct patchsite_ops *cur;

	pthread_mutex_lock(&ps.lock);
	cur = current_tracer();
	pthread_mutex_unlock(&ps.lock);

	if (cur == &ps_graph_ops)
		return ps_graph_latency() ? "latency" : "function_graph";
	return cur == &ps_function_ops ? "function" : "nop";
}

unsigned patchsite_get_graph_max_depth(void)
{
	return ps_graph_max_depth;
}

unsigned long patchsite_get_buffer_kb(void)
{
	return (unsigned long)(ps_ring_bytes / 1024);
}

int patchsite_set_graph_max_depth(unsigned depth)
{
	if (depth < 1 || depth > 1024)
		return ret(-EINVAL);
	ps_graph_max_depth = depth;
	return 0;
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
	unsigned flags = (s->state == SITE_CALL ? PATCHSITE_FUNC_ENABLED : 0) |
			 (s->state == SITE_REFUSED ? PATCHSITE_FUNC_REFUSED : 0);

	for (size_t k = 0; k <= na; k++) {
		const struct ps_sym *sym = k ? &a[k - 1] : s->sym;
		struct func_entry *e = &list[*n];

		if (k && sym == s->sym)
			continue;	/* the first entry named it */
		if (k && (sym->size ? s->addr >= sym->addr + sym->size : s->addr != sym->addr))
			continue;	/* a name at the address that does not cover the site */
		e->name = sym ? strdup(sym->name) : NULL;
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

/* One line on stderr for a bad setting; the program then runs untraced. */
static void env_bad(const char *var, const char *why)
{
	char line[768];
	int n = snprintf(line, sizeof(line), "patchsite: error: %s: %s: not tracing\n", var, why);
	const char *out = getenv("PATCHSITE_OUTPUT");
	struct stat sb;
	int fd;

	if (n > 0)
		(void)!write(STDERR_FILENO, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
	/* A trace file of an earlier run must not pass for this one's: it says why there is none. */
	if (out && *out && !stat(out, &sb) && S_ISREG(sb.st_mode) &&
	    (fd = open(out, O_WRONLY | O_TRUNC | O_CLOEXEC)) >= 0) {
		if (n > 0)
			(void)!write(fd, "# ", 2), (void)!write(fd, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
		close(fd);
	}
}

/*
 * The standard streams by name share the program's file and offset: a new
 * open of /dev/stdout redirected to a file would truncate it and write over
 * what the program writes.
 */
static int output_fd(const char *output)
{
	if (!output || !*output || !strcmp(output, "/dev/stderr"))
		return fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
	if (!strcmp(output, "-") || !strcmp(output, "/dev/stdout"))
		return fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
	return open(output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
}

/* The variables env_start reads; any other PATCHSITE_* is probably misspelt. */
static const char *const env_known[] = {
	"PATCHSITE_TRACER", "PATCHSITE_FILTER", "PATCHSITE_NOTRACE", "PATCHSITE_OUTPUT",
	"PATCHSITE_BUFFER_KB", "PATCHSITE_FORMAT", "PATCHSITE_GRAPH_FUNCTION",
	"PATCHSITE_MAX_DEPTH", "PATCHSITE_LOG", "PATCHSITE_DATA", "PATCHSITE_OVERWRITE",
	"PATCHSITE_CTL",	/* channel.c */
	"PATCHSITE_TRACING_ON", "PATCHSITE_PID", "PATCHSITE_THRESH", "PATCHSITE_ARGS",
	"PATCHSITE_GRAPH_NOTRACE", "PATCHSITE_TRIGGER", "PATCHSITE_OPTIONS",
	"PATCHSITE_EVENTS",
	"PATCHSITE_BRANCHES",
	"PATCHSITE_LIB",	/* read by `patchsite record` */
	NULL
};

/* Letters to change, add or drop to turn a into b (small strings only). */
static unsigned edit_distance(const char *a, const char *b)
{
	unsigned d[64], la = (unsigned)strlen(a), lb = (unsigned)strlen(b);

	if (la >= 63 || lb >= 63)
		return 99;
	for (unsigned j = 0; j <= lb; j++)
		d[j] = j;
	for (unsigned i = 1; i <= la; i++) {
		unsigned diag = d[0], tmp;

		d[0] = i;
		for (unsigned j = 1; j <= lb; j++) {
			tmp = d[j];
			d[j] = diag + (a[i - 1] != b[j - 1]);
			if (d[j - 1] + 1 < d[j])
				d[j] = d[j - 1] + 1;
			if (tmp + 1 < d[j])
				d[j] = tmp + 1;
			diag = tmp;
		}
	}
	return d[lb];
}

/* A PATCHSITE_* variable nobody reads: a warning, with the nearest known name. */
static void env_check_names(void)
{
	extern char **environ;

	for (char **e = environ; e && *e; e++) {
		const char *eq = strchr(*e, '='), *best = NULL;
		char name[64], line[256];
		unsigned bd = 99;
		int n;

		if (strncmp(*e, "PATCHSITE_", 10) || !eq || (size_t)(eq - *e) >= sizeof(name))
			continue;
		memcpy(name, *e, (size_t)(eq - *e));
		name[eq - *e] = 0;
		for (unsigned k = 0; env_known[k]; k++) {
			unsigned d = edit_distance(name, env_known[k]);

			if (d < bd)
				bd = d, best = env_known[k];
		}
		if (!bd)
			continue;
		if (bd <= 3)
			n = snprintf(line, sizeof(line), "patchsite: warning: %s: not a variable "
				     "patchsite reads (did you mean %s?)\n", name, best);
		else
			n = snprintf(line, sizeof(line), "patchsite: warning: %s: not a variable "
				     "patchsite reads\n", name);
		if (n > 0)
			(void)!write(STDERR_FILENO, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
	}
}

/* PATCHSITE_OVERWRITE: 1 or 0 (unset: 0). */
static int env_overwrite(bool *on)
{
	const char *v = getenv("PATCHSITE_OVERWRITE");

	*on = v && !strcmp(v, "1");
	return !v || !*v || !strcmp(v, "0") || !strcmp(v, "1") ? 0 : -EINVAL;
}

/* No PATCHSITE_OUTPUT: record into the trace directory (PATCHSITE_DATA). */
static int env_store(const char *tracer, bool for_output)
{
	const char *dir = getenv("PATCHSITE_DATA"), *tmp = getenv("TMPDIR");
	char why[4400], made[4096];
	bool over;
	int err;

	if (env_overwrite(&over)) {
		env_bad("PATCHSITE_OVERWRITE", "expected 0 or 1");
		return -EINVAL;
	}
	if (ps_options_env(&over)) {
		env_bad("PATCHSITE_OPTIONS", ps_last_error);
		return -EINVAL;
	}
	if ((!dir || !*dir) && for_output) {
		/* Only for PATCHSITE_OUTPUT: a private session, removed once the trace is written. */
		snprintf(made, sizeof(made), "%s/patchsite-XXXXXX", tmp && *tmp ? tmp : "/tmp");
		dir = mkdtemp(made);
		if (!dir) {
			snprintf(why, sizeof(why), "cannot make a directory to record into: %s",
				 strerror(errno));
			env_bad("PATCHSITE_OUTPUT", why);
			return -errno;
		}
		env_tmp_data = true;
	}
	if (!dir || !*dir)
		dir = "patchsite.data";
	err = ps_store_open(dir, tracer, over, ps_ring_bytes);
	if (!err)
		ps_options_started(over);
	if (err && env_tmp_data)
		rmdir(dir);
	if (err) {
		snprintf(why, sizeof(why), "cannot record into '%s': %s", dir, strerror(-err));
		env_bad("PATCHSITE_DATA", why);
	}
	return err;
}

/* A private trace directory not to be rendered after all. */
static void env_drop_data(void)
{
	if (env_tmp_data && ps_store_on())
		ps_store_remove();
	env_tmp_data = false;
}

/* PATCHSITE_TRIGGER: filter commands (FUNC:traceoff:2 ...), separated by blanks or ';'. */
static int env_triggers(void)
{
	const char *v = getenv("PATCHSITE_TRIGGER");
	char tok[512];

	for (; v && *v;) {
		size_t n = strcspn(v, " \t\n;");

		if (n >= sizeof(tok)) {
			env_bad("PATCHSITE_TRIGGER", "a command longer than 511 characters");
			return -1;
		}
		memcpy(tok, v, n);
		tok[n] = '\0';
		if (n && patchsite_set_trigger(tok, 0)) {
			env_bad("PATCHSITE_TRIGGER", ps_last_error);
			return -1;
		}
		v += n + (v[n] != '\0');
	}
	return 0;
}

/* The settings that are also control files (recctl.c), written through them. */
static int env_controls(void)
{
	static const char *const vars[][2] = {
		{ "PATCHSITE_TRACING_ON", "tracing_on" },
		{ "PATCHSITE_PID", "set_ftrace_pid" },
		{ "PATCHSITE_THRESH", "tracing_thresh" },
		{ "PATCHSITE_ARGS", "set_ftrace_args" },
		{ "PATCHSITE_GRAPH_NOTRACE", "set_graph_notrace" },
	};

	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		const char *v = getenv(vars[i][0]);

		if (v && *v && patchsite_ctl_write(vars[i][1], v, 0)) {
			env_bad(vars[i][0], ps_last_error);
			return -1;
		}
	}
	return env_triggers();
}

/*
 * PATCHSITE_EVENTS: rules applied now and to objects loaded later.  With
 * no tracer the events are recorded alone, into the trace directory (also
 * with PATCHSITE_DATA alone, for a program with events that enables them).
 * True when the start-up is over (no tracer, or an error said).
 */
static bool env_events(const char *tracer)
{
	const char *ev = getenv("PATCHSITE_EVENTS");
	bool alone = !tracer || !*tracer;

	if ((!ev || !*ev) && !(alone && getenv("PATCHSITE_DATA") && ps_event_count()))
		return false;	/* PATCHSITE_DATA alone: recorded for events the program enables */
	if (patchsite_init()) {
		env_bad("PATCHSITE_EVENTS", ps_last_error);
		return true;
	}
	if (alone && !getenv("PATCHSITE_OUTPUT") && env_store("nop", false))
		return true;
	pthread_mutex_lock(&ps.lock);
	ps_events_env();
	ps_events_store();
	pthread_mutex_unlock(&ps.lock);
	if (alone && !getenv("PATCHSITE_LOG"))
		ps_log_stderr(PATCHSITE_LOG_WARNING, PATCHSITE_LOG_ERROR);
	return alone;
}

/*
 * PATCHSITE_BRANCHES: 1 records the branch profiler's counts into the
 * trace directory even with no tracer set (PATCHSITE_DATA, else
 * ./patchsite.data); 0 never writes them; unset: written wherever a trace
 * directory is recorded.  Nonzero: env_start has nothing more to do.
 */
static int env_branches(const char *tracer)
{
	const char *v = getenv("PATCHSITE_BRANCHES");
	int err;

	if (!v || !*v)
		return 0;
	if (strcmp(v, "0") && strcmp(v, "1")) {
		env_bad("PATCHSITE_BRANCHES", "expected 0 or 1");
		return -EINVAL;
	}
	ps_branches_off = !strcmp(v, "0");
	if (ps_branches_off || (tracer && *tracer) || ps_store_on())
		return 0;	/* nothing to open: off, a tracer's directory, or the events' */
	err = patchsite_init();
	if (err && err != -ENOTSUP)
		env_bad("PATCHSITE_BRANCHES", ps_last_error);
	if (err)
		return err;
	if (!getenv("PATCHSITE_LOG"))
		ps_log_stderr(PATCHSITE_LOG_WARNING, PATCHSITE_LOG_ERROR);	/* counts lost, say so */
	return env_store("nop", false) ? -EINVAL : 1;
}

static void env_start(void)
{
	const char *tracer = getenv("PATCHSITE_TRACER");
	const char *filter = getenv("PATCHSITE_FILTER");
	const char *notrace = getenv("PATCHSITE_NOTRACE");
	const char *output = getenv("PATCHSITE_OUTPUT");
	const char *kb = getenv("PATCHSITE_BUFFER_KB");
	const char *format = getenv("PATCHSITE_FORMAT");
	const char *trigger = getenv("PATCHSITE_GRAPH_FUNCTION");
	const char *depth = getenv("PATCHSITE_MAX_DEPTH");
	int fd, err;
	bool done;

	env_check_names();
	done = env_events(tracer);
	if (env_branches(tracer) || done)
		return;
	if (!tracer || !*tracer)
		return;
	if (strcmp(tracer, "function") && strcmp(tracer, "function_graph") &&
	    strcmp(tracer, "latency") && strcmp(tracer, "nop")) {
		char why[128];

		snprintf(why, sizeof(why), "unknown tracer '%s' (function, function_graph, latency, "
			 "nop)", tracer);
		env_bad("PATCHSITE_TRACER", why);
		return;
	}
	if (format && *format) {
		if (!strcmp(format, "ftrace"))
			ps_format = PS_FORMAT_FTRACE;
		else if (!strcmp(format, "chrome"))
			ps_format = PS_FORMAT_CHROME;
		else if (!strcmp(format, "folded"))
			ps_format = PS_FORMAT_FOLDED;
		else {
			env_bad("PATCHSITE_FORMAT", "expected ftrace, chrome or folded");
			return;
		}
		if (ps_format == PS_FORMAT_FOLDED && strcmp(tracer, "function_graph")) {
			env_bad("PATCHSITE_FORMAT", "folded stacks need PATCHSITE_TRACER=function_graph");
			return;
		}
	}
	if (depth && *depth) {
		char *end;
		unsigned long v = strtoul(depth, &end, 10);

		if (*end || patchsite_set_graph_max_depth((unsigned)v) || v != (unsigned)v) {
			env_bad("PATCHSITE_MAX_DEPTH", "expected a depth from 1 to 1024");
			return;
		}
	}
	if (kb && *kb) {
		char *end;
		unsigned long v = strtoul(kb, &end, 10);

		if (*end || patchsite_set_buffer_kb(v)) {
			env_bad("PATCHSITE_BUFFER_KB", "expected a size in KB from 4 to 4194304");
			return;
		}
	}
	err = patchsite_init();
	if (err == -ENOTSUP)
		return;		/* a copy in another namespace: it said so */
	if (err) {
		env_bad("PATCHSITE_TRACER", ps_last_error);
		return;
	}
	if (filter && *filter && patchsite_set_filter(NULL, filter, 1)) {
		env_bad("PATCHSITE_FILTER", ps_last_error);
		return;
	}
	if (notrace && *notrace && patchsite_set_notrace(NULL, notrace, 1)) {
		env_bad("PATCHSITE_NOTRACE", ps_last_error);
		return;
	}
	if (trigger && *trigger && patchsite_set_graph_function(trigger, 1)) {
		env_bad("PATCHSITE_GRAPH_FUNCTION", ps_last_error);
		return;
	}
	if (env_controls())
		return;
	if (!output && strcmp(tracer, "nop")) {
		if (env_store(tracer, false))
			return;
		if (patchsite_set_tracer(tracer))
			env_bad("PATCHSITE_TRACER", ps_last_error[0] ? ps_last_error : strerror(errno));
		else if (!getenv("PATCHSITE_LOG"))
			ps_log_stderr(PATCHSITE_LOG_WARNING, PATCHSITE_LOG_ERROR);
		return;
	}
	/*
	 * PATCHSITE_OUTPUT: recorded into a trace directory all the same (a
	 * private one unless PATCHSITE_DATA names one), rendered into the file
	 * at exit by the code `patchsite replay` and `dump` use.  The file is
	 * opened last: a setting that fails leaves no file behind.
	 */
	if (strcmp(tracer, "nop") && env_store(tracer, true))
		return;
	if (patchsite_set_tracer(tracer)) {
		env_bad("PATCHSITE_TRACER", ps_last_error[0] ? ps_last_error : strerror(errno));
		env_drop_data();
		return;
	}
	fd = output_fd(output);
	if (fd < 0) {
		char why[600];

		snprintf(why, sizeof(why), "cannot open '%s': %s", output ? output : "stderr",
			 strerror(errno));
		patchsite_set_tracer("nop");
		env_bad("PATCHSITE_OUTPUT", why);
		env_drop_data();
		return;
	}
	env_out_fd = fd;
	if (!getenv("PATCHSITE_LOG"))
		ps_log_stderr(PATCHSITE_LOG_WARNING, PATCHSITE_LOG_ERROR);	/* later errors too */
}

__attribute__((constructor)) static void ps_start(void)
{
	patchsite_init();
	env_start();
	if (!ps.init_err)
		ps_channel_start();
}

/*
 * Event hits the in-memory buffer had no room for, with no trace directory
 * to say so (its threads' files count them): said here, once, whether or
 * not the program logs (never a silent loss).
 */
static void events_lost_say(void)
{
	unsigned long lost = 0;
	char line[300];
	int n;

	if (ps_store_on())
		return;
	pthread_mutex_lock(&ps.lock);
	for (struct ps_event *ev = ps_event_first(); ev; ev = ev->next)
		lost += atomic_load_explicit(&ev->lost, memory_order_relaxed);
	pthread_mutex_unlock(&ps.lock);
	if (!lost)
		return;
	n = snprintf(line, sizeof(line), "patchsite: warning: %lu static trace event hits not "
		     "recorded: the in-memory buffer was full (record into a trace directory: "
		     "PATCHSITE_DATA or patchsite record)\n", lost);
	if (n > 0)
		(void)!write(STDERR_FILENO, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
}

__attribute__((destructor)) static void ps_stop(void)
{
	int err;

	ps_channel_stop();
	events_lost_say();
	ps_store_finish();
	if (env_out_fd < 0)
		return;
	patchsite_set_tracer("nop");
	err = patchsite_trace_write(env_out_fd);
	if (close(env_out_fd) && !err)
		err = -errno;
	env_out_fd = -1;
	if (env_tmp_data && ps_store_on()) {
		pthread_mutex_lock(&ps.lock);
		if (ps_branches_any())
			ps_log(PATCHSITE_LOG_WARNING, "branch counts (patchsite_likely/unlikely) are "
			       "not in PATCHSITE_OUTPUT's trace: set PATCHSITE_DATA to keep them");
		pthread_mutex_unlock(&ps.lock);
		ps_store_remove();
	}
	/* A trace cut short must not pass for a whole one. */
	if (err) {
		const char *out = getenv("PATCHSITE_OUTPUT");
		char line[600];
		int n = snprintf(line, sizeof(line), "patchsite: %s: writing the trace: %s: it is "
				 "incomplete\n", out && *out ? out : "stderr", strerror(-err));

		if (n > 0)
			(void)!write(STDERR_FILENO, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
	}
}
