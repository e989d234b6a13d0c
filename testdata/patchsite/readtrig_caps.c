// SPDX-License-Identifier: GPL-2.0-only
/*
 * read= triggers' counter reads (record/readtrig.c), with libpatchsite
 * linked in (build/patchsite.o: its hidden symbols link statically):
 *   readtrig_caps
 * prints
 *   - "use CAP INDEX ARCH rdpmc|read" for each perf_event_mmap_page
 *     capability the kernel may give (cap_user_rdpmc, index) and whether
 *     the arch has a user read: the choice ps_read_pmc_usable makes;
 *   - "kernel software rdpmc|read": the choice for the page the kernel
 *     maps for a software counter (minor faults) on this machine;
 *   - "faults N": the page-fault kind's minor count over writing 32 fresh
 *     pages, read through the runtime's own path;
 *   - "ns KIND N": nanoseconds per read, each kind that opens here.
 */
#define _GNU_SOURCE
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

bool ps_read_pmc_usable(const struct perf_event_mmap_page *pg, bool arch_has);
bool ps_read_values(unsigned kind, uint64_t v[3]);

static const char *const names[] = { "proc/statm", "page-fault", "pmu-cycle", "pmu-cache",
				     "pmu-branch" };

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int main(void)
{
	struct perf_event_mmap_page pg;
	struct perf_event_attr a = { .size = sizeof(a), .type = PERF_TYPE_SOFTWARE,
				     .config = PERF_COUNT_SW_PAGE_FAULTS_MIN, .exclude_kernel = 1 };
	long psz = sysconf(_SC_PAGESIZE);
	uint64_t v0[3], v1[3];
	int fd;

	for (int cap = 0; cap < 2; cap++)
		for (int idx = 0; idx < 2; idx++)
			for (int arch = 0; arch < 2; arch++) {
				memset(&pg, 0, sizeof(pg));
				pg.cap_user_rdpmc = (unsigned)cap;
				pg.index = (unsigned)(idx * 3);
				printf("use %d %d %d %s\n", cap, idx * 3, arch,
				       ps_read_pmc_usable(&pg, arch) ? "rdpmc" : "read");
			}
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd >= 0) {
		void *m = mmap(NULL, (size_t)psz, PROT_READ, MAP_SHARED, fd, 0);

		if (m != MAP_FAILED)
			printf("kernel software %s\n", ps_read_pmc_usable(m, true) ? "rdpmc" : "read");
		close(fd);
	}
	if (ps_read_values(1, v0)) {
		char *p = mmap(NULL, 32 * (size_t)psz, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		for (int i = 0; p != MAP_FAILED && i < 32; i++)
			p[(long)i * psz] = 1;
		if (ps_read_values(1, v1))
			printf("faults %llu\n", (unsigned long long)(v1[1] - v0[1]));
	}
	for (unsigned k = 0; k < 5; k++) {
		unsigned n = 20000;
		uint64_t t0, v[3];

		if (!ps_read_values(k, v))
			continue;
		t0 = now_ns();
		for (unsigned i = 0; i < n; i++)
			ps_read_values(k, v);
		printf("ns %s %llu\n", names[k], (unsigned long long)((now_ns() - t0) / n));
	}
	return 0;
}
