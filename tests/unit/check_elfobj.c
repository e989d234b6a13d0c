// SPDX-License-Identifier: GPL-2.0-only
/*
 * The ELF layer on a real object (testdata/demo/sample.c compiled with gcc
 * -pg -mfentry; oracle for its contents: readelf's view of the same file,
 * fixed by the source) and on hostile input: every bad file must give one
 * diagnostic naming the file and a negative return, never a crash.
 */
#include <check.h>
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diag.h"
#include "elfobj.h"
#include "suites.h"

static char last_msg[1024];
static int nmsg;

static void capture(enum diag_level level, const char *file, const char *msg)
{
	(void)level;
	snprintf(last_msg, sizeof(last_msg), "%s: %s", file ? file : "", msg);
	nmsg++;
}

static char tmpdir[64];

static void setup(void)
{
	strcpy(tmpdir, "/tmp/check_elfobj.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
	diag_set_sink(capture);
	nmsg = 0;
	last_msg[0] = 0;
}

static void teardown(void)
{
	char cmd[128];

	diag_set_sink(NULL);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	ck_assert_int_eq(system(cmd), 0);
}

static size_t read_file(const char *path, unsigned char **buf)
{
	FILE *f = fopen(path, "rb");
	long n;

	ck_assert_ptr_nonnull(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	*buf = malloc((size_t)n);
	ck_assert_uint_eq(fread(*buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	return (size_t)n;
}

static const char *write_tmp(const char *name, const void *buf, size_t n)
{
	static char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	f = fopen(path, "wb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(buf, 1, n, f), n);
	fclose(f);
	return path;
}

static size_t find_sym(const struct elfobj *o, const char *name)
{
	size_t i;

	for (i = 1; i < elfobj_nsyms(o); i++)
		if (!strcmp(elfobj_sym(o, i)->name, name))
			return i;
	return 0;
}

START_TEST(test_open_sample)
{
	struct elfobj *o;
	const struct eo_rel *rels;
	size_t n, text, rtext, work;

	ck_assert_int_eq(elfobj_open(SAMPLE_OBJ, &o), 0);
	ck_assert_uint_eq(elfobj_hdr(o)->type, EO_ET_REL);
	ck_assert_uint_eq(elfobj_hdr(o)->word, 8);
	ck_assert_ptr_nonnull(elfobj_arch(o));
	text = elfobj_find_sec(o, ".text");
	rtext = elfobj_find_sec(o, ".rela.text");
	ck_assert_uint_ne(text, 0);
	ck_assert_uint_ne(rtext, 0);
	work = find_sym(o, "work");
	ck_assert_uint_ne(work, 0);
	ck_assert_uint_eq(elfobj_sym(o, work)->shndx, text);
	ck_assert_uint_eq(elfobj_sym(o, work)->type, EO_STT_FUNC);
	ck_assert_int_eq(elfobj_rels(o, rtext, &rels, &n), 0);
	ck_assert_uint_ge(n, 1);
	/* call __fentry__ at the first byte of work: e8 <rel32>, relocation at +1 */
	ck_assert_str_eq(elfobj_sym(o, rels[0].sym)->name, "__fentry__");
	ck_assert_uint_eq(rels[0].offset, elfobj_sym(o, work)->value + 1);
	ck_assert_uint_eq(elfobj_sec_bytes(o, text)[rels[0].offset - 1], 0xe8);
	elfobj_close(o);
	ck_assert_int_eq(nmsg, 0);
}
END_TEST

/* Edits reach the new file, the input stays as it was, symbols follow. */
START_TEST(test_write_with_edits)
{
	struct elfobj *o, *w;
	unsigned char *before, *after;
	size_t nb, na, text, rtext, n;
	const struct eo_rel *rels;
	uint64_t words[2] = { 0x10, 0x20 };
	char out[128];
	long name, sym, idx;

	snprintf(out, sizeof(out), "%s/out.o", tmpdir);
	nb = read_file(SAMPLE_OBJ, &before);
	ck_assert_int_eq(elfobj_open(SAMPLE_OBJ, &o), 0);
	text = elfobj_find_sec(o, ".text");
	sym = elfobj_add_section_symbol(o, text);
	ck_assert_int_gt(sym, 0);
	name = elfobj_add_shstr(o, ".testwords");
	ck_assert_int_gt(name, 0);
	idx = elfobj_add_section(o, &(struct eo_newsec){ .name = (uint32_t)name,
		.type = EO_SHT_PROGBITS, .flags = EO_SHF_ALLOC, .addralign = 8, .entsize = 8,
		.words = words, .count = 2 });
	ck_assert_int_eq(idx, (long)elfobj_shnum(o));
	ck_assert_int_eq(elfobj_write(o, out), 0);
	elfobj_close(o);

	na = read_file(SAMPLE_OBJ, &after);
	ck_assert_uint_eq(na, nb);
	ck_assert(!memcmp(before, after, nb));
	free(before);
	free(after);

	ck_assert_int_eq(elfobj_open(out, &w), 0);
	ck_assert_uint_eq(elfobj_find_sec(w, ".testwords"), (size_t)idx);
	ck_assert_uint_eq(elfobj_sec(w, (size_t)idx)->size, 16);
	ck_assert_uint_eq(elfobj_sym(w, (size_t)sym)->type, EO_STT_SECTION);
	ck_assert_uint_eq(elfobj_sym(w, (size_t)sym)->shndx, text);
	rtext = elfobj_find_sec(w, ".rela.text");
	ck_assert_int_eq(elfobj_rels(w, rtext, &rels, &n), 0);
	ck_assert_str_eq(elfobj_sym(w, rels[0].sym)->name, "__fentry__");
	elfobj_close(w);
}
END_TEST

struct bad_case {
	const char *name;
	const char *bytes;
	size_t len;
	const char *expect;
};

static const struct bad_case bad_cases[] = {
	{ "empty", "", 0, "is empty" },
	{ "text", "hello, world\n", 13, "not an ELF file" },
	{ "archive", "!<arch>\n", 8, "ar archive" },
	{ "bitcode", "BC\xc0\xde\x35\x14\x00\x00", 8, "LLVM bitcode" },
	{ "elf-magic-only", "\x7f" "ELF", 4, "not an ELF file" },
};

START_TEST(test_bad_bytes)
{
	const struct bad_case *c = &bad_cases[_i];
	const char *path = write_tmp(c->name, c->bytes, c->len);
	struct elfobj *o = (struct elfobj *)1;

	ck_assert_int_lt(elfobj_open(path, &o), 0);
	ck_assert_ptr_null(o);
	ck_assert_int_eq(nmsg, 1);
	ck_assert_msg(strstr(last_msg, c->expect) && strstr(last_msg, c->name),
		      "%s: message \"%s\"", c->name, last_msg);
}
END_TEST

/* Every prefix of a real object up to its section headers is refused cleanly. */
START_TEST(test_truncated)
{
	unsigned char *buf;
	size_t n = read_file(SAMPLE_OBJ, &buf), len;
	struct elfobj *o;

	for (len = 0; len < n; len += (len < 128 ? 1 : 61)) {
		const char *path = write_tmp("trunc.o", buf, len);

		nmsg = 0;
		if (elfobj_open(path, &o) == 0) {
			/* A file cut after all it needs would open; ours never is. */
			elfobj_close(o);
			ck_abort_msg("truncated to %zu bytes but opened", len);
		}
		ck_assert_int_eq(nmsg, 1);
	}
	free(buf);
}
END_TEST

static void patch_and_expect(void (*patch)(unsigned char *), const char *expect)
{
	unsigned char *buf;
	size_t n = read_file(SAMPLE_OBJ, &buf);
	struct elfobj *o;
	const char *path;

	patch(buf);
	path = write_tmp("patched.o", buf, n);
	free(buf);
	ck_assert_int_lt(elfobj_open(path, &o), 0);
	ck_assert_int_eq(nmsg, 1);
	ck_assert_msg(strstr(last_msg, expect), "message \"%s\"", last_msg);
}

static Elf64_Shdr *shdr(unsigned char *b, unsigned i)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)b;

	return (Elf64_Shdr *)(b + eh->e_shoff) + i;
}

static void sec_past_eof(unsigned char *b) { shdr(b, 1)->sh_offset = 0x7fffffff; }
static void shoff_past_eof(unsigned char *b) { ((Elf64_Ehdr *)b)->e_shoff = 0x7fffff00; }
static void bad_link(unsigned char *b)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)b;
	unsigned i;

	for (i = 1; i < eh->e_shnum; i++)
		if (shdr(b, i)->sh_type == SHT_RELA)
			shdr(b, i)->sh_link = 5000;
}
static void bad_name(unsigned char *b) { shdr(b, 1)->sh_name = 0x7fffffff; }
static void bad_strndx(unsigned char *b) { ((Elf64_Ehdr *)b)->e_shstrndx = 4000; }

START_TEST(test_corrupt_headers)
{
	patch_and_expect(sec_past_eof, "past the end of the file");
	nmsg = 0;
	patch_and_expect(shoff_past_eof, "patched.o");
	nmsg = 0;
	patch_and_expect(bad_link, "sh_link out of range");
	nmsg = 0;
	patch_and_expect(bad_name, "name offset");
	nmsg = 0;
	patch_and_expect(bad_strndx, "patched.o");
}
END_TEST

START_TEST(test_not_files)
{
	struct elfobj *o;
	char missing[128];

	ck_assert_int_lt(elfobj_open(tmpdir, &o), 0);
	ck_assert_msg(strstr(last_msg, "is a directory"), "%s", last_msg);
	snprintf(missing, sizeof(missing), "%s/none.o", tmpdir);
	ck_assert_int_lt(elfobj_open(missing, &o), 0);
	ck_assert_msg(strstr(last_msg, "No such file"), "%s", last_msg);
}
END_TEST

Suite *elfobj_suite(void)
{
	Suite *s = suite_create("elfobj");
	TCase *tc = tcase_create("files");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_open_sample);
	tcase_add_test(tc, test_write_with_edits);
	tcase_add_loop_test(tc, test_bad_bytes, 0, sizeof(bad_cases) / sizeof(bad_cases[0]));
	tcase_add_test(tc, test_truncated);
	tcase_add_test(tc, test_corrupt_headers);
	tcase_add_test(tc, test_not_files);
	suite_add_tcase(s, tc);
	return s;
}
