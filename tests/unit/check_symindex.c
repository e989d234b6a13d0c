// SPDX-License-Identifier: GPL-2.0-only
/*
 * The shared symbol index on committed files of testdata/verify (made by its
 * build.sh).  Oracle: readelf -sW / -SW of the same files; each expected
 * place below is a symbol value less its section's sh_addr, as readelf
 * prints them:
 *   arm-exe    .text at 0x10384; gfun 0x10471 (Thumb, size 26), $t at
 *              0x10470, $a at 0x103e0 (crt ARM code); the dead copy of
 *              sites.c's weak wfun at 0x1048e has no function symbol left
 *   x64-lib.so .text at 0x1060; lib_b 0x1130 (size 22)
 *   x64-lib-stripped.so  the same, strip(1)ed: functions only in .dynsym
 *   thumb-rmc.o  gfun (Thumb, value 1) at .text+0
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "elfobj.h"
#include "elfquery.h"
#include "symindex.h"
#include "suites.h"

#define TD "testdata/verify/"

struct fixture {
	struct elfobj *o;
	struct elfquery *q;
	struct symindex *si;
	size_t text;
};

static struct fixture open_file(const char *path, bool linked)
{
	struct fixture f = { 0 };

	ck_assert_int_eq(elfobj_open(path, &f.o), 0);
	if (linked)
		ck_assert_int_eq(elfquery_open(f.o, &f.q), 0);
	f.si = symindex_build_linked(f.o, f.q);
	ck_assert_ptr_nonnull(f.si);
	f.text = elfobj_find_sec(f.o, ".text");
	ck_assert_uint_ne(f.text, 0);
	return f;
}

static void close_file(struct fixture *f)
{
	symindex_free(f->si);
	elfquery_close(f->q);
	elfobj_close(f->o);
}

START_TEST(arm_linked_thumb)
{
	struct fixture f = open_file(TD "arm-exe", true);
	const struct si_func *fn = symindex_func_at(f.si, f.text, 0x10471 - 1 - 0x10384 + 4);

	ck_assert_ptr_nonnull(fn);
	ck_assert_str_eq(fn->name, "gfun");
	ck_assert_uint_eq(fn->off, 0x10470 - 0x10384);
	ck_assert(fn->thumb);
	ck_assert(symindex_thumb_at(f.si, f.text, fn->off + 2));
	/* The crt's ARM code, by its $a mapping symbol. */
	ck_assert(!symindex_thumb_at(f.si, f.text, 0x103e0 - 0x10384));
	/* The overridden weak wfun: no function, but $t says Thumb. */
	ck_assert_ptr_null(symindex_func_at(f.si, f.text, 0x1048e - 0x10384));
	ck_assert(symindex_thumb_at(f.si, f.text, 0x1048e - 0x10384));
	close_file(&f);
}
END_TEST

START_TEST(linked_places_and_names)
{
	struct fixture f = open_file(TD "x64-lib.so", true);
	const struct si_func *fn = symindex_func_at(f.si, f.text, 0x1130 - 0x1060 + 4);
	char buf[128];

	ck_assert_ptr_nonnull(fn);
	ck_assert_str_eq(fn->name, "lib_b");
	ck_assert_uint_eq(fn->size, 22);
	ck_assert_str_eq(symindex_func_where(f.si, f.o, f.text, 0xd4, buf, sizeof(buf)),
			 "lib_b+0x4 (.text+0xd4)");
	/* Past lib_b's 22 bytes no function holds the place; the nearest symbol still names it. */
	ck_assert_ptr_null(symindex_func_at(f.si, f.text, 0xd0 + 22));
	ck_assert_str_eq(symindex_where(f.si, f.o, f.text, 0xd0 + 22, buf, sizeof(buf)),
			 "lib_b+0x16 (.text+0xe6)");
	ck_assert_str_eq(symindex_func_next(f.si, f.text, 0xd0 + 1)->name, "lib_c");
	ck_assert(!symindex_thumb_at(f.si, f.text, 0xd0));
	close_file(&f);
}
END_TEST

START_TEST(stripped_uses_dynsym)
{
	struct fixture f = open_file(TD "x64-lib-stripped.so", true);
	struct symindex *plain = symindex_build(f.o);

	ck_assert_uint_eq(symindex_nfuncs(plain), 0);
	ck_assert_uint_ge(symindex_nfuncs(f.si), 3);
	ck_assert_str_eq(symindex_func_at(f.si, f.text, 0xd0)->name, "lib_b");
	symindex_free(plain);
	close_file(&f);
}
END_TEST

START_TEST(object_thumb_bit_and_mapping_symbols)
{
	struct fixture f = open_file(TD "thumb-rmc.o", false);
	uint64_t delta = 99;
	const struct eo_sym *s = symindex_covering(f.si, f.text, 2, &delta);

	/* gfun's value is 1 (Thumb); $t at 0 must not name the place. */
	ck_assert_ptr_nonnull(s);
	ck_assert_str_eq(s->name, "gfun");
	ck_assert_uint_eq(delta, 2);
	ck_assert(symindex_thumb_at(f.si, f.text, 2));
	close_file(&f);
}
END_TEST

Suite *symindex_suite(void)
{
	Suite *s = suite_create("symindex");
	TCase *tc = tcase_create("places");

	tcase_add_test(tc, arm_linked_thumb);
	tcase_add_test(tc, linked_places_and_names);
	tcase_add_test(tc, stripped_uses_dynsym);
	tcase_add_test(tc, object_thumb_bit_and_mapping_symbols);
	suite_add_tcase(s, tc);
	return s;
}
