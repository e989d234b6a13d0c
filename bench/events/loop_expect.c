// SPDX-License-Identifier: GPL-2.0-only
/* A condition with a plain __builtin_expect: the baseline of the branch annotation's cost. */
#include "loop.h"

#define EXPECT(i, v) do { if (__builtin_expect(((i) & 7) == 0, 0)) bench_acc = 0; } while (0)
LOOP(EXPECT)
