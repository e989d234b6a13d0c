// SPDX-License-Identifier: GPL-2.0-only
/* Runs every unit suite; exit status 0 only if all pass. */
#include <check.h>
#include <stdlib.h>

#include "suites.h"

int main(void)
{
	SRunner *sr = srunner_create(arch_suite());
	int failed;

	srunner_add_suite(sr, a64_suite());
	srunner_add_suite(sr, rv_suite());
	srunner_add_suite(sr, elfobj_suite());
	srunner_add_suite(sr, symindex_suite());
	srunner_add_suite(sr, demangle_suite());
	srunner_add_suite(sr, nfproof_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
