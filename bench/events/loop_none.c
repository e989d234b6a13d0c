// SPDX-License-Identifier: GPL-2.0-only
/* No probe: the baseline every other loop is compared with. */
#include "loop.h"

#define NO_PROBE(i, v) do { } while (0)
LOOP(NO_PROBE)
