// SPDX-License-Identifier: GPL-2.0-only
/*
 * The events' control files, as in ftrace's tracefs:
 *   available_events              every event loaded, subsys:name
 *   set_event                     the recorded ones; writing "glob !glob ..."
 *                                 replaces the set (append: adds rules)
 *   events/SUBSYS/NAME/enable     0 or 1
 *   events/SUBSYS/NAME/filter     a field expression (event_filter.c), "0" clears
 *   events/SUBSYS/NAME/format     names, types, offsets of the record's payload
 *   events/SUBSYS/enable, events/enable   write 0 or 1 for all of them
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/control.h"
#include "events/event.h"
#include "internal.h"

static int lock(void)
{
	int err = patchsite_init();

	if (err && err != -ENOTSUP)
		return err;
	pthread_mutex_lock(&ps.lock);
	return 0;
}

static int avail_read(const char *sub, struct ps_buf *out)
{
	int err = lock();

	(void)sub;
	if (err)
		return err;
	for (struct ps_event *ev = ps_event_first(); ev; ev = ev->next)
		ps_buf_printf(out, "%s:%s\n", ev->info.subsys, ev->info.name);
	pthread_mutex_unlock(&ps.lock);
	return 0;
}

static int set_event_read(const char *sub, struct ps_buf *out)
{
	int err = lock();

	(void)sub;
	if (err)
		return err;
	for (struct ps_event *ev = ps_event_first(); ev; ev = ev->next)
		if (ev->record)
			ps_buf_printf(out, "%s:%s\n", ev->info.subsys, ev->info.name);
	pthread_mutex_unlock(&ps.lock);
	return 0;
}

/* Tokens separated by blanks, commas or newlines; "!glob" disables. */
static int apply_tokens(const char *value)
{
	char *copy = strdup(value), *save = NULL;
	int err = copy ? 0 : -ENOMEM;

	for (char *t = copy ? strtok_r(copy, " \t\n,", &save) : NULL; t && !err;
	     t = strtok_r(NULL, " \t\n,", &save)) {
		/* ftrace's "subsys:*" is ours too; a bare "name" means "*:name". */
		char glob[256];

		snprintf(glob, sizeof(glob), "%s%s", strchr(t, ':') ? "" : "*:", t + (t[0] == '!'));
		err = ps_event_set(glob, t[0] != '!', false);
	}
	free(copy);
	return err;
}

static int set_event_write(const char *sub, const char *value, bool append)
{
	int err = lock();

	(void)sub;
	if (err)
		return err;
	if (!append) {
		ps_event_rules_clear();
		err = ps_event_set("*", false, true);
		ps_event_rules_clear();
	}
	if (!err)
		err = apply_tokens(value);
	ps_events_store();
	pthread_mutex_unlock(&ps.lock);
	return err;
}

/* "SUBSYS/NAME/FILE": the event and the file; ev NULL for SUBSYS/enable or enable. */
static int split(const char *sub, struct ps_event **ev, const char **file, char *glob, size_t len)
{
	const char *a = strchr(sub, '/'), *b = a ? strchr(a + 1, '/') : NULL;

	*ev = NULL;
	if (!a) {
		*file = sub;
		snprintf(glob, len, "*");
		return 0;
	}
	if (!b) {
		*file = a + 1;
		snprintf(glob, len, "%.*s:*", (int)(a - sub), sub);
		return 0;
	}
	*file = b + 1;
	for (struct ps_event *e = ps_event_first(); e; e = e->next)
		if (strlen(e->info.subsys) == (size_t)(a - sub) &&
		    !strncmp(e->info.subsys, sub, (size_t)(a - sub)) &&
		    strlen(e->info.name) == (size_t)(b - a - 1) &&
		    !strncmp(e->info.name, a + 1, (size_t)(b - a - 1)))
			*ev = e;
	if (!*ev) {
		ps_log(PATCHSITE_LOG_ERROR, "events/%.200s: no such event", sub);
		return -ENOENT;
	}
	return 0;
}

