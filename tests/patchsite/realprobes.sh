#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Probes named from DWARF on real programs nobody here wrote, against gdb (issue #27), built
# from sources Debian ships in binary packages (scripts/deps.sh installs them):
# usage  realprobes.sh BUILD_DIR plain|san [readelf|gtest|full]   (or REALPROBES_WHAT=...)
#   readelf  (make check: check-ps-realprobes)  readelf from binutils-source, by gcc
#   gtest    (make check: check-ps-realprobes-gtest)  googletest's samples, by g++
#   full     (make check-realprobes)  both, each by gcc/g++ and by clang/clang++
#
# readelf (Debian's binutils-source, /usr/src/binutils: tests/patchsite/build_readelf.sh)
# built -O2 -g -pg -mfentry through patchsite-cc (our recordmcount writes the site table),
# dumps everything it can (-a -w -C ...) of a shared library with compressed DWARF and
# macros and of an archive holding a C++ object (demangled): its output must equal Debian's
# own readelf's (2.40, the same release).  googletest (Debian's googletest,
# /usr/src/googletest), its samples 1 to 8 under gtest_main, 48 tests, -O2 -g -pg -mfentry.
# check_real_probes.py probes up to 200 of the functions each run calls (at least 100),
# clones first (.isra, .constprop, .part), each by the names of all the parameters gdb lists
# (and a member of each struct pointer) and %return $retval, and compares every value of
# their first 5 calls with gdb's at the function's first instruction and with gdb's
# `finish` (realprobes_gdb.py).  Both runs allocate from a fixed arena
# (testdata/patchsite/realprobes_alloc.c: the recorded run's runtime mallocs in between)
# and are linked without -pg.  The builds are kept in PS_REAL (default BUILD_DIR/real).
set -u
. tests/patchsite/lib.sh
suite_init realprobes "$1" "$2"
WHAT=${3:-${REALPROBES_WHAT:-full}}
export SANPRE	# check_real_probes.py preloads it into the recorded runs (under san)
# Under san, leaks are the runtime's to find: not the real programs' own (readelf's strdup of
# a section name it keeps to the end), known by their source files.
printf 'leak:/binutils-2.40/\nleak:/googletest/\n' >"$T/lsan.supp"
export LSAN_OPTIONS="suppressions=$T/lsan.supp"
REAL=${PS_REAL:-$B/real}
PSCC="$PWD/$B/patchsite-cc"
only_x86_64 realprobes.sh "needs x86-64 and gdb (the oracle; scripts/deps.sh installs it)" gdb
N=${REALPROBES_N:-200}
GT=/usr/src/googletest/googletest

# compare WHAT N:MIN EXE [ARG...]
compare() {
	what=$1 n=$2
	shift 2
	d="$T/$(basename "$1").d"
	mkdir -p "$d"
	if python3 "$TESTS/oracles/check_real_probes.py" "$PS" "$d" "$n" 5 "$@" >"$T/cmp" 2>&1; then
		pass "$what: $(tail -2 "$T/cmp" | tr "\n" " ")"
	else
		tail -1 "$T/cmp" >>"$T/cmp"
		fail "$what: values differ from gdb's" "$T/cmp"
	fi
}

# readelf gcc|clang
readelf_case() {
	if ! o=$(sh tests/patchsite/build_readelf.sh "$REAL" "readelf-$1" \
		"env PATCHSITE_CC=$1 $PSCC" "-O2 -g -pg -mfentry" 2>"$T/build.log"); then
		fail "$1: build readelf" "$T/build.log"
		return
	fi
	$1 -O2 -c testdata/patchsite/realprobes_alloc.c -o "$T/alloc-$1.o" &&
	$1 "$o/readelf.o" "$o/lib.a" "$T/alloc-$1.o" -o "$T/readelf-$1" \
		-Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free >"$T/build.log" 2>&1 ||
		{ fail "$1: link readelf" "$T/build.log"; return; }
	"$T/readelf-$1" $RE_ARGS >"$T/re.out" 2>&1
	if cmp -s "$T/re.out" "$T/debian.out"; then
		pass "readelf, $1: its output is Debian's readelf's ($(wc -l <"$T/re.out") lines)"
	else
		diff "$T/debian.out" "$T/re.out" >"$T/diff"
		fail "readelf, $1: its output differs from Debian's readelf's" "$T/diff"
	fi
	compare "readelf, $1 -O2" "$N:100" "$T/readelf-$1" $RE_ARGS
}

