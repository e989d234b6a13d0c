// SPDX-License-Identifier: GPL-2.0-only
/*
 * The branch profiler from C++ (tests/patchsite/branches.sh): branches_cxx N.
 * An inline member function, a lambda, a plain function, a function
 * template (two instances: one site, counted twice per i) and a member of
 * a class template; each site's outcome over i < N is known: i % 2 == 0
 * (likely: wrong for odd i), i % 5 == 0 (unlikely: wrong for multiples of
 * 5), i > 0 (likely: wrong once), i % 7 == 0 (unlikely: wrong for
 * multiples of 7), i % 3 != 0 (likely: wrong for multiples of 3).
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

/* Templates: g++ puts these counters outside the section (the header lists them). */
template <class T> static long every7(T i)
{
	return patchsite_unlikely(i % 7 == 0) ? 1 : 0;	/* TEMPLATE_LINE */
}

template <class T> struct box {
	long get(T i)
	{
		return patchsite_likely(i % 3 != 0) ? 1 : 0;	/* CLASS_TEMPLATE_LINE */
	}
};

int main(int argc, char **argv)
{
	long n = argc > 1 ? std::atol(argv[1]) : 0, s = 0;
	counter c;
	auto every5 = [&s](long i) {
		if (patchsite_unlikely(i % 5 == 0))	/* LAMBDA_LINE */
			s++;
	};

	box<long> b;

	for (long i = 0; i < n; i++) {
		c.add(i);
		every5(i);
		s += plain(i);
		s += every7(i) + every7((int)i) + b.get(i);	/* two instances of every7 */
	}
	std::printf("sum=%ld\n", s + c.v);
	return 0;
}
