// SPDX-License-Identifier: GPL-2.0-only
/*
 * Children started with an environment of their own: execve, execvpe,
 * posix_spawn and posix_spawnp given an envp that lacks what started us
 * (LD_PRELOAD naming this library, PATCHSITE_*: `patchsite record` puts
 * them in the program's environment) would run untraced, where one that
 * inherits the environment is followed; uftrace follows both.  Where this
 * library was preloaded, the wrappers give such an envp the variables it
 * lacks, as the process had them at start-up, and this library added to
 * an LD_PRELOAD of its own, then call the next definition (a sanitizer's,
 * or the C library's).  A variable the program set in envp is kept.
 *
 * No allocation in the wrappers (a vforked child may call execve): the
 * new envp and the joined LD_PRELOAD are on the stack.  Linked into the
 * program instead of preloaded, nothing is added.
 */
#include <dlfcn.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


#define EXPORT __attribute__((visibility("default")))
#define MAX_VARS 64

extern char **environ;

static struct {
	const char *var[MAX_VARS];	/* "NAME=value", copied at start-up */
	unsigned n;
	const char *self;		/* this library's path, as the loader has it */
} keep;

/* Is self one of the words of an LD_PRELOAD value (space- or colon-separated)? */
static bool names_self(const char *list, const char *self)
{
	size_t len = strlen(self);

	for (const char *p = strstr(list, self); p; p = strstr(p + 1, self))
		if ((p == list || p[-1] == ' ' || p[-1] == ':') &&
		    (!p[len] || p[len] == ' ' || p[len] == ':'))
			return true;
	return false;
}

static bool carried(const char *v)
{
	return !strncmp(v, "PATCHSITE_", 10) || !strncmp(v, "LD_PRELOAD=", 11);
}

/* Ours to carry: only where LD_PRELOAD at start-up names this library. */
__attribute__((constructor)) static void spawn_keep(void)
{
	const char *pre = getenv("LD_PRELOAD");
	Dl_info di;

	if (!pre || !dladdr((void *)spawn_keep, &di) || !di.dli_fname ||
	    !names_self(pre, di.dli_fname))
		return;
	keep.self = strdup(di.dli_fname);
	for (char **e = environ; keep.self && e && *e && keep.n < MAX_VARS; e++)
		if (carried(*e) && (keep.var[keep.n] = strdup(*e)))
			keep.n++;
}

/* envp's entry for the variable of "NAME=value" v, or NULL. */
static const char *env_entry(char *const envp[], const char *v)
{
	size_t len = (size_t)(strchr(v, '=') - v) + 1;

	for (size_t i = 0; envp[i]; i++)
		if (!strncmp(envp[i], v, len))
			return envp[i];
	return NULL;
}

static size_t env_count(char *const envp[])
{
	size_t n = 0;

	while (envp[n])
		n++;
	return n;
}

/* Room for LD_PRELOAD=old plus " self" (0: envp's LD_PRELOAD is kept as it is). */
static size_t preload_room(char *const envp[])
{
	const char *pre = keep.n && envp ? env_entry(envp, "LD_PRELOAD=") : NULL;

	return pre && !names_self(pre + 11, keep.self) ? strlen(pre) + strlen(keep.self) + 2 : 0;
}

/* Entries of the new envp (0: envp is passed as it is). */
static size_t vec_len(char *const envp[])
{
	return keep.n && envp ? env_count(envp) + keep.n + 1 : 0;
}

/*
 * vec (vec_len entries): envp, its LD_PRELOAD in buf (preload_room bytes)
 * with this library added, then what it lacks of ours.
 */
static char *const *with_ours(char *const envp[], char **vec, size_t len, char *buf)
{
	size_t n = 0;

	if (!len)
		return envp;
	for (size_t i = 0; envp[i]; i++) {
		vec[n] = envp[i];
		if (buf && !strncmp(envp[i], "LD_PRELOAD=", 11)) {
			strcpy(buf, envp[i]);
			strcat(buf, " ");
			strcat(buf, keep.self);
			vec[n] = buf;
			buf = NULL;	/* (the first only, as the loader reads it) */
		}
		n++;
	}
	for (unsigned k = 0; k < keep.n; k++)
		if (!env_entry(envp, keep.var[k]))
			vec[n++] = (char *)keep.var[k];
	vec[n] = NULL;
	return vec;
}

typedef int exec_fn(const char *, char *const[], char *const[]);
typedef int spawn_fn(pid_t *, const char *, const posix_spawn_file_actions_t *,
		     const posix_spawnattr_t *, char *const[], char *const[]);

/* The next definitions, found at start-up (dlsym may allocate: not in a vforked child). */
static struct {
	exec_fn *execve, *execvpe;
	spawn_fn *spawn, *spawnp;
} next;

static void *next_of(void *known, const char *name)
{
	return known ? known : dlsym(RTLD_NEXT, name);
}

__attribute__((constructor)) static void spawn_next(void)
{
	next.execve = (exec_fn *)next_of(NULL, "execve");
	next.execvpe = (exec_fn *)next_of(NULL, "execvpe");
	next.spawn = (spawn_fn *)next_of(NULL, "posix_spawn");
	next.spawnp = (spawn_fn *)next_of(NULL, "posix_spawnp");
}

EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	exec_fn *fn = (exec_fn *)next_of((void *)next.execve, "execve");
	size_t room = preload_room(envp), len = vec_len(envp);
	char buf[room ? room : 1], *vec[len ? len : 1];

	return fn(path, argv, with_ours(envp, vec, len, room ? buf : NULL));
}

EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	exec_fn *fn = (exec_fn *)next_of((void *)next.execvpe, "execvpe");
	size_t room = preload_room(envp), len = vec_len(envp);
	char buf[room ? room : 1], *vec[len ? len : 1];

	return fn(file, argv, with_ours(envp, vec, len, room ? buf : NULL));
}

EXPORT int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
		       const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	spawn_fn *fn = (spawn_fn *)next_of((void *)next.spawn, "posix_spawn");
	size_t room = preload_room(envp), len = vec_len(envp);
	char buf[room ? room : 1], *vec[len ? len : 1];

	return fn(pid, path, fa, attr, argv, with_ours(envp, vec, len, room ? buf : NULL));
}

EXPORT int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
			const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	spawn_fn *fn = (spawn_fn *)next_of((void *)next.spawnp, "posix_spawnp");
	size_t room = preload_room(envp), len = vec_len(envp);
	char buf[room ? room : 1], *vec[len ? len : 1];

	return fn(pid, file, fa, attr, argv, with_ours(envp, vec, len, room ? buf : NULL));
}
