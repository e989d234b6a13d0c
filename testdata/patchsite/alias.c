// SPDX-License-Identifier: GPL-2.0-only
/*
 * One function body under three names (tests/patchsite/unwind.sh): what
 * gcc's -fipa-icf leaves when it folds identical functions, and C++
 * constructors and destructors (C1/C2, D1/D2) always: several symbols at
 * one address.  The compiler emits scale_first, then sets the others to it.
 * Built with -DLIST (and libpatchsite linked in), it prints what
 * patchsite_for_each_function says of them: name, flags, the same address.
 */
#include <stdio.h>
#include <string.h>
#ifdef LIST
#include "patchsite.h"
#endif

__attribute__((noinline)) int scale_first(int x) { return x * 7 + 3; }
int scale_second(int x) __attribute__((alias("scale_first")));
int scale_third(int x) __attribute__((alias("scale_first")));

#ifdef LIST
static unsigned long first_ip;

static int show(const char *name, const char *module, unsigned long ip, unsigned flags, void *arg)
{
	(void)module, (void)arg;
	if (strncmp(name, "scale_", 6))
		return 0;
	if (!first_ip)
		first_ip = ip;
	printf("%s%s%s\n", name, flags & PATCHSITE_FUNC_ALIAS ? " alias" : "",
	       ip == first_ip ? " same-ip" : " other-ip");
	return 0;
}
#endif

int main(int argc, char **argv)
{
	(void)argv;
	printf("%d %d %d\n", scale_first(argc), scale_second(argc + 1), scale_third(argc + 2));
#ifdef LIST
	patchsite_for_each_function(show, NULL);
#endif
	return 0;
}
