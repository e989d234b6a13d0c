// SPDX-License-Identifier: GPL-2.0-only
/*
 * Every way C++ and POSIX leave a frame, one case per argument (all when
 * none): what it prints must be the same untraced and under every tracer
 * (tests/patchsite/unwind.sh).  Destructors are counted.
 *   rethrow    std::rethrow_exception (std::future::get of a stored exception)
 *   async      std::async's exception through std::future::get
 *   nested     std::throw_with_nested / std::rethrow_if_nested
 *   dtorcatch  a try/catch inside destructors run by another exception's unwinding
 *   cancel     pthread_cancel of a thread 6 traced frames deep (forced unwind)
 *   exit       pthread_exit 6 traced frames deep
 *   backtrace  backtrace() 5 traced frames deep: the program's frames it finds
 *   loop       2,000 exceptions caught in a loop (the trace keeps its depth)
 *   longname   a function whose name is over 2,000 characters
 */
#include <atomic>
#include <cstdio>
#include <cstring>
#include <dlfcn.h>
#include <exception>
#include <execinfo.h>
#include <future>
#include <pthread.h>
#include <stdexcept>
#include <string>
#include <tuple>
#include <unistd.h>

#define NI __attribute__((noinline))

static std::atomic<int> dtors;

struct Guard {
	~Guard() { dtors++; }
};

/* rethrow: the case, std::future::get calls std::rethrow_exception. */
NI long get(std::future<long> &f) { return f.get(); }
NI long middle(std::future<long> &f) { Guard g; return get(f) + 1; }

NI static void t_rethrow()
{
	std::promise<long> p;
	std::future<long> f = p.get_future();

	p.set_exception(std::make_exception_ptr(std::runtime_error("stored")));
	try {
		middle(f);
	} catch (const std::exception &e) {
		std::printf("rethrow: caught %s\n", e.what());
	}
}

NI long compute(int x)
{
	Guard g;
	if (x)
		throw std::runtime_error("from async");
	return 1;
}

NI long wait_for(std::future<long> &f) { Guard g; return f.get(); }

NI static void t_async()
{
	std::future<long> f = std::async(std::launch::async, compute, 1);

	try {
		wait_for(f);
	} catch (const std::exception &e) {
		std::printf("async: caught %s\n", e.what());
	}
}

NI void inner() { Guard g; throw std::runtime_error("inner"); }

NI void outer()
{
	Guard g;
	try {
		inner();
	} catch (...) {
		std::throw_with_nested(std::logic_error("outer"));
	}
}

NI void show(const std::exception &e, int level)
{
	std::printf("nested: level %d: %s\n", level, e.what());
	try {
		std::rethrow_if_nested(e);
	} catch (const std::exception &n) {
		show(n, level + 1);
	}
}

NI static void t_nested()
{
	try {
		outer();
	} catch (const std::exception &e) {
		show(e, 0);
	}
}

static int caught_in_dtor;

NI void throw_in_dtor(int n) { Guard g; throw n; }

struct Cleaner {
	~Cleaner()
	{
		try {
			throw_in_dtor(1);
		} catch (int) {
			caught_in_dtor++;
		}
		dtors++;
	}
};

NI void unwound(int n)
{
	Cleaner c;
	if (n == 0)
		throw std::runtime_error("outer");
	unwound(n - 1);
}

NI static void t_dtorcatch()
{
	try {
		unwound(5);
	} catch (const std::exception &e) {
		std::printf("dtorcatch: caught %s, %d caught in destructors\n", e.what(), caught_in_dtor);
	}
}

static std::atomic<int> deepest;

NI void level(int n, bool do_exit)
{
	Guard g;
	if (n == 0) {
		deepest = 1;
		if (do_exit)
			pthread_exit(nullptr);
		for (;;)
			pause();
	}
	level(n - 1, do_exit);
}

static void *thread_main(void *arg)
{
	level(5, arg != nullptr);
	return nullptr;
}

NI static void t_thread(bool do_exit)
{
	pthread_t th;
	void *ret;

	deepest = 0;
	pthread_create(&th, nullptr, thread_main, do_exit ? &th : nullptr);
	if (!do_exit) {
		while (!deepest)
			usleep(1000);
		pthread_cancel(th);
	}
	pthread_join(th, &ret);
	std::printf("%s: %s\n", do_exit ? "exit" : "cancel",
		    ret == PTHREAD_CANCELED ? "cancelled" : "ended");
}

/* The program's own frames in a backtrace, as offsets in the file (the same in every run). */
NI void bt(int n)
{
	void *a[64];
	Dl_info self, at;
	int k;

	if (n) {
		bt(n - 1);
		return;
	}
	k = backtrace(a, 64);
	dladdr((void *)&bt, &self);
	std::printf("backtrace: %d frames in all;", k);
	for (int i = 0; i < k; i++)
		if (dladdr(a[i], &at) && at.dli_fbase == self.dli_fbase)
			std::printf(" +%#lx", (unsigned long)((char *)a[i] - (char *)self.dli_fbase));
	std::printf("\n");
}

static int loop_caught;

NI void loop_throw(int i) { throw i; }
NI void loop_mid(int i) { Guard g; loop_throw(i); }

NI static void t_loop()
{
	for (int i = 0; i < 2000; i++) {
		try {
			loop_mid(i);
		} catch (int) {
			loop_caught++;
		}
	}
	std::printf("loop: %d caught\n", loop_caught);
}

/* A template argument list of 64 long names: the function's name is over 2,000 characters. */
#define LN(n) struct AVeryLongStructureNameToMakeTemplatesLong##n {};
#define LN8(n) LN(n##0) LN(n##1) LN(n##2) LN(n##3) LN(n##4) LN(n##5) LN(n##6) LN(n##7)
LN8(1) LN8(2) LN8(3) LN8(4) LN8(5) LN8(6) LN8(7) LN8(8)
#define LT(n) AVeryLongStructureNameToMakeTemplatesLong##n
#define LT8(n) LT(n##0), LT(n##1), LT(n##2), LT(n##3), LT(n##4), LT(n##5), LT(n##6), LT(n##7)
typedef std::tuple<LT8(1), LT8(2), LT8(3), LT8(4), LT8(5), LT8(6), LT8(7), LT8(8)> Long;

template <typename T> NI size_t long_named(const T &) { return std::tuple_size<T>::value; }

NI static void t_longname()
{
	std::printf("longname: %zu\n", long_named(Long()));
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		void (*run)();
	} cases[] = {
		{ "rethrow", t_rethrow },
		{ "async", t_async },
		{ "nested", t_nested },
		{ "dtorcatch", t_dtorcatch },
		{ "cancel", [] { t_thread(false); } },
		{ "exit", [] { t_thread(true); } },
		{ "backtrace", [] { bt(4); } },
		{ "loop", t_loop },
		{ "longname", t_longname },
	};

	for (const auto &c : cases) {
		bool want = argc < 2;

		for (int i = 1; i < argc; i++)
			want |= !std::strcmp(argv[i], c.name);
		if (!want)
			continue;
		dtors = 0;
		c.run();
		std::printf("%s: %d destructors\n", c.name, dtors.load());
	}
	return 0;
}
