#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Library calls through GOT slots (record's default, --libcall): usage  libcall.sh BUILD_DIR plain|san
#
# Oracles:
#   - an rtld-audit library (LD_AUDIT, la_x86_64_gnu_pltenter: testdata/patchsite/pltaudit.c)
#     gives the sequence of PLT calls the executable makes; it needs lazy
#     binding, so it runs on the -z lazy build of each compiler and PIE
#     setting, and that sequence is what every binding mode of the same
#     source and compiler must show (-z lazy, -z now, -fno-plt), with
#     ld.bfd and with lld;
#   - uftrace (/usr/bin/uftrace) on the same -pg binary: the call graph,
#     library calls nested in main() and in the qsort callback;
#   - the program itself: a traced run prints what an untraced run prints
#     (registers, doubles and varargs kept), and each family case checks its
#     own outcome (longjmp lands, vfork's child execs, dlsym(RTLD_NEXT) from
#     the program finds what RTLD_DEFAULT finds from it), and N malloc calls
#     are counted N times by report.
set -u
. tests/patchsite/lib.sh	# suite_init, record, pass, fail; only_switches_lost
suite_init libcall "${1:-build}" "${2:-plain}"
TOP=$PWD
SRC="$PWD/testdata/patchsite/libcall.c"
# The oracles' runs: with the same preloaded objects (a sanitizer's interceptors bind first).
run() { LD_PRELOAD="$SANPRE" "$@"; }

only_x86_64 libcall.sh "library calls are x86-64 only"
cd "$T" || exit 1

# The audit oracle (testdata/patchsite/pltaudit.c: the dynamic linker calls it for each PLT
# call of the executable, or with AUDIT_ALL of every object).
gcc -shared -fPIC -O1 -o audit.so "$TOP/testdata/patchsite/pltaudit.c" >build.log 2>&1 || { fail "build audit.so" build.log; exit 1; }

# names DIR: the function tracer's calls, one name a line, in order.
names() { "$PS" replay --no-sched -d "$1" | sed -n 's/.*: \([^ ]*\) <-.*/\1/p'; }

# The matrix: compiler x PIE x binding x linker; the audit sequence per compiler x PIE.
for cc in gcc clang; do
	for pie in pie nopie; do
		if [ $pie = pie ]; then pf="-fPIE -pie"; else pf="-fno-PIE -no-pie"; fi
		$cc -O1 $pf -Wl,-z,lazy -o "ref" "$SRC" -lm -ldl >build.log 2>&1 ||
			{ fail "$cc $pie: build the audit reference" build.log; continue; }
		run ./ref > plain.out
		AUDIT_OUT="$T/audit.raw" LD_AUDIT="$T/audit.so" run ./ref >/dev/null
		grep -vx __cxa_finalize audit.raw > audit.txt
		if ! grep -qx malloc audit.txt; then
			fail "$cc $pie: the audit oracle saw no malloc" audit.txt
			continue
		fi
		for ld in bfd lld; do
			for bind in lazy now noplt; do
				case $bind in
				lazy) bf="-Wl,-z,lazy"; lc=plt;;
				now) bf="-Wl,-z,now"; lc=plt;;
				noplt) bf="-fno-plt -Wl,-z,now"; lc=got;;
				esac
				name="$cc $pie $bind ld.$ld"
				exe="p_${cc}_${pie}_${bind}_$ld"
				$cc -O1 $pf $bf -fuse-ld=$ld -o "$exe" "$SRC" -lm -ldl >build.log 2>&1 ||
					{ fail "$name: build" build.log; continue; }
				rm -rf d
				record -d d --tracer=function --libcall=$lc ./"$exe" > out 2>err
				if ! cmp -s out plain.out; then
					fail "$name: traced output differs from untraced" out
					continue
				fi
				# __cxa_finalize: crtbegin's destructor in a PIE, through the
				# PLT (lld) or its GOT slot (ld.bfd relaxes the call); the audit
				# sees only the former, so neither sequence keeps it.
				names d | grep -vx __cxa_finalize > seq
				if diff -u audit.txt seq > diff.txt; then
					pass "$name: $(wc -l < seq) library calls as the audit oracle"
				else
					fail "$name: library calls differ from the audit oracle" diff.txt
				fi
			done
		done
	done
done

