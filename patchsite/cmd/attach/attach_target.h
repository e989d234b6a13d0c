/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What attach reads of a target process (attach_target.c): its mappings,
 * its files through its root and their ELF tables; the one-line error and
 * clock helpers the attach files share.
 */
#ifndef PS_CMD_ATTACH_TARGET_H
#define PS_CMD_ATTACH_TARGET_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Write one line to why (len bytes); returns -1, so that `return attach_fail(...)` refuses. */
__attribute__((format(printf, 3, 4)))
int attach_fail(char *why, size_t len, const char *fmt, ...);

long long attach_now_us(void);
long long attach_now_ms(void);
void attach_sleep_ms(long ms);

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
	int mem;		/* /proc/PID/mem, -1 until attach_inject opens it */
	unsigned long libc_bias;	/* the base namespace's libc.so.6 (attach_loader.c); 0: unknown */
	bool noflag;		/* proof files given (--noflag-proof): sites without a site table */
};

/* Read /proc/PID/exe and /proc/PID/maps into t: 0 or -errno (-EACCES: ptrace rules). */
int target_maps(struct target *t);
void target_free(struct target *t);
const char *target_base_name(const char *path);
/* The first mapping of an object whose file name starts with prefix; NULL if none. */
const struct map *target_map_named(const struct target *t, const char *prefix);
/* Is addr in an executable mapping of the file path? */
bool target_in_text(const struct target *t, unsigned long addr, const char *path);

/* A file of the target (through /proc/PID/root), mapped read-only. */
struct file {
	const uint8_t *p;
	size_t size;
};

int target_file_open(const struct target *t, const char *path, struct file *f);
void target_file_close(struct file *f);
/* Does the file carry a table of sites the runtime reads, or call mcount (plain -pg)? */
bool target_file_has_sites(const struct file *f);
/* Does the file's .dynsym hold name undefined (the file calls it through the loader)? */
bool target_file_imports(const struct file *f, const char *name);
/* A defined function's value in .dynsym (or .symtab), the default version first; 0 if none. */
unsigned long target_file_symbol(const struct file *f, const char *name, bool symtab);
/* A defined data object's value in .dynsym; 0 if none. */
unsigned long target_file_object(const struct file *f, const char *name);
/* The first DT_NEEDED entry starting with prefix; NULL if none. */
const char *target_file_needed(const struct file *f, const char *prefix);
/* The file's PT_INTERP path, into out (len bytes); false if it has none. */
bool target_file_interp(const struct file *f, char *out, size_t len);
/* Where the object mapped at m (the file f) is loaded: address minus linked address. */
int target_file_bias(const struct target *t, const struct map *m, const struct file *f,
		     unsigned long *bias);
/* The section named name: its address as linked and its size; false if none. */
bool target_file_section(const struct file *f, const char *name, unsigned long *addr,
			 unsigned long *size);
/* Is addr (as linked) the start of a function symbol of the file? */
bool target_file_function_at(const struct file *f, unsigned long addr);
/* A function of the target's C library, at its address in the target; 0 if none. */
unsigned long target_libc_function(const struct target *t, const char *name);

#endif
