// SPDX-License-Identifier: GPL-2.0-only
/*
 * The values control files take, as ftrace takes them: one word or one
 * number, white space around it allowed (echo's newline).  A bad value is
 * said with ps_log, naming the file, and refused with -EINVAL.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/control.h"
#include "internal.h"

/* value is one word (surrounding white space aside), copied to out; else the error said. */
int ps_ctl_word(const char *file, const char *value, char *out, size_t len)
{
	size_t n;

	while (isspace((unsigned char)*value))
		value++;
	n = strcspn(value, " \t\n");
	if (!n || n >= len || value[n + strspn(value + n, " \t\n")]) {
		ps_log(PATCHSITE_LOG_ERROR, "%s: expected one word, not '%.100s'", file, value);
		return -EINVAL;
	}
	memcpy(out, value, n);
	out[n] = '\0';
	return 0;
}

/* value is one decimal number from lo to hi; else the error said. */
int ps_ctl_number(const char *file, const char *value, unsigned long lo, unsigned long hi,
		  unsigned long *out)
{
	char word[32], *end;

	if (ps_ctl_word(file, value, word, sizeof(word)))
		return -EINVAL;
	errno = 0;
	*out = strtoul(word, &end, 10);
	if (*end || errno || word[0] == '-' || *out < lo || *out > hi) {
		ps_log(PATCHSITE_LOG_ERROR, "%s: expected a number from %lu to %lu, not '%s'",
		       file, lo, hi, word);
		return -EINVAL;
	}
	return 0;
}
