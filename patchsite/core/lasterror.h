/* SPDX-License-Identifier: GPL-2.0-only */
/* The calling thread's last error text (core/lasterror.c): patchsite_last_error(). */
#ifndef PS_CORE_LASTERROR_H
#define PS_CORE_LASTERROR_H

#include <stddef.h>

#define PS_LAST_ERROR_MAX 512	/* bytes of text kept, with its NUL */

/* The calling thread's last error text; "" before its first. */
const char *ps_last_error_text(void);
/* Its buffer (PS_LAST_ERROR_MAX bytes), made on first use. */
char *ps_last_error_buf(void);
/* Forget it: the next read says "" until the next error. */
void ps_last_error_clear(void);

/* Read-only, as a string: `ps_last_error[0] ? ps_last_error : ...`. */
#define ps_last_error (ps_last_error_text())

#endif
