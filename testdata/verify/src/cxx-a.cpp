/*
 * With cxx-b.cpp, g++ -O0 -fpatchable-function-entry=5: gcc 12 puts an
 * object's __patchable_function_entries in the COMDAT group of its first
 * inline function, so the linker, keeping cxx-a.o's copy of twice(),
 * drops cxx-b.o's whole table: fb() and main() keep their sleds but lose
 * their entries (issue 16).
 */
#include "cxx.h"
int fa(int x) { return twice(x) + add<int>(x, 3); }
