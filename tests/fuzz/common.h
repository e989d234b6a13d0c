/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What every harness shares: the input is written to a memory file and
 * opened by name (/proc/self/fd/N), so the code under test reads it exactly
 * as it reads a file on disk, with no disk I/O per run; diagnostics are
 * counted, not printed.
 */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>

/* Errors and warnings reported since the last fuzz_input(). */
extern unsigned fuzz_errors, fuzz_warnings;

/* Install the counting sink and make the memory file (once). */
void fuzz_init(void);
void fuzz_init_sink(void);	/* the counting sink back (fuzz_init sets it) */
/* Replace the memory file's contents; returns its path. */
const char *fuzz_input(const uint8_t *data, size_t size);
/* A private scratch directory, made once, and a path inside it. */
const char *fuzz_scratch(const char *name);

#endif
