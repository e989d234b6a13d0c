/* Sites in traced, untraced and whitelisted sections; a weak function; one untraced by attribute. */
int counter = 1;
static int sfun(int x) { return x * 3 + counter; }
int gfun(int x) { return sfun(x) + 1; }
__attribute__((weak)) int wfun(int x) { return x - 1; }
__attribute__((section(".init.text"))) int ifun(int x) { return x + 7; }
__attribute__((section(".exit.text"))) int efun(int x) { return x + 8; }
__attribute__((section(".mytext"))) int mfun(int x) { return x + 9; }
__attribute__((no_instrument_function)) int nfun(int x) { return x + 10; }
