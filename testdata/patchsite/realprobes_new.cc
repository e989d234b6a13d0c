// SPDX-License-Identifier: GPL-2.0-only
// The C++ program of tests/patchsite/realprobes.sh allocates from the same fixed arena
// as its C one (realprobes_alloc.c, linked with -Wl,--wrap=realloc,--wrap=free): the
// replaceable global operator new and delete, so that its objects are at the same
// addresses under gdb and under patchsite record.
#include <cstddef>
#include <new>

extern "C" void *__wrap_realloc(void *p, std::size_t n);
extern "C" void __wrap_free(void *p);

void *operator new(std::size_t n)
{
	void *p = __wrap_realloc(nullptr, n ? n : 1);

	if (!p)
		throw std::bad_alloc();
	return p;
}

void *operator new[](std::size_t n) { return operator new(n); }
void operator delete(void *p) noexcept { __wrap_free(p); }
void operator delete[](void *p) noexcept { __wrap_free(p); }
void operator delete(void *p, std::size_t) noexcept { __wrap_free(p); }
void operator delete[](void *p, std::size_t) noexcept { __wrap_free(p); }
