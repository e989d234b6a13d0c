// SPDX-License-Identifier: GPL-2.0-only
/*
 * The public events API (patchsite.h): switch an event by name, ask
 * whether it records, attach and detach probes.  The events themselves
 * are event*.c's (event.h has their map); this starts the runtime when a
 * call needs it.
 */
#include <errno.h>
#include <string.h>

#include "internal.h"
#include "events/event.h"

/* An event by its full name, "subsys:name". */
static struct ps_event *find(const char *name)
{
	for (struct ps_event *ev = ps_event_first(); ev; ev = ev->next) {
		size_t n = strlen(ev->info.subsys);

		if (!strncmp(name, ev->info.subsys, n) && name[n] == ':' &&
		    !strcmp(name + n + 1, ev->info.name))
			return ev;
	}
	return NULL;
}

static int api_ret(int err)
{
	if (err < 0)
		errno = -err;
	return err;
}

static int api_set(const char *event, bool on)
{
	int err;

	if (!event || !*event)
		return api_ret(-EINVAL);
	err = patchsite_init();
	if (err)
		return err;
	pthread_mutex_lock(&ps.lock);
	err = ps_event_set(event, on, true);
	ps_events_store();
	pthread_mutex_unlock(&ps.lock);
	return api_ret(err);
}

int patchsite_enable_event(const char *event)
{
	return api_set(event, true);
}

int patchsite_disable_event(const char *event)
{
	return api_set(event, false);
}

int patchsite_event_is_enabled(const char *event)
{
	struct ps_event *ev;
	int r;

	if (!event)
		return api_ret(-EINVAL);
	pthread_mutex_lock(&ps.lock);
	ev = find(event);
	r = ev ? ev->record : -ENOENT;
	pthread_mutex_unlock(&ps.lock);
	return api_ret(r);
}

int patchsite_event_probe_register(const char *event, patchsite_event_probe fn, void *data,
				   int prio)
{
	struct ps_event *ev;
	int err;

	if (!event || !fn)
		return api_ret(-EINVAL);
	err = patchsite_init();
	if (err)
		return err;
	pthread_mutex_lock(&ps.lock);
	ev = find(event);
	err = ev ? ps_event_probe_add(ev, fn, data, prio) : -ENOENT;
	pthread_mutex_unlock(&ps.lock);
	return api_ret(err);
}

int patchsite_event_probe_unregister(const char *event, patchsite_event_probe fn, void *data)
{
	struct ps_event *ev;
	int err;

	if (!event || !fn)
		return api_ret(-EINVAL);
	pthread_mutex_lock(&ps.lock);
	ev = find(event);
	err = ev ? ps_event_probe_del(ev, fn, data) : -ENOENT;
	pthread_mutex_unlock(&ps.lock);
	return api_ret(err);
}
