// SPDX-License-Identifier: GPL-2.0-only
/*
 * A library built at -O2 without any tracing flag, which nfdlmain.c dlopens after start-up
 * (tests/patchsite/noflag.sh: its no-flag sites armed then).  nf_leaf is exported, so
 * nf_work's calls to it go through the PLT (-fPIC) and stay calls.  nf_work starts with
 * one long instruction (the count, rip-relative: a site of form a), nf_leaf is 4 + 1 bytes
 * (a window, form c: not written once the program runs).
 */
static int works;

int nf_leaf(int x)
{
	return x * 3 + 1;
}

int nf_work(int n)
{
	int s = works++;

	for (int i = 0; i < n; i++)
		s += nf_leaf(i) % 7;
	return s;
}
