#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Library calls of dlopened objects (record --libcall / --nest-libcall):
# usage  libcall_dl.sh BUILD_DIR plain|san
#
# Oracles:
#   - an rtld-audit library (LD_AUDIT, la_x86_64_gnu_pltenter, written here)
#     counts the PLT calls each object makes, the dlopened plugin's too; a
#     traced run must count as many per symbol from the plugin, over both
#     opens of the plugin (it is closed and opened again in between);
#   - glibc itself: dlopen(RTLD_NOLOAD) failing says the plugin really was
#     unloaded (the threads case checks it after each of its 100 cycles);
#   - readelf and objdump: the plugin's JUMP_SLOT relocations, and the GLOB_DAT slots its
#     code only calls through, are the names ctl lists
#     for it while it is loaded, and none are listed once it is closed;
#   - the program: a traced run prints what an untraced run prints.
# In san mode the program and plugin are built with AddressSanitizer.
set -u

. tests/patchsite/lib.sh	# suite_init, record, pass, fail
suite_init libcall-dl "${1:-build}" "${2:-plain}"
TOP=$PWD
MAIN="$TOP/testdata/patchsite/libcall_dlmain.c"
PLUG="$TOP/testdata/patchsite/libcall_plug.c"
# Under san the samples are built with ASan (SANF) and ASan alone is preloaded.
SANF=
if [ "$MODE" = san ]; then
	SANPRE="$(gcc -print-file-name=libasan.so)"
	SANF=-fsanitize=address
fi
run() { LD_PRELOAD="$SANPRE" "$@"; }

only_x86_64 libcall_dl.sh "library calls are x86-64 only"
cd "$T" || exit 1

# The audit oracle: each PLT call of every object, "caller symbol" a line.
export AUDIT_ALL=1	# "caller symbol" of every object
gcc -shared -fPIC -O1 -o audit.so "$TOP/testdata/patchsite/pltaudit.c" >build.log 2>&1 || { fail "build audit.so" build.log; exit 1; }

# audit_counts LIB: "count symbol" of the calls LIB made, from audit.raw.
# (A sanitizer's runtime calls are never traced, by name: left out.)
audit_counts() {
	awk -v lib="$1" '$1 == lib && $2 !~ /^__(a|ub)san_/ { print $2 }' audit.raw | sort | uniq -c |
		sort -k2
}
# traced_counts DIR: "count symbol" of the library calls plug_work made (function tracer).
traced_counts() {
	"$PS" replay --no-sched -d "$1" | sed -n 's/.*: \([^ ]*\) <-plug_work$/\1/p' | sort | uniq -c | sort -k2
}

# 1. One open, N calls, close, twice: the plugin's calls counted as the audit counts them.
CCS="gcc clang"
[ "$MODE" = san ] && CCS=gcc	# clang's ASan runtime is not gcc's preloaded one
for cc in $CCS; do
	for bind in lazy now; do
		name="$cc, plugin -z $bind"
		$cc -O1 $SANF -shared -fPIC -Wl,-z,$bind -o libplug.so "$PLUG" >build.log 2>&1 &&
			$cc -O1 $SANF -o dlmain "$MAIN" -ldl -pthread >>build.log 2>&1 ||
			{ fail "$name: build" build.log; continue; }
		run ./dlmain once ./libplug.so 7 > plain.out
		# The audit needs lazy binding (LD_AUDIT's PLT entry): both bindings call the same.
		AUDIT_OUT="$T/audit.raw" LD_AUDIT="$T/audit.so" LD_BIND_NOT=1 run \
			./dlmain once ./libplug.so 7 >/dev/null
		audit_counts libplug.so > want.txt
		rm -rf d
		record -d d --tracer=function --nest-libcall ./dlmain once ./libplug.so 7 > out 2>err
		traced_counts d > got.txt
		if ! cmp -s out plain.out; then
			fail "$name: traced output differs from untraced" out
		elif ! grep -q ' 14 malloc$' want.txt; then
			fail "$name: the audit oracle did not see 2 x 7 malloc from the plugin" want.txt
		elif diff -u want.txt got.txt > diff.txt; then
			pass "$name: --nest-libcall: $(awk '{ n += $1 } END { print n }' got.txt) calls of the dlopened plugin over two opens, per symbol as the audit oracle"
		else
			fail "$name: the plugin's calls differ from the audit oracle" diff.txt
		fi
	done
