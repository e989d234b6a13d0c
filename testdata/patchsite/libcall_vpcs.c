// SPDX-License-Identifier: GPL-2.0-only
/*
 * A library call to a function of the aarch64 vector PCS (its callers may
 * keep values in q8-q23 across the call), for tests/patchsite-qemu/libcall.sh:
 * the linker marks its symbol STO_AARCH64_VARIANT_PCS (readelf: [VARIANT_PCS]),
 * and its GOT slot must be refused by name, the call untouched.  Built
 * twice: with -DVPCS_LIB the library, without it the program.
 */
#include <stdio.h>

__attribute__((aarch64_vector_pcs)) double lr_vector_pcs(double x);

#ifdef VPCS_LIB
__attribute__((aarch64_vector_pcs)) double lr_vector_pcs(double x)
{
	return x * 3;
}
#else
int main(int argc, char **argv)
{
	(void)argv;
	printf("vector pcs %.1f\n", lr_vector_pcs(argc + 0.5));
	return 0;
}
#endif
