/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PS_RUNTIME_PATH_H
#define PS_RUNTIME_PATH_H

#include <stdbool.h>
#include <stddef.h>

/*
 * libpatchsite.so's path in buf (runtime_path.c): $PATCHSITE_LIB (made
 * absolute with realpath when asked: buf then holds PATH_MAX), next to
 * this program, or in ../lib.  0, or -errno.
 */
int runtime_path(char *buf, size_t len, bool absolute);

#endif
