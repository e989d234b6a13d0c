// SPDX-License-Identifier: GPL-2.0-only
/*
 * Entry instructions the site forms must describe exactly: get_counter's
 * first instruction is `mov counter(%rip),%eax` (a disp32 the runtime must
 * re-encode: form a, rip@OFF); built once with -fcf-protection=full, where
 * every entry starts with endbr64, which stays: the site is 4 bytes on.
 */
int counter;

__attribute__((noinline)) int get_counter(void)
{
	return counter;
}

__attribute__((noinline)) void bump(int by)
{
	counter += by;
}

int main(int argc, char **argv)
{
	(void)argv;
	bump(argc);
	return get_counter() == 1 ? 0 : 1;
}
