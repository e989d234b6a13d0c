// SPDX-License-Identifier: GPL-2.0-only
/*
 * Everything that refuses a process before any thread of it is touched,
 * each by name with its reason and what to do instead: ptrace not
 * permitted (which rule), a process already traced, stopped, in seccomp
 * strict mode, static or musl, with nothing to trace (no site table, no
 * proof file given), or with the runtime already (then the caller only
 * talks to it); and a runtime that could not load into it (a sanitizer
 * build).
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "attach_loader.h"
#include "attach_refuse.h"

#define LOADER_WAIT_MS	2000	/* for a loader that is starting the program, or in a dlopen */

/*
 * A runtime built with a sanitizer needs that sanitizer's runtime to have
 * been loaded first, at start-up; dlopened into a process without it,
 * ASan's start-up ends the process ("does not come first in initial
 * library list").  0, or -1 with the refusal in why.
 */
int attach_lib_loadable(const struct target *t, const char *lib, char *why, size_t len)
{
	static const char *const sans[] = { "libasan", "libtsan", "libhwasan", "libmsan", NULL };
	struct target self = { .pid = getpid() };
	struct file f;
	const char *need = NULL;

	if (target_file_open(&self, lib, &f))
		return attach_fail(why, len, "%s: cannot read it", lib);
	for (unsigned i = 0; sans[i] && !need; i++)
		if ((need = target_file_needed(&f, sans[i])) && target_map_named(t, sans[i]))
			need = NULL;	/* the process has that runtime: it came first */
	if (need)
		attach_fail(why, len, "%s is built with a sanitizer (it needs %s), which pid %d "
			    "did not load at start-up: loading it would end the process; use a "
			    "plain build's libpatchsite.so (PATCHSITE_LIB)", lib, need, t->pid);
	target_file_close(&f);
	return need ? -1 : 0;
}


struct status {
	unsigned uid[3], gid[3];
	int tracer, seccomp;
	char state;
	char name[64];
};

static int read_status(int pid, int tid, struct status *st)
{
	char path[64], line[256];
	FILE *f;

	memset(st, 0, sizeof(*st));
	snprintf(path, sizeof(path), tid ? "/proc/%d/task/%d/status" : "/proc/%d/status", pid, tid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		sscanf(line, "Name: %63s", st->name);
		sscanf(line, "Uid: %u %u %u", &st->uid[0], &st->uid[1], &st->uid[2]);
		sscanf(line, "Gid: %u %u %u", &st->gid[0], &st->gid[1], &st->gid[2]);
		sscanf(line, "TracerPid: %d", &st->tracer);
		sscanf(line, "Seccomp: %d", &st->seccomp);
		sscanf(line, "State: %c", &st->state);
	}
	fclose(f);
	return 0;
}

static int comm_of(int pid, char *out, size_t len)
{
	struct status st;

	if (read_status(pid, 0, &st))
		return snprintf(out, len, "?");
	return snprintf(out, len, "%s", st.name);
}

/* Why ptrace refused pid (EPERM): the rule, and what to do. */
int attach_why_no_ptrace(int pid, char *why, size_t len)
{
	struct status st;
	struct stat sb;
	char path[64];
	uid_t me = geteuid();
	int scope = -1;
	FILE *f;

	if (read_status(pid, 0, &st))
		return attach_fail(why, len, "pid %d: no such process", pid);
	if (me != 0 && (st.uid[0] != me || st.uid[1] != me || st.uid[2] != me))
		return attach_fail(why, len, "pid %d runs as uid %u (real %u, saved %u): ptrace "
				   "needs the same user on all three, or "
				   "root", pid, st.uid[1], st.uid[0], st.uid[2]);
	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	/* The kernel gives a non-dumpable process's /proc/PID files (not the directory) to root. */
	if (me != 0 && !stat(path, &sb) && sb.st_uid == 0 && st.uid[1] != 0)
		return attach_fail(why, len, "pid %d is not dumpable (prctl(PR_SET_DUMPABLE, 0), "
				   "or a set-id or capability program): only root may ptrace "
				   "it", pid);
	f = fopen("/proc/sys/kernel/yama/ptrace_scope", "re");
	if (f) {
		if (fscanf(f, "%d", &scope) != 1)
			scope = -1;
		fclose(f);
	}
	if (scope == 3)
		return attach_fail(why, len, "/proc/sys/kernel/yama/ptrace_scope is 3: no process "
				   "may be ptraced until reboot: start the program with patchsite "
				   "record instead");
	if (scope == 2)
		return attach_fail(why, len, "/proc/sys/kernel/yama/ptrace_scope is 2: only root "
				   "(CAP_SYS_PTRACE) may attach: run as root, or start the program "
				   "with patchsite record");
	if (scope == 1)
		return attach_fail(why, len, "/proc/sys/kernel/yama/ptrace_scope is 1: only a "
				   "process's ancestors may attach: run as root, or set it to 0 "
				   "(sysctl kernel.yama.ptrace_scope=0), or start the program with "
				   "patchsite record");
	return attach_fail(why, len, "pid %d: ptrace: permission denied (a security module or the "
			   "container's policy): start the program with patchsite record", pid);
}

