// SPDX-License-Identifier: GPL-2.0-only
/*
 * The members of an ar archive (a static library), through libelf as part
 * of the elfobj module: libelf resolves GNU long names ("//" table) and
 * skips nothing silently.  The symbol index ("/", "/SYM64/") and the long
 * name table are archive bookkeeping, not members.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "elfobj.h"
#include "elfobj_priv.h"

void elfobj_members_free(struct eo_member *m, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(m[i].name);
	free(m);
}

static int add_member(struct eo_member **m, size_t *n, const char *name, uint64_t off,
		      uint64_t size)
{
	struct eo_member *p = realloc(*m, (*n + 1) * sizeof(**m));

	if (!p)
		return -ENOMEM;
	*m = p;
	p[*n] = (struct eo_member){ .name = strdup(name), .off = off, .size = size };
	if (!p[*n].name)
		return -ENOMEM;
	(*n)++;
	return 0;
}

/*
 * The size a member's 60-byte header declares (decimal, at byte 48):
 * libelf shortens it to what the file holds, which hides a truncated file.
 */
static unsigned long long declared_size(const void *image, size_t off)
{
	char field[11];

	if (off < 60)
		return 0;
	memcpy(field, (const char *)image + off - 60 + 48, 10);
	field[10] = 0;
	return strtoull(field, NULL, 10);
}

/* One member: its header, and where its bytes are in the image. */
static int member(const char *name, Elf *e, void *image, size_t size, struct eo_member **m,
		  size_t *n, size_t *end)
{
	Elf_Arhdr *h = elf_getarhdr(e);
	size_t len = 0, off;
	char *raw = elf_rawfile(e, &len);

	if (!h || !raw || raw < (char *)image || (size_t)(raw - (char *)image) > size ||
	    len > size - (size_t)(raw - (char *)image)) {
		diag_err(name, "bad archive member header: %s", elf_errmsg(-1));
		return -EINVAL;
	}
	off = (size_t)(raw - (char *)image);
	if (len < declared_size(image, off)) {
		diag_err(name, "archive is truncated: member %s has %zu of its %llu bytes",
			 h->ar_name, len, declared_size(image, off));
		return -EINVAL;
	}
	*end = off + len + ((off + len) & 1);	/* members start on even offsets */
	if (h->ar_name[0] == '/')	/* the symbol index or the long name table */
		return 0;
	if (add_member(m, n, h->ar_name, off, len)) {
		diag_err(name, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

static int walk(const char *name, Elf *ar, void *image, size_t size, struct eo_member **m,
		size_t *n)
{
	/* libelf takes members of an image in memory only with this command. */
	Elf_Cmd cmd = ELF_C_READ_MMAP;
	size_t end = 8;
	Elf *e;
	int err = 0;

	/* An archive with no member ends right after its magic. */
	while (!err && cmd != ELF_C_NULL && size > 8) {
		if (!(e = elf_begin(-1, cmd, ar))) {
			diag_err(name, "bad archive member header: %s", elf_errmsg(-1));
			return -EINVAL;
		}
		err = member(name, e, image, size, m, n, &end);
		cmd = elf_next(e);
		elf_end(e);
	}
	/* libelf stops quietly at a member header the file cuts off. */
	if (!err && end < size) {
		diag_err(name, "archive is truncated or corrupt: %llu bytes after its last "
			 "readable member", (unsigned long long)(size - end));
		err = -EINVAL;
	}
	return err;
}

int elfobj_ar_members(const char *name, void *image, size_t size, struct eo_member **members,
		      size_t *n)
{
	Elf *ar;
	int err;

	*members = NULL;
	*n = 0;
	if (size >= 8 && !memcmp(image, "!<thin>\n", 8)) {
		diag_err(name, "is a thin archive (members kept in other files): not supported");
		return -ENOTSUP;
	}
	eo_libelf_init();
	ar = elf_memory(image, size);
	if (!ar || elf_kind(ar) != ELF_K_AR) {
		diag_err(name, "is not a readable ar archive: %s", elf_errmsg(-1));
		elf_end(ar);
		return -EINVAL;
	}
	err = walk(name, ar, image, size, members, n);
	elf_end(ar);
	if (err) {
		elfobj_members_free(*members, *n);
		*members = NULL;
		*n = 0;
	}
	return err;
}
