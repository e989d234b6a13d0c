// SPDX-License-Identifier: GPL-2.0-only
/*
 * arch/x86_64/probe_tramp.S records the common entry probe itself and
 * repeats the offsets it reads: each is checked here against the C, so
 * a change of a struct breaks the build, not a record.
 */
#if defined(__x86_64__) && !defined(__SANITIZE_THREAD__)
#include <stddef.h>

#include "event.h"
#include "record/record.h"
#include "probe_hits.h"

#define AT(type, field, off) _Static_assert(offsetof(type, field) == (off), #type "." #field)
AT(struct ps_thread, seq, 0);
AT(struct ps_thread, depth, 12);
_Static_assert(sizeof(((struct ps_thread *)0)->seq) == 8, "seq: addq");
_Static_assert(sizeof(((struct ps_thread *)0)->depth) == 4, "depth: movl");
AT(struct ps_fast, wp, 0);
AT(struct ps_fast, budget, 8);
AT(struct ps_fast, hi, 12);
AT(struct ps_state, tracing_on, 58);
AT(struct ps_probe_hits, n, 0);
AT(struct ps_probe_hits, e, 8);
_Static_assert(sizeof(struct ps_probe_hit) == 152, "HIT_SIZE");
AT(struct ps_probe_hit, id, 8);
AT(struct ps_probe_hit, fast, 24);
AT(struct ps_probe_fast, ev, 0);
AT(struct ps_probe_fast, head, 8);
AT(struct ps_probe_fast, mask, 16);
AT(struct ps_probe_fast, n, 80);
AT(struct ps_probe_fast, units, 81);
AT(struct ps_probe_fast, words, 82);
AT(struct ps_probe_fast, reg, 83);
AT(struct ps_probe_fast, word, 91);
AT(struct ps_probe_fast, pos, 99);
AT(struct ps_probe_fast, ret, 107);
_Static_assert(PS_PROBE_FAST_NO == 0xff && sizeof(((struct ps_probe_fast *)0)->mask[0]) == 8,
	       "PF_NO, mask: andq");
AT(struct ps_event, info.id, 24);
_Static_assert(sizeof(((struct ps_event *)0)->info.id) == 4, "id: movl");
AT(struct ps_event, probes, 104);
AT(struct ps_event, gone, 113);
AT(struct ps_event, filter, 120);
AT(struct ps_probe_list, n, 0);
AT(struct ps_probe_list, e[0].fn, 8);
AT(struct ps_probe_list, e[0].data, 16);
_Static_assert(sizeof(((struct ps_probe_list *)0)->n) == 4, "n: cmpl");
#endif
