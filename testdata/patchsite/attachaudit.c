// SPDX-License-Identifier: GPL-2.0-only
/*
 * An LD_AUDIT module that holds the loader in la_version for SLEEP_US
 * (tests/patchsite/attach.sh): la_version runs before the program's own
 * objects are loaded, with a private copy of libc.so.6 (the audit
 * namespace's) already mapped, so that the process looks started but its
 * loader has not loaded or relocated the program's libc.
 */
#include <link.h>
#include <unistd.h>

#ifndef SLEEP_US
#define SLEEP_US 300000
#endif

unsigned int la_version(unsigned int version)
{
	usleep(SLEEP_US);
	return version;
}
