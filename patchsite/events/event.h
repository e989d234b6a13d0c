/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Static trace events in the runtime (patchsite_event(3)), lowest first:
 *   event_filter.c  field expressions (events/S/N/filter); no runtime state,
 *                   so that the fuzz harness links it alone
 *   event.c         the events of every object: found at start and on
 *                   dlopen, their sites checked and switched live; told by
 *                   event_probe.c what a site calls (struct ps_event_hooks)
 *   event_record.c  the recorder probe: filter, ring record (PSD_EXT_EVENT);
 *                   where an event is written
 *   event_probe.c   what an enabled site reaches, probes, enabling rules;
 *                   ps_events_found (an object's events, with the hooks)
 *   event_api.c     the events' descriptions (format files), the events'
 *                   watcher and trace-directory part; ../api_events.c the API
 *   ctl/event_files.c control files: set_event, available_events, events/
 *   probe.c         dynamic probes (probe.h): probe_parse.c the
 *                   dynamic_events syntax, probe_fetch.c fetch programs,
 *                   probe_hit.c the hit table and what a hit runs,
 *                   probe_fast.c and probe_tramp_layout.c what the x86-64
 *                   probe trampolines read and call
 *   filter_if.c     conditions on a function's arguments in set_ftrace_filter
 */
#ifndef PS_EVENT_H
#define PS_EVENT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "patchsite.h"
#include "patchsite_event.h"

struct ps_buf;
struct ps_module;

struct ps_evfield {
	const char *name, *type;	/* in the descriptor's text */
	uint8_t kind;			/* enum patchsite_field_kind */
	uint16_t size;
	uint32_t off;			/* in the record's payload (bytes) */
};

/* One value of a field for the filter: u/i (integers, pointers), d, or s with slen. */
struct ps_evval {
	uint64_t u;
	double d;
	const char *s;
	size_t slen;
};

struct ps_evfilter;
/* Parse text against fields: 0, or -EINVAL with the reason in err. */
int ps_evfilter_parse(const char *text, const struct ps_evfield *f, unsigned n,
		      struct ps_evfilter **out, char *err, size_t errlen);
bool ps_evfilter_match(const struct ps_evfilter *flt, const struct ps_evval *v);
void ps_evfilter_free(struct ps_evfilter *flt);

struct ps_probe_list {
	unsigned n;
	struct {
		patchsite_event_probe fn;
		void *data;
		int prio;
	} e[];
};

struct ps_event {
	struct patchsite_event_info info;
	unsigned nfields;
	struct ps_evfield *f;
	const char **names;		/* info.field_names */
	unsigned char *kinds;		/* info.field_kinds */
	uint32_t fixed;			/* payload bytes before the strings' data */
	uint32_t max_bytes;		/* the largest record's payload */
	bool widen;			/* a field a probe gets widened (small signed, float) */
	bool flat;			/* every field 8 bytes and no string: the payload is the words */
	bool nostr;			/* no string: every record is fixed bytes, packed in place */
	char *text;			/* a copy of the first descriptor's text (names point into it) */
	_Atomic(struct ps_probe_list *) probes;
	bool record;			/* the recorder is one of the probes */
	bool gone;			/* every object defining it was unloaded */
	_Atomic(struct ps_evfilter *) filter;
	char *filter_text;
	/*
	 * hits and recorded are counted on every hit's path, where a locked
	 * add costs as much as the record: approximate (ps_event_tally), and
	 * nothing reads them.  lost, filtered and cut are exact.
	 */
	_Atomic unsigned long hits, recorded, filtered, lost, cut;
	/*
	 * No string and every field within one word at its offset less 4: the
	 * payload words of its packed record (PSD_EXT_EVENT_PACKED, no flags
	 * word), when fewer than the full one's; else 0.
	 */
	unsigned pwords;
	struct ps_event *next;
};

/* One more, without a locked add: two threads counting at once may count one. */
static inline void ps_event_tally(_Atomic unsigned long *c)
{
	atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + 1,
			      memory_order_relaxed);
}

/* event.c (ps.lock held unless said) */
struct ps_event_hooks {			/* event_probe.c's, for the events event.c binds */
	void (*fire)(const struct patchsite_event *d, const uint64_t *raw);	/* an enabled site */
	void (*born)(struct ps_event *ev);	/* a new event: the rules, the recorder */
};
void ps_event_module(struct ps_module *m, const struct ps_event_hooks *h);	/* find, check */
void ps_event_module_gone(struct ps_module *m);
int ps_event_define(const struct patchsite_event *d, struct ps_event **out);	/* no sites: probe.c */
int ps_event_update(void);				/* patch sites to what probes ask */
bool ps_event_trap(uintptr_t addr, uintptr_t *resume);	/* signal handler: no lock */
struct ps_event *ps_event_first(void);
size_t ps_event_count(void);

/* event_probe.c (ps.lock held) */
int ps_event_set(const char *glob, bool on, bool quiet);	/* enable/disable rule */
bool ps_event_rules_say(const struct ps_event *ev, bool *on);	/* the last rule matching */
void ps_event_rules_clear(void);
int ps_event_probe_add(struct ps_event *ev, patchsite_event_probe fn, void *data, int prio);
int ps_event_probe_del(struct ps_event *ev, patchsite_event_probe fn, void *data);
void ps_events_env(void);				/* PATCHSITE_EVENTS */
void ps_events_found(struct ps_module *m);		/* ps_event_module with the hooks */
/* Told when an event's probes changed (probe.c sets it: a dynamic probe's sites follow). */
extern int (*ps_event_probes_changed)(void);

/* event_api.c */
void ps_event_describe(const struct ps_event *ev, struct ps_buf *out);	/* format file */
void ps_events_store(void);
extern const struct ps_watch ps_events_watch;
extern const struct ps_store_part ps_events_part;				/* the trace directory's events file */

/* event_record.c */
void ps_event_record(void *data, const struct patchsite_event_info *info,
		     const unsigned long long *args);
void ps_event_values(const struct ps_event *ev, const unsigned long long *args,
		     struct ps_evval *v);

#endif
