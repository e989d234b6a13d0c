// SPDX-License-Identifier: GPL-2.0-only
/*
 * Static trace events: each event's description, the format file that is
 * also the trace directory's events file (patchsite-data(5)), and what the
 * events tell the trace directory and the object sync (their part and
 * watcher, registered by api.c wire).  The public API is api_events.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/textbuf.h"
#include "event.h"
#include "record/record.h"

static const char *kind_name(unsigned kind)
{
	static const char *const names[] = { "?", "signed", "unsigned", "pointer", "float",
					     "string", "bytes" };

	return kind < sizeof(names) / sizeof(names[0]) ? names[kind] : "?";
}

/* An escaped format string (\n, \\): one line. */
static void put_escaped(struct ps_buf *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '\n')
			ps_buf_puts(out, "\\n");
		else if (*s == '\\')
			ps_buf_puts(out, "\\\\");
		else
			ps_buf_add(out, s, 1);
	}
}

/*
 * The format file, also the trace directory's description of the event
 * (patchsite-data(5)): enough to decode a record's payload.
 */
void ps_event_describe(const struct ps_event *ev, struct ps_buf *out)
{
	ps_buf_printf(out, "name: %s:%s\nID: %u\nformat:\n\tfield:u32 id;\toffset:0;\tsize:4;"
		      "\tkind:unsigned;\n\tfield:u32 flags;\toffset:4;\tsize:4;\tkind:unsigned;\n",
		      ev->info.subsys, ev->info.name, ev->info.id);
	for (unsigned i = 0; i < ev->nfields; i++) {
		const struct ps_evfield *f = &ev->f[i];

		if (f->kind == PATCHSITE_FIELD_BYTES)
			ps_buf_printf(out, "\tfield:u8 %s[%u];", f->name, f->size);
		else
			ps_buf_printf(out, "\tfield:%s %s;", f->kind == PATCHSITE_FIELD_STRING
				      ? "__data_loc char[]" : f->type, f->name);
		ps_buf_printf(out, "\toffset:%u;\tsize:%u;\tkind:%s;\n", f->off,
			      f->kind == PATCHSITE_FIELD_STRING ? 4 : f->size, kind_name(f->kind));
	}
	ps_buf_printf(out, "fixed: %u\nprint fmt: ", ev->fixed);
	put_escaped(out, ev->info.fmt);
	ps_buf_puts(out, "\n");
}

/* The trace directory's events file: every event's description, blank-line separated. */
void ps_events_store(void)
{
	struct ps_buf b = { 0 };

	if (!ps_store_on() || !ps_event_first())
		return;
	for (struct ps_event *ev = ps_event_first(); ev; ev = ev->next) {
		ps_event_describe(ev, &b);
		ps_buf_puts(&b, "\n");
	}
	if (b.oom)
		ps_log(PATCHSITE_LOG_ERROR, "no memory for the events file: events not decodable");
	else if (ps_store_file("events", b.p, b.len))
		ps_log(PATCHSITE_LOG_ERROR, "cannot write the events file of the trace directory");
	ps_buf_free(&b);
}

/* An object's events are found and checked as it arrives; the events file follows. */
static void events_arrived(struct ps_module *m)
{
	ps_events_found(m);
	ps_events_store();
}

const struct ps_watch ps_events_watch = { events_arrived, ps_event_module_gone };

static bool events_any(void)
{
	return ps_event_count() > 0;
}

const struct ps_store_part ps_events_part = { events_any, ps_events_store, NULL };
