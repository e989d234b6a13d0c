// SPDX-License-Identifier: GPL-2.0-only
/*
 * What attach reads of the target process before touching it: its
 * mappings (/proc/PID/maps), its files through its own root, and the
 * little of ELF it needs (section tables, symbols, DT_NEEDED, the load
 * bias).  Also the small helpers every attach file shares: one-line
 * errors and a monotonic clock.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "attach.h"
#include "attach_target.h"

int attach_fail(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
	return -1;
}

long long attach_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

long long attach_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

void attach_sleep_ms(long ms)
{
	nanosleep(&(struct timespec){ .tv_sec = ms / 1000, .tv_nsec = ms % 1000 * 1000000L }, NULL);
}


void target_free(struct target *t)
{
	free(t->maps);
	free(t->paths);
	if (t->mem >= 0)
		close(t->mem);
}

int target_maps(struct target *t)
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

const char *target_base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* The first mapping of an object whose file name starts with prefix; NULL if none. */
const struct map *target_map_named(const struct target *t, const char *prefix)
{
	for (size_t i = 0; i < t->nmaps; i++)
		if (t->maps[i].path[0] == '/' &&
		    !strncmp(target_base_name(t->maps[i].path), prefix, strlen(prefix)))
			return &t->maps[i];
	return NULL;
}

bool target_in_text(const struct target *t, unsigned long addr, const char *path)
{
	for (size_t i = 0; i < t->nmaps; i++)
		if (t->maps[i].perms[2] == 'x' && addr >= t->maps[i].lo && addr < t->maps[i].hi &&
		    !strcmp(t->maps[i].path, path))
			return true;
	return false;
}

/* The target's file (through its root: a container's paths are its own), mapped read-only. */
int target_file_open(const struct target *t, const char *path, struct file *f)
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

void target_file_close(struct file *f)
{
	munmap((void *)f->p, f->size);
}

/*
 * The section headers of an ELF64 file, checked against its size and
 * aligned for the structs read from it (as every linker writes them; a
 * file that is not is not read); NULL if it is not one.
 */
static const Elf64_Shdr *elf_sections(const struct file *f, const Elf64_Ehdr **eh)
{
	const Elf64_Ehdr *e = (const void *)f->p;

	if (memcmp(e->e_ident, ELFMAG, SELFMAG) || e->e_ident[EI_CLASS] != ELFCLASS64 ||
	    e->e_shentsize != sizeof(Elf64_Shdr) || e->e_shoff > f->size ||
	    e->e_shoff % _Alignof(Elf64_Shdr) ||
	    (size_t)e->e_shnum * sizeof(Elf64_Shdr) > f->size - e->e_shoff ||
	    e->e_shstrndx >= e->e_shnum)
		return NULL;
	*eh = e;
	return (const void *)(f->p + e->e_shoff);
}

/* Are the section's bytes in the file?  Every caller reads them: a NOBITS one has none. */
static bool in_file(const struct file *f, const Elf64_Shdr *s)
{
	return s->sh_type != SHT_NOBITS && s->sh_offset <= f->size &&
	       s->sh_size <= f->size - s->sh_offset;
}

enum sym_want { WANT_FUNCTION, WANT_OBJECT, WANT_IMPORT };
static unsigned long file_symbol(const struct file *f, const char *name, bool symtab,
				 enum sym_want want);

/*
 * Does the file carry a table of sites the runtime reads (patchsite/module.c),
 * or call mcount (plain -pg: the runtime finds the calls after each
 * prologue, patchsite/sites/scan.c)?
 */
bool target_file_has_sites(const struct file *f)
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
	return target_file_imports(f, "mcount");
}

/*
 * A defined function symbol's value in the file's dynamic (or, with
 * symtab, static) symbol table: the default version where there are
 * several (dlopen@@GLIBC_2.34 over dlopen@GLIBC_2.2.5).  0 if none.
 * WANT_IMPORT: 1 if the symbol is there undefined (the file calls it).
 */
