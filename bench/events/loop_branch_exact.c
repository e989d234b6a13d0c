// SPDX-License-Identifier: GPL-2.0-only
/* loop_branch.c with PATCHSITE_BRANCH_EXACT: atomic increments (exact under threads). */
#define PATCHSITE_BRANCH_EXACT
#include "patchsite_branch.h"

#include "loop.h"

#define BRANCH(i, v) do { if (patchsite_unlikely(((i) & 7) == 0)) bench_acc = 0; } while (0)
LOOP(BRANCH)
