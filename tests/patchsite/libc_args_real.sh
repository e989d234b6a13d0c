#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# record -a on a C program nobody here wrote: readelf, from Debian's binutils-source
# (tests/patchsite/build_readelf.sh, kept in PS_REAL, default BUILD_DIR/real), built
# -O2 -g -pg -mfentry through patchsite-cc and linked -z lazy, dumping the headers, symbols
# (demangled), relocations, dynamic section, versions, notes and the decoded line tables of a
# shared library with compressed DWARF, a C object and a C++ one (file reads, zlib, the
# demangler; 24,000 library calls: the audit oracle takes about 1 ms a call).  No archive (realprobes.sh has one): readelf reads a member's
# size with strtoul from the header's fixed-width field, which has no NUL, and the string
# read from there runs into the stack bytes after it, which the runtime's own use of the
# stack changes in the traced run.
# usage: libc_args_real.sh BUILD_DIR plain|san   (make check: check-ps-libc_args_real)
#
# Oracles: Debian's readelf (2.40, the same release): the untraced run prints what it prints,
# and so does the traced one; an rtld-audit la_x86_64_gnu_pltenter library (tests/patchsite/
# libc_args.sh's) run twice untraced: each library function the trace gives arguments has the
# same multiset of argument values as the audit's (strings, integers, pointers as NULL or not),
# for each function whose untraced runs agree and whose traced calls are as many; at least 12
# functions are compared.
set -u
. tests/patchsite/lib.sh
suite_init libc_args_real "$1" "$2"
REAL=${PS_REAL:-$B/real}
only_x86_64 libc_args_real.sh "the audit oracle is x86-64's"
# The audit library, as libc_args.sh writes it.
sed -n "/^cat > audit.c <<'AUDIT'/,/^AUDIT/p" "$TESTS/libc_args.sh" | sed '1d;$d' > "$T/audit.c"
gcc -shared -fPIC -O1 -o "$T/audit.so" "$T/audit.c" >"$T/build.log" 2>&1 ||
	{ fail "build audit.so" "$T/build.log"; exit 1; }
if ! o=$(sh tests/patchsite/build_readelf.sh "$REAL" readelf-gcc \
	"env PATCHSITE_CC=gcc $PWD/$B/patchsite-cc" "-O2 -g -pg -mfentry" 2>"$T/build.log"); then
	fail "build readelf" "$T/build.log"
	exit 1
fi
gcc "$o/readelf.o" "$o/lib.a" -o "$T/readelf" -Wl,-z,lazy >"$T/build.log" 2>&1 &&
gcc -O2 -g3 -gz=zlib -shared -fPIC testdata/patchsite/ending.c -o "$T/in.so" -pthread &&
gcc -O2 -g -c testdata/patchsite/a64args.c -o "$T/a.o" &&
g++ -O2 -g -c testdata/patchsite/realprobes_new.cc -o "$T/n.o" >>"$T/build.log" 2>&1 ||
	{ fail "build readelf and its input" "$T/build.log"; exit 1; }

cd "$T" || exit 1
ARGS="-a -W -C -wl in.so a.o n.o"
readelf $ARGS >debian.out 2>&1
./readelf $ARGS >plain.out 2>&1
if cmp -s debian.out plain.out; then
	pass "readelf untraced: Debian's readelf's output ($(wc -l <plain.out) lines)"
else
	diff debian.out plain.out >diff.txt
	fail "readelf untraced: its output differs from Debian's readelf's" diff.txt
fi
for i in 1 2; do
	AUDIT_OUT="$T/a$i.txt" LD_AUDIT="$T/audit.so" ./readelf $ARGS >/dev/null 2>&1
done
if ! record -d d -a ./readelf $ARGS >traced.out 2>err; then
	fail "record -a readelf" err
elif ! cmp -s plain.out traced.out; then
	diff plain.out traced.out >diff.txt
	fail "record -a readelf: output differs from the untraced run's" diff.txt
else
	pass "record -a readelf: the output of the untraced run"
	"$PS" replay --no-sched -d d >trace 2>&1
	if python3 "$TESTS/oracles/libc_args_compare.py" --bag a1.txt a2.txt trace 12 >cmp.txt; then
		pass "record -a readelf: $(tail -1 cmp.txt)"
	else
		fail "record -a readelf: library calls' arguments differ from the audit's" cmp.txt
	fi
fi
echo "libc_args_real.sh: $PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
