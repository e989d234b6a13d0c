/* Inline and template functions that both cxx-a.cpp and cxx-b.cpp emit (COMDAT). */
inline int twice(int x) { return x * 2 + 1; }
template <class T> T add(T a, T b) { return a + b; }
