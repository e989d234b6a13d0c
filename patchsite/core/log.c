// SPDX-License-Identifier: GPL-2.0-only
/*
 * The runtime's one message sink: the program's log callback, and stderr
 * from a level on (api.c: warnings and errors when the environment started
 * a tracer, everything with PATCHSITE_LOG=1, nothing otherwise).  Messages follow the
 * project's format, `patchsite: module: error: func+0xoff: what`; the
 * callback gets the text after the level.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/core.h"

static patchsite_log_func_t log_fn;
static void *log_arg;
static int log_stderr_from = PATCHSITE_LOG_ERROR + 1, log_stderr_to;	/* nothing */
__thread bool ps_log_quiet;		/* this thread's messages are for a client: not on stderr */
/*
 * Start-up only (the constructor, before the channel thread): plain
 * globals, as TLS this large would not fit in the static TLS block that a
 * dlopened libpatchsite gets.
 */
bool ps_log_defer_errors;		/* start-up: its own line says why (ps_log_flush_deferred) */
static char deferred[1200];		/* the stderr line of the last error held back */

void patchsite_set_log(patchsite_log_func_t fn, void *arg)
{
	log_fn = fn;
	log_arg = arg;
}

void ps_log_stderr(int from, int to)
{
	log_stderr_from = from;
	log_stderr_to = to;
}

/*
 * Start-up (start.c) holds errors back while it starts: a setting that
 * fails is said once, in its own line naming the variable, not also by the
 * function that refused it.  An error it did not say (said false) is
 * written now.
 */
void ps_log_flush_deferred(bool said)
{
	if (deferred[0] && !said)
		(void)!write(STDERR_FILENO, deferred, strlen(deferred));
	deferred[0] = 0;
}

/* ps_last_error copied to buf (it is rewritten by the next error). */
const char *ps_error_copy(char *buf, size_t len)
{
	snprintf(buf, len, "%s", ps_last_error[0] ? ps_last_error : "unknown reason");
	return buf;
}

/* The callback gets "file: what"; stderr gets "patchsite: file: level: what". */
static void emit(enum patchsite_log_level level, const char *file, const char *what)
{
	static const char *const names[] = { "note", "warning", "error" };
	char line[1200];
	int n;

	if (level == PATCHSITE_LOG_ERROR) {
		if (file)
			snprintf(ps_last_error_buf(), PS_LAST_ERROR_MAX, "%s: %s", file, what);
		else
			snprintf(ps_last_error_buf(), PS_LAST_ERROR_MAX, "%s", what);
	}
	if (log_fn) {
		if (file)
			snprintf(line, sizeof(line), "%s: %s", file, what);
		else
			snprintf(line, sizeof(line), "%s", what);
		log_fn(level, line, log_arg);
	}
	if (ps_log_quiet || (int)level < log_stderr_from || (int)level > log_stderr_to)
		return;
	if (file)
		n = snprintf(line, sizeof(line), "patchsite: %s: %s: %s\n", file, names[level], what);
	else
		n = snprintf(line, sizeof(line), "patchsite: %s: %s\n", names[level], what);
	if (n > 0 && level == PATCHSITE_LOG_ERROR && ps_log_defer_errors) {
		snprintf(deferred, sizeof(deferred), "%s", line);
		return;
	}
	if (n > 0)
		(void)!write(STDERR_FILENO, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
}

void ps_log(enum patchsite_log_level level, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	emit(level, NULL, msg);
}

/* One request at a time (the channel thread's): its thread and where it keeps what it is told. */
static _Atomic(struct ps_told *) told;
static _Atomic unsigned long told_by;

void ps_log_told_begin(struct ps_told *t)
{
	atomic_store(&told_by, (unsigned long)pthread_self());
	atomic_store(&told, t);
}

void ps_log_told_end(void)
{
	atomic_store(&told, NULL);
	atomic_store(&told_by, 0);
}

/* A warning, also kept for the client whose request caused it (ps_log_told_begin). */
void ps_log_tell(const char *fmt, ...)
{
	struct ps_told *t = atomic_load(&told_by) == (unsigned long)pthread_self() ?
			    atomic_load(&told) : NULL;
	char msg[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	emit(PATCHSITE_LOG_WARNING, NULL, msg);
	if (!t || t->cut)
		return;
	/* room kept for the cut's line (else a full buffer ends without it) */
	n = snprintf(t->text + t->len, sizeof(t->text) - t->len, "warning: %s\n", msg);
	if (n < 0 || (size_t)n + sizeof("warning: more not said\n") > sizeof(t->text) - t->len) {
		/* whole lines only, and the cut said */
		n = snprintf(t->text + t->len, sizeof(t->text) - t->len, "warning: more not said\n");
		t->len += n > 0 && (size_t)n < sizeof(t->text) - t->len ? (size_t)n : 0;
		t->cut = true;
		return;
	}
	t->len += (size_t)n;
}

/* A message about one object (file: its name), as "patchsite: file: level: what". */
void ps_log_in(enum patchsite_log_level level, const char *file, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	emit(level, file, msg);
}
