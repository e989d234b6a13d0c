/* See cxx-a.cpp. */
#include "cxx.h"
int fa(int);
int fb(int x) { return twice(x + 1) + add<int>(x, 4); }
int main(int argc, char **) { return fa(argc) + fb(argc); }