# The defaults (as uftrace's): a plain `record` and `replay` of the last reference above
# (clang, no PIE, -z lazy, built without -pg) show its library calls, the sequence the audit
# oracle saw, function_graph's calls in the order they were entered (scheduler switches,
# also shown by default, are comments and skipped).  With --no-libcall, or PATCHSITE_LIBCALL=off
# in the environment, it has nothing to trace: said in one line, run as untraced.
rm -rf d
record -d d ./ref > out 2>err
"$PS" replay --no-sched -d d 2>>err | sed -n 's/^.*| *\([A-Za-z_][A-Za-z_0-9]*\)() *[{;]$/\1/p' |
	grep -vx __cxa_finalize > seq
if cmp -s out plain.out && only_switches_lost err && diff -u audit.txt seq > diff.txt; then
	pass "defaults: record + replay show $(wc -l < seq) library calls as the audit oracle"
else
	cat err >> diff.txt
	fail "defaults: record + replay show the library calls" diff.txt
fi
none="nothing recorded: no traceable functions"
for how in --no-libcall PATCHSITE_LIBCALL=off; do
	rm -rf d
	if [ $how = --no-libcall ]; then
		record -d d --no-libcall ./ref > out 2>err
	else
		PATCHSITE_LIBCALL=off record -d d ./ref > out 2>err
	fi
	if cmp -s out plain.out && [ "$(wc -l < err)" -eq 1 ] && grep -q "^patchsite: ./ref: $none" err &&
	   [ "$(ls d)" = session ]; then
		pass "$how: no library calls, the program without -pg is said to have none to trace"
	else
		fail "$how: no library calls" err
	fi
done

# norm: a replay's FUNCTION column, without times and uftrace's /* name */ after '}';
# a call with nothing left inside (uftrace may print an event line there) is one line.
norm() {
	sed -n 's/^.*| \( *[^ ].*\)$/\1/p' | sed 's/ \/\*.*\*\///; s/ *$//' | python3 -c '
import sys
out = []
for line in sys.stdin:
    line = line.rstrip("\n")
    if not line.strip():
        continue
    if line.strip() == "}" and out and out[-1].endswith("() {"):
        out[-1] = out[-1][:-2] + ";"
        continue
    out.append(line)
print("\n".join(out))'
}

# uftrace on a -pg binary: the same graph, libcalls nested in main() and in cmp().
gcc -O1 -pg -Wl,-z,lazy -o pg "$SRC" -lm -ldl >build.log 2>&1 || fail "build -pg" build.log
if command -v uftrace >/dev/null && [ "$MODE" = plain ] && [ -x pg ]; then
	uftrace record -d uf ./pg >/dev/null 2>uf.err && uftrace replay -d uf 2>/dev/null |
		grep -v '^#' | norm > uf.txt
	rm -rf d
	record -d d --libcall ./pg >/dev/null 2>err
	# __cxa_finalize: crtbegin's, through its GOT slot (.plt.got, every call proved to be
	# one: traced), which uftrace's PLT hooks do not see.
	"$PS" replay --no-sched -d d | grep -v '^#' | norm | grep -vx '__cxa_finalize();' > ps.txt
	if [ -s uf.txt ] && grep -q '^  malloc();' ps.txt && diff -u uf.txt ps.txt > diff.txt; then
		pass "-pg: the call graph as uftrace's, malloc() inside main()"
	else
		fail "-pg: the call graph differs from uftrace's" diff.txt
	fi
	# Chrome: each name as often as in uftrace's dump --chrome (its B events).
	uftrace dump -d uf --chrome > uf.json 2>/dev/null
	"$PS" dump -d d --chrome 2>/dev/null | python3 -c 'import json, sys
d = json.load(sys.stdin)
ev = d["traceEvents"] if isinstance(d, dict) else d
json.dump([e for e in ev if e.get("name") != "__cxa_finalize"], sys.stdout)' > ps.json
	if python3 - uf.json ps.json > diff.txt <<'PY'
import collections, json, sys
def events(path, ph):
    d = json.load(open(path))
    ev = d["traceEvents"] if isinstance(d, dict) else d
    # calls only: the off-CPU slices (cat "sched") are scheduler switches, not calls
    return collections.Counter(e["name"] for e in ev if e.get("ph") == ph and e.get("cat") != "sched")
uf, ps = events(sys.argv[1], "B"), events(sys.argv[2], "X")
print("uftrace", sorted(uf.items()), "\npatchsite", sorted(ps.items()))
sys.exit(0 if uf == ps and uf["malloc"] == 1 else 1)
PY
	then
		pass "-pg: Chrome events as uftrace's dump --chrome"
	else
		fail "-pg: Chrome events differ from uftrace's" diff.txt
	fi
	# Folded: the stacks uftrace's graph has (from its replay), main;malloc among them.
	python3 - uf.txt > uf.folded <<'PY'
