#!/bin/sh
# make install and make uninstall as a user runs them (issue 40, defect 10): installed into a
# DESTDIR with a PREFIX, a small program is built, linked and recorded with the installed
# files alone (PATH and pkg-config pointed there, the source tree out of reach): compiled by
# the installed patchsite-cc (which runs the installed recordmcount on the -pg object),
# linked each documented way (libpatchsite.so through pkg-config, libpatchsite.a,
# patchsite.o; the link commands of libpatchsite(3), run as printed there), recorded and
# replayed by the installed patchsite.  Then make uninstall leaves no file behind.  The
# oracle of the trace is the program itself: it calls hop() 7 times and prints the sum.
#
#   sh tests/build/install.sh       (from the top of a built tree)
set -u
. tests/patchsite/lib.sh	# suite_init, user_shell, pass, fail, summary
suite_init install
user_shell
FAIL_LINES=20 FAIL_END=1	# a build log's error is at its end
TOP=$PWD
D=$T/dest
P=/opt/patchsite
R=$D$P

if make install DESTDIR="$D" PREFIX="$P" >"$T/install.log" 2>&1; then
	pass "make install DESTDIR=... PREFIX=$P"
else
	fail "make install" "$T/install.log"
	summary
	exit 1
fi
: >"$T/missing"
for f in bin/patchsite bin/patchsite-cc bin/patchsite-c++ bin/recordmcount lib/libpatchsite.so \
	 lib/libpatchsite.a lib/patchsite.o lib/pkgconfig/libpatchsite.pc include/patchsite.h \
	 share/man/man3/libpatchsite.3 share/man/man1/patchsite.1; do
	[ -f "$R/$f" ] || echo "$P/$f" >>"$T/missing"
done
if [ -s "$T/missing" ]; then
	fail "installed files" "$T/missing"
else
	pass "installed: the command, patchsite-cc/c++, libpatchsite.so/.a, patchsite.o, libpatchsite.pc, headers, man pages"
fi

# From here on only the installed files: no build/ on any path.
mkdir "$T/w" && cd "$T/w" || exit 2
export PATH="$R/bin:/usr/bin:/bin" PKG_CONFIG_PATH="$R/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$D"
cat >prog.c <<'SRC'
#include <stdio.h>
#include <patchsite.h>

__attribute__((noinline)) int hop(int i)
{
	return i + 1;
}

int main(void)
{
	int s = 0;

	for (int i = 0; i < 7; i++)
		s = hop(s);
	printf("%d %d\n", s, patchsite_tracing_is_on());
	return 0;
}
SRC
# The commands libpatchsite(3) prints, as printed: compile, then one link per form.
if patchsite-cc -O2 -pg -mfentry -c prog.c $(pkg-config --cflags libpatchsite) >build.log 2>&1 &&
   readelf -S prog.o | grep -q mcount_loc; then
	pass "patchsite-cc -pg -mfentry: prog.o with the installed recordmcount's table"
else
	fail "patchsite-cc -c" build.log
fi
for form in shared archive object; do
	mkdir $form && cd $form || exit 2
	cp ../prog.o . 2>/dev/null
	case $form in
	shared) patchsite-cc -o prog prog.o $(pkg-config --libs libpatchsite) ;;
	archive) patchsite-cc -o prog prog.o $(pkg-config --libs-only-L libpatchsite) -l:libpatchsite.a -pthread ;;
	object) patchsite-cc -o prog prog.o "$(pkg-config --variable=patchsite_o libpatchsite)" -pthread ;;
	esac >link.log 2>&1
	needed=$(readelf -d prog 2>/dev/null | grep -c 'NEEDED.*libpatchsite')
	case $form:$needed in
	shared:1|archive:0|object:0) ;;
	*) echo "$form: $needed DT_NEEDED of libpatchsite" >>link.log; needed=bad ;;
	esac
	if [ -x prog ] && [ $needed != bad ]; then
		LD_LIBRARY_PATH="$R/lib" PATCHSITE_TRACER=function_graph PATCHSITE_DATA=d ./prog >out 2>err
		patchsite replay -d d >replay 2>>err
		calls=$(grep -c '| *hop();$' replay)
		if [ "$(cat out)" = "7 1" ] && [ "$calls" = 7 ]; then
			pass "$form: linked, its runtime records hop() 7 times, replayed by the installed patchsite"
		else
			echo "output '$(cat out)', expected '7 1'; $calls hop() in replay" >>err
			fail "$form: recorded" err
		fi
	else
		fail "$form: link" link.log
	fi
	cd ..
done
# record: the installed command preloads the installed runtime (its ../lib).
patchsite-cc -O2 -pg -mfentry -o plain "$TOP/testdata/patchsite/basic.c" >build2.log 2>&1
if patchsite record -d r ./plain >out 2>err && patchsite replay -d r >replay 2>>err &&
   grep -q '| *[a-z_]*();$' replay; then
	pass "patchsite record of a patchsite-cc -pg program: $(grep -c '();$' replay) calls"
else
	cat build2.log >>err
	fail "patchsite record" err
fi

cd "$TOP" || exit 2
if make uninstall DESTDIR="$D" PREFIX="$P" >"$T/uninstall.log" 2>&1 &&
   [ -z "$(find "$D" ! -type d)" ]; then
	pass "make uninstall: no file left under DESTDIR"
else
	find "$D" ! -type d >>"$T/uninstall.log"
	fail "make uninstall" "$T/uninstall.log"
fi
summary
