// SPDX-License-Identifier: GPL-2.0-only
/*
 * The no-flag proof file (include/noflag_proof.h, lib/noflag_proof.c).
 * Oracle: the format as the header documents it, written out by hand below
 * (a site record of an 8-byte `mov 0x2f0e(%rip),%rax` = 48 8b 05 0e 2f 00 00
 * preceded by nothing, form a; the encoding is the Intel SDM's REX.W 8B /r
 * with ModRM 05 = RIP+disp32, so the disp32 sits at offset 3 of 7 bytes).
 * Every damaged line is refused with its line number, never half-read.
 */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "noflag_proof.h"
#include "suites.h"

static const char good[] =
	"patchsite-noflag-proof 1\n"
	"object 0a1b2c 3e80 /usr/bin/x\n"
	"# a comment\n"
	"site 1130 a 1134 0 488b050e2f0000 7:rip@3 main\n"
	"site 1200 b 1203 10 e8aabbccdd 5:call@1 -\n"
	"refused 1300 direct-target-in-window f\n"
	"fragment 1400 f.cold\n";

static FILE *text(const char *s)
{
	FILE *f = fmemopen((void *)s, strlen(s), "r");
	ck_assert_ptr_nonnull(f);
	return f;
}

START_TEST(reads_what_the_header_documents)
{
	FILE *f = text(good);
	struct nf_object o;
	struct nf_record r;
	unsigned line = 0;
	char err[200];

	ck_assert_int_eq(nf_read_object(f, &o, &line, err, sizeof(err)), 0);
	ck_assert_str_eq(o.buildid, "0a1b2c");
	ck_assert_uint_eq(o.size, 0x3e80);
	ck_assert_str_eq(o.path, "/usr/bin/x");
	ck_assert_int_eq(nf_read_record(f, &r, &line, err, sizeof(err)), 1);
	ck_assert_int_eq(r.rec, NF_SITE);
	ck_assert_int_eq(r.form, 'a');
	ck_assert_uint_eq(r.entry, 0x1130);
	ck_assert_uint_eq(r.site, 0x1134);
	ck_assert_uint_eq(r.nbytes, 7);
	ck_assert_uint_eq(r.bytes[0], 0x48);
	ck_assert_uint_eq(r.bytes[6], 0x00);
	ck_assert_uint_eq(r.ninsns, 1);
	ck_assert_uint_eq(r.insns[0].kind, NF_RIP);
	ck_assert_uint_eq(r.insns[0].off, 3);
	ck_assert_str_eq(r.name, "main");
	ck_assert_int_eq(nf_read_record(f, &r, &line, err, sizeof(err)), 1);
	ck_assert_int_eq(r.form, 'b');
	ck_assert_uint_eq(r.depth, 0x10);
	ck_assert_str_eq(r.name, "");
	ck_assert_int_eq(nf_read_record(f, &r, &line, err, sizeof(err)), 1);
	ck_assert_int_eq(r.rec, NF_REFUSED);
	ck_assert_str_eq(r.check, "direct-target-in-window");
	ck_assert_int_eq(nf_read_record(f, &r, &line, err, sizeof(err)), 1);
	ck_assert_int_eq(r.rec, NF_FRAGMENT);
	ck_assert_str_eq(r.name, "f.cold");
	ck_assert_int_eq(nf_read_record(f, &r, &line, err, sizeof(err)), 0);
	fclose(f);
}
END_TEST

/* What is read is written back byte for byte. */
START_TEST(writes_what_it_reads)
{
	FILE *in = text(good);
	char out[1024] = "";
	FILE *f = fmemopen(out, sizeof(out), "w");
	struct nf_object o;
	struct nf_record r;
	unsigned line = 0;
	char err[200];

	ck_assert_int_eq(nf_read_object(in, &o, &line, err, sizeof(err)), 0);
	ck_assert_int_eq(nf_write_object(f, &o), 0);
	while (nf_read_record(in, &r, &line, err, sizeof(err)) == 1)
		ck_assert_int_eq(nf_write_record(f, &r), 0);
	fclose(f);
	fclose(in);
	char want[sizeof(good)];
	strcpy(want, good);
	char *c = strstr(want, "# a comment\n");
	memmove(c, c + strlen("# a comment\n"), strlen(c + strlen("# a comment\n")) + 1);
	ck_assert_str_eq(out, want);
}
END_TEST

static const char *const damaged[] = {
	"site 1130 a 1134 0 488b050e2f0000 6:rip@3 main\n",	/* 6 != 7 bytes */
	"site 1130 a 1134 0 488b050e2f0000 7:rip@4 main\n",	/* disp32 past the end */
	"site 1130 z 1134 0 488b050e2f0000 7 main\n",		/* no such form */
	"site 1130 a 1134 0 488b05 3 main\n",			/* fewer than 5 bytes */
	"site 1130 a 1134 0 488b050e2f00zz 7 main\n",		/* not hex */
	"site 1130 a 1000 0 488b050e2f0000 7 main\n",		/* site before entry */
	"site 1130 a 1134 0 488b050e2f0000 7:bogus@3 main\n",
	"site 1130 a 1134 0 488b050e2f0000 7 main extra\n",
	"site 1130 a 1134  488b050e2f0000 7 main\n",		/* an empty field */
	"refused 1300 direct-target-in-window\n",
	"fragment -1 f\n",
	"frobnicate 1\n",
};

START_TEST(refuses_damaged_records)
{
	char buf[512], err[200];
	struct nf_object o;
	struct nf_record r;
	unsigned line = 0;

	snprintf(buf, sizeof(buf), "patchsite-noflag-proof 1\nobject - 10 /x\n%s", damaged[_i]);
	FILE *f = text(buf);
	ck_assert_int_eq(nf_read_object(f, &o, &line, err, sizeof(err)), 0);
	ck_assert_int_eq(nf_read_record(f, &r, &line, err, sizeof(err)), -1);
	ck_assert_msg(!strncmp(err, "line 3: ", 8), "%s", err);
	fclose(f);
}
END_TEST

START_TEST(refuses_other_files)
{
	char err[200];
	struct nf_object o;
	unsigned line = 0;
	FILE *f = text("patchsite-noflag-proof 2\nobject - 10 /x\n");

	ck_assert_int_eq(nf_read_object(f, &o, &line, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, "line 1: not a proof file"), "%s", err);
	fclose(f);
}
END_TEST

Suite *nfproof_suite(void)
{
	Suite *s = suite_create("noflag_proof");
	TCase *tc = tcase_create("format");

	tcase_add_test(tc, reads_what_the_header_documents);
	tcase_add_test(tc, writes_what_it_reads);
	tcase_add_loop_test(tc, refuses_damaged_records, 0, (int)(sizeof(damaged) / sizeof(damaged[0])));
	tcase_add_test(tc, refuses_other_files);
	suite_add_tcase(s, tc);
	return s;
}