import sys
stack = []
for line in open(sys.argv[1]):
    name = line.strip()
    if name == "}":
        stack.pop()
    elif name.endswith("() {"):
        stack.append(name[:-4])
        print(";".join(stack))
    elif name.endswith("();"):
        print(";".join(stack + [name[:-3]]))
PY
	"$PS" dump -d d --folded | sed 's/^[^;]*;//; s/ [0-9]*$//' | grep -vx __cxa_finalize |
		sort -u > ps.folded
	sort -u uf.folded > uf.sorted
	if grep -qx 'main;malloc' ps.folded && diff -u uf.sorted ps.folded > diff.txt; then
		pass "-pg: folded stacks as uftrace's graph, main;malloc among them"
	else
		fail "-pg: folded stacks differ from uftrace's graph" diff.txt
	fi
fi

# The families, each with its own outcome; the trace names what ran.
gcc -O1 -o fam "$SRC" -lm -ldl -pthread >build.log 2>&1 || fail "build families" build.log
for how in longjmp vfork dlsym; do
	run ./fam $how > want.out
	rm -rf d
	record -d d --libcall ./fam $how > out 2>err
	rc=$?
	"$PS" replay --no-sched -d d > replay.txt 2>&1
	if [ $rc -eq 0 ] && cmp -s want.out out && [ -s want.out ]; then
		pass "$how: runs as untraced ($(head -1 out))"
	else
		fail "$how: rc $rc, output differs from untraced" out
	fi
done
# --libcall=got: &malloc reads the GLOB_DAT slot, now the thunk (why it is only on request).
# (A program of its own: taking &malloc makes ld.bfd call malloc through that slot too,
# .plt.got, so its calls are then traced only with =got.)
cat > identity.c <<'EOF'
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
	printf("&malloc %s\n", (void *)&malloc == dlsym(RTLD_DEFAULT, "malloc") ? "kept" : "changed");
	return 0;
}
EOF
gcc -O1 -o identity identity.c -ldl >build.log 2>&1 || fail "build identity" build.log
rm -rf d
record -d d --libcall ./identity > out1 2>err
rm -rf d
record -d d --libcall=got ./identity > out 2>>err
if [ "$(cat out)" = "&malloc changed" ] && [ "$(cat out1)" = "&malloc kept" ] &&
   [ "$(run ./identity)" = "&malloc kept" ]; then
	pass "identity: &malloc kept with --libcall, changed with --libcall=got (as documented)"
else
	fail "identity: $(cat out)" err
fi
# longjmp out of the callback: qsort's call is closed (its hooked return never ran).
rm -rf d
record -d d --libcall ./fam longjmp >/dev/null 2>&1
"$PS" replay --no-sched -d d | grep -v '^#' > replay.txt
if grep -q '| qsort();' replay.txt && grep -q '| puts();' replay.txt &&
   ! grep -q 'setjmp\|longjmp' replay.txt; then
	pass "longjmp: qsort closed, setjmp/longjmp not hooked, puts after it traced"
else
	fail "longjmp: the graph" replay.txt
fi
# Arguments and return values of library calls (set_ftrace_args, the C path): the
# program's own facts are the oracle: malloc(64) returns the buffer strlen then measures,
# whose length the program prints last.
rm -rf d
PATCHSITE_ARGS='malloc@arg1,retval;strlen@arg1,retval' record -d d --libcall ./fam > out 2>err
"$PS" replay --no-sched -d d > replay.txt 2>&1
len=$(sed -n 's/.*| \([0-9]*\)$/\1/p' out)
buf=$(sed -n 's/.*| malloc(64) = \(0x[0-9a-f]*\);/\1/p' replay.txt)
if [ -n "$buf" ] && [ -n "$len" ] && grep -q "| strlen($buf) = $len;" replay.txt; then
	pass "arguments: malloc(64) = $buf, strlen($buf) = $len as the program printed"
else
	fail "arguments of library calls" replay.txt
fi
# Recursion through malloc: N calls from the program are N calls in the report.
rm -rf d
record -d d --libcall ./fam malloc 20000 >/dev/null 2>err
"$PS" report -d d --json > report.json 2>/dev/null
n=$(python3 -c 'import json,sys; print(sum(r["calls"] for r in json.load(open(sys.argv[1])) if r["name"] == "malloc"))' report.json 2>/dev/null)
if [ "${n:-0}" = 20000 ]; then
	pass "malloc: 20000 calls counted"
else
	fail "malloc: ${n:-none} calls counted, expected 20000" err
