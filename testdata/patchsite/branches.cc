// SPDX-License-Identifier: GPL-2.0-only
/*
 * The branch profiler from C++ (tests/patchsite/branches.sh): branches_cxx N.
 * An inline member function (one counter for the program: a comdat group),
 * a lambda and a plain function; each site's outcome over i < N is
 * known: i % 2 == 0 (likely: wrong for odd i), i % 5 == 0 (unlikely:
 * wrong for multiples of 5), i > 0 (likely: wrong once).
 */
#include <cstdio>
#include <cstdlib>

#include "patchsite_branch.h"

struct counter {
	long v = 0;
	inline void add(long i)
	{
		if (patchsite_likely(i % 2 == 0))	/* MEMBER_LINE */
			v += i;
	}
};

static long plain(long i)
{
	return patchsite_likely(i > 0) ? 1 : 0;		/* PLAIN_LINE */
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? std::atol(argv[1]) : 0, s = 0;
	counter c;
	auto every5 = [&s](long i) {
		if (patchsite_unlikely(i % 5 == 0))	/* LAMBDA_LINE */
			s++;
	};

	for (long i = 0; i < n; i++) {
		c.add(i);
		every5(i);
		s += plain(i);
	}
	std::printf("sum=%ld\n", s + c.v);
	return 0;
}
