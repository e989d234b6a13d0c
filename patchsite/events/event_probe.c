// SPDX-License-Identifier: GPL-2.0-only
/*
 * Static trace events: what an enabled site reaches (ps_event_fire), the
 * probes of each event, and the rules that enable events by glob, now and
 * for objects loaded later.  An event's probe list is replaced whole and
 * the old one freed after a grace period, as the dispatcher's ops list.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "event.h"
#include "record/record.h"

struct rule {
	char *glob;
	bool on;
	struct rule *next;
};


static struct rule *rules, **rules_tail = &rules;
int (*ps_event_probes_changed)(void);

bool ps_event_rules_say(const struct ps_event *ev, bool *on)
{
	char full[256];
	bool any = false;

	snprintf(full, sizeof(full), "%s:%s", ev->info.subsys, ev->info.name);
	for (struct rule *r = rules; r; r = r->next)
		if (!fnmatch(r->glob, full, 0)) {
			*on = r->on;
			any = true;
		}
	return any;
}

static void widen(const struct ps_event *ev, const uint64_t *raw, unsigned long long *args)
{
	for (unsigned i = 0; i < ev->nfields; i++) {
		const struct ps_evfield *f = &ev->f[i];
		uint64_t v = raw[i];

		if (f->kind == PATCHSITE_FIELD_SIGNED && f->size < 8) {
			unsigned sh = 64 - 8 * f->size;

			v = (uint64_t)((int64_t)(v << sh) >> sh);
		} else if (f->kind == PATCHSITE_FIELD_FLOAT && f->size == 4) {
			float x;
			double y;

			memcpy(&x, &raw[i], 4);
			y = x;
			memcpy(&v, &y, 8);
		}
		args[i] = v;
	}
}

/* Reached from an enabled site (patchsite__fire): every probe, highest priority first. */
static void ps_event_fire(const struct patchsite_event *d, const uint64_t *raw)
{
	struct ps_event *ev = __atomic_load_n(&d->rt, __ATOMIC_ACQUIRE);
	static __thread int inside __attribute__((tls_model("initial-exec")));
	unsigned long long wide[8];
	const unsigned long long *args = (const unsigned long long *)raw;
	struct ps_probe_list *l;
	struct ps_thread *t;
	unsigned long seq;

	if (!ev || inside)
		return;		/* a probe's own events are not recorded (as the dispatcher) */
	t = ps_self;		/* set after the thread's first event: no call */
	if (!t && !(t = ps_thread_self()))
		return;
	inside = 1;
	seq = ps_reader_enter(t);
	l = atomic_load_explicit(&ev->probes, memory_order_acquire);
	ps_event_tally(&ev->hits);
	if (l && ev->widen) {
		widen(ev, raw, wide);
		args = wide;
	}
	for (unsigned i = 0; l && i < l->n; i++)
		l->e[i].fn(l->e[i].data, &ev->info, args);
	ps_reader_exit(t, seq);
	inside = 0;
}

/* Publish a new probe list (NULL when empty), free the old one after a grace period. */
/*
 * The sites follow (an error there is the caller's: the event stays
 * registered as asked, its sites as they were, and says so).
 */
static int probes_swap(struct ps_event *ev, struct ps_probe_list *nl)
{
	struct ps_probe_list *old = atomic_exchange(&ev->probes, nl);
	int err = ps_event_update();

	if (!err && ps_event_probes_changed)
		err = ps_event_probes_changed();	/* a dynamic probe's function: patched or not */

	ps_sync_dispatchers();
	free(old);
	return err;
}

