/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Does the sweep's quick decoder (verify/noflag_quick.c) answer as Capstone
 * does, on the bytes at p: shared by tests/verify/nfquick_check.c (every
 * ModRM byte of every opcode it takes) and tests/fuzz/fuzz_noflag.c
 * (arbitrary bytes).
 */
#ifndef NFQUICK_AGREE_H
#define NFQUICK_AGREE_H

#include <stddef.h>
#include <stdint.h>

/*
 * 0: the quick decoder declined, 1: it answered as Capstone did, -1: it
 * answered otherwise (why says how).
 */
int nfq_agree(const uint8_t *p, size_t avail, uint64_t addr, char *why, size_t len);

#endif