done

# 2. Without --nest-libcall: a plugin built with patch sites is the program's (its calls
#    traced), one without is a library the program uses (not traced, said why).
gcc -O1 $SANF -shared -fPIC -Wl,-z,lazy -o libplug.so "$PLUG" >build.log 2>&1 &&
	gcc -O1 $SANF -shared -fPIC -pg -mfentry -mrecord-mcount -o libplugpg.so "$PLUG" \
	>>build.log 2>&1 && gcc -O1 $SANF -o dlmain "$MAIN" -ldl -pthread >>build.log 2>&1 ||
	fail "build the plugins" build.log
AUDIT_OUT="$T/audit.raw" LD_AUDIT="$T/audit.so" run ./dlmain once ./libplugpg.so 5 >/dev/null
audit_counts libplugpg.so > want.txt
rm -rf d
record -d d --tracer=function --libcall ./dlmain once ./libplugpg.so 5 > out 2>err
traced_counts d > got.txt
if [ -s want.txt ] && diff -u want.txt got.txt > diff.txt; then
	pass "--libcall: a -pg plugin's calls traced as the program's, per symbol as the audit oracle"
else
	fail "--libcall: a -pg plugin's calls" diff.txt
fi
rm -rf d
PATCHSITE_LOG=1 record -d d --tracer=function --libcall ./dlmain once ./libplug.so 5 > out 2>err
traced_counts d > got.txt
if [ ! -s got.txt ] && grep -q 'libplug.so: its library calls not traced: no patch sites of its own' err
then
	pass "--libcall: a plugin without patch sites is not traced, said why"
else
	fail "--libcall: a plugin without patch sites" got.txt
fi

# RTLD_DEEPBIND: its lookups go to its own scope first; refused by name, runs as untraced.
# (Plain only: ASan refuses RTLD_DEEPBIND, traced or not.)
if [ "$MODE" = plain ]; then
	./dlmain deep ./libplug.so 3 > plain.out
	rm -rf d
	PATCHSITE_LOG=1 record -d d --tracer=function --nest-libcall ./dlmain deep ./libplug.so 3 \
		> out 2>err
	traced_counts d > got.txt
	if cmp -s out plain.out && [ ! -s got.txt ] &&
	   grep -q 'libplug.so: its library calls not traced: dlopened with RTLD_DEEPBIND' err; then
		pass "RTLD_DEEPBIND: refused by name, runs as untraced"
	else
		fail "RTLD_DEEPBIND" err
	fi
fi

# 3. Listed while loaded, switched live, forgotten at dlclose.
# (A sanitizer's runtime: refused by name, not listed.)
# With the GLOB_DAT slots every reference to which is a call or jump through it (objdump's
# `call/jmp *...(%rip) # ADDR <NAME@...>`: crtbeginS's __cxa_finalize through .plt.got).
{
	readelf -rW libplug.so | awk '$3 ~ /JUMP_SLOT/ { sub(/@.*/, "", $5); print $5 }'
	objdump -d libplug.so |
		sed -n 's/.*\(call\|jmp\) *\*0x[0-9a-f]*(%rip) *# [0-9a-f]* <\([^@>+]*\)@.*/\2/p'
} | grep -v '^__\(a\|ub\)san_' | sort -u > slots.txt
rm -rf d h
mkdir h
record -d d --tracer=function --nest-libcall ./dlmain hold ./libplug.so "$T/h" > out 2>err &
R=$!
for i in $(seq 600); do [ -s h/pid ] && break; sleep 0.1; done
P=$(cat h/pid 2>/dev/null)
"$PS" ctl "$P" available_filter_functions > a1
"$PS" ctl "$P" set_ftrace_filter 'strlen@*'
"$PS" ctl "$P" enabled_functions > e1
touch h/go1
for i in $(seq 600); do [ -s h/closed ] && break; sleep 0.1; done
"$PS" ctl "$P" available_filter_functions > a2
"$PS" ctl "$P" enabled_functions > e2
touch h/go2
wait $R
rc=$?
sed -n 's/^\([^@ ]*\)@[^ ]* \[libplug\.so\].*/\1/p' a1 | sort -u > listed.txt
if [ $rc -eq 0 ] && [ -s slots.txt ] && cmp -s slots.txt listed.txt && ! grep -q 'libplug\.so' a2; then
	pass "ctl available_filter_functions: the plugin's $(wc -l < listed.txt) JUMP_SLOTs (readelf) while loaded, none after dlclose"
