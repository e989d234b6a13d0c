// SPDX-License-Identifier: GPL-2.0-only
/*
 * A preloaded library whose constructor holds the process before the
 * runtime's starts (tests/patchsite/ctl.sh): listed after libpatchsite.so
 * in LD_PRELOAD, it is initialised first, with the runtime already mapped
 * and its control channel not yet open.  It waits until the fifo named by
 * CTLGATE is opened for writing and closed.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

__attribute__((constructor)) static void gate(void)
{
	const char *path = getenv("CTLGATE");
	char c;
	int fd = path ? open(path, O_RDONLY) : -1;

	while (fd >= 0 && read(fd, &c, 1) > 0)
		;
	if (fd >= 0)
		close(fd);
}
