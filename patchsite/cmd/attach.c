// SPDX-License-Identifier: GPL-2.0-only
/*
 * Attaching to a running process started without the runtime: load
 * libpatchsite.so into it (x86-64), then drive it through its control
 * channel as `patchsite ctl` does.
 *
 * Where the runtime is loaded, and why that is safe.  The generic
 * injectors stop a thread at an arbitrary instruction and make it call
 * dlopen there; a thread stopped inside malloc, the loader or a lock
 * it holds then deadlocks or corrupts the heap (kubo/injector#31), and
 * the private entry points they call are gone (__libc_dlopen_mode,
 * glibc 2.34, linux-inject#19).  Here:
 *
 *   1. One thread is seized (PTRACE_SEIZE, never a SIGSTOP) and interrupted;
 *      the others run on throughout.  It is used only if it stopped at a
 *      safe point: in the program's own code (the executable's text: no
 *      libc or loader frame is half done above it), or blocked in one of
 *      the C library's plain blocking wrappers (read, poll, nanosleep,
 *      accept, epoll_wait, and the futex waits for an event: condition
 *      variables, pthread_join, semaphores; functions that hold no lock of
 *      the C library; never a lock's futex wait, never the loader's own
 *      inline syscalls).
 *      Not if it is running a signal handler (its stack holds glibc's
 *      __restore_rt above the stack pointer): the handler may have
 *      interrupted malloc.  The first pass over the threads takes only a
 *      blocked one.  Otherwise it is let go untouched and another thread,
 *      or the same one a millisecond later, is tried, for up to
 *      ATTACH_WAIT_MS.
 *   2. With every signal blocked in it (PTRACE_SETSIGMASK: no handler of the
 *      program can run on top of what follows), the thread makes two raw
 *      mmap system calls (single-stepped over a `syscall` instruction of
 *      the C library's text: no libc state is touched), one code page,
 *      mapped read+execute and filled through /proc/PID/mem (no page is
 *      ever writable and executable, so W^X policies pass), one data page;
 *      then it calls pthread_create(), public since glibc 2.34 in
 *      libc.so.6, returning onto an int3 of the code page.  That call is
 *      the only C library code run on the borrowed thread, at a point
 *      where the thread holds none of the locks it takes.
 *   3. Its registers (general, and the whole XSAVE area: pthread_create's
 *      memcpy uses vector registers) and its signal mask are put back
 *      exactly and it is let go.  A thread interrupted in a blocking call
 *      keeps orig_rax and the -ERESTART* value, so the kernel restarts the
 *      call on resume as it would after any stop; the injected registers
 *      carry orig_rax -1 so that nothing is restarted in between.
 *   4. The new thread starts at a clean ABI boundary (a thread start
 *      routine: no lock held, its own stack and TLS), names itself
 *      PS_ATTACH_THREAD and calls dlopen(lib, RTLD_NOW).  If another
 *      thread holds the loader lock, it simply waits.  The runtime's
 *      constructor sees that name and NOPs every site with the live
 *      breakpoint protocol (patchsite/attach.c) while the program's threads
 *      keep calling.  The thread detaches itself and ends.
 *
 * The runtime is NODELETE: it stays after we leave, untraced (tracer nop,
 * every site a NOP), and a second attach finds its channel and reuses it.
 * The two pages (8 KiB) stay mapped.
 *
 * Refused by name, before anything is written: another user's process or
 * one ptrace may not touch (which rule), a process already traced, a
 * static or musl program, one with the runtime already (then we only talk
 * to it), one with nothing to trace, any arch but x86-64.
 */
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "attach.h"
#include "ctlclient.h"

#define ATTACH_WAIT_MS	3000	/* to find a thread at a safe point */
#define CALL_WAIT_MS	10000	/* pthread_create on the borrowed thread */
#define LOAD_WAIT_MS	20000	/* dlopen, the runtime's start-up (100,000 sites: 0.1 s) */
#define CHANNEL_WAIT_MS	5000	/* the control socket, made by the runtime's thread */
#define PS_ATTACH_THREAD "ps-attach"	/* patchsite/sites/late.h: the runtime looks for this name */

__attribute__((format(printf, 3, 4)))
static int fail(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
	return -1;
}

/* What PATCHSITE_ATTACH_TIME prints: where the time of an attach went. */
static struct {
	long long borrowed_us;	/* the borrowed thread, from its stop to its release */
	long long found_ms;	/* the checks and the search for a safe point */
	long long loaded_ms;	/* until the loader thread's dlopen returned */
	const char *where;	/* where the borrowed thread was */
} timing;

static long long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static void sleep_ms(long ms)
{
	nanosleep(&(struct timespec){ .tv_sec = ms / 1000, .tv_nsec = ms % 1000 * 1000000L }, NULL);
}

/* ---- The target's mappings and files ---- */

struct map {
	unsigned long lo, hi, off;
	char perms[5];
	const char *path;	/* "" for anonymous */
};

struct target {
	int pid;
	char exe[PATH_MAX];
	struct map *maps;
	size_t nmaps;
	char *paths;		/* the maps' paths, one allocation */
	int mem;		/* /proc/PID/mem */
};

static void target_free(struct target *t)
{
	free(t->maps);
	free(t->paths);
	if (t->mem >= 0)
		close(t->mem);
}

