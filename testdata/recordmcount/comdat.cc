// An inline template instantiated here is a COMDAT group: recordmcount
// must put its table entry inside the group (tests/recordmcount/run.sh).
template <class T> __attribute__((noinline)) T twice(T x) { return x + x; }
int fa(int x) { return twice(x) + twice<long>(x); }
