// SPDX-License-Identifier: GPL-2.0-only
/*
 * The one place messages are formatted.  Everything goes through the sink so
 * tests and the runtime can capture or silence it.
 */
#include <stdio.h>

#include "diag.h"

static const char *prog = "patchsite";
static diag_sink_t sink;

void diag_set_prog(const char *name)
{
	prog = name;
}

void diag_set_sink(diag_sink_t s)
{
	sink = s;
}

const char *diag_level_name(enum diag_level level)
{
	static const char *const names[] = { "note", "warning", "error" };

	return names[level];
}

static void vdiag(enum diag_level level, const char *file, const char *fmt, va_list ap)
{
	char msg[1024];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (sink) {
		sink(level, file, msg);
		return;
	}
	if (file)
		fprintf(stderr, "%s: %s: %s: %s\n", prog, file, diag_level_name(level), msg);
	else
		fprintf(stderr, "%s: %s: %s\n", prog, diag_level_name(level), msg);
}

void diag(enum diag_level level, const char *file, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdiag(level, file, fmt, ap);
	va_end(ap);
}

void diag_err(const char *file, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdiag(DIAG_ERROR, file, fmt, ap);
	va_end(ap);
}

void diag_warn(const char *file, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdiag(DIAG_WARNING, file, fmt, ap);
	va_end(ap);
}
