// SPDX-License-Identifier: GPL-2.0-only
/*
 * The recorder probe: an enabled event's fields, filtered, into the
 * calling thread's ring as one PSD_EXT_EVENT record (patchsite-data(5)):
 *
 *   word 0     id (low 32 bits) | flags << 32 (bit 0: a string was cut)
 *   bytes 8..  each field at the offset its format file gives; a string
 *              is a u32 data_loc: offset (bits 0..15) | length (bits
 *              16..30) | cut (bit 31), its bytes after the fixed part
 *
 * A string longer than PATCHSITE_EVENT_STR_MAX bytes is cut there: the
 * record says so, the renderers show it, and the event's cut counter
 * counts it.  A NULL string is a data_loc of 0 and no bytes: no string's
 * offset is 0 (word 0 is the id), so readers tell it from a string that
 * reads "(null)"; a reader that predates this shows an empty string.  The
 * filter still compares it as "(null)", as it always did.
 */
#include <string.h>

#include "event.h"
#include "record/record.h"
#include "data/format.h"

#define CUT_BIT		(1u << 31)

static const char *str_of(uint64_t v, size_t *len, bool *cut)
{
	const char *s = (const char *)(uintptr_t)v;

	if (!s)
		s = "(null)";
	*len = strnlen(s, PATCHSITE_EVENT_STR_MAX + 1);
	*cut = *len > PATCHSITE_EVENT_STR_MAX;
	if (*cut)
		*len = PATCHSITE_EVENT_STR_MAX;
	return s;
}

/* The fields as the filter compares them. */
void ps_event_values(const struct ps_event *ev, const unsigned long long *args,
		     struct ps_evval *v)
{
	for (unsigned i = 0; i < ev->nfields; i++) {
		const struct ps_evfield *f = &ev->f[i];
		bool cut;

		memset(&v[i], 0, sizeof(v[i]));
		v[i].u = args[i];
		if (f->kind == PATCHSITE_FIELD_FLOAT)
			memcpy(&v[i].d, &args[i], 8);
		else if (f->kind == PATCHSITE_FIELD_STRING)
			v[i].s = str_of(args[i], &v[i].slen, &cut);
	}
}

static void put_field(uint8_t *rec, const struct ps_evfield *f, uint64_t v, uint32_t *dyn,
		      bool *any_cut)
{
	uint8_t *at = rec + f->off;

	switch (f->kind) {
	case PATCHSITE_FIELD_STRING: {
		size_t len;
		bool cut;
		const char *s;
		uint32_t loc;

		if (!v) {	/* NULL: data_loc 0 (the fixed part is zeroed), no bytes */
			memset(at, 0, 4);
			break;
		}
		s = str_of(v, &len, &cut);
		loc = *dyn | (uint32_t)len << 16 | (cut ? CUT_BIT : 0);
		memcpy(rec + *dyn, s, len);
		*dyn += (uint32_t)len;
		*any_cut |= cut;
		memcpy(at, &loc, 4);
		break;
	}
	case PATCHSITE_FIELD_BYTES:
		memcpy(at, (const void *)(uintptr_t)v, f->size);
		break;
	case PATCHSITE_FIELD_FLOAT:
		if (f->size == 4) {
			double d;
			float x;

			memcpy(&d, &v, 8);
			x = (float)d;
			memcpy(at, &x, 4);
		} else {
			memcpy(at, &v, 8);
		}
		break;
	default:	/* little-endian: the low bytes; fixed sizes, so no call */
		if (f->size == 8) {
			memcpy(at, &v, 8);
		} else if (f->size == 4) {
			uint32_t x = (uint32_t)v;

			memcpy(at, &x, 4);
		} else if (f->size == 2) {
			uint16_t x = (uint16_t)v;

			memcpy(at, &x, 2);
		} else {
			*at = (uint8_t)v;
		}
		break;
	}
}

/* Pack and write one record into words (room for the event's largest). */
static void record(struct ps_event *ev, const unsigned long long *args, uint64_t *words)
{
	uint8_t *rec = (uint8_t *)words;
	uint32_t dyn = ev->fixed, flags;
	bool cut = false;

	/* event.c refused events whose largest record would not fit. */
	for (uint32_t k = 0; k < (ev->fixed + 7) / 8; k++)
		words[k] = 0;
	for (unsigned i = 0; i < ev->nfields; i++)
		put_field(rec, &ev->f[i], args[i], &dyn, &cut);
	memset(rec + dyn, 0, (8 - dyn % 8) % 8);
	flags = cut ? 1 : 0;
	words[0] = ev->info.id | (uint64_t)flags << 32;
	if (cut)
		atomic_fetch_add_explicit(&ev->cut, 1, memory_order_relaxed);
	if (ps_ring_ext(PSD_EXT_EVENT, words, (dyn + 7) / 8))
		atomic_fetch_add_explicit(&ev->recorded, 1, memory_order_relaxed);
	else
		atomic_fetch_add_explicit(&ev->lost, 1, memory_order_relaxed);
}

