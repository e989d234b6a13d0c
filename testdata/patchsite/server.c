// SPDX-License-Identifier: GPL-2.0-only
/*
 * The man pages' example server (tests/docs/man_examples.sh): handles a
 * request every millisecond through handle_request() -> handle_parse(),
 * send_msg(buf, len) with len 0, 250, ... 1750 in turn (over 1000: 3 in 8).
 * usage  server [N]   N requests then exit 0 (default: until killed)
 */
#include <stdlib.h>
#include <time.h>

#define TRACED __attribute__((noinline, noipa))

TRACED int handle_parse(int id)
{
	return id * 3 + 1;
}

TRACED int send_msg(const char *buf, unsigned len)
{
	return buf[0] + (int)len;
}

TRACED int handle_request(int id)
{
	static const char buf[] = "reply";

	return (handle_parse(id) & 0xff) + send_msg(buf, (unsigned)(id % 8) * 250);
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