# build_gt g++|clang++: googletest's samples 1 to 8 under gtest_main, the objects kept in
# REAL/gtest-CXX; clang++'s through patchsite-c++ too.
build_gt() {
	o="$REAL/gtest-$1"
	if [ ! -f "$o/done" ]; then
		rm -rf "$o"
		mkdir -p "$o"
		printf '%s\n' $GT/src/gtest-all.cc $GT/src/gtest_main.cc $GT/samples/sample[1-8].cc \
			$GT/samples/sample[1-8]_unittest.cc | xargs -P2 -I{} sh -c \
			'$0 -O2 -g -pg -mfentry -std=c++17 -I$1/include -I$1 -c "$2" -o "$3/$(basename "$2" .cc).o"' \
			"env PATCHSITE_CXX=$1 $PWD/$B/patchsite-c++" "$GT" {} "$o" || return 1
		touch "$o/done"
	fi
	case $1 in clang++) cc=clang ;; *) cc=gcc ;; esac
	$cc -O2 -c testdata/patchsite/realprobes_alloc.c -o "$T/alloc-$1.o" &&
	$1 -O2 -c testdata/patchsite/realprobes_new.cc -o "$T/new-$1.o" &&
	$1 "$o"/*.o "$T/alloc-$1.o" "$T/new-$1.o" -o "$T/gt-$1" -Wl,--wrap=realloc,--wrap=free -lpthread
}

gtest_case() {
	if [ ! -f "$GT/src/gtest-all.cc" ]; then
		fail "$1: no googletest sources in $GT (Debian's googletest: scripts/deps.sh installs it)"
		return
	fi
	if ! (exec 9>"$REAL/.gtest.lock" && flock 9 && build_gt "$1") >"$T/build.log" 2>&1; then
		fail "$1: build googletest's samples" "$T/build.log"
		return
	fi
	compare "googletest, $1 -O2" "$N:100" "$T/gt-$1"
}

mkdir -p "$REAL"
case $WHAT in
readelf) CCS=gcc CXXS= ;;
gtest) CCS= CXXS=g++ ;;
*) CCS="gcc clang" CXXS="g++ clang++" ;;
esac
if [ -n "$CCS" ]; then
	# readelf's input: a shared library (compressed DWARF 5, macros, notes, versions) and an
	# archive of a C and a C++ object; what to dump: all of it.
	$CC -O2 -g3 -gz=zlib -shared -fPIC testdata/patchsite/ending.c -o "$T/in.so" -pthread &&
	$CC -O2 -g -c testdata/patchsite/a64args.c -o "$T/a.o" &&
	g++ -O2 -g -c testdata/patchsite/realprobes_new.cc -o "$T/n.o" &&
	ar rcs "$T/in.a" "$T/a.o" "$T/n.o" >"$T/build.log" 2>&1 ||
		{ fail "readelf's input" "$T/build.log"; exit 1; }
	RE_ARGS="-a -W -w -C -n -u -V -I -g --dyn-syms -p .comment $T/in.so $T/in.a"
	readelf $RE_ARGS >"$T/debian.out" 2>&1
fi
for cc in $CCS; do
	if command -v $cc >/dev/null 2>&1; then
		readelf_case $cc
	else
		echo "SKIP $cc: not installed"
	fi
done
for cxx in $CXXS; do
	if command -v $cxx >/dev/null 2>&1; then
		gtest_case $cxx
	else
		echo "SKIP $cxx: not installed"
	fi
done
echo "$PASS passed, $FAIL failed"
[ $FAIL = 0 ]
