// SPDX-License-Identifier: GPL-2.0-only
/*
 * The bounds of the stack a thread runs on, found from the thread itself
 * with async-signal-safe calls only.
 *
 * A thread's first event sets up its ring, and with it the stack whose
 * return addresses may be hooked (record/ring.c).  That first event can
 * come anywhere: attached to a running program, a thread's first traced
 * call is often in a signal handler that interrupted malloc, or the
 * loader, with their locks held.  pthread_getattr_np takes the thread's
 * lock and mallocs (the affinity set; the main thread's fopen of maps),
 * which deadlocked there (issue 44: attachstress hung on main_arena after
 * an attach).  Here: /proc/self/maps read with open/read into the stack,
 * the mapping that holds the stack pointer.  The main thread's stack
 * grows down to its limit (RLIMIT_STACK), as glibc reports it.
 */
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "core/core.h"

/* "lo-hi ... [name]": one line of maps; true if it holds sp. */
static bool maps_line(const char *line, uintptr_t sp, uintptr_t *lo, uintptr_t *hi, bool *main)
{
	uintptr_t a = 0, b = 0;
	const char *p = line;

	for (; *p && *p != '-'; p++)
		a = a * 16 + (uintptr_t)(*p <= '9' ? *p - '0' : (*p | 0x20) - 'a' + 10);
	if (*p++ != '-')
		return false;
	for (; *p && *p != ' '; p++)
		b = b * 16 + (uintptr_t)(*p <= '9' ? *p - '0' : (*p | 0x20) - 'a' + 10);
	if (sp < a || sp >= b)
		return false;
	*lo = a;
	*hi = b;
	*main = strstr(p, " [stack]") != NULL;
	return true;
}

void ps_stack_bounds(uintptr_t sp, uintptr_t *lo, uintptr_t *hi)
{
	char buf[4096];
	size_t have = 0;
	bool found = false, main = false;
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);

	*lo = *hi = 0;
	while (fd >= 0 && !found) {
		ssize_t n = read(fd, buf + have, sizeof(buf) - 1 - have);
		char *line = buf, *nl;

		if (n <= 0)
			break;
		have += (size_t)n;
		buf[have] = '\0';
		while (!found && (nl = memchr(line, '\n', have - (size_t)(line - buf)))) {
			*nl = '\0';
			found = maps_line(line, sp, lo, hi, &main);
			line = nl + 1;
		}
		have -= (size_t)(line - buf);
		memmove(buf, line, have);	/* a line cut by the read: its start */
		if (have == sizeof(buf) - 1)
			have = 0;		/* no line is that long: drop it */
	}
	if (fd >= 0)
		close(fd);
	if (found && main) {
		struct rlimit r;

		if (!getrlimit(RLIMIT_STACK, &r) && r.rlim_cur != RLIM_INFINITY && r.rlim_cur < *hi)
			*lo = *hi - r.rlim_cur;
	}
}
