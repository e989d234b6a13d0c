#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Probes named from DWARF on real programs for aarch64, against gdb (issue #27), under
# qemu-user: usage  realprobes.sh A64_BUILD_DIR HOST_BUILD_DIR [small]
#
# tests/patchsite/realprobes.sh's comparison (check_real_probes.py, realprobes_gdb.py)
# on aarch64: Lua (LUA_GIT) and googletest's samples (GTEST_GIT), cross-built -O2 -g
# -fpatchable-function-entry=2 by aarch64-linux-gnu-gcc/g++ and by clang/clang++
# --target=aarch64-linux-gnu, with the same fixed arena.  The host's patchsite command
# resolves the names from the aarch64 program's DWARF and runs it under qemu-aarch64
# (record --emulator, the aarch64 runtime preloaded); the oracle is gdb-multiarch
# through qemu's gdb stub (qemu-aarch64 -g PORT), stopped after the two patchable NOPs
# (gcc's DWARF starts after them) and at `finish`.  Every recorded argument and return
# value of the first 5 calls of 200 functions (clones first) is compared; and of the 7
# functions of testdata/patchsite/a64args.c (stack arguments, v registers, an HFA).
# small (make check-patchsite-aarch64): a64args.c, and Lua by gcc only, 60 functions.
set -u
. tests/patchsite/lib.sh
A=${1:-build/aarch64}
suite_init realprobes-a64 "${2:-build}" plain
export PATCHSITE_LIB="$PWD/$A/libpatchsite.so" PATCHSITE_SCHED=0	# no perf events in qemu
QEMU=${QEMU_AARCH64:-$(command -v qemu-aarch64-static || command -v qemu-aarch64)}
SYSROOT=${A64_SYSROOT:-/usr/aarch64-linux-gnu}
LUA_GIT=${LUA_GIT:-/work/.mirror/lua+lua/repo}
GTEST_GIT=${GTEST_GIT:-/work/.mirror/google+googletest/repo}
SMALL=${3:-}
N=${REALPROBES_N:-200}
[ -n "$SMALL" ] && N=60
for need in aarch64-linux-gnu-gcc aarch64-linux-gnu-g++ gdb-multiarch "$QEMU"; do
	if ! command -v "$need" >/dev/null 2>&1; then
		echo "SKIP aarch64 realprobes.sh: needs $need (scripts/deps.sh installs it)"
		exit 0
	fi
done
if [ ! -f "$PATCHSITE_LIB" ] || ! git --git-dir="$LUA_GIT" rev-parse -q --verify HEAD \
	>/dev/null 2>&1; then
	echo "SKIP aarch64 realprobes.sh: needs $PATCHSITE_LIB and Lua's git repository at $LUA_GIT"
	exit 0
fi
export REALPROBES_QEMU="$QEMU" REALPROBES_SYSROOT="$SYSROOT" REALPROBES_GDB=gdb-multiarch \
	REALPROBES_TOOLS=aarch64-linux-gnu-
mkdir -p "$T/lua"
git --git-dir="$LUA_GIT" archive HEAD | tar -x -C "$T/lua" || { fail "lua sources"; exit 1; }
FLAGS="-O2 -g -fpatchable-function-entry=2"

# compile CC OUT SRC...: each SRC into OUT/NAME.o, two at a time.
compile() {
	c_cmd=$1 c_out=$2
	shift 2
	mkdir -p "$c_out"
	printf '%s\n' "$@" | xargs -P2 -I{} sh -c \
		'$0 -c "$1" -o "$2/$(basename "$1" | sed "s/\.c*$//").o"' "$c_cmd" {} "$c_out"
}

# compile_fixed CXX OUT SRC...: as compile, through pfe_comdat.awk (g++ 12's patchable
# entries of COMDAT functions, which ld refuses otherwise: see there).
compile_fixed() {
	c_cmd=$1 c_out=$2
	shift 2
	mkdir -p "$c_out"
	printf '%s\n' "$@" | xargs -P2 -I{} sh -c 'o="$2/$(basename "$1" .cc)"
		$0 -S "$1" -o "$o.s" && awk -f "$3" "$o.s" >"$o.fixed.s" &&
		${0%% *} -c "$o.fixed.s" -o "$o.o" && rm -f "$o.s" "$o.fixed.s"' "$c_cmd" {} "$c_out" \
		"$PWD/tests/patchsite-aarch64/pfe_comdat.awk"
}

