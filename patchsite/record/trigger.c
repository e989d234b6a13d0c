// SPDX-License-Identifier: GPL-2.0-only
/*
 * ftrace's filter commands on function entry:
 *	FUNC:traceon[:N]  FUNC:traceoff[:N]  FUNC:snapshot[:N]  FUNC:stacktrace[:N]
 * N is how many more times the command fires (none: every time); as in
 * ftrace, traceon and traceoff count only the times they change the switch.
 * `!FUNC:cmd` removes it.  Listed one function a line, as ftrace lists them:
 * `leaf:traceoff:count=2`, `leaf:stacktrace:unlimited`.
 *
 * The functions with a command are the filter of an ops of our own
 * (ps_trigger_ops), registered while any command is set and published
 * first in the dispatcher's list (dispatch.c): a command fires before the
 * call is recorded, so `leaf:traceoff` does not record that call of leaf
 * and `leaf:traceon` does.  It runs while tracing is off (dispatch.c).
 * Inside the dispatcher nothing may take ps.lock: the switch is flipped
 * with one store (the generic trampoline, in use while this ops is
 * registered, reads it on every call).
 *
 * The table (one entry per function and command, by site index) is
 * immutable once published, but for its counters, and freed after a grace
 * period.  Changes are serialized by their own mutex.
 */
#include <errno.h>
#include <execinfo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/textbuf.h"
#include "record/record.h"
#include "data/format.h"

enum trig_cmd { TRIG_TRACEON, TRIG_TRACEOFF, TRIG_SNAPSHOT, TRIG_STACKTRACE, TRIG_N };
static const char *const cmd_names[TRIG_N] = { "traceon", "traceoff", "snapshot", "stacktrace" };

struct trig {
	size_t gindex;
	const struct ps_site *site;
	enum trig_cmd cmd;
	_Atomic long count;		/* -1: unlimited */
};

struct trig_table {
	size_t n;
	struct trig e[];		/* by gindex, then cmd */
};

static _Atomic(struct trig_table *) table;
static pthread_mutex_t trig_lock = PTHREAD_MUTEX_INITIALIZER;

/* One more firing allowed: true, the count taken. */
static bool take_count(_Atomic long *c)
{
	long v = atomic_load_explicit(c, memory_order_relaxed);

	do {
		if (v == 0)
			return false;
		if (v < 0)
			return true;
	} while (!atomic_compare_exchange_weak(c, &v, v - 1));
	return true;
}

/*
 * PSD_EXT_STACK: the site id, then the return addresses from the
 * function's caller outwards (the unwinder sees through function_graph's
 * hooks, record/unwind.c).  The frames of the runtime itself are left out: the
 * walk starts at the return address into the caller, where regs says it is.
 */
static void record_stack(const struct ps_site *s, struct patchsite_regs *regs)
{
	void *pc[64];
	uint64_t w[65];
	uintptr_t ret = *patchsite_regs_parent_loc(regs);
	int n = backtrace(pc, 64), i = 0, k = 1;

	while (i < n && (uintptr_t)pc[i] != ret)
		i++;
	w[0] = s->id;
	if (i == n)
		w[k++] = ret;	/* the walk missed it: the caller alone, from the slot */
	for (; i < n && k < 65; i++)
		w[k++] = (uintptr_t)pc[i];
	ps_ring_ext(PSD_EXT_STACK, w, (unsigned)k);
}

static void fire(struct trig *e, struct patchsite_regs *regs)
{
	bool on;

	switch (e->cmd) {
	case TRIG_TRACEON:
	case TRIG_TRACEOFF:
		on = e->cmd == TRIG_TRACEON;
		if (atomic_load(&ps.tracing_on) == on || !take_count(&e->count))
			return;
		atomic_store(&ps.tracing_on, on);
		return;
	case TRIG_SNAPSHOT:
		if (take_count(&e->count))
			ps_snapshot_take();
		return;
	case TRIG_STACKTRACE:
		if (ps_gate_open(ps_thread_self()) && take_count(&e->count))
			record_stack(e->site, regs);
		return;
	default:
		return;
	}
}