static unsigned long file_symbol(const struct file *f, const char *name, bool symtab,
				 enum sym_want want)
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
		    s->sh_offset % _Alignof(Elf64_Sym) ||
		    !in_file(f, s) || !in_file(f, str = &sh[s->sh_link]))
			continue;
		for (unsigned k = 0; !symtab && k < e->e_shnum; k++)
			if (sh[k].sh_type == SHT_GNU_versym && sh[k].sh_link == i &&
			    sh[k].sh_offset % _Alignof(Elf64_Half) == 0 &&
			    in_file(f, &sh[k]) &&
			    sh[k].sh_size / 2 >= s->sh_size / sizeof(Elf64_Sym))
				ver = (const void *)(f->p + sh[k].sh_offset);
		sym = (const void *)(f->p + s->sh_offset);
		n = s->sh_size / sizeof(*sym);
		for (size_t j = 1; j < n; j++) {
			unsigned type = ELF64_ST_TYPE(sym[j].st_info);

			if ((sym[j].st_shndx == SHN_UNDEF) != (want == WANT_IMPORT) ||
			    sym[j].st_name >= str->sh_size ||
			    (want == WANT_OBJECT ? type != STT_OBJECT :
			     want == WANT_FUNCTION && type != STT_FUNC && type != STT_GNU_IFUNC) ||
			    strncmp((const char *)f->p + str->sh_offset + sym[j].st_name, name,
				    str->sh_size - sym[j].st_name))
				continue;
			if (want == WANT_IMPORT)
				return 1;
			if (!ver || !(ver[j] & 0x8000))
				return sym[j].st_value;
			any = sym[j].st_value;
		}
	}
	return any;
}

unsigned long target_file_symbol(const struct file *f, const char *name, bool symtab)
{
	return file_symbol(f, name, symtab, WANT_FUNCTION);
}

unsigned long target_file_object(const struct file *f, const char *name)
{
	return file_symbol(f, name, false, WANT_OBJECT);
}

bool target_file_imports(const struct file *f, const char *name)
{
	return file_symbol(f, name, false, WANT_IMPORT);
}

/* The first DT_NEEDED entry of the file that starts with prefix; NULL if none. */
const char *target_file_needed(const struct file *f, const char *prefix)
{
	const Elf64_Ehdr *e;
	const Elf64_Shdr *sh = elf_sections(f, &e);

	for (unsigned i = 0; sh && i < e->e_shnum; i++) {
		const Elf64_Shdr *s = &sh[i], *str;
		const Elf64_Dyn *d;

		if (s->sh_type != SHT_DYNAMIC || s->sh_link >= e->e_shnum || !in_file(f, s) ||
		    s->sh_offset % _Alignof(Elf64_Dyn) ||
		    !in_file(f, str = &sh[s->sh_link]))
			continue;
		d = (const void *)(f->p + s->sh_offset);
		for (size_t k = 0; k < s->sh_size / sizeof(*d) && d[k].d_tag != DT_NULL; k++) {
			const char *name;

			/* The pointer is formed only once the offset is known to be inside. */
			if (d[k].d_tag != DT_NEEDED || d[k].d_un.d_val >= str->sh_size)
				continue;
			name = (const char *)f->p + str->sh_offset + d[k].d_un.d_val;
			if (memchr(name, '\0', str->sh_size - d[k].d_un.d_val) &&
			    !strncmp(name, prefix, strlen(prefix)))
				return name;
		}
	}
	return NULL;
}

/* The file's PT_INTERP path, into out; false if it has none. */
bool target_file_interp(const struct file *f, char *out, size_t len)
{
	const Elf64_Ehdr *e = (const void *)f->p;
	const Elf64_Phdr *ph;

	if (memcmp(e->e_ident, ELFMAG, SELFMAG) || e->e_ident[EI_CLASS] != ELFCLASS64 ||
	    e->e_phoff > f->size || e->e_phoff % _Alignof(Elf64_Phdr) ||
	    (size_t)e->e_phnum * sizeof(*ph) > f->size - e->e_phoff)
		return false;
	ph = (const void *)(f->p + e->e_phoff);
	for (unsigned i = 0; i < e->e_phnum; i++) {
		if (ph[i].p_type != PT_INTERP || ph[i].p_offset > f->size ||
		    ph[i].p_filesz > f->size - ph[i].p_offset || !ph[i].p_filesz)
			continue;
		snprintf(out, len, "%.*s", (int)ph[i].p_filesz, (const char *)f->p + ph[i].p_offset);
		return true;
	}
	return false;
}

