// SPDX-License-Identifier: GPL-2.0-only
/*
 * The man pages' example server (tests/docs/man_examples.sh): handles a
 * request every millisecond through handle_request() -> handle_parse().
 * usage  server [N]   N requests then exit 0 (default: until killed)
 */
#include <stdlib.h>
#include <time.h>

#define TRACED __attribute__((noinline, noipa))

TRACED int handle_parse(int id)
{
	return id * 3 + 1;
}

TRACED int handle_request(int id)
{
	return handle_parse(id) & 0xff;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 0;
	struct timespec ms = { 0, 1000000 };
	int sum = 0;

	for (long i = 0; n == 0 || i < n; i++) {
		sum += handle_request((int)i);
		nanosleep(&ms, NULL);
	}
	return sum < 0;
}
