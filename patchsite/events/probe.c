// SPDX-License-Identifier: GPL-2.0-only
/*
 * Dynamic probes (probe.h): each definition written to dynamic_events is
 * an event with no site of its own (event.c ps_event_define), so that
 * events/GRP/EVENT/{enable,filter,format,id}, set_event, the recorder and
 * every reader treat it as a static one.  What fires it is one ops of
 * ours, wanted by the probed functions only: their sites reach the
 * generic trampoline, which saves the argument registers; every other
 * function keeps its NOP or the fast trampolines.  At a hit the ops finds
 * the site's probes (a table sorted by address, replaced whole and freed
 * after a grace period), runs each enabled one's fetch program and hands
 * the values to the event's probes (the recorder), as an enabled static
 * site does through ps_event_fire.
 *
 * A value whose memory cannot be read drops that record: the thread's lost
 * events (in the trace directory: info, replay), the event's lost counter
 * and the probe's faults (listed in dynamic_events) count it.
 *
 * Here: the definitions (the dynamic_events file, each probe's event, its
 * functions' sites, its filter).  What runs at a hit, and the table it
 * reads, is in probe_hit.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/textbuf.h"
#include "data/format.h"
#include "event.h"
#include "record/record.h"
#include "probe.h"
#include "probe_fetch.h"
#include "probe_hits.h"


/*
 * Return probes removed: a call hooked before may still return through
 * them (record/retprobe.c keeps the pointer in its shadow frame), so they
 * are kept, disabled, as their events are (ps.lock).
 */
static struct probe *retired;

/* An event's probes changed (event_probe.c, ps.lock held): the enabled probes' functions. */
static int probes_changed(void)
{
	return ps_probe_defs ? ps_probe_publish(NULL) : 0;
}

static struct probe **probes_tail(void)
{
	struct probe **pp = &ps_probe_defs;

	while (*pp)
		pp = &(*pp)->next;
	return pp;
}

static struct probe *find(const char *group, const char *event, struct probe ***link)
{
	for (struct probe **pp = &ps_probe_defs; *pp; pp = &(*pp)->next)
		if (!strcmp((*pp)->def.group, group) && !strcmp((*pp)->def.event, event)) {
			if (link)
				*link = pp;
			return *pp;
		}
	return NULL;
}

static void probe_free(struct probe *p)
{
	if (p) {
		free(p->desc);
		free(p->set);
		free(p);
	}
}

/*
 * A field's kind and size in the record.  An integer (u8..u64, s8..s64,
 * x8..x64) takes its own size, as in the kernel's fprobe events: the
 * bytes a hit writes are most of what it costs (the thread's ring, then
 * the trace file), and three s32 arguments fit in 32 bytes with the
 * record's header and id where 8 bytes each took 40.  The readers
 * sign-extend a signed one by its size (format file: size, signed).
 * Floats are recorded as doubles, a char in 8 bytes, as before.
 */
static uint8_t field_kind(const struct ps_probe_arg *a, uint16_t *size)
{
	*size = 8;
	switch (a->type) {
	case PT_S: *size = a->size; return PATCHSITE_FIELD_SIGNED;
	case PT_U:
	case PT_X: *size = a->size; return PATCHSITE_FIELD_UNSIGNED;
	case PT_STRING: *size = sizeof(void *); return PATCHSITE_FIELD_STRING;
	case PT_FLOAT:
	case PT_DOUBLE: return PATCHSITE_FIELD_FLOAT;
	default: return PATCHSITE_FIELD_UNSIGNED;
	}
}

/* A return probe's first field: where the call returns to (the kernel's __probe_ret_ip). */
#define RET_IP_FIELD	"__probe_ret_ip"

/*
 * The print format, the kernel's: an entry probe's "FUNC(name=value, ...)"
 * as before; a return probe's "(caller+off/size <- FUNC) name=value ...",
 * its fields as written (an unnamed $retval is argN, as the kernel names it).
 */
