#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Probes named from DWARF on a real program, against gdb (issue #27):
# usage  realprobes.sh BUILD_DIR plain|san      (make check-realprobes; not in make check:
#                                                two builds of Lua and two gdb runs, minutes)
#
# Lua (its git HEAD, LUA_GIT: by default the mirror /work/.mirror/lua+lua/repo; skipped
# by name without it) built -O2 -g -pg -mfentry by gcc (-mrecord-mcount) and by clang
# (clang 14 has no -mrecord-mcount: our recordmcount adds the section), runs
# testdata/patchsite/realprobes.lua.  check_real_probes.py probes 200 of the functions
# that run calls, clones first (.isra, .constprop, .part), each by the names of all the
# parameters gdb lists (and a member of each struct pointer) and %return $retval, and
# compares every value of their first 5 calls with gdb's at the function's first
# instruction and with gdb's `finish` (realprobes_gdb.py).
# Two things make the two runs comparable: the program's realloc/free come from a
# fixed arena (testdata/patchsite/realprobes_alloc.c: the recorded run's runtime
# mallocs in between), and it is linked without -pg (gcrt1's SIGPROF profiling timer
# made gdb's breakpoint stepping crash Lua now and then); Lua's hash seed is fixed.
set -u
. tests/patchsite/lib.sh
suite_init realprobes "$@"

LUA_GIT=${LUA_GIT:-/work/.mirror/lua+lua/repo}
if [ "$(uname -m)" != x86_64 ] || ! command -v gdb >/dev/null 2>&1; then
	echo "SKIP realprobes.sh: needs x86-64 and gdb (the oracle; scripts/deps.sh installs it)"
	exit 0
fi
if ! git --git-dir="$LUA_GIT" rev-parse -q --verify HEAD >/dev/null 2>&1; then
	echo "SKIP realprobes.sh: no Lua git repository at $LUA_GIT (LUA_GIT=DIR names one)"
	exit 0
fi
mkdir -p "$T/lua"
git --git-dir="$LUA_GIT" archive HEAD | tar -x -C "$T/lua" || { fail "lua sources"; exit 1; }
N=${REALPROBES_N:-200}

# build CC: Lua's objects (not its test library ltests.c, not the one-file onelua.c),
# the arena, linked without -pg.
build() {
	cc=$1 exe="$T/lua-$1" o="$T/o-$1"
	mkdir -p "$o"
	for src in "$T"/lua/l*.c; do
		case $src in */ltests.c | */onelua.c) continue ;; esac
		obj="$o/$(basename "$src" .c).o"
		if [ "$cc" = clang ]; then
			clang -O2 -g -pg -mfentry -std=c99 -DLUA_USE_LINUX '-Dluai_makeseed()=0U' \
				-c "$src" -o "$obj" && "$B/recordmcount" "$obj" || return 1
		else
			gcc -O2 -g -pg -mfentry -mrecord-mcount -std=c99 -DLUA_USE_LINUX \
				'-Dluai_makeseed()=0U' -c "$src" -o "$obj" || return 1
		fi
	done
	$cc -O2 -c testdata/patchsite/realprobes_alloc.c -o "$o/alloc.o" &&
	$cc "$o"/*.o -o "$exe" -Wl,--wrap=realloc,--wrap=free -lm
}

# C++: googletest (GTEST_GIT, by default the mirror /work/.mirror/google+googletest/repo), its
# samples 1 to 8 under gtest_main, 48 tests: 150 or so of its functions are called (not 200:
# at least 100 must be), built by g++ and clang++ with -pg -mfentry and our recordmcount (g++'s
# -mrecord-mcount keeps entries of discarded COMDAT copies, which ld refuses).
GTEST_GIT=${GTEST_GIT:-/work/.mirror/google+googletest/repo}
build_cxx() {
	cxx=$1 exe="$T/gt-$1" o="$T/o-$1"
	g="$T/googletest/googletest"
	mkdir -p "$o"
	for src in "$g"/src/gtest-all.cc "$g"/src/gtest_main.cc "$g"/samples/sample[1-8].cc \
		"$g"/samples/sample[1-8]_unittest.cc; do
		obj="$o/$(basename "$src" .cc).o"
		$cxx -O2 -g -pg -mfentry -std=c++17 -I"$g/include" -I"$g" -c "$src" -o "$obj" &&
			"$B/recordmcount" "$obj" || return 1
	done
	case $cxx in clang++) cc=clang ;; *) cc=gcc ;; esac
	$cc -O2 -c testdata/patchsite/realprobes_alloc.c -o "$o/alloc.o" &&
	$cxx -O2 -c testdata/patchsite/realprobes_new.cc -o "$o/new.o" &&
	$cxx "$o"/*.o -o "$exe" -Wl,--wrap=realloc,--wrap=free -lpthread
}

for cc in gcc clang; do
	if ! command -v $cc >/dev/null 2>&1; then
		echo "SKIP $cc: not installed"
		continue
	fi
	if ! build $cc >"$T/build.log" 2>&1; then
		fail "$cc: build Lua" "$T/build.log"
		continue
	fi
	mkdir -p "$T/$cc.d"
	if python3 "$TESTS/check_real_probes.py" "$PS" "$T/$cc.d" "$N" 5 "$T/lua-$cc" \
		testdata/patchsite/realprobes.lua >"$T/cmp" 2>&1; then
		pass "Lua, $cc -O2: $(tail -2 "$T/cmp" | tr "\n" " ")"
	else
		echo "$(tail -1 "$T/cmp")" >>"$T/cmp"
		fail "Lua, $cc -O2: values differ from gdb's" "$T/cmp"
	fi
done
if ! git --git-dir="$GTEST_GIT" rev-parse -q --verify HEAD >/dev/null 2>&1; then
	echo "SKIP realprobes.sh C++: no googletest git repository at $GTEST_GIT (GTEST_GIT=DIR)"
else
	mkdir -p "$T/googletest"
	git --git-dir="$GTEST_GIT" archive HEAD googletest | tar -x -C "$T/googletest"
	for cxx in g++ clang++; do
		if ! command -v $cxx >/dev/null 2>&1; then
			echo "SKIP $cxx: not installed"
			continue
		fi
		if ! build_cxx $cxx >"$T/build.log" 2>&1; then
			fail "$cxx: build googletest's samples" "$T/build.log"
			continue
		fi
		mkdir -p "$T/$cxx.d"
		if python3 "$TESTS/check_real_probes.py" "$PS" "$T/$cxx.d" 200:100 5 "$T/gt-$cxx" \
			>"$T/cmp" 2>&1; then
			pass "googletest, $cxx -O2: $(tail -2 "$T/cmp" | tr "\n" " ")"
		else
			echo "$(tail -1 "$T/cmp")" >>"$T/cmp"
			fail "googletest, $cxx -O2: values differ from gdb's" "$T/cmp"
		fi
	done
fi
echo "$PASS passed, $FAIL failed"
[ $FAIL = 0 ]
