// SPDX-License-Identifier: GPL-2.0-only
/*
 * Signed 32-bit, float and double values for record -A/-R with formats
 * (tests/patchsite/uft.sh), each known by construction: neg(-1, -2) = -3,
 * half(3) = 1.5, twice(-1.5) = -3.  Exit 0 when they are.
 */
#define TRACED __attribute__((noinline, noipa))

TRACED int neg(int a, int b)
{
	return a + b;
}

TRACED float half(float x)
{
	return x / 2;
}

TRACED double twice(double x)
{
	return x * 2;
}

int main(void)
{
	return neg(-1, -2) == -3 && half(3.0f) == 1.5f && twice(-1.5) == -3.0 ? 0 : 1;
}
