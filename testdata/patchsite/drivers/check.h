/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the C test programs of testdata/patchsite/drivers share: PASS/FAIL lines that
 * run.sh counts, and a callback that counts its calls.  Each program
 * defines `static int failures;` and returns it (non-zero fails).
 */
#ifndef PS_TEST_CHECK_H
#define PS_TEST_CHECK_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>

#include "patchsite.h"

/* ok is evaluated once: it may be the call under test. */
#define CHECK(ok, ...)                                                          \
	do {                                                                    \
		bool ok_ = (ok);                                                \
		printf("%s ", ok_ ? "PASS" : "FAIL");                           \
		printf(__VA_ARGS__);                                            \
		putchar('\n');                                                  \
		failures += !ok_;                                               \
	} while (0)

static atomic_long hits;

static inline void count(unsigned long ip, unsigned long parent, struct patchsite_ops *op,
			 struct patchsite_regs *regs)
{
	(void)ip, (void)parent, (void)op, (void)regs;
	atomic_fetch_add_explicit(&hits, 1, memory_order_relaxed);
}

#endif
