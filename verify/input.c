// SPDX-License-Identifier: GPL-2.0-only
/*
 * What the command line names, and how each input is read.
 *   FILE     any file: ELF, compressed ELF (xz, zstd, gzip: by magic, not
 *            by name), a static library (ar archive), a pipe
 *   DIR      every regular file below it, in name order; files that are
 *            not ELF (nor compressed ELF, nor archives) by magic are
 *            skipped and counted; symbolic links are not followed (as
 *            find(1) does not)
 *   @LIST    one input per line (@- : the list comes from standard input)
 *   -        standard input, read once
 * Each file is read into memory (a private mapping, or decompressed), so
 * libelf reads images, never temporary files.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "verify.h"

#define STDIN_NAME "<stdin>"

static int push(struct inputs *in, const char *path, bool in_dir)
{
	struct input *v;

	if (!(in->n & (in->n + 1)) || !in->v) {	/* n+1 a power of two: grow */
		v = realloc(in->v, 2 * (in->n + 1) * sizeof(*v));
		if (!v)
			return -ENOMEM;
		in->v = v;
	}
	in->v[in->n].path = strdup(path);
	if (!in->v[in->n].path)
		return -ENOMEM;
	in->v[in->n++].in_dir = in_dir;
	return 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int add_dir(struct inputs *in, const char *dir);

/* The entries of one directory, sorted, so that every run lists the same order. */
static int add_entries(struct inputs *in, const char *dir, char **names, size_t n)
{
	size_t len = strlen(dir), i;
	int err = 0;

	for (i = 0; i < n && !err; i++) {
		char *p = malloc(len + strlen(names[i]) + 2);
		struct stat st;

		if (!p)
			return -ENOMEM;
		sprintf(p, "%s%s%s", dir, len && dir[len - 1] == '/' ? "" : "/", names[i]);
		if (lstat(p, &st)) {
			diag_err(p, "%s", strerror(errno));
			err = -errno;
		} else if (S_ISDIR(st.st_mode)) {
			err = add_dir(in, p);
		} else if (S_ISREG(st.st_mode)) {
			err = push(in, p, true);
		}
		free(p);
	}
	return err;
}

