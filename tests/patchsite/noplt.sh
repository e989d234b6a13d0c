#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# -fno-plt programs (x86-64): library calls through GLOB_DAT slots, traced by default where
# every reference to the slot is a call or jump through it, left alone and named where the
# function's address is also used as data; and -pg -mfentry -fno-plt without
# -mrecord-mcount, whose entry sites are `call *__fentry__@GOTPCREL(%rip)` (6 bytes).
# usage  noplt.sh BUILD_DIR plain|san
#
# Oracles:
#   - the program itself (testdata/patchsite/noplt.c): it counts its own calls of malloc,
#     free, qsort, nanosleep, of qsort's callback and of round_of, and prints them; the
#     report's counts must be those, and a traced run prints what an untraced one prints;
#   - the program again, for &malloc: it compares the pointer it took with the one
#     noplt_lib.so (built without -fno-plt) returns, and prints whether they are the same;
#   - objdump -d of the same binary: the functions whose first instruction (after endbr64)
#     calls through __fentry__'s GOT slot are the entry sites the trace lists (mod.N).
set -u
. tests/patchsite/lib.sh	# suite_init, record, pass, fail; only_switches_lost
suite_init noplt "${1:-build}" "${2:-plain}"
SRC="$PWD/testdata/patchsite/noplt.c"
LIB="$PWD/testdata/patchsite/noplt_lib.c"
# The oracles' runs: with the same preloaded objects (a sanitizer's interceptors bind first).
run() { LD_PRELOAD="$SANPRE" "$@"; }

only_x86_64 noplt.sh "library calls through GLOB_DAT slots are proved on x86-64 only"
cd "$T" || exit 1

# counts DIR NAMES...: "NAME CALLS" from report --json, for each name (0 when absent).
counts() {
	d=$1
	shift
	"$PS" report -d "$d" --json > rep.json 2>/dev/null
	python3 - rep.json "$@" <<'PY'
import json, sys
calls = {f["name"]: f["calls"] for f in json.load(open(sys.argv[1]))}
for n in sys.argv[2:]:
    print(n, calls.get(n, 0))
PY
}
# want OUT NAMES...: the program's own counts of those names, as counts prints them.
want() {
	o=$1
	shift
	for n in "$@"; do
		echo "$n $(sed -n "s/^$n \([0-9]*\)$/\1/p" "$o")"
	done
}
N=40
LIBCALLS="malloc free qsort nanosleep"

for cc in gcc clang; do
	for pie in pie nopie; do
		if [ $pie = pie ]; then pf="-fPIE -pie"; else pf="-fno-PIE -no-pie"; fi
		name="$cc $pie -fno-plt -z now"
		# Library calls, by default: the program has no function sites of its own.
		$cc -O2 $pf -fno-plt -Wl,-z,now -o p "$SRC" >build.log 2>&1 ||
			{ fail "$name: build" build.log; continue; }
		run ./p $N > plain.out
		rm -rf d
		record -d d --tracer=function ./p $N > out 2>err
		want plain.out $LIBCALLS > want.txt
		counts d $LIBCALLS > got.txt
		if cmp -s out plain.out && only_switches_lost err && diff -u want.txt got.txt > diff.txt
		then
			pass "$name: malloc, free, qsort, nanosleep counted as the program counts them"
		else
			cat err >> diff.txt
			fail "$name: library calls by default" diff.txt
		fi

		# &malloc taken: its slot is left alone (the pointer stays the one the library
		# sees), named in info and once on stderr; the other slots are traced.
		$cc -O2 -shared -fPIC -o libnl.so "$LIB" >build.log 2>&1 &&
			$cc -O2 $pf -fno-plt -Wl,-z,now -DTAKE_MALLOC -o fp "$SRC" -L. -lnl \
				-Wl,-rpath,"$T" >build.log 2>&1 ||
			{ fail "$name: build &malloc" build.log; continue; }
		run ./fp $N > plain.out
		rm -rf d
		record -d d --tracer=function ./fp $N > out 2>err
		"$PS" info -d d > info.txt
		want plain.out free qsort nanosleep > want.txt
		echo "malloc 0" >> want.txt
		counts d free qsort nanosleep malloc > got.txt
		# The slots left alone are objdump's: those that a call or jmp goes through and
		# that another instruction reads (clang also keeps printf's address in a register
		# across main's calls), but `cmpq $0x0`, which sees only whether it is 0.
		objdump -d fp > dis.txt
		sed -n 's/.*\(call\|jmp\) *\*0x[0-9a-f]*(%rip) *# [0-9a-f]* <\([^@>+]*\)@.*/\2/p' \
			dis.txt | sort -u > called.txt
		grep -v -e '\(call\|jmp\) *\*0x' -e 'cmpq *\$0x0,' dis.txt |
			sed -n 's/.*(%rip).*# [0-9a-f]* <\([^@>+]*\)@.*/\1/p' | sort -u |
			comm -12 called.txt - > alone.want
		sed -n 's/^      not traced ([0-9]*): \(.*\): its address is also used as data.*/\1/p' \
			info.txt | tr -d ' ' | tr ',' '\n' | sort > alone.info
		sed -n 's/^patchsite: warning: fp: [0-9]* library-call slots* left alone .*: //p' err |
			tr -d ' ' | tr ',' '\n' | sort > alone.err
		if grep -qx 'malloc pointer: same' out && cmp -s out plain.out &&
		   diff -u want.txt got.txt > diff.txt && grep -qx malloc alone.want &&
		   diff -u alone.want alone.info >> diff.txt && cmp -s alone.want alone.err &&
		   [ "$(grep -c 'library-call slots* left alone' err)" = 1 ]; then
			pass "$name: &malloc is the library's; left alone as objdump shows ($(echo $(cat alone.want))), named in info and on stderr; the others counted"
		else
			cat out err info.txt >> diff.txt
			fail "$name: &malloc taken" diff.txt
		fi
	done