static void trigger_call(unsigned long ip, unsigned long parent, struct patchsite_ops *op,
			 struct patchsite_regs *regs)
{
	struct trig_table *tb = atomic_load_explicit(&table, memory_order_acquire);
	struct ps_thread *t = ps_thread_self();
	const struct ps_site *s;
	size_t lo = 0, hi;

	(void)ip, (void)parent, (void)op;
	if (!tb || !t)
		return;
	s = ps_site_by_id(t->cur_idw >> 2);
	hi = tb->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (tb->e[mid].gindex < s->gindex)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < tb->n && tb->e[lo].gindex == s->gindex; lo++)
		fire(&tb->e[lo], regs);
}

struct patchsite_ops ps_trigger_ops = { .func = trigger_call };
/* traceon must fire while tracing is off, and a command before the call is recorded. */
const struct ps_ops_props ps_trigger_props = { .always = true, .first = true };

static int cmp_trig(const void *a, const void *b)
{
	const struct trig *x = a, *y = b;

	if (x->gindex != y->gindex)
		return x->gindex < y->gindex ? -1 : 1;
	return (int)x->cmd - (int)y->cmd;
}

/*
 * The new table: the old one's entries but for cmd on the sites in sel
 * (removed, or added/replaced with count).  ps.lock held.
 */
static struct trig_table *table_edit(const struct trig_table *old, const uint8_t *sel,
				     enum trig_cmd cmd, long count, bool remove)
{
	size_t n = 0, add = 0;
	struct trig_table *tb;

	for (size_t i = 0; i < ps.nsites; i++)
		add += sel[i] && ps.site_index[i] && ps.site_index[i]->kind != SITE_EXIT;
	tb = malloc(sizeof(*tb) + ((old ? old->n : 0) + add) * sizeof(struct trig));
	if (!tb)
		return NULL;
	for (size_t i = 0; old && i < old->n; i++) {
		const struct trig *e = &old->e[i];

		if (e->cmd == cmd && e->gindex < ps.nsites && sel[e->gindex])
			continue;
		tb->e[n] = (struct trig){ e->gindex, e->site, e->cmd,
					  atomic_load(&((struct trig *)e)->count) };
		n++;
	}
	for (size_t i = 0; !remove && i < ps.nsites; i++)
		if (sel[i] && ps.site_index[i] && ps.site_index[i]->kind != SITE_EXIT)
			tb->e[n++] = (struct trig){ i, ps.site_index[i], cmd, count };
	tb->n = n;
	qsort(tb->e, n, sizeof(struct trig), cmp_trig);
	return tb;
}

/* The trigger ops' filter: exactly the sites in tb.  ps.lock held. */
static int set_sites(const struct trig_table *tb)
{
	struct ps_ops_state *st = ps_ops_state(&ps_trigger_ops);
	uint8_t *set;

	if (!st)
		return -ENOMEM;
	set = calloc(ps.nsites ? ps.nsites : 1, 1);
	if (!set)
		return -ENOMEM;
	for (size_t i = 0; tb && i < tb->n; i++)
		set[tb->e[i].gindex] = 1;
	ps_globs_free(&st->filter);
	st->filter.set = set;	/* no text: objects loaded later get no command */
	if (st->registered) {
		ps_recompute_want();
		return ps_loader_sync(NULL);
	}
	return 0;
}

/* ps.lock held: the sites glob names (":mod:" too), into *sel. */
static int select_sites(const char *glob, uint8_t **sel)
{
	struct ps_globs g = { .set = NULL };
	int err = ps_filter_apply(&g, glob, 1, "filter command");

	free(g.text);
	if (!err && !g.set)
		err = -ENOMEM;	/* a glob always selects something or fails */
	*sel = g.set;
	return err;
}

/*
 * A command's name and count (arg, or NULL: unlimited), checked before the
 * runtime starts: *cmd its index, *count -1 for unlimited.
 */
