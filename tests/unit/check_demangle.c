// SPDX-License-Identifier: GPL-2.0-only
/*
 * libpatchsite's C++ names (patchsite/demangle.c).  Oracle: binutils'
 * c++filt for the demangled declarations (each line gives the mangled
 * name it printed them for, from g++ 12 output); the shown name is the
 * rule demangle.c documents: the qualified name with its template
 * arguments, without return type, parameters and qualifiers, with gcc's
 * clone suffixes as C symbols have them.
 */
#include <check.h>
#include <dlfcn.h>
#include <stdlib.h>

#include "core/demangle.h"
#include "suites.h"

static const struct {
	const char *demangled, *shown;
} names[] = {
	/* _ZN6shapes3useEi */
	{ "shapes::use(int)", "shapes::use" },
	/* _ZN6shapes12_GLOBAL__N_16hiddenEi */
	{ "shapes::(anonymous namespace)::hidden(int)", "shapes::(anonymous namespace)::hidden" },
	/* _ZN6shapes5twiceIiEET_S1_ */
	{ "int shapes::twice<int>(int)", "shapes::twice<int>" },
	/* _ZN6shapes5twiceImEET_S1_ */
	{ "unsigned long shapes::twice<unsigned long>(unsigned long)",
	  "shapes::twice<unsigned long>" },
	/* _ZN6shapes4makeIiEESt6vectorIT_SaIS2_EES2_ */
	{ "std::vector<int, std::allocator<int> > shapes::make<int>(int)", "shapes::make<int>" },
	/* _ZNK6shapes3BoxIlE4pairIiEESt4pairIlT_ES4_ */
	{ "std::pair<long, int> shapes::Box<long>::pair<int>(int) const",
	  "shapes::Box<long>::pair<int>" },
	/* _ZN6shapesltIiEEbRKNS_3BoxIT_EEi */
	{ "bool shapes::operator< <int>(shapes::Box<int> const&, int)", "shapes::operator< <int>" },
	/* _ZNK6shapes3BoxIlEltERKS1_ */
	{ "shapes::Box<long>::operator<(shapes::Box<long> const&) const",
	  "shapes::Box<long>::operator<" },
	/* _ZNK6shapes3BoxIlEcvmEv */
	{ "shapes::Box<long>::operator unsigned long() const",
	  "shapes::Box<long>::operator unsigned long" },
	/* _ZNO6shapes3BoxIlE3getEv */
	{ "shapes::Box<long>::get() &&", "shapes::Box<long>::get" },
	/* _Z3fooi.constprop.0.isra.0 */
	{ "foo(int) [clone .constprop.0] [clone .isra.0]", "foo.constprop.0.isra.0" },
	/* _ZN6shapes5twiceIiEET_S1_.cold */
	{ "int shapes::twice<int>(int) [clone .cold]", "shapes::twice<int>.cold" },
};

START_TEST(shown_names)
{
	char *s = ps_name_simple(names[_i].demangled);

	ck_assert_ptr_nonnull(s);
	ck_assert_str_eq(s, names[_i].shown);
	free(s);
}
END_TEST

/* __cxa_demangle found in a library's own scope (RTLD_LOCAL), as for a C program dlopening C++. */
START_TEST(demangler_from_local_scope)
{
	void *h = dlopen("libstdc++.so.6", RTLD_NOW | RTLD_LOCAL);
	char *s;

	ck_assert_ptr_nonnull(h);
	ps_demangle_lookup(h);
	s = ps_demangle_simple("_ZN6shapes5twiceImEET_S1_");
	ck_assert_ptr_nonnull(s);
	ck_assert_str_eq(s, "shapes::twice<unsigned long>");
	free(s);
	ck_assert_ptr_null(ps_demangle_simple("main"));
	ck_assert_ptr_null(ps_demangle_simple("_Znot a name"));
}
END_TEST

Suite *demangle_suite(void)
{
	Suite *s = suite_create("demangle");
	TCase *tc = tcase_create("names");

	tcase_add_loop_test(tc, shown_names, 0, sizeof(names) / sizeof(names[0]));
	tcase_add_test(tc, demangler_from_local_scope);
	suite_add_tcase(s, tc);
	return s;
}