done

# -pg -mfentry -fno-plt, no -mrecord-mcount: no table.  PIC code calls __fentry__ through
# its GOT slot (6 bytes: ff 15), in a PIE and in a non-PIE executable; -fno-PIE code calls
# its PLT entry (5 bytes: e8), as objdump shows.
for pie in pie nopie-pic nopie; do
	case $pie in
	pie) pf="-fPIE -pie";;
	nopie-pic) pf="-fPIE -no-pie";;
	nopie) pf="-fno-PIE -no-pie";;
	esac
	name="gcc $pie -pg -mfentry -fno-plt"
	gcc -O1 $pf -pg -mfentry -fno-plt -Wl,-z,now -o pg "$SRC" >build.log 2>&1 ||
		{ fail "$name: build" build.log; continue; }
	objdump -d pg | awk '/^[0-9a-f]+ <.*>:$/ { fn = $2; first = 1; next }
		first && /endbr64/ { next }
		first { if ($0 ~ /call +(\*0x[0-9a-f]+\(%rip\) +# [0-9a-f]+|[0-9a-f]+) <__fentry__@/)
				print fn
			first = 0 }' |
		tr -d '<>:' | sort > sites.want
	run ./pg $N > plain.out
	rm -rf d
	record -d d ./pg $N > out 2>err
	cat d/*/mod.0 | awk '$1 == "site" && $4 == "entry" { print $6 }' | sort > sites.got
	want plain.out round_of cmp $LIBCALLS > want.txt
	echo "main 1" >> want.txt
	counts d round_of cmp $LIBCALLS main > got.txt
	"$PS" info -d d > info.txt
	diff -u sites.want sites.got > diff.txt
	if [ -s sites.want ] && cmp -s sites.want sites.got && cmp -s out plain.out &&
	   diff -u want.txt got.txt >> diff.txt && grep -q 'no table, -pg -mfentry: ' info.txt
	then
		pass "$name: $(wc -l < sites.got) entry sites as objdump's, calls counted as the program counts them"
	else
		cat err info.txt >> diff.txt
		fail "$name: no table, 6-byte __fentry__ sites" diff.txt
	fi
done

# Live, on the PIE's 6-byte sites: started with only cmp traced (round_of's site a NOP), then
# switched by ctl to round_of only while the program waits between its two phases (each
# site changed under the live protocol); the program's own counts of each phase are the oracle:
# cmp as often as in phase 1, round_of as often as in phase 2, main never.
gcc -O1 -fPIE -pie -pg -mfentry -fno-plt -Wl,-z,now -o pg "$SRC" >build.log 2>&1 ||
	fail "live: build" build.log
rm -rf d pid go
record -d d --tracer=function -F cmp ./pg $N "$T/pid" "$T/go" > out 2>err &
R=$!
for i in $(seq 600); do [ -s pid ] && break; sleep 0.1; done
"$PS" ctl "$(cat pid)" set_ftrace_filter round_of > ctl.out 2>&1
touch go
wait $R
rc=$?
c1=$(sed -n 's/^phase1 round_of [0-9]* cmp \([0-9]*\)$/\1/p' out)
printf 'round_of %s\ncmp %s\nmain 0\n' $N "$c1" > want.txt
counts d round_of cmp main > got.txt
if [ $rc -eq 0 ] && [ -n "$c1" ] && grep -qx "round_of $((2 * N))" out && diff -u want.txt got.txt > diff.txt
then
	pass "live: 6-byte __fentry__ sites switched by ctl, counts per phase as the program's"
else
	cat out err ctl.out >> diff.txt
	fail "live: 6-byte __fentry__ sites (rc $rc)" diff.txt
fi

echo "noplt.sh: $PASS passed, $FAIL failed"
[ $FAIL -eq 0 ]
