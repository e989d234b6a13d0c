// SPDX-License-Identifier: GPL-2.0-only
/*
 * The calling thread's last error text (patchsite_last_error(), the control
 * channel's replies, start-up's lines).  It is not kept in TLS: a runtime
 * dlopened into a running process (attach) gets its TLS from the loader's
 * static surplus (glibc.rtld.optional_static_tls: 512 bytes by default,
 * shared with every other object loaded late that uses initial-exec TLS),
 * and 512 bytes of text there made attach fail in processes that had used
 * part of it.  The thread has only a pointer; the text lives in memory
 * mapped on the thread's first error (mmap: an error may be logged where
 * malloc may not be called, in a signal handler) and unmapped when it ends.
 */
#include <pthread.h>
#include <stdbool.h>
#include <sys/mman.h>

#include "core/lasterror.h"

static __thread char *text;	/* NULL until this thread's first error */
static char fallback[PS_LAST_ERROR_MAX];	/* mmap failed: shared, never lost */
static pthread_key_t key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static bool key_made;

/* The thread ends: a destructor of another key that logs later maps a new one. */
static void text_free(void *p)
{
	text = NULL;
	if (p != fallback)
		munmap(p, PS_LAST_ERROR_MAX);
}

static void key_make(void)
{
	key_made = !pthread_key_create(&key, text_free);
}

char *ps_last_error_buf(void)
{
	void *p;

	if (text)
		return text;
	p = mmap(NULL, PS_LAST_ERROR_MAX, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	text = p == MAP_FAILED ? fallback : p;
	pthread_once(&key_once, key_make);
	if (text != fallback && key_made)
		pthread_setspecific(key, text);
	text[0] = '\0';
	return text;
}

const char *ps_last_error_text(void)
{
	return text ? text : "";
}

void ps_last_error_clear(void)
{
	if (text)
		text[0] = '\0';
}
