/* A shared library with -pg -mfentry sites (through the GOT). */
int lib_a(int x) { return x + 1; }
int lib_b(int x) { return lib_a(x) * 2; }
static int lib_s(int x) { return x ^ 5; }
int lib_c(int x) { return lib_s(x) + lib_b(x); }
