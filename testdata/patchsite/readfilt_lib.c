// SPDX-License-Identifier: GPL-2.0-only
/* readfilt.c's callees in a source file of their own (the one -L names). */
__attribute__((noinline)) int leaf(int x)
{
	return x + 1;
}

__attribute__((noinline)) int mid(int x)
{
	return leaf(x) * 2;
}