/* Where the object mapped from path is loaded: its address minus its first segment's vaddr. */
static int load_bias(const struct target *t, const struct map *m, const struct file *f,
		     unsigned long *bias)
{
	const Elf64_Ehdr *e = (const void *)f->p;
	const Elf64_Phdr *ph;
	unsigned long lo = ULONG_MAX;

	if (e->e_phoff > f->size || e->e_phoff % _Alignof(Elf64_Phdr) ||
	    (size_t)e->e_phnum * sizeof(*ph) > f->size - e->e_phoff)
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

int target_file_bias(const struct target *t, const struct map *m, const struct file *f,
		     unsigned long *bias)
{
	return load_bias(t, m, f, bias);
}

/* The section named name: its address (as linked) and size; false if the file has none. */
bool target_file_section(const struct file *f, const char *name, unsigned long *addr,
			 unsigned long *size)
{
	const Elf64_Ehdr *e;
	const Elf64_Shdr *sh = elf_sections(f, &e), *ss;

	if (!sh || !in_file(f, ss = &sh[e->e_shstrndx]))
		return false;
	for (unsigned i = 0; i < e->e_shnum; i++)
		if (sh[i].sh_name < ss->sh_size &&
		    !strncmp((const char *)f->p + ss->sh_offset + sh[i].sh_name, name,
			     ss->sh_size - sh[i].sh_name)) {
			*addr = sh[i].sh_addr;
			*size = sh[i].sh_size;
			return true;
		}
	return false;
}

/* Is addr (as linked) the start of a function in the file's .symtab or .dynsym? */
bool target_file_function_at(const struct file *f, unsigned long addr)
{
	const Elf64_Ehdr *e;
	const Elf64_Shdr *sh = elf_sections(f, &e);

	for (unsigned i = 0; sh && i < e->e_shnum; i++) {
		const Elf64_Sym *sym;

		if ((sh[i].sh_type != SHT_SYMTAB && sh[i].sh_type != SHT_DYNSYM) ||
		    sh[i].sh_offset % _Alignof(Elf64_Sym) || !in_file(f, &sh[i]))
			continue;
		sym = (const void *)(f->p + sh[i].sh_offset);
		for (size_t j = 1; j < sh[i].sh_size / sizeof(*sym); j++)
			if (sym[j].st_value == addr && sym[j].st_shndx != SHN_UNDEF &&
			    ELF64_ST_TYPE(sym[j].st_info) == STT_FUNC)
				return true;
	}
	return false;
}

/* A function of the C library (libc.so.6, else libdl/libpthread of glibc < 2.34) in the target. */
unsigned long target_libc_function(const struct target *t, const char *name)
{
	static const char *const libs[] = { "libc.so.6", "libdl.so.2", "libpthread.so.0", NULL };

	for (unsigned i = 0; libs[i]; i++) {
		const struct map *m = target_map_named(t, libs[i]);
		struct file f;
		unsigned long v, bias;

		if (!m || target_file_open(t, m->path, &f))
			continue;
		v = target_file_symbol(&f, name, false);
		/* The program's own libc (the loader's base namespace), not an audit module's copy. */
		if (v && i == 0 && t->libc_bias) {
			target_file_close(&f);
			return t->libc_bias + v;
		}
		if (v && !load_bias(t, m, &f, &bias)) {
			target_file_close(&f);
			return bias + v;
		}
		target_file_close(&f);
	}
	return 0;
}

/* The parent of pid, from /proc/PID/stat (after the name, which may hold anything); 0 if unknown. */
static int parent_of(int pid)
{
	char path[64], buf[512], *p;
	int ppid = 0;
	size_t r;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (!(f = fopen(path, "re")))
		return 0;
	r = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[r] = '\0';
	p = strrchr(buf, ')');
	return p && sscanf(p + 1, " %*c %d", &ppid) == 1 ? ppid : 0;
}

/* Does pid run its parent's executable, without the runtime mapped (a shell's fork)? */
static bool parents_fork(int pid)
{
	struct target t = { .pid = pid, .mem = -1 };
	char path[64], up[PATH_MAX];
	int ppid = parent_of(pid);
	bool fork = false;
	ssize_t n;

	if (ppid <= 1)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/exe", ppid);
	n = readlink(path, up, sizeof(up) - 1);
	up[n > 0 ? n : 0] = '\0';
	if (n > 0 && !target_maps(&t))
		fork = !strcmp(t.exe, up) && !target_map_named(&t, "libpatchsite");
	target_free(&t);
	return fork;
}

/*
 * `prog & patchsite ctl $! ...`: $! may still be the shell's fork, which has
 * not exec'd prog yet; the request is for prog, not for the shell (attached
 * to, it has no sites).  Wait for the exec, 2 s at most.
 */
void attach_await_exec(int pid)
{
	for (int i = 0; i < 200 && parents_fork(pid); i++)
		usleep(10000);
}
