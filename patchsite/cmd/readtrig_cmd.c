// SPDX-License-Identifier: GPL-2.0-only
/*
 * record -T 'FUNC@read=KIND[,read=KIND...]' (uftrace's trigger spelling,
 * its read= actions): checked here, then given to the runtime as
 * set_ftrace_args specs (PATCHSITE_ARGS), which read at the function's
 * entry and exit (record/readtrig.c).  uftrace's other trigger actions are
 * refused by name.  A pmu-* kind is tried here first, on this process, as
 * the runtime will open it on each traced thread: where the kernel has no
 * such hardware counter, or does not let this user count, the recording
 * is refused with one line (uftrace 0.13 warns and records nothing).
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cmd.h"
#include "../data/format.h"
#include "../data/psread.h"

/* The hardware counters each pmu-* kind opens (the runtime's, record/readtrig.c), as said. */
static const struct {
	unsigned kind;
	const char *what;
	uint64_t config;
} pmu[] = {
	{ PSD_READ_PMU_CYCLE, "cycle", PERF_COUNT_HW_CPU_CYCLES },
	{ PSD_READ_PMU_CYCLE, "instruction", PERF_COUNT_HW_INSTRUCTIONS },
	{ PSD_READ_PMU_CACHE, "cache-reference", PERF_COUNT_HW_CACHE_REFERENCES },
	{ PSD_READ_PMU_CACHE, "cache-miss", PERF_COUNT_HW_CACHE_MISSES },
	{ PSD_READ_PMU_BRANCH, "branch", PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ PSD_READ_PMU_BRANCH, "branch-miss", PERF_COUNT_HW_BRANCH_MISSES },
};

/* 0 when kind's counters open here, else 2 (said). */
static int pmu_usable(unsigned kind)
{
	for (size_t i = 0; i < sizeof(pmu) / sizeof(pmu[0]); i++) {
		struct perf_event_attr a = { .size = sizeof(a), .type = PERF_TYPE_HARDWARE,
					     .config = pmu[i].config, .exclude_kernel = 1,
					     .exclude_hv = 1 };
		int fd, e;

		if (pmu[i].kind != kind)
			continue;
		fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd >= 0) {
			close(fd);
			continue;
		}
		e = errno;
		if (e == EACCES || e == EPERM)
			fprintf(stderr, "patchsite: record: read=%s: this user may not count the "
				"%s counter (perf_event_open: %s; see /proc/sys/kernel/"
				"perf_event_paranoid)\n", psr_read_name(kind), pmu[i].what,
				strerror(e));
		else
			fprintf(stderr, "patchsite: record: read=%s: the kernel has no hardware %s "
				"counter here (perf_event_open: %s)\n", psr_read_name(kind),
				pmu[i].what, strerror(e));
		return 2;
	}
	return 0;
}

/* One action of a -T spec: read=KIND, checked; 0 or 2 (said). */
static int check_action(const char *spec, const char *act)
{
	int k;

	if (strncmp(act, "read=", 5)) {
		fprintf(stderr, "patchsite: record: -T %s: '%s': of uftrace's trigger actions only "
			"read= is done here\n", spec, act);
		return 2;
	}
	k = psr_read_kind(act + 5);
	if (k < 0) {
		fprintf(stderr, "patchsite: record: -T %s: '%s': expected read=proc/statm, "
			"page-fault, pmu-cycle, pmu-cache or pmu-branch\n", spec, act + 5);
		return 2;
	}
	return k >= PSD_READ_PMU_CYCLE ? pmu_usable((unsigned)k) : 0;
}

int record_trigger(const char *spec, char **args)
{
	char *copy = strdup(spec), *save = NULL, *one;
	int err = 0;

	if (!copy)
		return 2;
	for (one = strtok_r(copy, ";", &save); one && !err; one = strtok_r(NULL, ";", &save)) {
		char *at = strrchr(one, '@'), *acts, *s2 = NULL;

		if (!at || at == one || !at[1] || strpbrk(one, " \t\n")) {
			fprintf(stderr, "patchsite: record: -T %s: expected FUNC@read=KIND[,read=KIND]"
				"\n", spec);
			err = 2;
			break;
		}
		acts = strdup(at + 1);
		for (char *a = acts ? strtok_r(acts, ",", &s2) : NULL; a && !err;
		     a = strtok_r(NULL, ",", &s2))
			err = check_action(spec, a);
		free(acts);
		if (!acts)
			err = 2;
		else if (!err && !(*args = list_add(*args, one, ' ')))
			err = 2;
	}
	free(copy);
	return err;
}