fi
# Refusals are named (PATCHSITE_LOG=1).
rm -rf d
PATCHSITE_LOG=1 record -d d --libcall ./fam longjmp >/dev/null 2>err
if grep -q 'longjmp: library calls not traced: never returns' err &&
   grep -q '_setjmp: library calls not traced: returns twice' err; then
	pass "refusals named with the reason"
else
	fail "refusals named with the reason" err
fi
# C++ exceptions through hooked library returns: thrown in the library, and by a
# callback of the program through the library's frame; the program's own output is the oracle.
g++ -O1 -shared -fPIC -o libcl.so "$TOP/testdata/patchsite/libcall_lib.cc" >build.log 2>&1 &&
	g++ -O1 -o thr "$TOP/testdata/patchsite/libcall_throw.cc" ./libcl.so -Wl,-rpath,"$T" \
	>>build.log 2>&1 || fail "build the C++ case" build.log
if [ -x thr ]; then
	run ./thr > want.out
	rm -rf d
	record -d d --libcall ./thr > out 2>err
	rc=$?
	"$PS" replay --no-sched -d d | grep -v '^#' > replay.txt
	if [ $rc -eq 0 ] && cmp -s want.out out && [ "$(grep -c '| lib_call() {' replay.txt)" = 3 ] &&
	   [ "$(grep -c '| lib_throw();' replay.txt)" = 4 ] && ! grep -q __cxa_throw replay.txt; then
		pass "C++ exceptions through library calls: caught as untraced, each call closed"
	else
		fail "C++ exceptions through library calls (rc $rc)" replay.txt
	fi
fi

# --nest-libcall: the calls of the libraries too (here libcl.so's into libstdc++), in the
# order the audit oracle sees them from the executable and from the libraries patchsite
# scans (the C library, ld.so, libgcc_s, libstdc++ are never scanned: their calls are
# left out of the oracle's sequence too).
if [ -x thr ]; then
	AUDIT_ALL=1 AUDIT_OUT="$T/nest.raw" LD_AUDIT="$T/audit.so" run ./thr >/dev/null
	grep -v '^\(libc\.so\|ld-linux\|libgcc_s\|libstdc++\|libasan\|libubsan\)' nest.raw |
		cut -d' ' -f2 | grep -v '^__cxa_throw$\|^__cxa_begin_catch$\|^__cxa_end_catch$' |
		c++filt | sed 's/(.*//' > nest.want	# names as replay shows them: no parameters
	rm -rf d
	record -d d --tracer=function --nest-libcall ./thr > out 2>err
	names d | grep -vx __cxa_finalize > nest.seq	# as in the matrix above
	if cmp -s want.out out && grep -qx __cxa_allocate_exception nest.seq &&
	   diff -u nest.want nest.seq > diff.txt; then
		pass "--nest-libcall: $(wc -l < nest.seq) calls from the program and libcl.so as the audit oracle"
	else
		fail "--nest-libcall against the audit oracle" diff.txt
	fi
fi

# Live: malloc and free switched from ctl while 4 threads allocate (bound to
# libc.so.6, or to a sanitizer's interceptors when one is preloaded).  The slots are
# readelf's (the JUMP_SLOT relocations), each with the library the dynamic linker
# bound it to (LD_DEBUG=bindings, all bound at start).
gcc -O1 -o thr4 "$SRC" -lm -ldl -pthread >build.log 2>&1 || fail "build threads" build.log
# With the GLOB_DAT slots every reference to which is a call or jump through it (objdump's
# `call/jmp *...(%rip) # ADDR <NAME@...>`), here crtbegin's __cxa_finalize through .plt.got.
{
	readelf -rW thr4 | awk '$3 ~ /JUMP_SLOT/ { sub(/@.*/, "", $5); print $5 }'
	objdump -d thr4 | sed -n 's/.*\(call\|jmp\) *\*0x[0-9a-f]*(%rip) *# [0-9a-f]* <\([^@>+]*\)@.*/\2/p'
} | sort -u > slots.txt
LD_BIND_NOW=1 LD_DEBUG=bindings run ./thr4 2>&1 >/dev/null | sed -n \
	"s|.*binding file ./thr4 \[0\] to [^ ]*/\([^/ ]*\) \[0\]: normal symbol \`\([^']*\)'.*|\2 \2@\1|p" |
	sort -u | join - slots.txt | cut -d' ' -f2 | sort -u > bound.txt
