/* SPDX-License-Identifier: GPL-2.0-only */
/* The Check suites the unit runner adds, one per module. */
#ifndef TESTS_SUITES_H
#define TESTS_SUITES_H

#include <check.h>

Suite *arch_suite(void);
Suite *a64_suite(void);
Suite *rv_suite(void);
Suite *demangle_suite(void);
Suite *elfobj_suite(void);
Suite *symindex_suite(void);
Suite *nfproof_suite(void);

#endif
