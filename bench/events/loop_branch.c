// SPDX-License-Identifier: GPL-2.0-only
/* The same condition as loop_expect.c through patchsite_unlikely (include/patchsite_branch.h). */
#include "patchsite_branch.h"

#include "loop.h"

#define BRANCH(i, v) do { if (patchsite_unlikely(((i) & 7) == 0)) bench_acc = 0; } while (0)
LOOP(BRANCH)