# wait_calls NAME: until NAME's calls show in the live record (a condition, not a time).
wait_calls() {
	for i in $(seq 300); do
		"$PS" report -d d --json 2>/dev/null | grep -q "\"name\":\"$1\"" && return 0
		sleep 0.1
	done
}
rm -rf d pid stop
PATCHSITE_LOG=1 record -d d --libcall -F malloc ./thr4 threads "$T/pid" "$T/stop" > out 2>err &
R=$!
for i in $(seq 300); do [ -s pid ] && break; sleep 0.1; done
P=$(cat pid 2>/dev/null)
"$PS" ctl "$P" enabled_functions > e1
wait_calls malloc
"$PS" ctl "$P" set_ftrace_filter 'free@*'
"$PS" ctl "$P" enabled_functions > e2
wait_calls free
"$PS" ctl "$P" set_ftrace_filter ':mod:libc.so.6 !free'
"$PS" ctl "$P" enabled_functions > e3
"$PS" ctl "$P" available_filter_functions > aff
touch stop
wait $R
rc=$?
mlib=$(sed -n 's/^malloc@//p' bound.txt)
flib=$(sed -n 's/^free@//p' bound.txt)
if [ $rc -eq 0 ] && grep -qx 'threads done' out && [ "$(cut -f1 e1)" = "malloc@$mlib [thr4] (1)" ] &&
   [ "$(cut -f1 e2)" = "free@$flib [thr4] (1)" ] && [ -s e3 ] &&
   ! grep -v '^[^ ]*@libc\.so\.6 ' e3 && ! grep -q '^free@' e3; then
	pass "live: malloc@$mlib, then free@$flib, then libc.so.6 but free, switched while 4 threads allocate"
else
	fail "live switching (rc $rc)" e3
fi
sed 's/ .*//' aff | sort -u > listed.txt
sed -n 's/.*: thr4: \([^:]*\): library calls not traced: .*/\1/p' err | sort -u > refused.txt
if [ -s bound.txt ] && comm -23 listed.txt bound.txt | grep -q . ; then
	fail "available_filter_functions names a binding ld.so did not make" listed.txt
elif comm -23 bound.txt listed.txt | sed 's/@.*//' | sort -u | comm -23 - refused.txt | grep -q .; then
	comm -23 bound.txt listed.txt > missing.txt
	fail "bindings neither listed nor refused by name" missing.txt
else
	pass "available_filter_functions: $(wc -l < listed.txt) name@library as ld.so bound them"
fi
"$PS" report -d d --json > report.json 2>/dev/null
n=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(min(sum(x["calls"] for x in r if x["name"] == f) for f in ("malloc", "free")))' report.json 2>/dev/null)
if [ "${n:-0}" -gt 0 ]; then
	pass "live: malloc and free both recorded"
else
	fail "live: malloc and free recorded" report.json
fi

# Objects whose library calls would be patchsite's own are refused by name: a program that
# defines malloc (the runtime's malloc calls run it), and one patchsite is linked into.
cat > mymalloc.c <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
extern void *__libc_malloc(size_t);
void *malloc(size_t n) { return __libc_malloc(n); }
int main(void) { char *p = malloc(8); strcpy(p, "hi"); printf("%s %zu\n", p, strlen(p)); return 0; }
EOF
# (Both plain only: a program's own malloc and ASan's interceptors do not mix, traced or not.)
if [ "$MODE" = plain ]; then
	gcc -O1 -o mym mymalloc.c >build.log 2>&1 || fail "build mymalloc" build.log
	rm -rf d
	record -d d --libcall ./mym > out 2>err
	if [ "$(cat out)" = "hi 2" ] &&
	   grep -q 'mym: its library calls not traced: it defines a function patchsite calls' err
	then
		pass "a program defining malloc: its library calls refused by name, runs as untraced"
	else
		fail "a program defining malloc" err
	fi
	gcc -O1 -o linked "$SRC" "$TOP/$B/libpatchsite.a" -lm -ldl -pthread >build.log 2>&1 ||
		fail "build linked" build.log
	rm -rf d
	PATCHSITE_LIBCALL=plt PATCHSITE_TRACER=function PATCHSITE_DATA=d ./linked > out 2>err
	if cmp -s out plain.out &&
	   grep -q 'linked: its library calls not traced: patchsite is linked into it' err; then
		pass "patchsite linked in: the program's library calls refused by name"
	else
		fail "patchsite linked in" err
	fi
fi

# A bad value is refused by name.
if "$PS" record --libcall=all true 2>err; then
	fail "--libcall=all accepted"
elif grep -q -- '--libcall=all: expected plt or got' err; then
	pass "--libcall=all refused by name"
else
	fail "--libcall=all: the message" err
fi

echo "libcall.sh: $PASS passed, $FAIL failed"
[ $FAIL -eq 0 ]
