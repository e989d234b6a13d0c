// SPDX-License-Identifier: GPL-2.0-only
/*
 * record's last word on loss: events a thread could not record (a full
 * ring, a probe whose fetch faulted, a full disk) and switches the kernel
 * could not give are counted in the thread files; a user who only looks
 * at the program's output must hear of them too, on stderr, once.
 */
#include <stdio.h>

#include "cmd.h"
#include "../data/psread.h"

void record_say_lost(const char *dir, const char *cmd)
{
	unsigned long long lost = 0, sched = 0;
	struct psr_session *s;

	if (psr_open_live(dir, NULL, &s))
		return;		/* nothing readable: write_status said what there is */
	for (size_t i = 0; i < s->nprocs; i++)
		for (size_t k = 0; k < s->procs[i].nthreads; k++) {
			lost += s->procs[i].threads[k].lost;
			sched += s->procs[i].threads[k].sched_lost;
		}
	psr_close(s);
	if (lost)
		fprintf(stderr, "patchsite: %s: %llu events lost (per thread: patchsite info -d %s)\n",
			cmd, lost, dir);
	if (sched)
		fprintf(stderr, "patchsite: %s: %llu scheduler switches lost (per thread: patchsite "
			"info -d %s)\n", cmd, sched, dir);
}
