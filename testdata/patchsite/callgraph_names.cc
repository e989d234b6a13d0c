// SPDX-License-Identifier: GPL-2.0-only
/*
 * dump --graphviz and --mermaid with C++ names (tests/patchsite/dumpgraph.sh):
 * names holding what DOT and mermaid must escape: '"' (a literal operator),
 * '<' and '>' (templates, an operator).  main calls each once, get twice
 * (once per instance); c++filt names them from the binary's symbols.
 */
namespace ns {
template <typename T> struct Box {
	T v;
	__attribute__((noinline)) T get() const { return v; }
};
}

__attribute__((noinline)) unsigned long long operator"" _km(unsigned long long x)
{
	return x * 1000;
}

__attribute__((noinline)) bool operator<(const ns::Box<int> &a, const ns::Box<int> &b)
{
	return a.v < b.v;
}

int main()
{
	ns::Box<int> a{ 1 }, b{ 2 };
	ns::Box<long> c{ 3 };
	long r = a.get() + c.get();

	r += (a < b) + (long)(3_km);
	return r == 0;
}