static int events_read(const char *sub, struct ps_buf *out)
{
	struct ps_event *ev;
	const char *file;
	char glob[300];
	int err = lock();

	if (err)
		return err;
	err = split(sub, &ev, &file, glob, sizeof(glob));
	if (!err && ev && !strcmp(file, "enable"))
		ps_buf_printf(out, "%d\n", ev->record);
	else if (!err && ev && !strcmp(file, "filter"))
		ps_buf_printf(out, "%s\n", ev->filter_text ? ev->filter_text : "none");
	else if (!err && ev && !strcmp(file, "format"))
		ps_event_describe(ev, out);
	else if (!err && ev && !strcmp(file, "id"))
		ps_buf_printf(out, "%u\n", ev->info.id);
	else if (!err) {
		ps_log(PATCHSITE_LOG_ERROR, "events/%.200s: no such file (enable, filter, format, "
		       "id of an event)", sub);
		err = -ENOENT;
	}
	pthread_mutex_unlock(&ps.lock);
	return err;
}

static int set_filter(struct ps_event *ev, const char *value)
{
	struct ps_evfilter *flt = NULL, *old;
	char why[256], *text = NULL;
	int err;

	while (*value == ' ' || *value == '\t')
		value++;
	if (*value && strcmp(value, "0") && strcmp(value, "0\n")) {
		err = ps_evfilter_parse(value, ev->f, ev->nfields, &flt, why, sizeof(why));
		if (err) {
			ps_log(PATCHSITE_LOG_ERROR, "events/%s/%s/filter: %s", ev->info.subsys,
			       ev->info.name, why);
			return err;
		}
		text = strdup(value);
		if (!text) {
			ps_evfilter_free(flt);
			return -ENOMEM;
		}
		if (strchr(text, '\n'))
			*strchr(text, '\n') = 0;
	}
	old = atomic_exchange(&ev->filter, flt);
	free(ev->filter_text);
	ev->filter_text = text;
	ps_sync_dispatchers();		/* no recorder still reads the old one */
	ps_evfilter_free(old);
	return 0;
}

static int events_write(const char *sub, const char *value, bool append)
{
	struct ps_event *ev;
	const char *file;
	char glob[300];
	int err = lock();

	(void)append;
	if (err)
		return err;
	err = split(sub, &ev, &file, glob, sizeof(glob));
	if (!err && !strcmp(file, "enable")) {
		bool on = value[0] == '1';

		if (on || value[0] == '0') {
			if (ev)
				snprintf(glob, sizeof(glob), "%s:%s", ev->info.subsys, ev->info.name);
			err = ps_event_set(glob, on, false);
		} else {
			ps_log(PATCHSITE_LOG_ERROR, "events/%.200s: expected 0 or 1", sub);
			err = -EINVAL;
		}
		ps_events_store();
	} else if (!err && ev && !strcmp(file, "filter")) {
		err = set_filter(ev, value);
	} else if (!err) {
		ps_log(PATCHSITE_LOG_ERROR, "events/%.200s: not writable (enable, filter)", sub);
		err = -EACCES;
	}
	pthread_mutex_unlock(&ps.lock);
	return err;
}

static int events_list(struct ps_buf *out)
{
	const char *subsys = NULL;
	int err = lock();

	if (err)
		return err;
	ps_buf_puts(out, "events/enable\n");
	for (struct ps_event *ev = ps_event_first(); ev; ev = ev->next) {
		if (!subsys || strcmp(subsys, ev->info.subsys))
			ps_buf_printf(out, "events/%s/enable\n", ev->info.subsys);
		subsys = ev->info.subsys;
		for (const char *f = "enable\0filter\0format\0id\0"; *f; f += strlen(f) + 1)
			ps_buf_printf(out, "events/%s/%s/%s\n", ev->info.subsys, ev->info.name, f);
	}
	pthread_mutex_unlock(&ps.lock);
	return 0;
}

const struct ps_ctl_file ps_ctl_events[] = {
	{ "available_events", "static trace events loaded (ftrace's available_events)",
	  avail_read, NULL, NULL },
	{ "set_event", "recorded events: globs, !glob to disable (ftrace's set_event)",
	  set_event_read, set_event_write, NULL },
	{ "events/", "per event: enable, filter, format, id (ftrace's events/)",
	  events_read, events_write, events_list },
	{ 0 }
};
