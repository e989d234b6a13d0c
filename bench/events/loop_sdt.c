// SPDX-License-Identifier: GPL-2.0-only
/* A SystemTap SDT probe (sys/sdt.h from systemtap-sdt-dev): a NOP with its arguments' locations in a note. */
#include <sys/sdt.h>

#include "loop.h"

#define SDT_PROBE(i, v) DTRACE_PROBE2(bench, loop, i, v)
LOOP(SDT_PROBE)
