// SPDX-License-Identifier: GPL-2.0-only
/*
 * A C++ library loaded with dlopen after tracing started (run.sh builds it
 * with g++ -pg -mfentry -mrecord-mcount -fPIC -shared): a namespace
 * function, a const member function and an explicit template
 * instantiation, called from one extern "C" entry point; it needs
 * libstdc++ (area() may throw).  The program
 * that loads it (dlcxx.c) is C: libstdc++ comes only as this library's
 * dependency, in its local scope.
 */
#include <stdexcept>

#define TRACED __attribute__((noinline, noipa))

namespace shapes {

TRACED int area(int w, int h)				// _ZN6shapes4areaEii
{
	if (w < 0 || h < 0)		/* never: but it makes libstdc++ a dependency */
		throw std::invalid_argument("negative");
	return w * h;
}

class Square {
public:
	explicit Square(int s) : side(s) {}
	TRACED int perimeter() const;			// _ZNK6shapes6Square9perimeterEv
private:
	int side;
};

int Square::perimeter() const
{
	return 4 * side;
}

template <typename T> TRACED T twice(T x)		// _ZN6shapes5twiceIiEET_S1_
{
	return x + x;
}
template int twice<int>(int);

} // namespace shapes

extern "C" TRACED int cxx_entry(int x)
{
	shapes::Square sq(x);

	return shapes::area(x, 2) + sq.perimeter() + shapes::twice<int>(x);	/* 8x */
}