/* NAME's value in the process's environment (as it started), or NULL; kept until the next call. */
static const char *env_of(int pid, const char *name)
{
	static char env[1 << 16];
	size_t nl = strlen(name);
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/environ", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	n = read(fd, env, sizeof(env) - 1);
	close(fd);
	for (ssize_t i = 0; n > 0 && i < n; i += (ssize_t)strlen(env + i) + 1) {
		env[n] = '\0';
		if (!strncmp(env + i, name, nl) && env[i + (ssize_t)nl] == '=')
			return env + i + nl + 1;
	}
	return NULL;
}

static bool ctl_off(int pid)
{
	const char *v = env_of(pid, "PATCHSITE_CTL");

	return v && !strcmp(v, "0");
}

/* Mapped (preloaded, dlopened) or linked in (patchsite.o, libpatchsite.a): t's maps read. */
static bool has_runtime(struct target *t)
{
	struct file f;
	bool runtime = target_map_named(t, "libpatchsite") != NULL;

	if (!runtime && !target_file_open(t, t->exe, &f)) {
		/* Linked in: a second copy must never come. */
		runtime = target_file_symbol(&f, "patchsite_init", true) ||
			  target_file_symbol(&f, "patchsite_init", false);
		target_file_close(&f);
	}
	return runtime;
}

/*
 * Is pid's control channel still to come?  It lives, PATCHSITE_CTL is not
 * 0, and it has the runtime, or will: its LD_PRELOAD names it (just after
 * the exec, before the loader maps it).  The channel opens in the
 * runtime's constructor, a little after the runtime is mapped.
 */
bool attach_channel_coming(int pid)
{
	struct target t = { .pid = pid, .mem = -1 };
	const char *pre;
	struct status st;
	bool coming;

	if (read_status(pid, 0, &st) || st.state == 'Z' || ctl_off(pid))
		return false;
	pre = env_of(pid, "LD_PRELOAD");
	coming = (pre && strstr(pre, "libpatchsite")) || (!target_maps(&t) && has_runtime(&t));
	target_free(&t);
	return coming;
}

/* t's mappings read again (a loader that is still starting maps more). */
static int maps_again(struct target *t)
{
	free(t->maps);
	free(t->paths);
	t->maps = NULL;
	t->paths = NULL;
	t->nmaps = 0;
	return target_maps(t);
}

/*
 * Linked with -pg, a program starts gprof (gcrt1.o calls __monstartup),
 * which counts the program's calls through glibc's mcount for the gmon.out
 * it writes at exit.  An attach turns plain -pg's calls to mcount into
 * NOPs and would leave gmon.out without them: refused.  -pg -mfentry calls
 * __fentry__, which counts nothing: attached, gmon.out is the same.  (Under
 * patchsite record the runtime is there first and gprof is skipped, said
 * as it starts: patchsite/hooks/gprof.c.)
 */
static int gprof_runs(const struct target *t, char *why, size_t len)
{
	struct file f;
	bool gprof;

	if (target_file_open(t, t->exe, &f))
		return 0;
	gprof = target_file_imports(&f, "__monstartup") && target_file_imports(&f, "mcount");
	target_file_close(&f);
	if (!gprof)
		return 0;
	return attach_fail(why, len, "pid %d (%s) was linked with -pg: gprof counts its calls "
			   "through mcount for gmon.out, which an attach would stop; start it "
			   "under patchsite record (gprof is left out there), or link it "
			   "without -pg (compiled with -pg it can be attached to)",
			   t->pid, t->exe);
}

/*
 * Has the loader finished starting the program (attach_loader.c)?  A
 * process attached just after exec, or during a dlopen, is waited for up
 * to LOADER_WAIT_MS, then refused.  0, or -1 with why.
 */
