/*
 * A weak hook() that strong.c overrides: `ld -r weak.o strong.o` keeps this
 * hook's code and its table entry but not its symbol (the dead copy a
 * kernel module's in-module override leaves: issue 13).  use() keeps a
 * function before it.
 */
int counter;
int use(int x) { return x + counter; }
__attribute__((weak)) int hook(int x) { return x * 3 + counter; }