static void print_format(const struct ps_probe_def *d, struct ps_buf *fmt)
{
	if (d->ret) {
		ps_buf_printf(fmt, "(%%pS <- %s)", d->func);
		for (unsigned i = 0; i < d->nargs; i++)
			ps_buf_printf(fmt, " %s=%s", d->a[i].name, ps_probe_type_fmt(&d->a[i]));
		return;
	}
	ps_buf_printf(fmt, "%s(", d->func);
	for (unsigned i = 0; i < d->nargs; i++)
		ps_buf_printf(fmt, "%s%s=%s", i ? ", " : "", d->a[i].name,
			      ps_probe_type_fmt(&d->a[i]));
	ps_buf_puts(fmt, ")");
}

/* The descriptor a static event would have: fields, "grp\0ev\0fmt\0" and each "name\0type\0". */
static struct patchsite_event *describe(const struct ps_probe_def *d)
{
	struct ps_buf text = { 0 }, fmt = { 0 };
	struct patchsite_event *e = NULL;
	struct patchsite_event_field *f;
	unsigned nf = d->nargs + d->ret;	/* a return probe's caller first */
	size_t head = sizeof(*e) + nf * sizeof(*f);

	print_format(d, &fmt);
	ps_buf_add(&text, d->group, strlen(d->group) + 1);
	ps_buf_add(&text, d->event, strlen(d->event) + 1);
	if (fmt.p)
		ps_buf_add(&text, fmt.p, strlen(fmt.p) + 1);
	if (d->ret)
		ps_buf_add(&text, RET_IP_FIELD "\0x64", sizeof(RET_IP_FIELD "\0x64"));
	for (unsigned i = 0; i < d->nargs; i++) {
		char tn[8];
		const char *t = ps_probe_type_name(&d->a[i], tn, sizeof(tn));

		ps_buf_add(&text, d->a[i].name, strlen(d->a[i].name) + 1);
		ps_buf_add(&text, t, strlen(t) + 1);
	}
	if (fmt.p && text.p)
		e = calloc(1, (head + text.len + 7) & ~(size_t)7);
	if (e) {
		e->magic = PATCHSITE_EVENT_MAGIC;
		e->version = PATCHSITE_EVENT_VERSION;
		e->nfields = (uint16_t)nf;
		e->text_off = (uint32_t)head;
		e->size = (uint32_t)(head + text.len);
		f = (struct patchsite_event_field *)(e + 1);
		if (d->ret) {
			f->kind = PATCHSITE_FIELD_POINTER;
			f->size = sizeof(void *);
			f++;
		}
		for (unsigned i = 0; i < d->nargs; i++)
			f[i].kind = field_kind(&d->a[i], &f[i].size);
		memcpy((char *)e + head, text.p, text.len);
	}
	ps_buf_free(&text);
	ps_buf_free(&fmt);
	return e;
}

/* The function's entry sites into p->set: 0, or -ENOENT said. */
static int resolve_func(struct probe *p)
{
	struct ps_globs g = { .set = NULL };
	size_t n = 0;
	int err;

	ps_all_syms();
	err = ps_filter_apply(&g, p->def.func, 1, "dynamic_events");
	free(g.text);
	for (size_t i = 0; !err && g.set && i < ps.nsites; i++) {
		if (g.set[i] && ps.site_index[i] && ps.site_index[i]->kind == SITE_EXIT)
			g.set[i] = 0;
		if (g.set[i] && ps.site_index[i] && p->def.nargs &&
		    ps_site_args_unknown(ps.site_index[i])) {
			ps_log(PATCHSITE_LOG_ERROR, "dynamic_events: %s: built without any flag, its "
			       "site is in its entry block, after instructions that may change the "
			       "registers and the stack a fetch argument reads (a no-flag site of "
			       "form b): no fetch arguments there", p->def.func);
			err = -ENOTSUP;
			break;
		}
		if (g.set[i] && ps.site_index[i] && p->def.ret && ps.site_index[i]->state ==
		    SITE_INTERPOSED) {
			ps_log(PATCHSITE_LOG_ERROR, "dynamic_events: %s%%return: a "
			       "-finstrument-functions function: its return value is not in a "
			       "register at __cyg_profile_func_exit (build with "
			       "-fpatchable-function-entry)", p->def.func);
			err = -ENOTSUP;
			break;
		}
		n += g.set[i] && ps.site_index[i];
	}
	if (!err && !n) {
		ps_log(PATCHSITE_LOG_ERROR, "dynamic_events: %s: no function of that name has a "
		       "site", p->def.func);
		err = -ENOENT;
	}
	if (err) {
		free(g.set);
		return err;
	}
	p->set = g.set;
	p->nset = ps.nsites;
	return 0;
}