int ps_event_probe_add(struct ps_event *ev, patchsite_event_probe fn, void *data, int prio)
{
	struct ps_probe_list *l = atomic_load(&ev->probes), *nl;
	unsigned n = l ? l->n : 0, k = 0;

	for (unsigned i = 0; i < n; i++)
		if (l->e[i].fn == fn && l->e[i].data == data)
			return -EEXIST;
	nl = malloc(sizeof(*nl) + (n + 1) * sizeof(nl->e[0]));
	if (!nl)
		return -ENOMEM;
	for (unsigned i = 0; i < n; i++) {
		if (k == i && l->e[i].prio < prio)
			nl->e[k++] = (typeof(nl->e[0])){ fn, data, prio };
		nl->e[k++] = l->e[i];
	}
	if (k == n)
		nl->e[k++] = (typeof(nl->e[0])){ fn, data, prio };
	nl->n = k;
	if (fn == ps_event_record)
		ev->record = true;
	return probes_swap(ev, nl);
}

int ps_event_probe_del(struct ps_event *ev, patchsite_event_probe fn, void *data)
{
	struct ps_probe_list *l = atomic_load(&ev->probes), *nl = NULL;
	unsigned k = 0, n = l ? l->n : 0;
	bool found = false;

	for (unsigned i = 0; i < n; i++)
		found |= l->e[i].fn == fn && l->e[i].data == data;
	if (!found)
		return -ENOENT;
	if (n > 1) {
		nl = malloc(sizeof(*nl) + (n - 1) * sizeof(nl->e[0]));
		if (!nl)
			return -ENOMEM;
		for (unsigned i = 0; i < n; i++)
			if (l->e[i].fn != fn || l->e[i].data != data)
				nl->e[k++] = l->e[i];
		nl->n = k;
	}
	if (fn == ps_event_record)
		ev->record = false;
	return probes_swap(ev, nl);
}

/* A rule: enable (record) or disable every event matching glob, now and when loaded later. */
int ps_event_set(const char *glob, bool on, bool quiet)
{
	struct rule *r = calloc(1, sizeof(*r));
	char full[256];
	bool any = false;
	int err = 0;

	if (!r || !(r->glob = strdup(glob))) {
		free(r);
		return -ENOMEM;
	}
	r->on = on;
	*rules_tail = r;
	rules_tail = &r->next;
	for (struct ps_event *ev = ps_event_first(); ev && !err; ev = ev->next) {
		snprintf(full, sizeof(full), "%s:%s", ev->info.subsys, ev->info.name);
		if (fnmatch(glob, full, 0))
			continue;
		any = true;
		if (on && !ev->record)
			err = ps_event_probe_add(ev, ps_event_record, ev,
						 PATCHSITE_EVENT_PRIO_DEFAULT);
		else if (!on && ev->record)
			err = ps_event_probe_del(ev, ps_event_record, ev);
	}
	if (!any && !quiet)
		ps_log(PATCHSITE_LOG_NOTE, "no event loaded matches '%s': kept for objects loaded "
		       "later", glob);
	return err;
}

void ps_event_rules_clear(void)
{
	while (rules) {
		struct rule *r = rules;

		rules = r->next;
		free(r->glob);
		free(r);
	}
	rules_tail = &rules;
}

void ps_events_env(void)
{
	const char *v = getenv("PATCHSITE_EVENTS");
	char *copy, *save = NULL;

	if (!v || !*v)
		return;
	copy = strdup(v);
	for (char *tok = copy ? strtok_r(copy, ", ", &save) : NULL; tok;
	     tok = strtok_r(NULL, ", ", &save))
		if (tok[0] == '!' ? ps_event_set(tok + 1, false, false) : ps_event_set(tok, true, false))
			ps_log(PATCHSITE_LOG_ERROR, "PATCHSITE_EVENTS: cannot apply '%s'", tok);
	free(copy);
}

/* A new event: enabled by the last rule naming it, it gets the recorder. */
static void event_born(struct ps_event *ev)
{
	bool on = false;

	if (ps_event_rules_say(ev, &on) && on)
		ps_event_probe_add(ev, ps_event_record, ev, PATCHSITE_EVENT_PRIO_DEFAULT);
}

static const struct ps_event_hooks hooks = { ps_event_fire, event_born };

/* An object's events found and checked (event.c), each new one under the rules. */
void ps_events_found(struct ps_module *m)
{
	ps_event_module(m, &hooks);
}
