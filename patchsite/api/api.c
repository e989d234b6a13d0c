// SPDX-License-Identifier: GPL-2.0-only
/*
 * Public entry points: ops, filters, tracing on/off, the function list
 * and counters.  The runtime is started by api_init.c's patchsite_init,
 * which each of them calls first; start-up from the environment is
 * hooks/start.c's.
 *
 * Every change (ops, filters, the tracing switch) takes ps.lock, recomputes
 * which sites are wanted and patches the difference live.  Ops callbacks
 * must not call back into this API: unregistering waits for callbacks to
 * return while holding the lock.  Before it takes the lock, each change
 * looks for objects loaded behind our back (ps_loader_prepare), which the
 * change then adds.

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
		return ps_api_ret(-EINVAL);
	err = patchsite_init();
	if (err)
		return err;
	ps_loader_prepare(&a);
	pthread_mutex_lock(&ps.lock);
	err = ps_ops_register(ops, &a);
	pthread_mutex_unlock(&ps.lock);
	ps_loader_done(&a);
	return ps_api_ret(err);
}

int patchsite_unregister_function(struct patchsite_ops *ops)
{
	struct ps_arrivals a;
	int err;

	if (!ops)
		return ps_api_ret(-EINVAL);
	ps_loader_prepare(&a);
	pthread_mutex_lock(&ps.lock);
	err = ps_ops_unregister(ops, &a);
	pthread_mutex_unlock(&ps.lock);
	ps_loader_done(&a);
	return ps_api_ret(err);
}

int patchsite_ops_release(struct patchsite_ops *ops)
{
	int err = 0;

	if (!ops)
		return ps_api_ret(-EINVAL);
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
	return ps_api_ret(err);
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
	return ps_api_ret(err);
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
		return ps_api_ret(err);
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
	return ps_api_ret(err);
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
	return ps_api_ret(err);
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
	return ps_api_ret(err);
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
		return ps_api_ret(-ENOMEM);
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
		return atomic_load_explicit(&ps_init_ns, memory_order_relaxed);
	if (!strcmp(name, "init_cpu_ns"))
		return atomic_load_explicit(&ps_init_cpu_ns, memory_order_relaxed);
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