# build_lua gcc|clang: Lua's objects (not ltests.c, onelua.c) and the arena.
build_lua() {
	case $1 in
	gcc) l_cc=aarch64-linux-gnu-gcc ;;
	*) l_cc="clang --target=aarch64-linux-gnu" ;;
	esac
	o="$T/o-$1"
	# One line of Lua's API string cache (STRCACHE_N 1): its line is a C string's
	# address modulo 53, so which luaS_new calls reach internshrstr moved with the
	# stack's place, which the gdb run (qemu -g) and the recorded run (the runtime
	# preloaded, its environment) do not share: 518 calls against gdb's 516 once.
	compile "$l_cc $FLAGS -std=c99 -DLUA_USE_LINUX -Dluai_makeseed()=0U -DSTRCACHE_N=1 -DSTRCACHE_M=2" "$o" \
		$(ls "$T"/lua/l*.c | grep -v -e /ltests.c -e /onelua.c) &&
	$l_cc -O2 -c testdata/patchsite/realprobes_alloc.c -o "$o/alloc.o" &&
	$l_cc "$o"/*.o -o "$T/lua-$1" -Wl,--wrap=realloc,--wrap=free -lm
}

# build_gt g++|clang++: googletest's samples 1 to 8 under gtest_main (as realprobes.sh).
build_gt() {
	case $1 in
	g++) g_cxx=aarch64-linux-gnu-g++ g_cc=aarch64-linux-gnu-gcc how=compile_fixed ;;
	*) g_cxx="clang++ --target=aarch64-linux-gnu" g_cc="clang --target=aarch64-linux-gnu"
	   how=compile ;;
	esac
	o="$T/o-$1" g="$T/googletest/googletest"
	$how "$g_cxx $FLAGS -std=c++17 -I$g/include -I$g" "$o" "$g"/src/gtest-all.cc \
		"$g"/src/gtest_main.cc "$g"/samples/sample[1-8].cc "$g"/samples/sample[1-8]_unittest.cc &&
	$g_cc -O2 -c testdata/patchsite/realprobes_alloc.c -o "$o/alloc.o" &&
	$g_cxx -O2 -c testdata/patchsite/realprobes_new.cc -o "$o/new.o" &&
	$g_cxx "$o"/*.o -o "$T/gt-$1" -Wl,--wrap=realloc,--wrap=free -lpthread
}

# compare WHAT N:MIN EXE [ARG...]
compare() {
	what=$1 n=$2
	shift 2
	d="$T/$(basename "$1").d"
	mkdir -p "$d"
	if python3 "$TESTS/check_real_probes.py" "$PS" "$d" "$n" 5 "$@" >"$T/cmp" 2>&1; then
		pass "aarch64 $what: $(tail -2 "$T/cmp" | tr "\n" " ")"
	else
		tail -1 "$T/cmp" >>"$T/cmp"
		fail "aarch64 $what: values differ from gdb's" "$T/cmp"
	fi
}

# AAPCS64's corners (testdata/patchsite/a64args.c): arguments past x7 and v7 on the stack,
# floats among integers, an HFA by value refused and the float after it in v3.
for cc in gcc clang; do
	case $cc in
	gcc) a_cc=aarch64-linux-gnu-gcc ;;
	*) a_cc="clang --target=aarch64-linux-gnu" ;;
	esac
	if [ $cc = clang ] && ! command -v clang >/dev/null 2>&1; then
		continue
	fi
	if ! $a_cc $FLAGS testdata/patchsite/a64args.c -o "$T/a64args-$cc" >"$T/build.log" 2>&1; then
		fail "aarch64 $cc: build a64args.c" "$T/build.log"
		continue
	fi
	compare "a64args.c, $cc -O2" 20:7 "$T/a64args-$cc"
done
for cc in gcc clang; do
	[ -n "$SMALL" ] && [ $cc = clang ] && break
	if [ $cc = clang ] && ! command -v clang >/dev/null 2>&1; then
		echo "SKIP aarch64 clang: not installed"
		continue
	fi
	if ! build_lua $cc >"$T/build.log" 2>&1; then
		fail "aarch64 $cc: build Lua" "$T/build.log"
		continue
	fi
	compare "Lua, $cc -O2" "$N" "$T/lua-$cc" testdata/patchsite/realprobes.lua
done
if [ -n "$SMALL" ]; then
	:
elif ! git --git-dir="$GTEST_GIT" rev-parse -q --verify HEAD >/dev/null 2>&1; then
	echo "SKIP aarch64 realprobes.sh C++: no googletest git repository at $GTEST_GIT"
else
	mkdir -p "$T/googletest"
	git --git-dir="$GTEST_GIT" archive HEAD googletest | tar -x -C "$T/googletest"
	for cxx in g++ clang++; do
		if [ $cxx = clang++ ] && ! command -v clang++ >/dev/null 2>&1; then
			echo "SKIP aarch64 clang++: not installed"
			continue
		fi
		if ! build_gt $cxx >"$T/build.log" 2>&1; then
			fail "aarch64 $cxx: build googletest's samples" "$T/build.log"
			continue
		fi
		compare "googletest, $cxx -O2" 200:100 "$T/gt-$cxx"
	done
fi
echo "aarch64 realprobes.sh: $PASS passed, $FAIL failed"
[ $FAIL = 0 ]
