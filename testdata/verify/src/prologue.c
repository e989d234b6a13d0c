/*
 * Many values live across calls (all callee-saved registers) and a local
 * array (the stack protector): with -pg the mcount call comes after a long
 * frame set-up, the shape of Linux 6.1 arm64 lib/zstd ZSTD_buildSeqTable,
 * whose _mcount call sits 76 bytes into the function (issue 13).
 */
extern int sink(int *buf, int n);
extern int pick(int x);
int build_table(int a, int b, int c, int d, int e, int f, int g, int h)
{
	int buf[64];
	int x0 = pick(a), x1 = pick(b), x2 = pick(c), x3 = pick(d);
	int x4 = pick(e), x5 = pick(f), x6 = pick(g), x7 = pick(h);
	int x8 = pick(x0 + x7), x9 = pick(x1 + x6), x10 = pick(x2 + x5);

	for (int i = 0; i < 64; i++)
		buf[i] = x0 * i + x1;
	return sink(buf, 64) + x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10;
}
