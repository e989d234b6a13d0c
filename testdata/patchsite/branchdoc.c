// SPDX-License-Identifier: GPL-2.0-only
/* patchsite_event.3's EXAMPLES prog.c: line 8 is wrong 250 times in 1000. */
#include <patchsite_branch.h>
volatile int sink;
int main(void)
{
	for (int i = 0; i < 1000; i++)
		if (patchsite_likely(i % 4 != 0))
			sink++;
	return 0;
}