/* Most events are small: a small buffer spares the stack probes of the largest one. */
__attribute__((noinline))
static void record_large(struct ps_event *ev, const unsigned long long *args)
{
	uint64_t words[PSD_EXT_MAX_WORDS];

	record(ev, args, words);
}

/*
 * A number into its place: naturally aligned (event.c layout), so within
 * one word, ORed into it (the word zeroed before); no switch, no call.
 */
/* sh: 4 in a packed record (fields at their offset less 4), else 0. */
static inline bool put_number(uint64_t *p, const struct ps_evfield *f, uint64_t v, unsigned sh)
{
	unsigned off = f->off - sh;

	if (f->kind == PATCHSITE_FIELD_STRING || f->kind == PATCHSITE_FIELD_BYTES ||
	    (f->kind == PATCHSITE_FIELD_FLOAT && f->size != 8) ||
	    !(f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8))
		return false;	/* a float stored as float: converted by put_field */
	p[off / 8] |= (f->size == 8 ? v : v & ((1ull << (8 * f->size)) - 1)) << (8 * (off % 8));
	return true;
}

/*
 * No string: the record's length is known before it is packed, so it is
 * packed straight into the ring (no buffer, no copy), as record() would;
 * without the flags word (PSD_EXT_EVENT_PACKED) when that takes a word
 * less (ev->pwords): the ring's bytes are much of a hit's cost.
 */
static void record_in_place(struct ps_event *ev, const unsigned long long *args)
{
	unsigned sh = ev->pwords ? 4 : 0, n = ev->pwords ? ev->pwords : (ev->fixed + 7) / 8;
	uint64_t *p = ps_ring_ext_open(sh ? PSD_EXT_EVENT_PACKED : PSD_EXT_EVENT, n);
	uint32_t dyn = ev->fixed;
	bool cut = false;

	if (!p) {
		atomic_fetch_add_explicit(&ev->lost, 1, memory_order_relaxed);
		return;
	}
	/* A store each (relaxed atomics): a few words, not worth a memset call. */
	for (unsigned k = 1; k < n; k++)
		__atomic_store_n(&p[k], 0, __ATOMIC_RELAXED);
	p[0] = ev->info.id;	/* first: a packed record's fields share its word; no flags */
	for (unsigned i = 0; i < ev->nfields; i++)
		if (!put_number(p, &ev->f[i], args[i], sh))
			put_field((uint8_t *)p - sh, &ev->f[i], args[i], &dyn, &cut);
	ps_ring_ext_close(p + n);
	ps_event_tally(&ev->recorded);
}

/* Filtered, or with strings, floats or small fields: packed by record(). */
__attribute__((noinline))
static void record_packed(struct ps_event *ev, struct ps_evfilter *flt,
			  const unsigned long long *args)
{
	uint64_t words[32];

	if (flt) {
		struct ps_evval v[8];

		ps_event_values(ev, args, v);
		if (!ps_evfilter_match(flt, v)) {
			atomic_fetch_add_explicit(&ev->filtered, 1, memory_order_relaxed);
			return;
		}
	}
	if (ev->max_bytes <= sizeof(words))
		record(ev, args, words);
	else
		record_large(ev, args);
}

void ps_event_record(void *data, const struct patchsite_event_info *info,
		     const unsigned long long *args)
{
	struct ps_event *ev = data;
	struct ps_evfilter *flt = atomic_load_explicit(&ev->filter, memory_order_acquire);
	uint64_t *p;

	(void)info;
	if (!flt && !ev->flat && ev->nostr) {
		record_in_place(ev, args);
		return;
	}
	if (!ev->flat || flt) {
		record_packed(ev, flt, args);
		return;
	}
	/*
	 * Every field a word at 8, 16, ...: the payload is the id and the
	 * arguments, written straight into the ring (no buffer, no copy).
	 */
	p = ps_ring_ext_open(PSD_EXT_EVENT, 1 + ev->nfields);
	if (!p) {
		atomic_fetch_add_explicit(&ev->lost, 1, memory_order_relaxed);
		return;
	}
	p[0] = ev->info.id;
	for (unsigned i = 0; i < ev->nfields; i++)
		p[1 + i] = args[i];
	ps_ring_ext_close(p + 1 + ev->nfields);
	ps_event_tally(&ev->recorded);
}