static int loader_done(struct target *t, char *why, size_t len)
{
	long long end = attach_now_ms() + LOADER_WAIT_MS;
	enum loader_state st;
	char interp[PATH_MAX];

	while ((st = attach_loader_state(t, interp, sizeof(interp))) != LOADER_DONE) {
		if (st == LOADER_STATIC)
			return attach_fail(why, len, "pid %d (%s) is statically linked (no C "
					   "library or loader to load the runtime with): link it "
					   "dynamically, or link patchsite.o into "
					   "it", t->pid, t->exe);
		if (attach_now_ms() > end)
			break;
		attach_sleep_ms(10);
		if (maps_again(t))
			return attach_fail(why, len, "pid %d: no such process", t->pid);
	}
	if (st == LOADER_STARTING)
		return attach_fail(why, len, "pid %d (%s) has not finished starting: its dynamic "
				   "loader (%s) has not loaded and relocated the C library after "
				   "%d ms: attach once its main() runs, or start it under "
				   "patchsite record",
				   t->pid, t->exe, interp, LOADER_WAIT_MS);
	if (st == LOADER_BUSY)
		return attach_fail(why, len, "pid %d: its dynamic loader has been loading or "
				   "unloading a library (dlopen, dlclose) for %d ms: try again",
				   t->pid, LOADER_WAIT_MS);
	return 0;
}

/* Everything that refuses pid before a thread is touched; 1 if it has the runtime already. */
int attach_check_target(struct target *t, char *why, size_t len)
{
	struct status st;
	struct file f;
	bool sites = false;
	const char *cyg = NULL;	/* an object built with -finstrument-functions */
	int err;

	if (read_status(t->pid, 0, &st))
		return attach_fail(why, len, "pid %d: no such process", t->pid);
	err = target_maps(t);
	if (err == -EACCES || err == -EPERM)
		return attach_why_no_ptrace(t->pid, why, len);
	if (err)
		return attach_fail(why, len, "pid %d: its mappings: %s", t->pid, strerror(-err));
	if (has_runtime(t))
		return 1;
	if (st.tracer) {
		char comm[64];

		comm_of(st.tracer, comm, sizeof(comm));
		return attach_fail(why, len, "pid %d is traced by pid %d (%s): a process has one "
				   "tracer; detach the debugger first", t->pid, st.tracer, comm);
	}
	if (ctl_off(t->pid))
		return attach_fail(why, len, "pid %d has PATCHSITE_CTL=0 in its environment: the "
				   "runtime would start no control channel to record "
				   "through", t->pid);
	if (st.state == 'T')
		return attach_fail(why, len, "pid %d is stopped (SIGSTOP, job control): the "
				   "runtime could not start in it; continue it first (kill -CONT "
				   "%d)", t->pid, t->pid);
	if (st.seccomp == 1)
		return attach_fail(why, len, "pid %d runs in seccomp strict mode: it may not make "
				   "the system calls that load the runtime", t->pid);
	if (target_map_named(t, "ld-musl") || target_map_named(t, "libc.musl"))
		return attach_fail(why, len, "pid %d (%s) uses musl: the runtime is built for glibc",
			    t->pid, t->exe);
	err = gprof_runs(t, why, len);	/* the file says: no need to wait for the loader */
	if (!err)
		err = loader_done(t, why, len);
	if (err)
		return err;
	for (size_t i = 0; i < t->nmaps && !sites; i++) {
		const struct map *m = &t->maps[i];

		if (m->path[0] != '/' || m->off != 0 ||
		    (i && !strcmp(t->maps[i - 1].path, m->path)))
			continue;
		if (!target_file_open(t, m->path, &f)) {
			const Elf64_Ehdr *e = (const void *)f.p;

			if (!memcmp(e->e_ident, ELFMAG, SELFMAG) &&
			    e->e_ident[EI_CLASS] == ELFCLASS64 &&
			    e->e_machine != EM_X86_64 && !strcmp(m->path, t->exe)) {
				target_file_close(&f);
				return attach_fail(why, len, "pid %d (%s) is not an x86-64 "
						   "program: attach is implemented for x86-64 "
						   "only", t->pid, t->exe);
			}
			sites = target_file_has_sites(&f);
			if (!cyg && target_file_imports(&f, "__cyg_profile_func_enter"))
				cyg = m->path;
			target_file_close(&f);
		}
	}
	/*
	 * -finstrument-functions: its calls reach the runtime's definitions only
	 * if the runtime was there when the loader bound them (patchsite/sites/cyg.c).
	 */
	if (!sites && cyg && !t->noflag)
		return attach_fail(why, len, "pid %d (%s): %s was built with "
				   "-finstrument-functions, whose calls the loader bound to the C "
				   "library's at start-up: the runtime sees them only when it is "
				   "there first; start it under patchsite record", t->pid, t->exe,
				   cyg);
	if (!sites && !t->noflag)
		return attach_fail(why, len, "pid %d (%s): no object in it has patchable sites "
				   "(built with -pg, -pg -mfentry -mrecord-mcount, -mnop-mcount or "
				   "-fpatchable-function-entry=5): nothing to "
				   "trace", t->pid, t->exe);
	return 0;
}