int ps_trigger_parse(const char *glob, const char *cmd, const char *arg, unsigned *c_out,
		     long *count_out)
{
	enum trig_cmd c;
	long count = -1;

	for (c = 0; c < TRIG_N && strcmp(cmd, cmd_names[c]); c++)
		;
	if (c == TRIG_N) {
		ps_log(PATCHSITE_LOG_ERROR, "%s: no such filter command (traceon, traceoff, "
		       "snapshot, stacktrace)", cmd);
		return -EINVAL;
	}
	if (arg && *arg) {
		char *end;

		count = strtol(arg, &end, 10);
		if (*end || count < 0) {
			ps_log(PATCHSITE_LOG_ERROR, "%s:%s:%s: the count must be a number", glob,
			       cmd, arg);
			return -EINVAL;
		}
	}
	*c_out = c;
	*count_out = count;
	return 0;
}

/* The trigger ops registered (on) or not: as patchsite_(un)register_function. */
static int trigger_ops(bool on)
{
	struct ps_arrivals a;
	int err;

	ps_loader_prepare(&a);
	pthread_mutex_lock(&ps.lock);
	err = on ? ps_ops_register(&ps_trigger_ops, &a) : ps_ops_unregister(&ps_trigger_ops, &a);
	pthread_mutex_unlock(&ps.lock);
	ps_loader_done(&a);
	if (err < 0)
		errno = -err;
	return err;
}

/*
 * set_ftrace_filter's commands, once parsed (ps_trigger_parse): the sites
 * glob names get command cmd, count times (-1: every time), or lose it
 * (remove).  The runtime is started (api_record.c ps_filter_command).
 */
int ps_trigger_set(const char *glob, unsigned cmd, long count, bool remove)
{
	struct trig_table *old, *tb;
	enum trig_cmd c = (enum trig_cmd)cmd;
	uint8_t *sel = NULL;
	bool want;
	int err;

	if (c == TRIG_STACKTRACE && !ps.arch->unwinds_from_ops) {
		ps_log(PATCHSITE_LOG_ERROR, "stacktrace: not done on %s (the unwinder does not walk "
		       "from the trampoline into the traced function's callers there)",
		       ps.arch->name);
		return -ENOTSUP;
	}
	if (c == TRIG_STACKTRACE) {
		void *pc[2];

		backtrace(pc, 2);	/* loads libgcc_s now, not inside the dispatcher */
	}
	pthread_mutex_lock(&trig_lock);
	pthread_mutex_lock(&ps.lock);
	ps_all_syms();
	err = select_sites(glob, &sel);
	old = atomic_load(&table);
	tb = err ? NULL : table_edit(old, sel, c, count, remove);
	if (!err && !tb)
		err = -ENOMEM;
	free(sel);
	if (!err && tb->n)
		err = set_sites(tb);	/* before registering: never every site */
	if (!err) {
		atomic_store(&table, tb->n ? tb : NULL);
		if (!tb->n)
			free(tb);
		ps_sync_dispatchers();
		free(old);
	} else {
		free(tb);
	}
	want = atomic_load(&table) != NULL;
	pthread_mutex_unlock(&ps.lock);
	if (!err && want && !(ps_trigger_ops.state && ps_trigger_ops.state->s.registered))
		err = trigger_ops(true);
	else if (!err && !want && ps_trigger_ops.state && ps_trigger_ops.state->s.registered)
		err = trigger_ops(false);
	pthread_mutex_unlock(&trig_lock);
	return err;
}

/* As ftrace lists them: one function and command a line. */
void ps_filter_command_list(struct ps_buf *out)
{
	const struct trig_table *tb;
	char buf[256];

	pthread_mutex_lock(&trig_lock);
	tb = atomic_load(&table);
	for (size_t i = 0; tb && i < tb->n; i++) {
		long c = atomic_load(&((struct trig *)&tb->e[i])->count);

		ps_buf_printf(out, "%s:%s:", ps_site_name(tb->e[i].site, buf, sizeof(buf)),
			      cmd_names[tb->e[i].cmd]);
		if (c < 0)
			ps_buf_puts(out, "unlimited\n");
		else
			ps_buf_printf(out, "count=%ld\n", c);
	}
	pthread_mutex_unlock(&trig_lock);
}
