// SPDX-License-Identifier: GPL-2.0-only
/*
 * Has the target's dynamic loader finished starting the program?  Just
 * after exec the loader is still mapping and relocating (and an LD_AUDIT
 * module's la_version may run with a private copy of libc mapped): the C
 * library the injected thread would call is not relocated or not the
 * program's.  glibc's debugger interface says where it stands: _r_debug in
 * the loader (an exported data symbol) holds r_version (0 until the loader
 * set it up), r_map (the base namespace's link_map list) and r_state
 * (RT_CONSISTENT once every object of the list is mapped and relocated;
 * RT_ADD/RT_DELETE during a dlopen or dlclose).  The loader is done when
 * r_version is set, r_state is RT_CONSISTENT and libc.so.6 is on the base
 * list; its l_addr is then the program's libc's load bias.
 *
 *     struct r_debug   { int r_version; struct link_map *r_map; ElfW(Addr) r_brk;
 *                        enum r_state; ... }                 <link.h>
 *     struct link_map  { ElfW(Addr) l_addr; char *l_name; ElfW(Dyn) *l_ld;
 *                        struct link_map *l_next, *l_prev; ... }
 */
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "attach_loader.h"

#define MAX_OBJECTS	65536	/* a bound on the list walk (it is read from another process) */

/* Where the loader's _r_debug is in the target; 0 if it has none (not glibc's loader). */
static unsigned long r_debug_addr(const struct target *t, const char *interp)
{
	const struct map *m = target_map_named(t, target_base_name(interp));
	unsigned long v = 0;
	struct file f;

	if (!m || target_file_open(t, m->path, &f))
		return 0;
	v = target_file_object(&f, "_r_debug");
	target_file_close(&f);
	/* The loader is a shared object: the first mapping of the file is its base. */
	for (size_t i = 0; v && i < t->nmaps; i++)
		if (!strcmp(t->maps[i].path, m->path) && t->maps[i].off == 0)
			return t->maps[i].lo + v;
	return 0;
}

static bool peek(int mem, unsigned long addr, void *buf, size_t n)
{
	return pread(mem, buf, n, (off_t)addr) == (ssize_t)n;
}

/* libc.so.6's load bias on the base namespace's list; false if it is not on it. */
static bool base_libc(int mem, unsigned long lm, unsigned long *bias)
{
	for (unsigned n = 0; lm && n < MAX_OBJECTS; n++) {
		struct link_map l;
		char name[PATH_MAX];
		ssize_t got;

		if (!peek(mem, lm, &l, offsetof(struct link_map, l_prev)))
			return false;
		got = l.l_name ? pread(mem, name, sizeof(name) - 1, (off_t)(unsigned long)l.l_name) : 0;
		name[got > 0 ? got : 0] = '\0';
		if (!strncmp(target_base_name(name), "libc.so.6", 9)) {
			*bias = l.l_addr;
			return true;
		}
		lm = (unsigned long)l.l_next;
	}
	return false;
}

enum loader_state attach_loader_state(struct target *t, char *interp, size_t len)
{
	enum loader_state st = LOADER_STARTING;
	unsigned long at, bias;
	struct r_debug rd;
	char path[64];
	struct file f;
	bool has;
	int mem;

	interp[0] = '\0';
	if (target_file_open(t, t->exe, &f))
		return target_map_named(t, "libc.so.6") ? LOADER_DONE : LOADER_STATIC;
	has = target_file_interp(&f, interp, len);
	/* Started as `ld.so PROGRAM`: the loader is the executable. */
	if (!has && target_file_object(&f, "_r_debug")) {
		snprintf(interp, len, "%s", t->exe);
		has = true;
	}
	target_file_close(&f);
	if (!has)
		return LOADER_STATIC;
	at = r_debug_addr(t, interp);
	if (!at)
		return target_map_named(t, "libc.so.6") ? LOADER_DONE : LOADER_STARTING;
	snprintf(path, sizeof(path), "/proc/%d/mem", t->pid);
	mem = open(path, O_RDONLY | O_CLOEXEC);
	if (mem < 0)
		return LOADER_DONE;	/* no access: the injection says why (ptrace rules) */
	if (peek(mem, at, &rd, sizeof(rd)) && rd.r_version && base_libc(mem, (unsigned long)rd.r_map,
									  &bias)) {
		st = rd.r_state == RT_CONSISTENT ? LOADER_DONE : LOADER_BUSY;
		t->libc_bias = bias;
	}
	close(mem);
	return st;
}
