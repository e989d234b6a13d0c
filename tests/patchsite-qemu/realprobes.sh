#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Probes named from DWARF on real programs for aarch64, against gdb (issue #27), under
# qemu-user: usage  realprobes.sh A64_BUILD_DIR HOST_BUILD_DIR [small]
#
# tests/patchsite/realprobes.sh's comparison (check_real_probes.py, realprobes_gdb.py)
# on aarch64: readelf from Debian's binutils-source (tests/patchsite/build_readelf.sh) and
# googletest's samples from Debian's googletest (/usr/src/googletest), cross-built -O2 -g
# -fpatchable-function-entry=2 by aarch64-linux-gnu-gcc/g++ and by clang/clang++
# --target=aarch64-linux-gnu, with the same fixed arena.  The host's patchsite command
# resolves the names from the aarch64 program's DWARF and runs it under qemu-aarch64
# (record --emulator, the aarch64 runtime preloaded); the oracle is gdb-multiarch
# through qemu's gdb stub (qemu-aarch64 -g PORT), stopped after the two patchable NOPs
# (gcc's DWARF starts after them) and at `finish`.  Every recorded argument and return
# value of the first 5 calls of up to 200 functions (clones first) is compared; and of the
# 7 functions of testdata/patchsite/a64args.c (stack arguments, v registers, an HFA).
# small (make check-patchsite-aarch64): a64args.c, and readelf by gcc only, 60 functions.
# The builds are kept in PS_REAL (default HOST_BUILD_DIR/real).
set -u
. tests/patchsite/lib.sh
A=${1:-build/aarch64}
suite_init realprobes-a64 "${2:-build}" plain
export PATCHSITE_LIB="$PWD/$A/libpatchsite.so" PATCHSITE_SCHED=0	# no perf events in qemu
QEMU=${QEMU_AARCH64:-$(command -v qemu-aarch64-static || command -v qemu-aarch64)}
SYSROOT=${A64_SYSROOT:-/usr/aarch64-linux-gnu}
REAL=${PS_REAL:-${2:-build}/real}
GT=/usr/src/googletest/googletest
SMALL=${3:-}
N=${REALPROBES_N:-200}
[ -n "$SMALL" ] && N=60
for need in aarch64-linux-gnu-gcc aarch64-linux-gnu-g++ gdb-multiarch "$QEMU"; do
	if ! command -v "$need" >/dev/null 2>&1; then
		echo "SKIP aarch64 realprobes.sh: needs $need (scripts/deps.sh installs it)"
		exit 0
	fi
done
if [ ! -f "$PATCHSITE_LIB" ]; then
	echo "SKIP aarch64 realprobes.sh: needs $PATCHSITE_LIB"
	exit 0
fi
export REALPROBES_QEMU="$QEMU" REALPROBES_SYSROOT="$SYSROOT" REALPROBES_GDB=gdb-multiarch \
	REALPROBES_TOOLS=aarch64-linux-gnu-
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
		"$PWD/tests/patchsite-qemu/pfe_comdat.awk"
}

# build_readelf gcc|clang: readelf (kept in REAL/readelf-a64-CC) and the arena.
build_readelf() {
	case $1 in
	gcc) r_cc=aarch64-linux-gnu-gcc ;;
	*) r_cc="clang --target=aarch64-linux-gnu" ;;
	esac
	o=$(sh tests/patchsite/build_readelf.sh "$REAL" "readelf-a64-$1" "$r_cc" "$FLAGS" \
		aarch64-linux-gnu) &&
	$r_cc -O2 -c testdata/patchsite/realprobes_alloc.c -o "$T/alloc-$1.o" &&
	$r_cc "$o/readelf.o" "$o/lib.a" "$T/alloc-$1.o" -o "$T/readelf-$1" \
		-Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free
}

