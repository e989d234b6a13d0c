// SPDX-License-Identifier: GPL-2.0-only
/*
 * Control writes timed from outside: usage  ctltime PID ROUNDS FILE A B
 * writes A, then B, ROUNDS times, through psctl_request (the client of
 * `patchsite ctl`), and prints the minimum, median and maximum round
 * trip of each in ms.  The reply comes once the write took effect (the
 * sites are patched), so a round trip bounds the time to take effect; it
 * also counts the connection and the client's own work.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ctlclient.h"

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int timed(int pid, const char *file, const char *value, double *ms)
{
	char *reply;
	double t = now_ms();
	int err = psctl_request(pid, PSCTL_WRITE, file, value, &reply);

	*ms = now_ms() - t;
	if (err)
		fprintf(stderr, "ctltime: %s '%s': %s\n", file, value, reply ? reply : "?");
	free(reply);
	return err;
}

int main(int argc, char **argv)
{
	int pid, rounds;
	double *a, *b;

	if (argc != 6)
		return 2;
	pid = atoi(argv[1]);
	rounds = atoi(argv[2]);
	if (rounds < 1)
		return 2;
	a = calloc((size_t)rounds, sizeof(*a));
	b = calloc((size_t)rounds, sizeof(*b));
	for (int r = 0; a && b && r < rounds; r++)
		if (timed(pid, argv[3], argv[4], &a[r]) || timed(pid, argv[3], argv[5], &b[r]))
			return 1;
	if (!a || !b)
		return 1;
	qsort(a, (size_t)rounds, sizeof(*a), cmp);
	qsort(b, (size_t)rounds, sizeof(*b), cmp);
	printf("%.3f %.3f %.3f %.3f %.3f %.3f\n", a[0], a[rounds / 2], a[rounds - 1], b[0],
	       b[rounds / 2], b[rounds - 1]);
	free(a);
	free(b);
	return 0;
}