static int target_maps(struct target *t)
{
	char path[64], line[PATH_MAX + 128];
	size_t cap = 0, pcap = 0, plen = 0;
	FILE *f;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/exe", t->pid);
	n = readlink(path, t->exe, sizeof(t->exe) - 1);
	t->exe[n > 0 ? n : 0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/maps", t->pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	/* Paths are kept as offsets until every line is in, then turned into pointers. */
	while (fgets(line, sizeof(line), f)) {
		struct map m = { 0 };
		int at = 0;
		char *p;
		size_t l;

		if (sscanf(line, "%lx-%lx %4s %lx %*s %*s %n", &m.lo, &m.hi, m.perms, &m.off, &at) < 4)
			continue;
		p = at ? line + at : line + strlen(line);
		p[strcspn(p, "\n")] = '\0';
		l = strlen(p) + 1;
		if (t->nmaps == cap) {
			void *nm = realloc(t->maps, (cap = cap ? 2 * cap : 64) * sizeof(*t->maps));

			if (!nm)
				goto nomem;
			t->maps = nm;
		}
		if (plen + l > pcap) {
			char *np = realloc(t->paths, pcap = 2 * (pcap + l));

			if (!np)
				goto nomem;
			t->paths = np;
		}
		memcpy(t->paths + plen, p, l);
		m.path = (const char *)(uintptr_t)plen;
		plen += l;
		t->maps[t->nmaps++] = m;
	}
	fclose(f);
	for (size_t i = 0; i < t->nmaps; i++)
		t->maps[i].path = t->paths + (uintptr_t)t->maps[i].path;
	return t->nmaps ? 0 : -ESRCH;
nomem:
	fclose(f);
	return -ENOMEM;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* The first mapping of an object whose file name starts with prefix; NULL if none. */
static const struct map *map_named(const struct target *t, const char *prefix)
{
	for (size_t i = 0; i < t->nmaps; i++)
		if (t->maps[i].path[0] == '/' &&
		    !strncmp(base_name(t->maps[i].path), prefix, strlen(prefix)))
			return &t->maps[i];
	return NULL;
}

static bool in_text_of(const struct target *t, unsigned long addr, const char *path)
{
	for (size_t i = 0; i < t->nmaps; i++)
		if (t->maps[i].perms[2] == 'x' && addr >= t->maps[i].lo && addr < t->maps[i].hi &&
		    !strcmp(t->maps[i].path, path))
			return true;
	return false;
}

/* The target's file (through its root: a container's paths are its own), mapped read-only. */
struct file {
	const uint8_t *p;
	size_t size;
};

static int file_open(const struct target *t, const char *path, struct file *f)
{
	char full[PATH_MAX + 32];
	struct stat sb;
	int fd;

	snprintf(full, sizeof(full), "/proc/%d/root%s", t->pid, path);
	fd = open(full, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &sb) || (size_t)sb.st_size < sizeof(Elf64_Ehdr)) {
		close(fd);
		return -ENOEXEC;
	}
	f->size = (size_t)sb.st_size;
	f->p = mmap(NULL, f->size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (f->p == MAP_FAILED)
		return -errno;
	return 0;
}

static void file_close(struct file *f)
{
	munmap((void *)f->p, f->size);
}

/* The section headers of an ELF64 file, checked against its size; NULL if it is not one. */
static const Elf64_Shdr *elf_sections(const struct file *f, const Elf64_Ehdr **eh)
{
	const Elf64_Ehdr *e = (const void *)f->p;

	if (memcmp(e->e_ident, ELFMAG, SELFMAG) || e->e_ident[EI_CLASS] != ELFCLASS64 ||
	    e->e_shentsize != sizeof(Elf64_Shdr) || e->e_shoff > f->size ||
	    (size_t)e->e_shnum * sizeof(Elf64_Shdr) > f->size - e->e_shoff ||
	    e->e_shstrndx >= e->e_shnum)
		return NULL;
	*eh = e;
	return (const void *)(f->p + e->e_shoff);
}

static bool in_file(const struct file *f, const Elf64_Shdr *s)
{
	return s->sh_type == SHT_NOBITS ||
	       (s->sh_offset <= f->size && s->sh_size <= f->size - s->sh_offset);
}

/* Does the file carry a table of sites the runtime reads (patchsite/module.c)? */
static bool elf_has_sites(const struct file *f)
{
	static const char *const tables[] = { "__mcount_loc", "__patchable_function_entries",
					      "__mcount_loc_pcrel", NULL };
	const Elf64_Ehdr *e;
	const Elf64_Shdr *sh = elf_sections(f, &e), *ss;

	if (!sh || !in_file(f, ss = &sh[e->e_shstrndx]))
		return false;
	for (unsigned i = 0; i < e->e_shnum; i++) {
		if (sh[i].sh_name >= ss->sh_size)
			continue;
		for (unsigned k = 0; tables[k]; k++)
			if (!strncmp((const char *)f->p + ss->sh_offset + sh[i].sh_name, tables[k],
				     ss->sh_size - sh[i].sh_name) && sh[i].sh_size)
				return true;
	}
	return false;
}

/*
 * A defined function symbol's value in the file's dynamic (or, with
 * symtab, static) symbol table: the default version where there are
 * several (dlopen@@GLIBC_2.34 over dlopen@GLIBC_2.2.5).  0 if none.
 */
static unsigned long elf_symbol(const struct file *f, const char *name, bool symtab)
{
	const Elf64_Ehdr *e;
	const Elf64_Shdr *sh = elf_sections(f, &e);
	unsigned long any = 0;

	for (unsigned i = 0; sh && i < e->e_shnum; i++) {
		const Elf64_Shdr *s = &sh[i], *str;
		const Elf64_Half *ver = NULL;
		const Elf64_Sym *sym;
		size_t n;

		if (s->sh_type != (symtab ? SHT_SYMTAB : SHT_DYNSYM) || s->sh_link >= e->e_shnum ||
		    !in_file(f, s) || !in_file(f, str = &sh[s->sh_link]))
			continue;
		for (unsigned k = 0; !symtab && k < e->e_shnum; k++)
			if (sh[k].sh_type == SHT_GNU_versym && sh[k].sh_link == i &&
			    in_file(f, &sh[k]) &&
			    sh[k].sh_size / 2 >= s->sh_size / sizeof(Elf64_Sym))
				ver = (const void *)(f->p + sh[k].sh_offset);
		sym = (const void *)(f->p + s->sh_offset);
		n = s->sh_size / sizeof(*sym);
		for (size_t j = 1; j < n; j++) {
			unsigned type = ELF64_ST_TYPE(sym[j].st_info);

			if (sym[j].st_shndx == SHN_UNDEF || sym[j].st_name >= str->sh_size ||
			    (type != STT_FUNC && type != STT_GNU_IFUNC) ||
			    strncmp((const char *)f->p + str->sh_offset + sym[j].st_name, name,
				    str->sh_size - sym[j].st_name))
				continue;
			if (!ver || !(ver[j] & 0x8000))
				return sym[j].st_value;
			any = sym[j].st_value;
		}
	}
	return any;
}

/* The first DT_NEEDED entry of the file that starts with prefix; NULL if none. */
static const char *elf_needed(const struct file *f, const char *prefix)
{
	const Elf64_Ehdr *e;
	const Elf64_Shdr *sh = elf_sections(f, &e);

	for (unsigned i = 0; sh && i < e->e_shnum; i++) {
		const Elf64_Shdr *s = &sh[i], *str;
		const Elf64_Dyn *d;

		if (s->sh_type != SHT_DYNAMIC || s->sh_link >= e->e_shnum || !in_file(f, s) ||
		    !in_file(f, str = &sh[s->sh_link]))
			continue;
		d = (const void *)(f->p + s->sh_offset);
		for (size_t k = 0; k < s->sh_size / sizeof(*d) && d[k].d_tag != DT_NULL; k++) {
			const char *name = (const char *)f->p + str->sh_offset + d[k].d_un.d_val;

			if (d[k].d_tag == DT_NEEDED && d[k].d_un.d_val < str->sh_size &&
			    memchr(name, '\0', str->sh_size - d[k].d_un.d_val) &&
			    !strncmp(name, prefix, strlen(prefix)))
				return name;
		}
	}
	return NULL;
}

/*
 * A runtime built with a sanitizer needs that sanitizer's runtime to have
 * been loaded first, at start-up; dlopened into a process without it,
 * ASan's start-up ends the process ("does not come first in initial
 * library list").  0, or -1 with the refusal in why.
 */
static int lib_loadable(const struct target *t, const char *lib, char *why, size_t len)
{
	static const char *const sans[] = { "libasan", "libtsan", "libhwasan", "libmsan", NULL };
	struct target self = { .pid = getpid() };
	struct file f;
	const char *need = NULL;

	if (file_open(&self, lib, &f))
		return fail(why, len, "%s: cannot read it", lib);
	for (unsigned i = 0; sans[i] && !need; i++)
		if ((need = elf_needed(&f, sans[i])) && map_named(t, sans[i]))
			need = NULL;	/* the process has that runtime: it came first */
	if (need)
		fail(why, len, "%s is built with a sanitizer (it needs %s), which pid %d did not load "
		     "at start-up: loading it would end the process; use a plain build's "
		     "libpatchsite.so (PATCHSITE_LIB)", lib, need, t->pid);
	file_close(&f);
	return need ? -1 : 0;
}

/* Where the object mapped from path is loaded: its address minus its first segment's vaddr. */
static int load_bias(const struct target *t, const struct map *m, const struct file *f,
		     unsigned long *bias)
{
	const Elf64_Ehdr *e = (const void *)f->p;
	const Elf64_Phdr *ph;
	unsigned long lo = ULONG_MAX;

	if (e->e_phoff > f->size || (size_t)e->e_phnum * sizeof(*ph) > f->size - e->e_phoff)
		return -ENOEXEC;
	ph = (const void *)(f->p + e->e_phoff);
	for (unsigned i = 0; i < e->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && ph[i].p_offset == 0)
			lo = ph[i].p_vaddr & ~0xfffUL;
	if (lo == ULONG_MAX)
		return -ENOEXEC;
	for (size_t i = 0; i < t->nmaps; i++)
		if (!strcmp(t->maps[i].path, m->path) && t->maps[i].off == 0) {
			*bias = t->maps[i].lo - lo;
			return 0;
		}
	return -ENOENT;
}

/* A function of the C library (libc.so.6, else libdl/libpthread of glibc < 2.34) in the target. */
static unsigned long libc_function(const struct target *t, const char *name)
{
	static const char *const libs[] = { "libc.so.6", "libdl.so.2", "libpthread.so.0", NULL };

	for (unsigned i = 0; libs[i]; i++) {
		const struct map *m = map_named(t, libs[i]);
		struct file f;
		unsigned long v, bias;

		if (!m || file_open(t, m->path, &f))
			continue;
		v = elf_symbol(&f, name, false);
		if (v && !load_bias(t, m, &f, &bias)) {
			file_close(&f);
			return bias + v;
		}
		file_close(&f);
	}
	return 0;
}

/* ---- Refusals ---- */

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
static int why_no_ptrace(int pid, char *why, size_t len)
{
	struct status st;
	struct stat sb;
	char path[64];
	uid_t me = geteuid();
	int scope = -1;
	FILE *f;

	if (read_status(pid, 0, &st))
		return fail(why, len, "pid %d: no such process", pid);
	if (me != 0 && (st.uid[0] != me || st.uid[1] != me || st.uid[2] != me))
		return fail(why, len, "pid %d runs as uid %u (real %u, saved %u): ptrace needs the "
			    "same user on all three, or root", pid, st.uid[1], st.uid[0], st.uid[2]);
	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	/* The kernel gives a non-dumpable process's /proc/PID files (not the directory) to root. */
	if (me != 0 && !stat(path, &sb) && sb.st_uid == 0 && st.uid[1] != 0)
		return fail(why, len, "pid %d is not dumpable (prctl(PR_SET_DUMPABLE, 0), or a "
			    "set-id or capability program): only root may ptrace it", pid);
	f = fopen("/proc/sys/kernel/yama/ptrace_scope", "re");
	if (f) {
		if (fscanf(f, "%d", &scope) != 1)
			scope = -1;
		fclose(f);
	}
	if (scope == 3)
		return fail(why, len, "/proc/sys/kernel/yama/ptrace_scope is 3: no process may be "
			    "ptraced until reboot: start the program with patchsite record instead");
	if (scope == 2)
		return fail(why, len, "/proc/sys/kernel/yama/ptrace_scope is 2: only root "
			    "(CAP_SYS_PTRACE) may attach: run as root, or start the program with "
			    "patchsite record");
	if (scope == 1)
		return fail(why, len, "/proc/sys/kernel/yama/ptrace_scope is 1: only a process's "
			    "ancestors may attach: run as root, or set it to 0 (sysctl "
			    "kernel.yama.ptrace_scope=0), or start the program with patchsite record");
	return fail(why, len, "pid %d: ptrace: permission denied (a security module or the "
		    "container's policy): start the program with patchsite record", pid);
}

/* Does the process's environment (as it started) hold this NAME=VALUE entry? */
static bool has_env(int pid, const char *entry)
{
	static char env[1 << 16];
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/environ", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, env, sizeof(env) - 1);
	close(fd);
	for (ssize_t i = 0; n > 0 && i < n; i += (ssize_t)strlen(env + i) + 1) {
		env[n] = '\0';
		if (!strcmp(env + i, entry))
			return true;
	}
	return false;
}

/* Everything that refuses pid before a thread is touched; 1 if it has the runtime already. */
static int check_target(struct target *t, char *why, size_t len)
{
	const struct map *libc;
	struct status st;
	struct file f;
	bool sites = false, runtime = false;
	int err;

	if (read_status(t->pid, 0, &st))
		return fail(why, len, "pid %d: no such process", t->pid);
	err = target_maps(t);
	if (err == -EACCES || err == -EPERM)
		return why_no_ptrace(t->pid, why, len);
	if (err)
		return fail(why, len, "pid %d: its mappings: %s", t->pid, strerror(-err));
	for (size_t i = 0; i < t->nmaps; i++)
		runtime |= !strncmp(base_name(t->maps[i].path), "libpatchsite", 12);
	if (!runtime && !file_open(t, t->exe, &f)) {
		/* Linked in (patchsite.o, libpatchsite.a): a second copy must never come. */
		runtime = elf_symbol(&f, "patchsite_init", true) || elf_symbol(&f, "patchsite_init", false);
		file_close(&f);
	}
	if (runtime)
		return 1;
	if (st.tracer) {
		char comm[64];

		comm_of(st.tracer, comm, sizeof(comm));
		return fail(why, len, "pid %d is traced by pid %d (%s): a process has one tracer; "
			    "detach the debugger first", t->pid, st.tracer, comm);
	}
	if (has_env(t->pid, "PATCHSITE_CTL=0"))
		return fail(why, len, "pid %d has PATCHSITE_CTL=0 in its environment: the runtime would "
			    "start no control channel to record through", t->pid);
	if (st.state == 'T')
		return fail(why, len, "pid %d is stopped (SIGSTOP, job control): the runtime could not "
			    "start in it; continue it first (kill -CONT %d)", t->pid, t->pid);
	if (st.seccomp == 1)
		return fail(why, len, "pid %d runs in seccomp strict mode: it may not make the "
			    "system calls that load the runtime", t->pid);
	if (map_named(t, "ld-musl") || map_named(t, "libc.musl"))
		return fail(why, len, "pid %d (%s) uses musl: the runtime is built for glibc",
			    t->pid, t->exe);
	libc = map_named(t, "libc.so.6");
	if (!libc)
		return fail(why, len, "pid %d (%s) is statically linked (no C library or loader "
			    "to load the runtime with): link it dynamically, or link patchsite.o "
			    "into it", t->pid, t->exe);
	for (size_t i = 0; i < t->nmaps && !sites; i++) {
		const struct map *m = &t->maps[i];

		if (m->path[0] != '/' || m->off != 0 ||
		    (i && !strcmp(t->maps[i - 1].path, m->path)))
			continue;
		if (!file_open(t, m->path, &f)) {
			const Elf64_Ehdr *e = (const void *)f.p;

			if (!memcmp(e->e_ident, ELFMAG, SELFMAG) &&
			    e->e_ident[EI_CLASS] == ELFCLASS64 &&
			    e->e_machine != EM_X86_64 && !strcmp(m->path, t->exe)) {
				file_close(&f);
				return fail(why, len, "pid %d (%s) is not an x86-64 program: attach "
					    "is implemented for x86-64 only", t->pid, t->exe);
			}
			sites = elf_has_sites(&f);
			file_close(&f);
		}
	}
	if (!sites)
		return fail(why, len, "pid %d (%s): no object in it has patchable sites (built with "
			    "-pg -mfentry -mrecord-mcount, -mnop-mcount or "
			    "-fpatchable-function-entry=5): nothing to trace", t->pid, t->exe);
	return 0;
}

#if defined(__x86_64__)

/* ---- The borrowed thread ---- */

/*
 * The code page.  start() is the new thread's routine; its argument is the
 * data page (struct blob_data).  It calls only the C library's public
 * functions, through pointers the command filled in.
 */
static const uint8_t blob[] = {
	0x53,				/* 00 push %rbx              (aligns the stack)   */
	0x48, 0x89, 0xfb,		/* 01 mov %rdi,%rbx          data               */
	0xff, 0x53, 0x10,		/* 04 call *0x10(%rbx)       pthread_self()     */
	0x48, 0x89, 0xc7,		/* 07 mov %rax,%rdi                             */
	0xff, 0x53, 0x18,		/* 0a call *0x18(%rbx)       pthread_detach()   */
	0xb8, 0x9d, 0x00, 0x00, 0x00,	/* 0d mov $157,%eax          SYS_prctl          */
	0xbf, 0x0f, 0x00, 0x00, 0x00,	/* 12 mov $15,%edi           PR_SET_NAME        */
	0x48, 0x8d, 0x73, 0x40,		/* 17 lea 0x40(%rbx),%rsi    data->name         */
	0x0f, 0x05,			/* 1b syscall                                   */
	0x48, 0x8d, 0xbb, 0x80, 0x00, 0x00, 0x00, /* 1d lea 0x80(%rbx),%rdi  data->path */
	0xbe, 0x02, 0x00, 0x00, 0x00,	/* 24 mov $2,%esi            RTLD_NOW           */
	0xff, 0x13,			/* 29 call *(%rbx)           dlopen()           */
	0x48, 0x89, 0x43, 0x20,		/* 2b mov %rax,0x20(%rbx)    data->handle       */
	0x48, 0x85, 0xc0,		/* 2f test %rax,%rax                            */
	0x75, 0x07,			/* 32 jne 3b                                    */
	0xff, 0x53, 0x08,		/* 34 call *0x8(%rbx)        dlerror()          */
	0x48, 0x89, 0x43, 0x28,		/* 37 mov %rax,0x28(%rbx)    data->error        */
	0xc7, 0x43, 0x30, 0x01, 0x00, 0x00, 0x00, /* 3b movl $1,0x30(%rbx)  data->done */
	0x31, 0xc0,			/* 42 xor %eax,%eax                             */
	0x5b,				/* 44 pop %rbx                                  */
	0xc3,				/* 45 ret                    (the thread ends)  */
	0xcc,				/* 46 int3                   pthread_create's return */
};
#define BLOB_TRAP	0x46

struct blob_data {			/* offsets are the code's */
	uint64_t dlopen, dlerror, self, detach;		/* 0x00 */
	uint64_t handle, error;				/* 0x20: out */
	uint32_t done, pad;				/* 0x30: out */
	uint64_t thread;				/* 0x38: pthread_create's */
	char name[64];					/* 0x40 */
	char path[4096 - 0x80];				/* 0x80 */
};
_Static_assert(sizeof(struct blob_data) == 4096, "one page");

struct hijack {
	int tid;
	struct user_regs_struct saved;
	uint8_t xstate[16384];
	struct iovec xio;
	bool have_x;
	uint64_t mask;
	int pending;		/* a signal that stopped it, delivered when we leave */
	unsigned long syscall_insn;
};

static void on_alarm(int sig)
{
	(void)sig;	/* only to interrupt waitpid */
}

/* The next stop of tid, for up to ms (a timer interrupts the wait). */
static int wait_tid(int tid, int *status, long ms)
{
	struct itimerval it = { .it_value = { ms / 1000, ms % 1000 * 1000 } }, off = { 0 };
	struct sigaction sa = { .sa_handler = on_alarm }, old;
	pid_t r;
	int err;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, &old);
	setitimer(ITIMER_REAL, &it, NULL);
	r = waitpid(tid, status, __WALL);
	err = r == tid ? 0 : errno == EINTR ? -ETIMEDOUT : -errno;
	setitimer(ITIMER_REAL, &off, NULL);
	sigaction(SIGALRM, &old, NULL);
	return err;
}

/*
 * A blocking call of the C library's that holds none of its locks.  A
 * futex wait qualifies only as FUTEX_WAIT_BITSET, which glibc (2.34 on)
 * uses to wait for an event (pthread_cond_wait, pthread_join, sem_wait,
 * rwlocks): its own lock waits (malloc's arena, stdio, the loader's
 * recursive locks, lowlevellock) use FUTEX_WAIT.
 */
static bool blocking_call(long nr, unsigned long arg2)
{
	if (nr == SYS_futex)
		return (arg2 & 127) == 9;	/* FUTEX_WAIT_BITSET, private or not */
	switch (nr) {
	case SYS_read: case SYS_readv: case SYS_pread64: case SYS_preadv: case SYS_poll:
	case SYS_select: case SYS_nanosleep: case SYS_pause: case SYS_accept:
	case SYS_recvfrom: case SYS_recvmsg: case SYS_wait4: case SYS_msgrcv:
	case SYS_rt_sigtimedwait: case SYS_rt_sigsuspend: case SYS_epoll_wait:
	case SYS_clock_nanosleep: case SYS_waitid: case SYS_pselect6: case SYS_ppoll:
	case SYS_epoll_pwait: case SYS_accept4: case SYS_recvmmsg:
		return true;
	}
	return false;
}

/*
 * Is the stopped thread at a safe point (see the top of the file)?  The
 * first pass over the threads takes only one blocked in a system call: a
 * thread in the program's code might be in the program's own allocator,
 * which pthread_create's calloc would then wait for (a malloc the
 * program defines interposes on the C library's).
 */
static const char *safe_point(const struct target *t, const char *libc,
			      const struct user_regs_struct *r, bool blocked_only)
{
	long rc = (long)r->rax;

	if (!blocked_only && in_text_of(t, r->rip, t->exe))
		return "in the program's code";
	/* -ERESTARTSYS, -ERESTARTNOINTR, -ERESTARTNOHAND, -ERESTART_RESTARTBLOCK, -EINTR */
	if ((long)r->orig_rax >= 0 && (rc == -512 || rc == -513 || rc == -514 || rc == -516 ||
				       rc == -EINTR) &&
	    blocking_call((long)r->orig_rax, r->rsi) && in_text_of(t, r->rip, libc))
		return "blocked in a system call";
	return NULL;
}

static int set_regs(int tid, struct user_regs_struct *r)
{
	return ptrace(PTRACE_SETREGS, tid, NULL, r) ? -errno : 0;
}

/* Resume the thread as it was, with the signal that stopped it, if any. */
static int hijack_restore(struct hijack *h)
{
	int err = set_regs(h->tid, &h->saved);

	if (h->have_x && ptrace(PTRACE_SETREGSET, h->tid, (void *)NT_X86_XSTATE, &h->xio) && !err)
		err = -errno;
	if (ptrace(PTRACE_SETSIGMASK, h->tid, (void *)sizeof(h->mask), &h->mask) && !err)
		err = -errno;
	if (ptrace(PTRACE_DETACH, h->tid, NULL, (void *)(long)h->pending) && !err)
		err = -errno;
	return err;
}

/* A stop on the way to the expected one: keep a signal for later, go on. */
static bool other_stop(struct hijack *h, int status)
{
	int sig = WSTOPSIG(status);

	if (status >> 16)	/* a group-stop or our interrupt: nothing to deliver */
		return true;
	if (sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE)
		return false;	/* the injected code faulted: give up */
	if (!h->pending)
		h->pending = sig;
	return true;
}

/* One raw system call on the stopped thread, single-stepped over the C library's `syscall`. */
static int remote_syscall(struct hijack *h, long nr, const long a[6], long *ret)
{
	struct user_regs_struct r = h->saved;
	int status, err;

	r.rax = (unsigned long)nr;
	r.rdi = (unsigned long)a[0], r.rsi = (unsigned long)a[1], r.rdx = (unsigned long)a[2];
	r.r10 = (unsigned long)a[3], r.r8 = (unsigned long)a[4], r.r9 = (unsigned long)a[5];
	r.rip = h->syscall_insn;
	r.orig_rax = (unsigned long)-1;		/* nothing to restart */
	err = set_regs(h->tid, &r);
	while (!err) {
		if (ptrace(PTRACE_SINGLESTEP, h->tid, NULL, NULL))
			return -errno;
		err = wait_tid(h->tid, &status, CALL_WAIT_MS);
		if (err)
			return err;
		if (!WIFSTOPPED(status))
			return -ESRCH;
		if (ptrace(PTRACE_GETREGS, h->tid, NULL, &r))
			return -errno;
		if (r.rip == h->syscall_insn + 2) {
			*ret = (long)r.rax;
			return 0;
		}
		if (r.rip != h->syscall_insn || !other_stop(h, status))
			return -EFAULT;
	}
	return err;
}

/* fn(a0..a3) on the stopped thread, below its red zone, returning onto the code page's int3. */
static int remote_call(struct hijack *h, const struct target *t, unsigned long fn,
		       unsigned long trap, const unsigned long a[4], long *ret)
{
	struct user_regs_struct r = h->saved;
	unsigned long sp = ((h->saved.rsp - 128 - 256) & ~15UL) - 8;
	int status, err;

	if (pwrite(t->mem, &trap, sizeof(trap), (off_t)sp) != sizeof(trap))
		return -errno;
	r.rsp = sp;			/* as after a call: (rsp + 8) % 16 == 0 */
	r.rip = fn;
	r.rdi = a[0], r.rsi = a[1], r.rdx = a[2], r.rcx = a[3];
	r.rax = 0;
	r.orig_rax = (unsigned long)-1;
	err = set_regs(h->tid, &r);
	while (!err) {
		if (ptrace(PTRACE_CONT, h->tid, NULL, NULL))
			return -errno;
		err = wait_tid(h->tid, &status, CALL_WAIT_MS);
		if (err)
			return err;
		if (!WIFSTOPPED(status))
			return -ESRCH;
		if (WSTOPSIG(status) == SIGTRAP && !(status >> 16)) {
			if (ptrace(PTRACE_GETREGS, h->tid, NULL, &r))
				return -errno;
			if (r.rip == trap + 1) {
				*ret = (long)r.rax;
				return 0;
			}
			return -EFAULT;
		}
		if (!other_stop(h, status))
			return -EFAULT;
	}
	return err;
}

/*
 * glibc's signal return trampoline, __restore_rt (not in the dynamic
 * symbols): the kernel pushes it as the return address of every handler.
 */
static const uint8_t restore_rt[] = {
	0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00,	/* mov $15,%rax (rt_sigreturn) */
	0x0f, 0x05,					/* syscall */
};

/* An instruction sequence in the C library's text; 0 if none. */
static unsigned long find_in_libc(const struct target *t, const char *libc, const uint8_t *seq,
				  size_t n)
{
	static uint8_t buf[1 << 16];

	for (size_t i = 0; i < t->nmaps; i++) {
		const struct map *m = &t->maps[i];

		if (m->perms[2] != 'x' || strcmp(m->path, libc))
			continue;
		for (unsigned long a = m->lo; a < m->hi; a += sizeof(buf) - n) {
			size_t len = m->hi - a < sizeof(buf) ? m->hi - a : sizeof(buf);
			ssize_t got = pread(t->mem, buf, len, (off_t)a);

			for (ssize_t k = 0; k + (ssize_t)n <= got; k++)
				if (!memcmp(buf + k, seq, n))
					return a + (unsigned long)k;
		}
	}
	return 0;
}

/*
 * Is the thread running a signal handler?  Its stack (or alternate stack)
 * then holds the handler's return address, __restore_rt, above the stack
 * pointer.  Program code in a handler may have interrupted malloc or a
 * lock of the C library, which pthread_create would then wait for: not a
 * safe point.  The live part of the stack is read up to 256 KiB.
 */
static bool in_handler(const struct target *t, unsigned long restorer, unsigned long sp)
{
	static uint64_t words[32768];
	unsigned long top = 0;
	ssize_t got;

	if (!restorer)
		return false;
	for (size_t i = 0; i < t->nmaps; i++)
		if (sp >= t->maps[i].lo && sp < t->maps[i].hi)
			top = t->maps[i].hi;
	sp &= ~7UL;
	if (!top)
		return false;
	if (top - sp > sizeof(words))
		top = sp + sizeof(words);
	got = pread(t->mem, words, top - sp, (off_t)sp);
	for (ssize_t i = 0; i < got / 8; i++)
		if (words[i] == restorer)
			return true;
	return false;
}

/* A `syscall` instruction (0f 05) in the C library's text. */
static unsigned long find_syscall_insn(const struct target *t, const char *libc)
{
	static uint8_t buf[1 << 16];

	for (size_t i = 0; i < t->nmaps; i++) {
		const struct map *m = &t->maps[i];

		if (m->perms[2] != 'x' || strcmp(m->path, libc))
			continue;
		for (unsigned long a = m->lo; a < m->hi; a += sizeof(buf) - 1) {
			size_t n = m->hi - a < sizeof(buf) ? m->hi - a : sizeof(buf);
			ssize_t got = pread(t->mem, buf, n, (off_t)a);

			for (ssize_t k = 0; k + 1 < got; k++)
				if (buf[k] == 0x0f && buf[k + 1] == 0x05)
					return a + (unsigned long)k;
		}
	}
	return 0;
}

struct libc_fns {
	unsigned long create, dlopen, dlerror, self, detach;
};

/*
 * On a seized, stopped thread at a safe point: map the pages, write them,
 * pthread_create the loader thread, put the thread back.  The data page's
 * address is returned in *data.
 */
static int borrow(struct hijack *h, const struct target *t, const struct libc_fns *fn,
		  const char *lib, unsigned long *data, char *why, size_t len)
{
	static const uint64_t all = ~0ULL;
	const unsigned long thread_off = offsetof(struct blob_data, thread);
	struct blob_data d = { .dlopen = fn->dlopen, .dlerror = fn->dlerror, .self = fn->self,
			       .detach = fn->detach };
	long code = 0, page = 0, rc = -1;
	int err, err2;

	snprintf(d.name, sizeof(d.name), "%s", PS_ATTACH_THREAD);
	memcpy(d.path, lib, strlen(lib) + 1);	/* inject() checked its length */
	err = ptrace(PTRACE_GETSIGMASK, h->tid, (void *)sizeof(h->mask), &h->mask) ? -errno : 0;
	if (!err && ptrace(PTRACE_SETSIGMASK, h->tid, (void *)sizeof(all), &all))
		err = -errno;
	if (!err)
		err = remote_syscall(h, SYS_mmap, (long[6]){ 0, 4096, PROT_READ | PROT_EXEC,
				     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0 }, &code);
	if (!err && (unsigned long)code > -4096UL)
		err = (int)code;
	if (!err)
		err = remote_syscall(h, SYS_mmap, (long[6]){ 0, 4096, PROT_READ | PROT_WRITE,
				     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0 }, &page);
	if (!err && (unsigned long)page > -4096UL)
		err = (int)page;
	/* /proc/PID/mem writes the read+execute page as a debugger writes breakpoints. */
	if (!err && (pwrite(t->mem, blob, sizeof(blob), code) != sizeof(blob) ||
		     pwrite(t->mem, &d, sizeof(d), page) != sizeof(d)))
		err = -errno;
	/* pthread_create(&data->thread, NULL, code, data) */
	if (!err)
		err = remote_call(h, t, fn->create, (unsigned long)code + BLOB_TRAP,
				  (unsigned long[4]){ (unsigned long)page + thread_off, 0,
				  (unsigned long)code, (unsigned long)page }, &rc);
	err2 = hijack_restore(h);
	if (err)
		return fail(why, len, "pid %d: thread %d: the injected call failed: %s (the thread was "
			    "put back as it was)", t->pid, h->tid, strerror(-err));
	if (err2)
		return fail(why, len, "pid %d: thread %d: putting it back: %s", t->pid, h->tid,
			    strerror(-err2));
	if (rc)
		return fail(why, len, "pid %d: pthread_create in it: %s", t->pid, strerror((int)rc));
	*data = (unsigned long)page;
	return 0;
}

/* Seize the threads in turn until one stops at a safe point, and borrow it. */
static int inject(struct target *t, const char *lib, char *why, size_t len)
{
	const struct map *libc = map_named(t, "libc.so.6");
	struct libc_fns fn = {
		.create = libc_function(t, "pthread_create"), .dlopen = libc_function(t, "dlopen"),
		.dlerror = libc_function(t, "dlerror"), .self = libc_function(t, "pthread_self"),
		.detach = libc_function(t, "pthread_detach"),
	};
	static struct hijack h;
	long long end = now_ms() + ATTACH_WAIT_MS;
	unsigned long data = 0, syscall_insn, restorer;
	char path[64];
	sigset_t stop, old;
	int err = 1;

	if (strlen(lib) >= sizeof(((struct blob_data *)0)->path))
		return fail(why, len, "%s: path too long", lib);
	if (!fn.create || !fn.dlopen || !fn.dlerror || !fn.self || !fn.detach)
		return fail(why, len, "pid %d: %s has no %s (glibc older than 2.34 without libdl?)",
			    t->pid, libc->path, !fn.create ? "pthread_create" : !fn.dlopen ? "dlopen" :
			    "dlerror, pthread_self or pthread_detach");
	snprintf(path, sizeof(path), "/proc/%d/mem", t->pid);
	t->mem = open(path, O_RDWR | O_CLOEXEC);
	if (t->mem < 0)
		return errno == EACCES || errno == EPERM ? why_no_ptrace(t->pid, why, len) :
			fail(why, len, "%s: %s", path, strerror(errno));
	syscall_insn = find_syscall_insn(t, libc->path);
	restorer = find_in_libc(t, libc->path, restore_rt, sizeof(restore_rt));
	if (!syscall_insn)
		return fail(why, len, "pid %d: no syscall instruction in %s", t->pid, libc->path);
	/* A ^C now would leave a thread with borrowed registers: it waits until it is back. */
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGHUP);
	sigprocmask(SIG_BLOCK, &stop, &old);
	for (unsigned pass = 0; err > 0 && now_ms() < end; pass++) {
		char tdir[64];
		struct dirent *de;
		DIR *dir;

		snprintf(tdir, sizeof(tdir), "/proc/%d/task", t->pid);
		dir = opendir(tdir);
		if (!dir) {
			err = fail(why, len, "pid %d: no such process", t->pid);
			break;
		}
		while (err > 0 && (de = readdir(dir))) {
			int tid = atoi(de->d_name), status;
			long long stopped_us;
			const char *where;

			if (tid <= 0)
				continue;
			memset(&h, 0, sizeof(h));
			h.tid = tid;
			h.syscall_insn = syscall_insn;
			if (ptrace(PTRACE_SEIZE, tid, NULL, NULL)) {
				if (errno == EPERM)
					err = why_no_ptrace(t->pid, why, len);
				continue;	/* ESRCH: the thread ended */
			}
			stopped_us = now_us();
			if (ptrace(PTRACE_INTERRUPT, tid, NULL, NULL)) {
				ptrace(PTRACE_DETACH, tid, NULL, NULL);
				continue;
			}
			if (wait_tid(tid, &status, 10000)) {
				/* Not let go before it stops: our exit has the kernel do it. */
				err = fail(why, len, "pid %d: thread %d did not stop within 10 s (in an "
					   "uninterruptible wait?): try again", t->pid, tid);
				break;
			}
			if (!WIFSTOPPED(status))
				continue;	/* it ended */
			if (!(status >> 16))
				h.pending = WSTOPSIG(status);	/* it gets it when let go */
			if (ptrace(PTRACE_GETREGS, tid, NULL, &h.saved)) {
				ptrace(PTRACE_DETACH, tid, NULL, (void *)(long)h.pending);
				continue;
			}
			stopped_us = now_us() - stopped_us;
			where = safe_point(t, libc->path, &h.saved, pass == 0);
			if (where && in_handler(t, restorer, h.saved.rsp))
				where = NULL;
			if (!where) {
				ptrace(PTRACE_DETACH, tid, NULL, (void *)(long)h.pending);
				continue;
			}
			h.xio.iov_base = h.xstate;
			h.xio.iov_len = sizeof(h.xstate);
			h.have_x = !ptrace(PTRACE_GETREGSET, tid, (void *)NT_X86_XSTATE, &h.xio);
			if (!h.have_x) {
				ptrace(PTRACE_DETACH, tid, NULL, (void *)(long)h.pending);
				err = fail(why, len, "pid %d: thread %d: its vector registers (XSAVE): %s",
					   t->pid, tid, strerror(errno));
				break;
			}
			timing.where = where;
			timing.borrowed_us = now_us();
			err = borrow(&h, t, &fn, lib, &data, why, len);
			timing.borrowed_us = now_us() - timing.borrowed_us + stopped_us;
			timing.found_ms = now_ms();
		}
		closedir(dir);
		if (err > 0)
			sleep_ms(1);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (err > 0)
		return fail(why, len, "pid %d: no thread stopped at a safe point (in the program's "
			    "code, or blocked in a system call) in %d ms: try again", t->pid,
			    ATTACH_WAIT_MS);
	if (err)
		return err;
	/* The loader thread: dlopen and the runtime's start-up. */
	for (long long stop_at = now_ms() + LOAD_WAIT_MS;; sleep_ms(1)) {
		struct blob_data d;

		if (pread(t->mem, &d, offsetof(struct blob_data, thread), (off_t)data) !=
		    offsetof(struct blob_data, thread))
			return fail(why, len, "pid %d: ended while the runtime was loading", t->pid);
		if (d.done && d.handle) {
			timing.loaded_ms = now_ms();
			return 0;
		}
		if (d.done) {
			char msg[512] = "";

			if (d.error && pread(t->mem, msg, sizeof(msg) - 1, (off_t)d.error) <= 0)
				msg[0] = '\0';
			msg[sizeof(msg) - 1] = '\0';
			return fail(why, len, "pid %d: dlopen(%s) failed in it: %s%s", t->pid, lib,
				    *msg ? msg : "no reason given", strstr(msg, "static TLS") ?
				    " (too little static TLS left for the runtime: start it with "
				    "GLIBC_TUNABLES=glibc.rtld.optional_static_tls=4096, or under "
				    "patchsite record)" : "");
		}
		if (now_ms() > stop_at)
			return fail(why, len, "pid %d: the runtime has not finished loading after %d "
				    "ms (its loader lock held?)", t->pid, LOAD_WAIT_MS);
	}
}

#else /* !__x86_64__ */

/*
 * aarch64 would borrow a thread the same way (PTRACE_GETREGSET NT_PRSTATUS,
 * an svc #0 in the C library, a brk #0 to return onto); not written yet.
 * Under qemu-user, where this project tests aarch64, ptrace does not work
 * at all (qemu does not emulate it for its guest).
 */
static int inject(struct target *t, const char *lib, char *why, size_t len)
{
	(void)lib;
	return fail(why, len, "pid %d: attach is implemented for x86-64 only (on aarch64 start "
		    "the program with patchsite record, or LD_PRELOAD=libpatchsite.so; under "
		    "qemu-user ptrace does not work at all)", t->pid);
}

#endif /* __x86_64__ */

/* The runtime to load: $PATCHSITE_LIB, next to this program, or in ../lib (as record's). */
static int find_lib(char *buf, size_t len)
{
	char exe[PATH_MAX - 64], *slash;
	const char *env = getenv("PATCHSITE_LIB");
	ssize_t n;

	if (env && *env)
		return realpath(env, buf) ? 0 : -errno;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return -errno;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	*slash = '\0';
	snprintf(buf, len, "%s/libpatchsite.so", exe);
	if (!access(buf, R_OK))
		return 0;
	snprintf(buf, len, "%s/../lib/libpatchsite.so", exe);
	return access(buf, R_OK) ? -ENOENT : 0;
}

/* Does pid's channel answer? */
static bool answers(int pid)
{
	char *reply;
	int err = psctl_request(pid, PSCTL_READ, "current_tracer", NULL, &reply);

	free(reply);
	return !err;
}

int attach_runtime(int pid, const char *who, char *why, size_t len)
{
	struct target t = { .pid = pid, .mem = -1 };
	char lib[PATH_MAX];
	long long t0 = now_ms();
	int err;

	if (answers(pid))
		return 0;
	err = check_target(&t, why, len);
	/* The runtime is there: its channel may be starting (a forked child's comes 20 ms late). */
	for (long long end = now_ms() + 1000; err == 1 && now_ms() < end; sleep_ms(10))
		if (answers(pid)) {
			target_free(&t);
			return 0;
		}
	if (err) {
		if (err == 1)
			fail(why, len, "pid %d has the runtime already but its control channel does not "
			     "answer (PATCHSITE_CTL=0 in its environment?)", pid);
		target_free(&t);
		return -1;
	}
	if (find_lib(lib, sizeof(lib))) {
		target_free(&t);
		return fail(why, len, "cannot find libpatchsite.so next to this program or in "
			    "../lib (set PATCHSITE_LIB)");
	}
	if (lib_loadable(&t, lib, why, len)) {
		target_free(&t);
		return -1;
	}
	fprintf(stderr, "patchsite: %s: pid %d has no runtime: attaching (loading %s; it stays "
		"loaded, untraced, after we leave)\n", who, pid, lib);
	err = inject(&t, lib, why, len);
	target_free(&t);
	if (err)
		return -1;
	for (long long end = now_ms() + CHANNEL_WAIT_MS; !answers(pid); sleep_ms(2))
		if (now_ms() > end)
			return fail(why, len, "pid %d: the runtime loaded, but its control channel did "
				    "not answer in %d ms (PATCHSITE_CTL=0 in its environment? a "
				    "setting refused?)", pid, CHANNEL_WAIT_MS);
	if (getenv("PATCHSITE_ATTACH_TIME"))
		fprintf(stderr, "patchsite: %s: pid %d: attached in %lld ms (checks and a safe point "
			"%lld ms; a thread %s, stopped %lld us; dlopen and the runtime's start-up %lld "
			"ms; its channel %lld ms)\n", who, pid, now_ms() - t0, timing.found_ms - t0,
			timing.where, timing.borrowed_us, timing.loaded_ms - timing.found_ms,
			now_ms() - timing.loaded_ms);
	return 0;
}

/* ---- record -p ---- */

static int ctl_set(int pid, const char *file, const char *value)
{
	char *reply;
	int err = psctl_request(pid, value ? PSCTL_WRITE : PSCTL_READ, file, value, &reply);

	if (err)
		fprintf(stderr, "patchsite: record: pid %d: %s %s: %s\n", pid, file, value ? value : "",
			reply ? reply : strerror(-err));
	free(reply);
	return err;
}

static int ctl_get(int pid, const char *file, char *out, size_t len)
{
	char *reply;
	int err = psctl_request(pid, PSCTL_READ, file, NULL, &reply);

	snprintf(out, len, "%s", !err && reply ? reply : "");
	out[strcspn(out, "\n")] = '\0';
	free(reply);
	return err;
}

/*
 * A filter file set to value, or cleared when value is NULL: a clear is
 * written only if the file is not clear already (its text is then
 * cleared_text), as the first glob written costs the runtime a walk of
 * every function (0.1 s for 100,000).
 */
static int ctl_filter(int pid, const char *file, const char *value, const char *cleared_text)
{
	char cur[256];

	if (value)
		return ctl_set(pid, file, value);
	if (ctl_get(pid, file, cur, sizeof(cur)))
		return -1;
	return strcmp(cur, cleared_text) ? ctl_set(pid, file, "") : 0;
}

/* dir as an absolute path (the process has its own working directory). */
static int absolute(const char *dir, char *out, size_t len)
{
	char cwd[PATH_MAX];

	if (dir[0] == '/')
		return snprintf(out, len, "%s", dir) < (int)len ? 0 : -ENAMETOOLONG;
	if (!getcwd(cwd, sizeof(cwd)))
		return -errno;
	return snprintf(out, len, "%s/%s", cwd, dir) < (int)len ? 0 : -ENAMETOOLONG;
}

/* What switching the tracer on needs (a pipe_opts ready callback for --live). */
struct tracer_start {
	const struct attach_record *o;
	const char *dir;
	long long t0;
	bool on;		/* it was switched on */
	int off;		/* 1: switched off (0: ok), -1: not yet */
};

/* The tracer last: it starts recording. */
static int tracer_on(void *arg)
{
	struct tracer_start *ts = arg;
	const struct attach_record *o = ts->o;
	char cur[PATH_MAX];

	if (ctl_set(o->pid, "current_tracer", o->tracer))
		return 1;
	if (getenv("PATCHSITE_ATTACH_TIME"))
		fprintf(stderr, "patchsite: record: pid %d: tracer on %lld ms after the start\n",
			o->pid, now_ms() - ts->t0);
	/* A filter whose functions all have refused sites (one-byte NOPs after attach) is silent. */
	if (o->filter && !ctl_get(o->pid, "enabled_functions", cur, sizeof(cur)) && !*cur)
		fprintf(stderr, "patchsite: record: pid %d: warning: no function of -F %s is traced: "
			"their sites were refused (gcc's -fpatchable-function-entry one-byte NOPs are "
			"left as built in a process attached to: see patchsite(1), ATTACH)\n", o->pid,
			o->filter);
	fprintf(stderr, "patchsite: record: pid %d: recording (%s) into %s; %s\n", o->pid, o->tracer,
		ts->dir, o->duration > 0 ? "for the duration given" : "Ctrl-C or SIGTERM stops");
	ts->on = true;
	return 0;
}

/* current_tracer nop: 0, or 1 (said). */
static int tracer_off(void *arg)
{
	struct tracer_start *ts = arg;

	if (ts->off < 0)
		ts->off = ctl_set(ts->o->pid, "current_tracer", "nop") ? 1 : 0;
	return ts->off;
}

/* Until a signal in stop, the end (ms, or 0) or the process's end: the signal, 0 or -1 (gone). */
static int wait_stop(const struct attach_record *o, const sigset_t *stop, long long end)
{
	struct timespec ts = { 0 };
	int sig = 0;

	while (!sig) {
		long long left = end ? end - now_ms() : 200;

		if (end && left <= 0)
			break;
		if (left > 200)
			left = 200;
		ts.tv_sec = left / 1000;
		ts.tv_nsec = left % 1000 * 1000000L;
		sig = sigtimedwait(stop, NULL, &ts);
		if (sig < 0)
			sig = 0;
		if (kill(o->pid, 0) && errno == ESRCH)
			return -1;
	}
	return sig;
}

/*
 * --live: the session's events as they are recorded, from now on (what the
 * directory held before, a running session's, is not shown: pipe
 * --from-now); the tracer is switched on once following has begun.
 */
static int follow_live(const struct attach_record *o, struct tracer_start *ts,
		       const sigset_t *stop, long long end)
{
	struct attach_follow f = {
		.dir = ts->dir, .pid = o->pid, .on = tracer_on, .off = tracer_off, .arg = ts,
		.until_ms = end, .held = stop,
	};

	o->follow(&f);
	sigprocmask(SIG_BLOCK, stop, NULL);
	if (!ts->on)
		return 1;	/* refused (said), or nothing followed: never switched on */
	return kill(o->pid, 0) && errno == ESRCH ? -1 : 0;
}

int attach_record(const struct attach_record *o)
{
	char why[1024], dir[PATH_MAX], cur[PATH_MAX];
	struct tracer_start ts = { .o = o, .dir = dir, .t0 = now_ms(), .off = -1 };
	sigset_t stop;
	long long end;
	int sig;

	if (attach_runtime(o->pid, "record", why, sizeof(why))) {
		fprintf(stderr, "patchsite: record: %s\n", why);
		return 1;
	}
	if (absolute(o->dir, dir, sizeof(dir))) {
		fprintf(stderr, "patchsite: record: %s: path too long\n", o->dir);
		return 2;
	}
	if (ctl_get(o->pid, "trace_dir", cur, sizeof(cur)))
		return 1;
	if (*cur && (o->dir_given && strcmp(cur, dir))) {
		fprintf(stderr, "patchsite: record: pid %d records into %s since its first tracer "
			"(a process keeps one trace directory): use -d %s\n", o->pid, cur, cur);
		return 1;
	}
	if (*cur)
		snprintf(dir, sizeof(dir), "%s", cur);	/* a second attach goes on in it */
	else if (o->fresh_dir(dir) || ctl_set(o->pid, "trace_dir", dir))
		return 2;
	/* Every setting first, the tracer last: it starts recording. */
	if ((o->kb && ctl_set(o->pid, "buffer_size_kb", o->kb)) ||
	    ctl_set(o->pid, "max_graph_depth", o->depth ? o->depth : "0") ||
	    ctl_filter(o->pid, "set_ftrace_filter", o->filter, "#### all functions enabled ####") ||
	    ctl_filter(o->pid, "set_ftrace_notrace", o->notrace, "") ||
	    ctl_filter(o->pid, "set_graph_function", o->graph, "#### all functions enabled ####") ||
	    ctl_set(o->pid, "tracing_on", "1"))
		return 1;
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGHUP);
	sigprocmask(SIG_BLOCK, &stop, NULL);
	end = o->duration > 0 ? now_ms() + (long long)(o->duration * 1000) : 0;
	if (o->live) {
		sig = follow_live(o, &ts, &stop, end);
		if (sig > 0)
			return sig;
	} else {
		if (tracer_on(&ts))
			return 1;
		sig = wait_stop(o, &stop, end);
	}
	if (sig < 0) {
		fprintf(stderr, "patchsite: record: pid %d ended; recorded up to then in %s\n",
			o->pid, dir);
		return 0;
	}
	if (tracer_off(&ts))
		return 1;
	fprintf(stderr, "patchsite: record: pid %d: stopped%s; it runs on untraced (every site a "
		"NOP; libpatchsite stays loaded in it); recorded in %s\n", o->pid,
		sig ? " by a signal" : "", dir);
	return 0;
}
