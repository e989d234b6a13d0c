/*
 * RISC-V linker relaxation: ld turns "call" (auipc+jalr, 8 bytes) into
 * "jal" (4 bytes), moving all later code up.  A table entry written as
 * ".text + offset" past such a call points 4 bytes too far once linked.
 * The test records this object, links it, and compares the linked table
 * with the calls objdump finds (oracle: binutils' own disassembly).  The
 * weak function after relaxable code needs a symbol placed on its call.
 */
extern int ext(int);

static int s1(int x)
{
	return ext(x) + 1;
}

int g1(int x)
{
	return s1(x) * ext(x);
}

int g2(int x)
{
	return g1(x) + ext(x + 1);
}

int g3(int x)
{
	return g2(x) - ext(x);
}

/* Weak: it cannot anchor its own entry; the call gets a local symbol. */
__attribute__((weak)) int w1(int x)
{
	return ext(x) * 3;
}

int ext(int x)
{
	return x;
}

/* Enough for a static link: an entry point and the hook. */
void _start(void)
{
}

void _mcount(void)
{
}