# build_gt g++|clang++: googletest's samples 1 to 8 under gtest_main (as realprobes.sh),
# the objects kept in REAL/gtest-a64-CXX.
build_gt() {
	case $1 in
	g++) g_cxx=aarch64-linux-gnu-g++ g_cc=aarch64-linux-gnu-gcc how=compile_fixed ;;
	*) g_cxx="clang++ --target=aarch64-linux-gnu" g_cc="clang --target=aarch64-linux-gnu"
	   how=compile ;;
	esac
	o="$REAL/gtest-a64-$1"
	if [ ! -f "$o/done" ]; then
		rm -rf "$o"
		$how "$g_cxx $FLAGS -std=c++17 -I$GT/include -I$GT" "$o" "$GT"/src/gtest-all.cc \
			"$GT"/src/gtest_main.cc "$GT"/samples/sample[1-8].cc \
			"$GT"/samples/sample[1-8]_unittest.cc && touch "$o/done" || return 1
	fi
	$g_cc -O2 -c testdata/patchsite/realprobes_alloc.c -o "$T/alloc-$1.o" &&
	$g_cxx -O2 -c testdata/patchsite/realprobes_new.cc -o "$T/new-$1.o" &&
	$g_cxx "$o"/*.o "$T/alloc-$1.o" "$T/new-$1.o" -o "$T/gt-$1" \
		-Wl,--wrap=realloc,--wrap=free -lpthread
}

# compare WHAT N:MIN EXE [ARG...]
compare() {
	what=$1 n=$2
	shift 2
	d="$T/$(basename "$1").d"
	mkdir -p "$d"
	if python3 "$TESTS/oracles/check_real_probes.py" "$PS" "$d" "$n" 5 "$@" >"$T/cmp" 2>&1; then
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
# readelf's input (as realprobes.sh's): a shared library with compressed DWARF and macros,
# an archive of a C and a C++ object.
gcc -O2 -g3 -gz=zlib -shared -fPIC testdata/patchsite/ending.c -o "$T/in.so" -pthread &&
gcc -O2 -g -c testdata/patchsite/a64args.c -o "$T/a.o" &&
g++ -O2 -g -c testdata/patchsite/realprobes_new.cc -o "$T/n.o" &&
ar rcs "$T/in.a" "$T/a.o" "$T/n.o" >"$T/build.log" 2>&1 ||
	{ fail "readelf's input" "$T/build.log"; exit 1; }
mkdir -p "$REAL"
for cc in gcc clang; do
	[ -n "$SMALL" ] && [ $cc = clang ] && break
	if [ $cc = clang ] && ! command -v clang >/dev/null 2>&1; then
		echo "SKIP aarch64 clang: not installed"
		continue
	fi
	if ! build_readelf $cc >"$T/build.log" 2>&1; then
		fail "aarch64 $cc: build readelf" "$T/build.log"
		continue
	fi
	compare "readelf, $cc -O2" "$N:$((N / 2))" "$T/readelf-$cc" -a -W -w -C -n -u -V -I -g \
		--dyn-syms -p .comment "$T/in.so" "$T/in.a"
done
if [ -n "$SMALL" ]; then
	:
elif [ ! -f "$GT/src/gtest-all.cc" ]; then
	fail "aarch64 C++: no googletest sources in $GT (Debian's googletest: scripts/deps.sh installs it)"
else
	for cxx in g++ clang++; do
		if [ $cxx = clang++ ] && ! command -v clang++ >/dev/null 2>&1; then
			echo "SKIP aarch64 clang++: not installed"
			continue
		fi
		if ! (exec 9>"$REAL/.gtest.lock" && flock 9 && build_gt $cxx) >"$T/build.log" 2>&1; then
			fail "aarch64 $cxx: build googletest's samples" "$T/build.log"
			continue
		fi
		compare "googletest, $cxx -O2" 200:100 "$T/gt-$cxx"
	done
fi
echo "aarch64 realprobes.sh: $PASS passed, $FAIL failed"
[ $FAIL = 0 ]
