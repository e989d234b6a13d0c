/* The strong hook() that overrides weak.c's. */
int hook(int x) { return x + 5; }
int other(int x) { return x - 5; }
