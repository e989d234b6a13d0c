// SPDX-License-Identifier: GPL-2.0-only
/*
 * Injected by `patchsite record -p` / `ctl PID` (cmd/attach_inject.c): two
 * threads of the injector's register our membarrier commands while the
 * loader thread dlopens us and scans.  In a process with threads each
 * registration waits for an RCU grace period (kernel/sched/membarrier.c,
 * sync_runqueues_membarrier_state), tens of ms on a loaded machine.
 * Registering again here, before theirs is done, would wait for a grace
 * period that starts only now (synchronize_rcu waits for one that begins
 * after the call): so we wait for theirs.  A command not yet registered
 * fails with EPERM (membarrier(2)); once both succeed we are done.
 */
#include <errno.h>
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "sites.h"

#define AWAIT_MS	2000	/* then we register ourselves (ps_sync_register) */

/* Does cmd run (its registration is done)?  A command that runs only IPIs our own threads. */
static bool runs(int cmd)
{
	return syscall(__NR_membarrier, cmd, 0, 0) == 0;
}

int ps_sync_await(void)
{
	struct timespec ms = { 0, 1000000 };
	long cmds = syscall(__NR_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);

	if (cmds < 0 || !(cmds & MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE) ||
	    !(cmds & MEMBARRIER_CMD_PRIVATE_EXPEDITED))
		return -ENOSYS;		/* ps_sync_register says so */
	for (unsigned i = 0; i < AWAIT_MS; i++) {
		if (runs(MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE) &&
		    runs(MEMBARRIER_CMD_PRIVATE_EXPEDITED))
			return 0;
		if (errno != EPERM)
			return -errno;
		nanosleep(&ms, NULL);
	}
	return -ETIMEDOUT;
}
