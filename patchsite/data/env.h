/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The PATCHSITE_* environment variables that patchsite reads (the runtime, the command and the
 * compiler wrapper scripts/patchsite-cc), and the check that names a misspelt one.  Shared by
 * the runtime (start.c: in a process that traces) and `patchsite record` (its own stderr).
 */
#ifndef PS_DATA_ENV_H
#define PS_DATA_ENV_H

#include <stddef.h>

/* Trace directory file that holds the warnings once said (patchsite-data(5)). */
#define PSD_ENV_WARNINGS	"env-warnings"
/* Trace directory file: "PID line" for each process that refused a setting and ran untraced. */
#define PSD_REFUSED		"refused"


/*
 * One warning line per PATCHSITE_* entry of ENV that is not a name patchsite reads, with the
 * nearest known name, into OUT (NUL-terminated, cut at LEN).  Returns the length written.
 */
size_t psd_env_check(char *const *env, char *out, size_t len);

#endif
