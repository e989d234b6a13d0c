// SPDX-License-Identifier: GPL-2.0-only
/*
 * set_ftrace_args (PATCHSITE_ARGS): integer arguments and return values
 * for the built-in tracers, as uftrace's -A/-R do.  A spec is
 *	GLOB@arg1,arg2,...,retval
 * (GLOB as in set_ftrace_filter, :mod: included); specs are separated by
 * ';', blanks or newlines.  argN asks for the first N arguments (the
 * highest N named), taken from the ABI's argument registers at entry
 * (arch.h arg_regs); retval for the return value (function_graph only:
 * the function tracer has no exits); read=KIND for a read= trigger's
 * values at entry and exit (readtrig.c).  The first spec that names a
 * function's arguments or return value is the one used for them; the
 * reads of every spec that names it are taken.  Globs apply to the objects loaded when the
 * spec was written.
 *
 * While any spec is set the built-in tracers take the C path (the fast
 * trampolines do not save the argument registers).  The table is immutable
 * once published and freed after a grace period (it is read inside the
 * dispatcher).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/textbuf.h"
#include "record/record.h"
#include "data/psread.h"

struct args_spec {
	struct ps_globs g;
	size_t nset;		/* sites g.set covers (objects loaded later are not) */
	unsigned nargs;
	bool retval;
	unsigned reads;		/* 1 << enum psd_read_kind */
	char *text;
};

struct args_table {
	unsigned n;
	struct args_spec e[];
};

static _Atomic(struct args_table *) table;

bool ps_args_on(void)
{
	return atomic_load_explicit(&table, memory_order_relaxed) != NULL;
}

/* -finstrument-functions: at its calls the registers hold this_fn and call_site, not args. */
static unsigned interposed_refused(void)
{
	static atomic_bool said;

	if (!atomic_exchange(&said, true))
		ps_log(PATCHSITE_LOG_WARNING, "set_ftrace_args: a function traced from its "
		       "-finstrument-functions calls gets no args or retval (the registers at "
		       "those calls hold other values)");
	return 0;
}

/*
 * The arguments to record at s's entry; *fs the frame's flags for its
 * exit: PS_FS_RETVAL, and the read= kinds << PS_FS_READ_SHIFT.
 */
unsigned ps_args_want(const struct ps_site *s, unsigned *fs)
{
	const struct args_table *tb = atomic_load_explicit(&table, memory_order_acquire);
	unsigned nargs = 0, reads = 0;
	bool named = false;

	*fs = 0;
	for (unsigned i = 0; tb && i < tb->n; i++) {
		const struct args_spec *a = &tb->e[i];

		if (s->gindex >= a->nset || !a->g.set[s->gindex])
			continue;
		reads |= a->reads;
		if (named || (!a->nargs && !a->retval))
			continue;
		named = true;
		if (s->state == SITE_INTERPOSED) {
			interposed_refused();
			continue;
		}
		*fs |= a->retval ? PS_FS_RETVAL : 0;
		nargs = a->nargs;
	}
	*fs |= reads << PS_FS_READ_SHIFT;
	return nargs;
}

static void table_free(struct args_table *tb)
{
	for (unsigned i = 0; tb && i < tb->n; i++) {
		ps_globs_free(&tb->e[i].g);
		free(tb->e[i].text);
	}
	free(tb);
}

/*
 * Arguments asked of a site after the prologue where the arch has them no
 * more (aarch64 -pg: x0 is _mcount's, the others copied away), or of a
 * no-flag site inside the entry block: refused by the first such
 * function's name, never read wrong.  ps.lock held.
 */
static int late_args_refused(const struct args_spec *a, const char *glob)
{
	for (size_t i = 0; a->nargs && i < a->nset; i++) {
		const struct ps_site *s = ps.site_index[i];

		if (a->g.set[i] && s && ps_site_args_unknown(s)) {
			ps_log(PATCHSITE_LOG_ERROR, "set_ftrace_args: '%s': %s was built without any "
			       "flag and its site is in its entry block, after instructions that may "
			       "change the argument registers (a no-flag site of form b): retval "
			       "only", glob, s->sym ? s->sym->name : "a function");
			return -ENOTSUP;
		}
		if (ps.arch->late_no_args && a->g.set[i] && s && s->kind == SITE_ENTRY_LATE) {
			ps_log(PATCHSITE_LOG_ERROR, "set_ftrace_args: '%s': %s is built -pg (a call "
			       "to %s after its prologue): its arguments are not in their registers "
			       "there on %s; retval only, or build with -fpatchable-function-entry",
			       glob, s->sym ? s->sym->name : "a function", ps.arch->hooks[0],
			       ps.arch->name);
			return -ENOTSUP;
		}
	}
	return 0;
}

