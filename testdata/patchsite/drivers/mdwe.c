// SPDX-License-Identifier: GPL-2.0-only
/*
 * Run a program under a W^X policy: PR_SET_MDWE (Linux 6.3+) refuses to
 * make memory writable and executable, and the flag survives execve.
 * Exit 77 when the kernel has no MDWE.  Usage: mdwe PROG ARGS...
 */
#include <stdio.h>
#include <sys/prctl.h>
#include <unistd.h>

#ifndef PR_SET_MDWE
#define PR_SET_MDWE 65
#define PR_MDWE_REFUSE_EXEC_GAIN 1
#endif

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	if (prctl(PR_SET_MDWE, PR_MDWE_REFUSE_EXEC_GAIN, 0, 0, 0) < 0) {
		perror("prctl(PR_SET_MDWE)");
		return 77;
	}
	execv(argv[1], argv + 1);
	perror(argv[1]);
	return 2;
}
