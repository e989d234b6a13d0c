// SPDX-License-Identifier: GPL-2.0-only
/*
 * Control files by name (control.h): the lookup and the public
 * patchsite_ctl_read/patchsite_ctl_write every way of reaching them goes
 * through.  The text buffer the handlers fill is core/textbuf.c.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "control.h"
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

const struct ps_ctl_file *ps_ctl_find(const char *path, const char **sub)
{
	for (const struct ps_ctl_file *const *g = ps_ctl_groups; *g; g++) {
		for (const struct ps_ctl_file *f = *g; f->name; f++) {
			size_t n = strlen(f->name);

			if (n && f->name[n - 1] == '/' ? !strncmp(path, f->name, n)
						       : !strcmp(path, f->name)) {
				*sub = path + n;	/* "" for a plain file */
				return f;
			}
		}
	}
	return NULL;
}

static const struct ps_ctl_file *find_for(const char *path, const char **sub, bool write)
{
	const struct ps_ctl_file *f;

	if (!path) {
		ps_log(PATCHSITE_LOG_ERROR, "no control file named");
		return NULL;
	}
	f = ps_ctl_find(path, sub);
	if (!f)
		ps_log(PATCHSITE_LOG_ERROR, "%.200s: no such control file", path);
	else if (write ? !f->write : !f->read)
		ps_log(PATCHSITE_LOG_ERROR, "%.200s: %s", path, write ? "read-only" : "write-only");
	else
		return f;
	errno = f ? EACCES : ENOENT;
	return NULL;
}

long patchsite_ctl_read(const char *file, char *buf, unsigned long size)
{
	struct ps_buf b = { 0 };
	const struct ps_ctl_file *f;
	const char *sub;
	long n;
	int err;

	ps_last_error[0] = '\0';
	f = find_for(file, &sub, false);
	if (!f)
		return -errno;
	err = f->read(sub, &b);
	if (!err && b.oom) {
		ps_log(PATCHSITE_LOG_ERROR, "%.200s: out of memory", file);
		err = -ENOMEM;
	}
	if (err) {
		ps_buf_free(&b);
		errno = -err;
		return err;
	}
	if (size)
		snprintf(buf, size, "%s", b.p ? b.p : "");
	n = (long)b.len;
	ps_buf_free(&b);
	return n;
}

int patchsite_ctl_write(const char *file, const char *value, int append)
{
	const struct ps_ctl_file *f;
	const char *sub;
	int err;

	ps_last_error[0] = '\0';
	f = find_for(file, &sub, true);
	if (!f)
		return -errno;
	err = f->write(sub, value ? value : "", append != 0);
	if (err)
		errno = -err;
	return err;
}

const char *patchsite_last_error(void)
{
	return ps_last_error;
}
