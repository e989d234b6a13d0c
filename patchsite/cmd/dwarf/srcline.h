/* SPDX-License-Identifier: GPL-2.0-only */
/* replay --srcline (srcline.c): a traced function's source line, from its object's DWARF. */
#ifndef PS_CMD_SRCLINE_H
#define PS_CMD_SRCLINE_H

#include <stddef.h>
#include <stdint.h>

struct psr_proc;

/*
 * "FILE:LINE" of the function of site id (at tsc) as the line table gives its
 * first address (what addr2line says), into buf; NULL when unknown (no DWARF,
 * the object gone).  The objects' DWARF is opened once each, by the command:
 * the runtime reads none.
 */
const char *srcline_of(const struct psr_proc *p, uint32_t id, uint64_t tsc, char *buf,
		       size_t len);
/* The objects opened, closed. */
void srcline_end(void);

#endif
