// SPDX-License-Identifier: GPL-2.0-only
/*
 * trace_options (ftrace's file of the same name): reading lists every
 * option, `no` before the ones off; writing NAME sets one, noNAME clears
 * it.  PATCHSITE_OPTIONS at start takes the same words, space- or
 * comma-separated.
 *
 * The rendering options (data/options.c's table: print-parent, sym-offset,
 * funcgraph-proc, funcgraph-abstime, sleep-time) change no recording: they
 * are kept in the process directory's `options` file (patchsite-data(5)),
 * which replay and pipe read.  overwrite is the recording mode: each
 * thread's file is made as a growing file or a fixed ring when the trace
 * directory is opened, so it is set at start only; a run-time change is
 * refused, with that reason.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/textbuf.h"
#include "data/psread.h"
#include "record/record.h"

static unsigned shown = PSR_OPT_DEFAULT;	/* the rendering options: PSR_OPT_* */
static bool overwrite;
static bool started;		/* the trace directory is open: overwrite is fixed */

/* The options file: one "NAME 0|1" line per rendering option; -errno. */
static int save(void)
{
	int dir = ps_store_procfd(), fd, err = 0;
	char text[256];
	size_t len = 0;

	if (dir < 0)
		return 0;	/* not recording here: nothing to render */
	for (const struct psr_option *o = psr_options; o->name; o++)
		len += (size_t)snprintf(text + len, sizeof(text) - len, "%s %d\n", o->name,
					!!(shown & o->bit));
	fd = openat(dir, "options.new", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	if (write(fd, text, len) != (ssize_t)len)
		err = -EIO;
	if (close(fd) && !err)
		err = -errno;
	/* Renamed over the old one: a reader sees the old file or the new, whole. */
	if (!err && renameat(dir, "options.new", dir, "options"))
		err = -errno;
	return err;
}

/* One word: NAME or noNAME; -errno (said). */
static int apply(const char *w, size_t n)
{
	bool set = !(n > 2 && !strncmp(w, "no", 2));
	const char *name = set ? w : w + 2;
	size_t len = set ? n : n - 2;
	unsigned bit = psr_option_bit(name, len);

	if (bit) {
		shown = set ? shown | bit : shown & ~bit;
		return 0;
	}
	if (len != 9 || strncmp(name, "overwrite", 9)) {
		ps_log(PATCHSITE_LOG_ERROR, "trace_options: '%.*s': no such option (%s, "
		       "overwrite; no before one clears it)", (int)n, w, psr_option_names());
		return -EINVAL;
	}
	if (started && set != overwrite) {
		ps_log(PATCHSITE_LOG_ERROR, "trace_options: %.*s: the recording mode is "
		       "fixed when the trace directory is opened (each thread's file is made "
		       "a growing file or a ring then): set it at start (PATCHSITE_OPTIONS="
		       "overwrite, patchsite record --overwrite)", (int)n, w);
		return -EBUSY;
	}
	overwrite = set;
	return 0;
}

/* Every word of text (space, comma or newline separated); the first error stops. */
static int apply_all(const char *text)
{
	int err = 0;

	for (const char *p = text; *p && !err;) {
		size_t n = strcspn(p, " ,\t\n");

		if (n)
			err = apply(p, n);
		p += n + (p[n] != 0);
	}
	return err;
}

/* PATCHSITE_OPTIONS, before the trace directory is opened: 0 or -EINVAL (said). */
int ps_options_env(bool *over)
{
	const char *v = getenv("PATCHSITE_OPTIONS");
	int err;

	overwrite = *over;
	err = v ? apply_all(v) : 0;
	*over = overwrite;
	return err;
}

/* The trace directory is open (mode given): the options file is written once now. */
void ps_options_started(bool over)
{
	overwrite = over;
	started = true;
	if (save())
		ps_log(PATCHSITE_LOG_WARNING, "trace_options: cannot write the options file: "
		       "replay shows the defaults");
}

int ps_options_read(const char *sub, struct ps_buf *out)
{
	(void)sub;
	for (const struct psr_option *o = psr_options; o->name; o++)
		ps_buf_printf(out, "%s%s\n", shown & o->bit ? "" : "no", o->name);
	ps_buf_printf(out, "%soverwrite\n", overwrite ? "" : "no");
	return 0;
}

int ps_options_write(const char *sub, const char *value, bool append)
{
	int err;

	(void)sub;
	(void)append;	/* as in ftrace: each write sets or clears the options it names */
	err = apply_all(value);
	if (!err)
		err = save();
	if (err == -EIO || err == -ENOSPC)
		ps_log(PATCHSITE_LOG_ERROR, "trace_options: the options file: %s", strerror(-err));
	return err;
}
