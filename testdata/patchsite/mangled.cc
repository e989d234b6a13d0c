// SPDX-License-Identifier: GPL-2.0-only
/*
 * C++ that needs nothing of libstdc++ (tests/patchsite/uft.sh): built with
 * g++ -pg -Wl,--as-needed the program has no libstdc++ loaded, so the
 * traced process has no demangler; built -shared, it is the C++ plugin a C
 * program (dlcxx.c) dlopens, with the same effect.  Exit 0 when a(3) is 11.
 */
#define TRACED __attribute__((noinline, noipa))

namespace ns {
TRACED int b(int x)					// _ZN2ns1bEi
{
	return x * 2;
}

struct S {
	int v;
	TRACED int get() const;				// _ZNK2ns1S3getEv
};

int S::get() const
{
	return v + 1;
}
}

TRACED int a(int x)					// _Z1ai
{
	ns::S s{x};

	return ns::b(s.get()) + x;
}

extern "C" int cxx_entry(int x)
{
	return a(x);
}

int main()
{
	return a(3) == 11 ? 0 : 1;
}