static int add_dir(struct inputs *in, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL, **nn;
	size_t n = 0, i, before = in->n;
	int err = 0;

	if (!d) {
		diag_err(dir, "%s", strerror(errno));
		return -errno;
	}
	while (!err && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		nn = realloc(names, (n + 1) * sizeof(*names));
		if (!nn || !(nn[n] = strdup(e->d_name))) {
			names = nn ? nn : names;
			err = -ENOMEM;
			break;
		}
		names = nn;
		n++;
	}
	closedir(d);
	if (!err) {
		if (n)
			qsort(names, n, sizeof(*names), cmp_names);
		err = add_entries(in, dir, names, n);
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	if (err == -ENOMEM)
		diag_err(dir, "out of memory");
	if (!err && in->n == before)
		in->empty_dirs++;
	return err;
}

/* All of a file that cannot be mapped (a pipe, standard input). */
static int slurp(int fd, uint8_t **data, size_t *len)
{
	size_t cap = 0, n = 0;
	uint8_t *p = NULL, *q;
	ssize_t r;

	for (;;) {
		if (n == cap) {
			cap = cap ? cap * 2 : 65536;
			if (!(q = realloc(p, cap))) {
				free(p);
				return -ENOMEM;
			}
			p = q;
		}
		r = read(fd, p + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			free(p);
			return -errno;
		}
		if (!r)
			break;
		n += (size_t)r;
	}
	*data = p;
	*len = n;
	return 0;
}

static int read_stdin(struct inputs *in)
{
	int err;

	if (in->stdin_read) {
		diag_err(STDIN_NAME, "standard input named twice (as - or @-)");
		return -EINVAL;
	}
	in->stdin_read = true;
	err = slurp(0, &in->stdin_data, &in->stdin_len);
	if (err)
		diag_err(STDIN_NAME, "cannot read: %s", strerror(-err));
	return err;
}

int inputs_add(struct inputs *in, const char *arg)
{
	struct stat st;
	int err;

	if (arg[0] == '@')
		return inputs_add_list(in, arg + 1);
	if (!strcmp(arg, "-")) {
		if ((err = read_stdin(in)))
			return err;
		err = push(in, "-", false);
	} else if (!stat(arg, &st) && S_ISDIR(st.st_mode)) {
		err = add_dir(in, arg);
	} else {
		err = push(in, arg, false);	/* reading it tells what is wrong, if anything */
	}
	if (err == -ENOMEM)
		diag_err(arg, "out of memory");
	return err;
}

int inputs_add_list(struct inputs *in, const char *listfile)
{
	FILE *f;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int err = 0;

	if (!strcmp(listfile, "-")) {
		if ((err = read_stdin(in)))
			return err;
		f = fmemopen(in->stdin_data, in->stdin_len ? in->stdin_len : 1, "r");
		if (f && !in->stdin_len)
			fgetc(f);	/* an empty list */
	} else {
		f = fopen(listfile, "r");
	}
	if (!f) {
		diag_err(listfile, "%s", strerror(errno));
		return -errno;
	}
	while (!err && (len = getline(&line, &cap, f)) >= 0) {
		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = 0;
		if (len)
			err = line[0] == '@' ? push(in, line, false) : inputs_add(in, line);
	}
	free(line);
	fclose(f);
	return err;
}

void inputs_free(struct inputs *in)
{
	size_t i;

	for (i = 0; i < in->n; i++)
		free(in->v[i].path);
	free(in->v);
	free(in->stdin_data);
}

/* A file's bytes: a private writable mapping (libelf may convert in place) or a copy. */
struct blob {
	uint8_t *data;
	size_t len;
	bool mapped;
};

static int load(struct inputs *in, const struct input *it, struct blob *b)
{
	struct stat st;
	int fd, err = 0;

	*b = (struct blob){ 0 };
	if (!strcmp(it->path, "-") && !it->in_dir) {
		b->data = in->stdin_data;	/* read by the main thread, before any job */
		b->len = in->stdin_len;
		return 0;
	}
	/*
	 * A named pipe is opened as cat(1) opens it, waiting for its writer
	 * (opened without, a read before the writer comes is an early end);
	 * anything else without waiting, to see what it is first.
	 */
	fd = open(it->path, O_RDONLY | O_CLOEXEC |
		  (!stat(it->path, &st) && S_ISFIFO(st.st_mode) ? 0 : O_NONBLOCK));
	if (fd < 0 || fstat(fd, &st)) {
		err = -errno;
		goto out;
	}
	if (S_ISDIR(st.st_mode)) {
		err = -EISDIR;
	} else if (S_ISREG(st.st_mode)) {
		b->len = (size_t)st.st_size;
		if (b->len) {
			b->data = mmap(NULL, b->len, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
			if (b->data == MAP_FAILED) {
				b->data = NULL;
				err = -errno;
			}
			b->mapped = !err;
		}
	} else {
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
		err = slurp(fd, &b->data, &b->len);
	}
out:
	if (fd >= 0)
		close(fd);
	if (err)
		diag_err(it->path, "%s", err == -EISDIR ? "is a directory" : strerror(-err));
	return err;
}

static void unload(struct inputs *in, struct blob *b)
{
	if (b->mapped)
		munmap(b->data, b->len);
	else if (b->data != in->stdin_data)
		free(b->data);
}

/* An image that is not compressed: one ELF file, or an archive of them. */
static void audit_image(const struct options *opt, struct output *out, const char *name,
			uint8_t *data, size_t len, bool in_dir);

static void audit_elf(const struct options *opt, struct output *out, const char *name,
		      uint8_t *data, size_t len)
{
	struct elfobj *o;

	if (elfobj_open_image(name, data, len, &o) < 0 || audit_object(opt, out, name, o) < 0)
		report_file_error(opt, out, name);
}

static void audit_archive(const struct options *opt, struct output *out, const char *name,
			  uint8_t *data, size_t len)
{
	struct eo_member *m;
	size_t n, i;

	if (elfobj_ar_members(name, data, len, &m, &n)) {
		report_file_error(opt, out, name);
		return;
	}
	for (i = 0; i < n; i++) {
		/* lib.a(member.o), as binutils names a member */
		char *mname = malloc(strlen(name) + strlen(m[i].name) + 3);

		if (!mname) {
			diag_err(name, "out of memory");
			report_file_error(opt, out, name);
			break;
		}
		sprintf(mname, "%s(%s)", name, m[i].name);
		/* Members that are not ELF (bitcode, a stray text file) count as skipped. */
		if (unpack_kind(data + m[i].off, m[i].size) == BLOB_ELF)
			audit_image(opt, out, mname, data + m[i].off, m[i].size, false);
		else
			out->t.skipped++;
		free(mname);
	}
	elfobj_members_free(m, n);
}

static void audit_image(const struct options *opt, struct output *out, const char *name,
			uint8_t *data, size_t len, bool in_dir)
{
	switch (unpack_kind(data, len)) {
	case BLOB_AR:
		audit_archive(opt, out, name, data, len);
		break;
	case BLOB_OTHER:
		if (in_dir)
			out->t.skipped++;
		else	/* the ELF reader says what it is instead */
			audit_elf(opt, out, name, data, len);
		break;
	default:
		audit_elf(opt, out, name, data, len);
		break;
	}
}

void input_audit(const struct options *opt, struct inputs *in, size_t k, struct output *out)
{
	const struct input *it = &in->v[k];
	const char *name = strcmp(it->path, "-") ? it->path : STDIN_NAME;
	enum blob_kind kind;
	struct blob b;
	uint8_t *plain;
	size_t plen;

	if (load(in, it, &b)) {
		report_file_error(opt, out, name);
		return;
	}
	kind = unpack_kind(b.data, b.len);
	if (kind != BLOB_XZ && kind != BLOB_ZSTD && kind != BLOB_GZIP) {
		audit_image(opt, out, name, b.data, b.len, it->in_dir);
	} else if (unpack(name, kind, b.data, b.len, &plain, &plen)) {
		report_file_error(opt, out, name);
	} else {
		audit_image(opt, out, name, plain, plen, it->in_dir);
		free(plain);
	}
	unload(in, &b);
}
