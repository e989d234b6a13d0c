/* SPDX-License-Identifier: GPL-2.0-only */
/* The LTTng-UST tracepoint provider of loop_lttng.c: event bench:loop with two integer fields. */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER bench

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "./lttng_tp.h"

#if !defined(BENCH_LTTNG_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define BENCH_LTTNG_TP_H

#include <lttng/tracepoint.h>

LTTNG_UST_TRACEPOINT_EVENT(bench, loop,
	LTTNG_UST_TP_ARGS(long, i, long, v),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(long, i, i)
		lttng_ust_field_integer(long, v, v)
	)
)

#endif

#include <lttng/tracepoint-event.h>
