/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What a well-formed field descriptor of a static trace event is
 * (include/patchsite_event.h): one rule for the runtime, which refuses an
 * event it cannot record (patchsite/events/event.c), and patchverify, which audits
 * the descriptors of any file (verify/events.c).  ptr_size: the target's
 * pointer size (the runtime's own, or the audited file's).
 */
#ifndef PS_EVFIELD_H
#define PS_EVFIELD_H

#include <stdbool.h>

#include "patchsite_event.h"

static inline bool ps_event_field_ok(const struct patchsite_event_field *f, unsigned ptr_size)
{
	switch (f->kind) {
	case PATCHSITE_FIELD_SIGNED:
	case PATCHSITE_FIELD_UNSIGNED:
		return f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8;
	case PATCHSITE_FIELD_FLOAT:
		return f->size == 4 || f->size == 8;
	case PATCHSITE_FIELD_POINTER:
	case PATCHSITE_FIELD_STRING:
		return f->size == ptr_size;
	case PATCHSITE_FIELD_BYTES:
		return f->size >= 1 && f->size <= 1024;
	default:
		return false;
	}
}

#endif