/* One spec "GLOB@what,what": parsed into a; ps.lock held.  0 or -errno (said). */
static int parse_spec(const char *spec, size_t len, struct args_spec *a)
{
	char *text = strndup(spec, len), *at, *w, *save = NULL;
	int err = -EINVAL;

	*a = (struct args_spec){ .text = text ? strdup(text) : NULL };	/* as written */
	if (!text || !a->text) {
		free(text);
		return -ENOMEM;
	}
	at = strrchr(text, '@');
	if (!at || at == text || !at[1]) {
		ps_log(PATCHSITE_LOG_ERROR, "set_ftrace_args: '%s': expected FUNC@arg1,...,retval,read=KIND",
		       text);
		return -EINVAL;
	}
	*at = '\0';
	for (w = strtok_r(at + 1, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		char *end;
		unsigned long k;

		if (!strcmp(w, "retval")) {
			a->retval = true;
			continue;
		}
		if (!strncmp(w, "read=", 5)) {
			int k = psr_read_kind(w + 5);

			if (k < 0) {
				ps_log(PATCHSITE_LOG_ERROR, "set_ftrace_args: '%s': not a read= trigger "
				       "(proc/statm, page-fault, pmu-cycle, pmu-cache, pmu-branch)", w);
				goto bad;
			}
			a->reads |= 1u << k;
			continue;
		}
		k = strncmp(w, "arg", 3) ? 0 : strtoul(w + 3, &end, 10);
		if (!k || *end || k > ps.arch->arg_regs) {
			ps_log(PATCHSITE_LOG_ERROR, "set_ftrace_args: '%s': not an argument this "
			       "arch's registers hold (arg1..arg%u, retval)", w, ps.arch->arg_regs);
			goto bad;
		}
		if (k > a->nargs)
			a->nargs = (unsigned)k;
	}
	err = ps_filter_apply(&a->g, text, 1, "set_ftrace_args");
	if (err)
		goto bad;
	if (!a->g.set) {	/* no glob: every function */
		a->g.set = malloc(ps.nsites ? ps.nsites : 1);
		if (!a->g.set) {
			err = -ENOMEM;
			goto bad;
		}
		memset(a->g.set, 1, ps.nsites);
	}
	a->nset = ps.nsites;
	err = late_args_refused(a, text);
	if (err)
		goto bad;
	free(text);
	return 0;
bad:
	free(text);
	return err;
}

/* specs: ';', blank or newline separated; append keeps those set before. */
int ps_args_set(const char *specs, bool append)
{
	struct args_table *cur, *tb;
	unsigned cap = 1, n = 0;
	const char *p;
	int err = 0;

	if (!ps.arch->arg_regs || !ps.arch->exit_retval) {
		ps_log(PATCHSITE_LOG_ERROR, "set_ftrace_args: not done on %s (argument and return "
		       "registers are read on x86_64, aarch64 and riscv64)", ps.arch->name);
		return -ENOTSUP;
	}
	for (p = specs; *p; p++)
		cap += *p == ';' || *p == ' ' || *p == '\n' || *p == '\t';
	pthread_mutex_lock(&ps.lock);
	cur = atomic_load(&table);
	if (append && cur)
		cap += cur->n;
	tb = calloc(1, sizeof(*tb) + cap * sizeof(tb->e[0]));
	if (!tb) {
		pthread_mutex_unlock(&ps.lock);
		return -ENOMEM;
	}
	ps_all_syms();
	for (unsigned i = 0; append && cur && i < cur->n && !err; i++) {
		err = parse_spec(cur->e[i].text, strlen(cur->e[i].text), &tb->e[n]);
		n++;
	}
	for (p = specs; *p && !err;) {
		size_t len = strcspn(p, "; \t\n");

		if (len) {
			err = parse_spec(p, len, &tb->e[n]);
			n++;
		}
		p += len + (p[len] != '\0');
	}
	tb->n = n;
	if (err || !n) {
		table_free(tb);
		tb = NULL;
	}
	if (!err) {
		atomic_store(&table, tb);
		ps_tramp_select(false);
		ps_sync_dispatchers();
		table_free(cur);
	}
	pthread_mutex_unlock(&ps.lock);
	return err;
}

void ps_args_list(struct ps_buf *out)
{
	const struct args_table *tb;

	pthread_mutex_lock(&ps.lock);
	tb = atomic_load(&table);
	for (unsigned i = 0; tb && i < tb->n; i++)
		ps_buf_printf(out, "%s\n", tb->e[i].text);
	pthread_mutex_unlock(&ps.lock);
}