/*
 * The definition's "if EXPR" as the event's filter (what events/G/E/filter
 * would set); a probe defined anew without one drops the old one.  0, or
 * -EINVAL said.
 */
static int set_filter(struct ps_event *ev, const char *expr)
{
	struct ps_evfilter *flt = NULL, *old;
	char why[256], *text = NULL;

	if (expr[0]) {
		if (ps_evfilter_parse(expr, ev->f, ev->nfields, &flt, why, sizeof(why))) {
			ps_log(PATCHSITE_LOG_ERROR, "dynamic_events: %s:%s: if %s: %s",
			       ev->info.subsys, ev->info.name, expr, why);
			return -EINVAL;
		}
		text = strdup(expr);
		if (!text) {
			ps_evfilter_free(flt);
			return -ENOMEM;
		}
	}
	old = atomic_exchange(&ev->filter, flt);
	free(ev->filter_text);
	ev->filter_text = text;
	ps_sync_dispatchers();		/* no recorder still reads the old one */
	ps_evfilter_free(old);
	return 0;
}

/*
 * A parsed definition added; ps.lock held.  enable: recorded at once
 * (PATCHSITE_PROBES).  trace: a conditional filter's (never recorded).
 */
static int probe_add(const struct ps_probe_def *d, bool enable, bool trace, struct ps_arrivals *a)
{
	struct probe *p;
	char why[300];
	bool on = enable;
	int err;

	if (find(d->group, d->event, NULL)) {
		ps_log(PATCHSITE_LOG_ERROR, "dynamic_events: %s/%s is defined already (-:%s/%s "
		       "removes it)", d->group, d->event, d->group, d->event);
		return -EEXIST;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->def = *d;
	p->trace_if = trace;
	d = &p->def;
	err = ps_fetch_compile(d, &p->prog, why, sizeof(why));
	if (err)
		ps_log(PATCHSITE_LOG_ERROR, "dynamic_events: %s/%s: %s", d->group, d->event, why);
	if (!err)
		err = resolve_func(p);
	if (!err && !(p->desc = describe(d)))
		err = -ENOMEM;
	if (!err && (err = ps_event_define(p->desc, &p->ev)) == -EEXIST)
		ps_log(PATCHSITE_LOG_ERROR, "dynamic_events: event %s:%s exists already with "
		       "other fields", d->group, d->event);
	if (!err && (err = set_filter(p->ev, d->filter)))
		p->ev->gone = true;	/* defined, but no probe: as one removed */
	if (err) {
		probe_free(p);
		return err;
	}
	p->desc->rt = p->ev;
	ps_event_probes_changed = probes_changed;
	ps_retprobe_fire = ps_probe_ret;
	*probes_tail() = p;		/* listed in the order defined */
	err = ps_probe_publish(a);
	if (!err && !trace && (ps_event_rules_say(p->ev, &on) || enable) && on && !p->ev->record)
		err = ps_event_probe_add(p->ev, ps_event_record, p->ev, PATCHSITE_EVENT_PRIO_DEFAULT);
	return err;
}

static int probe_remove(const char *group, const char *event, struct ps_arrivals *a)
{
	struct probe **link, *p = find(group, event, &link);
	int err;

	if (!p) {
		ps_log(PATCHSITE_LOG_ERROR, "dynamic_events: -:%s/%s: no such probe", group, event);
		return -ENOENT;
	}
	*link = p->next;
	err = ps_probe_publish(a);		/* after it, no thread fires p */
	if (p->ev->record)
		ps_event_probe_del(p->ev, ps_event_record, p->ev);
	p->ev->gone = true;		/* its format stays: old records name it */
	p->desc->rt = NULL;
	if (p->def.ret) {
		p->next = retired;	/* a hooked return may still name it */
		retired = p;
	} else {
		probe_free(p);
	}
	return err;
}

/* One line; ps.lock held. */
static int probe_line(const char *line, bool enable, struct ps_arrivals *a)
{
	struct ps_probe_def d;
	char why[300];

	if (ps_probe_parse(line, &d, why, sizeof(why))) {
		ps_log(PATCHSITE_LOG_ERROR, "dynamic_events: %s", why);
		return -EINVAL;
	}
	return d.remove ? probe_remove(d.group, d.event, a) : probe_add(&d, enable, false, a);
}

int ps_probes_write(const char *text, bool append, bool enable)
{
	struct ps_arrivals a;
	char line[4096];
	int err = 0;

	ps_loader_prepare(&a);
	pthread_mutex_lock(&ps.lock);
	/* Not the filter's conditions (set_ftrace_filter's own): their function would go untraced. */
	for (struct probe *p = ps_probe_defs, *next; !append && !err && p; p = next) {
		next = p->next;
		if (!p->trace_if)
			err = probe_remove(p->def.group, p->def.event, &a);
	}
	for (const char *s = text; *s && !err;) {
		size_t n = strcspn(s, "\n;");

		while (n && (*s == ' ' || *s == '\t')) {
			s++;
			n--;
		}
		if (n >= sizeof(line)) {
			ps_log(PATCHSITE_LOG_ERROR, "dynamic_events: a definition longer than %zu "
			       "characters", sizeof(line) - 1);
			err = -EINVAL;
			break;
		}
		memcpy(line, s, n);
		line[n] = '\0';
		if (n && line[0] != '#')
			err = probe_line(line, enable, &a);
		s += n + (s[n] != '\0');
	}
	ps_events_store();
	pthread_mutex_unlock(&ps.lock);
	ps_loader_done(&a);
	return err;
}

int ps_probes_trace_if(const struct ps_probe_def *defs, unsigned n, bool reset)
{
	struct ps_arrivals a;
	int err = 0;

	ps_loader_prepare(&a);
	pthread_mutex_lock(&ps.lock);
	for (struct probe *p = ps_probe_defs, *next; reset && !err && p; p = next) {
		next = p->next;
		if (p->trace_if)
			err = probe_remove(p->def.group, p->def.event, &a);
	}
	for (unsigned i = 0; i < n && !err; i++)
		err = probe_add(&defs[i], false, true, &a);
	pthread_mutex_unlock(&ps.lock);
	ps_loader_done(&a);
	return err;
}

void ps_probes_trace_if_list(struct ps_buf *out)
{
	pthread_mutex_lock(&ps.lock);
	for (struct probe *p = ps_probe_defs; p; p = p->next) {
		if (!p->trace_if)
			continue;
		ps_buf_printf(out, "%s", p->def.func);
		for (unsigned i = 0; i < p->def.nargs; i++) {
			char what[64], tn[16];

			snprintf(what, sizeof(what), "%s", ps_probe_type_text(&p->def.a[i], tn,
									sizeof(tn)));
			ps_buf_printf(out, " %s:%s", p->def.a[i].name, what);
		}
		ps_buf_printf(out, " if %s\n", p->def.filter);
	}
	pthread_mutex_unlock(&ps.lock);
}

void ps_probes_list(struct ps_buf *out)
{
	char text[4096];

	pthread_mutex_lock(&ps.lock);
	for (struct probe *p = ps_probe_defs; p; p = p->next) {
		unsigned long f = atomic_load(&p->faults);

		ps_probe_text(&p->def, text, sizeof(text));
		ps_buf_printf(out, "%s", text);
		if (f)
			ps_buf_printf(out, "\t# %lu hits lost: memory not readable", f);
		f = atomic_load(&p->unhooked);
		if (f)
			ps_buf_printf(out, "\t# %lu returns not hooked: a stack not the thread's own "
				      "or the shadow stack full", f);
		ps_buf_puts(out, "\n");
	}
	pthread_mutex_unlock(&ps.lock);
}

