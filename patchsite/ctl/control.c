// SPDX-License-Identifier: GPL-2.0-only
/*
 * Control files by name (control.h): the lookup and the public
 * patchsite_ctl_read/patchsite_ctl_write every way of reaching them goes
 * through.  The text buffer the handlers fill is core/textbuf.c; the
 * parsers of the values they take are ctl/value.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/control.h"
#include "internal.h"

/* The file named path, and the rest of the path for a directory; NULL when none. */
static const struct ps_ctl_file *ps_ctl_find(const char *path, const char **sub)
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

	ps_last_error_clear();
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

int ps_ctl_write_before_reply(const char *file, const char *value, bool append)
{
	const struct ps_ctl_file *f;
	const char *sub;
	int err;

	ps_last_error_clear();
	f = find_for(file, &sub, true);
	if (!f)
		return -errno;
	err = f->write(sub, value ? value : "", append);
	/*
	 * Refused because the code cannot be made writable (a W^X policy; an
	 * attached process never saw the start-up's line): say why, once per
	 * request, when the handler did not.
	 */
	if (err == -EACCES && !ps.can_write && ps.write_refused[0] && !patchsite_last_error()[0])
		ps_log(PATCHSITE_LOG_ERROR, "%s: tracing nothing", ps.write_refused);
	if (err)
		errno = -err;
	return err;
}

int patchsite_ctl_write(const char *file, const char *value, int append)
{
	int err = ps_ctl_write_before_reply(file, value, append != 0);

	ps_ctl_run_after_reply();
	if (err)
		errno = -err;	/* as the handler left it, whatever the work after did */
	return err;
}

const char *patchsite_last_error(void)
{
	return ps_last_error;
}