else
	fail "ctl lists of the dlopened plugin (rc $rc)" a1
fi
"$PS" replay --no-sched -d d | sed -n 's/.*: \([^ ]*\) <-plug_work$/\1/p' > live.txt
if grep -q '^strlen@.* \[libplug\.so\]' e1 && ! grep -q 'libplug' e2 && [ "$(cat live.txt)" = strlen ]
then
	pass "live: set_ftrace_filter strlen@* switched the plugin's slots: only strlen recorded"
else
	fail "live switching of the plugin's slots" live.txt
fi

# 3b. Opened, called and closed 300 times, more than the 256 module slots: each load
#     must reuse the module and thunks of the one before for every call to be counted.
run ./dlmain reopen ./libplug.so 300 > plain.out
AUDIT_OUT="$T/audit.raw" LD_AUDIT="$T/audit.so" run ./dlmain reopen ./libplug.so 300 >/dev/null
audit_counts libplug.so > want.txt
rm -rf d
PATCHSITE_LOG=1 record -d d --tracer=function --nest-libcall ./dlmain reopen ./libplug.so 300 \
	> out 2>err
traced_counts d > got.txt
loads=$(grep -c 'libplug.so: loaded' err)
if cmp -s out plain.out && [ "$loads" = 300 ] && grep -q ' 300 strtol$' want.txt &&
   diff -u want.txt got.txt > diff.txt; then
	pass "reopened 300 times: every load traced, per symbol as the audit oracle"
else
	fail "reopened 300 times ($loads loads)" diff.txt
fi

# 4. Four threads open, call and close the plugin while the main thread does too; after
#    each of 100 cycles glibc has unloaded it, the next reopens it.  No crash, output as
#    untraced, every call of every load counted as the audit counts them.
run ./dlmain threads ./libplug.so 5 > plain.out
AUDIT_OUT="$T/audit.raw" LD_AUDIT="$T/audit.so" run ./dlmain threads ./libplug.so 5 > audit.out
audit_counts libplug.so > want.txt
rm -rf d
record -d d --tracer=function --nest-libcall ./dlmain threads ./libplug.so 5 > out 2>err
rc=$?
traced_counts d > got.txt
if [ $rc -ne 0 ] || ! cmp -s out plain.out; then
	fail "threads: traced run (rc $rc) differs from untraced" err
elif ! grep -q 'unloaded 100 ' out; then
	fail "threads: glibc did not unload the plugin after each cycle" out
elif ! grep -q ' 2500 strtol$' want.txt; then
	fail "threads: the audit oracle did not see 2500 strtol from the plugin" want.txt
elif diff -u want.txt got.txt > diff.txt; then
	pass "threads: 100 unloads and reopens under 4 threads, $(awk '{ n += $1 } END { print n }' got.txt) plugin calls as the audit oracle"
else
	fail "threads: the plugin's calls differ from the audit oracle" diff.txt
fi

# The same under function_graph: each hooked return goes back into the plugin of its load.
rm -rf d
record -d d --tracer=function_graph --nest-libcall ./dlmain threads ./libplug.so 5 > out 2>err
rc=$?
n=$("$PS" replay --no-sched -d d | grep -c '| *strtol();')
want=$(awk '$2 == "strtol"' audit.raw | wc -l)
if [ $rc -eq 0 ] && cmp -s out plain.out && [ "$n" = "$want" ]; then
	pass "threads, function_graph: as untraced, $n strtol calls closed as the audit counts them"
else
	fail "threads, function_graph (rc $rc, $n strtol, the audit $want)" err
fi

echo "libcall_dl.sh: $PASS passed, $FAIL failed"
[ $FAIL -eq 0 ]
