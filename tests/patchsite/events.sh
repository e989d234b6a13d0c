#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Static trace events (include/patchsite_event.h): usage  events.sh BUILD_DIR plain|san
#
# The oracle is testdata/patchsite/drivers/evprog.c: it counts where each argument is
# evaluated and where each probe is called, and knows every value it
# emits; the outputs are compared with those values (written out below from
# its source, not from our output), and the records are decoded a second
# time by check_events.py from the events file alone.  The header is built
# as C (gcc, clang) and C++ (g++, clang++), with and without the runtime.
set -u
. tests/patchsite/lib.sh	# suite_init, pass, fail
suite_init events "${1:-build}" "${2:-plain}"
LIB="$PATCHSITE_LIB"
SANFLAGS=
[ "$MODE" = san ] && SANFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all"
PRELOAD="$SANPRE${SANPRE:+ }$LIB"
INC="-Iinclude -Itestdata/patchsite/drivers"
# check NAME CMD...: passes when CMD exits 0
check() {
	name=$1
	shift
	if "$@" >"$T/out" 2>"$T/err"; then pass "$name"; else fail "$name" "$T/err"; fi
}

# Builds: C with the API (linked with the runtime), C and C++ with the header alone.
W="-O2 -g -Wall -Wextra -Werror"
{
	$CC $W $SANFLAGS $INC testdata/patchsite/drivers/evprog.c -o "$T/evp" "$LIB" -Wl,-rpath,"$PWD/$B" \
		-pthread -ldl &&
	$CC $W $SANFLAGS -fPIC -shared $INC testdata/patchsite/drivers/evlib.c -o "$T/libevlib.so" &&
	$CC $W -pg -mfentry -mrecord-mcount $INC testdata/patchsite/drivers/evprog.c -o "$T/evp-pg" "$LIB" \
		-Wl,-rpath,"$PWD/$B" -pthread -ldl &&
	$CC $W $SANFLAGS -DNO_RUNTIME $INC testdata/patchsite/drivers/evprog.c -o "$T/evp-nort"
} >"$T/build.log" 2>&1 || { fail "build" "$T/build.log"; echo "0 passed, 1 failed"; exit 1; }
CXX_BUILT=
for cxx in g++ clang++ clang; do
	if ! command -v $cxx >/dev/null 2>&1; then
		echo "SKIP build with $cxx: not installed (scripts/deps.sh installs it)"
		continue
	fi
	lang=
	[ $cxx = clang ] && lang=-DNO_RUNTIME || lang="-x c++"
	# clang's sanitizer runtimes cannot share a process with gcc's (the runtime's, in san).
	san=$SANFLAGS
	case $cxx in clang*) san= ;; esac
	if $cxx $lang $W $san $INC testdata/patchsite/drivers/evprog.c -o "$T/evp-$cxx" \
		>"$T/build-$cxx.log" 2>&1; then
		CXX_BUILT="$CXX_BUILT $cxx"
		pass "build with $cxx"
	else
		fail "build with $cxx" "$T/build-$cxx.log"
	fi
done

# A field type the format cannot carry is refused at compile time, by name (C and C++).
printf '#include "patchsite_event.h"\nstruct s { int a; };\nPATCHSITE_EVENT(x, y, PATCHSITE_ARGS(struct s, v), "%%d");\n' >"$T/bad.c"
for cc in "$CC" "g++ -x c++"; do
	if $cc -c $INC "$T/bad.c" -o "$T/bad.o" >"$T/bad.log" 2>&1; then
		fail "$cc: a struct field accepted"
	elif grep -q 'field type not supported.*struct s v' "$T/bad.log"; then
		pass "$cc: a struct field refused by name"
	else
		fail "$cc: a struct field refused without its name" "$T/bad.log"
	fi
done

# Disabled: every site in the table is one 5-byte NOP (objdump is the oracle of the bytes).
python3 - "$T/evp-nort" >"$T/sites" 2>&1 <<'EOF'
import struct, sys
d = open(sys.argv[1], "rb").read()
shoff, = struct.unpack_from("<Q", d, 0x28)
shentsize, shnum, shstrndx = struct.unpack_from("<HHH", d, 0x3a)
sh = [struct.unpack_from("<IIQQQQIIQQ", d, shoff + i * shentsize) for i in range(shnum)]
names = sh[shstrndx][4]
for s in sh:
    name = d[names + s[0]:d.index(b"\0", names + s[0])]
    if name == b"patchsite_event_sites":
        for e in range(0, s[5], 16):
            rel, = struct.unpack_from("<i", d, s[4] + e)
            print("%x" % (s[3] + e + rel))
EOF
n=0
bad=0
for a in $(cat "$T/sites"); do
	n=$((n + 1))
	objdump -d --start-address=0x$a --stop-address=$((0x$a + 5)) "$T/evp-nort" |
		grep -q "^ *$a:[[:space:]]*0f 1f 44 00 00 *[[:space:]]nopl" || bad=$((bad + 1))
done
if [ $n -ge 5 ] && [ $bad = 0 ]; then pass "$n sites, each the 5-byte nopl"; else fail "sites: $n, $bad not the nopl" "$T/sites"; fi
# The table is pc-relative: the linker resolved it, the dynamic linker has nothing to do there.
lo=$(readelf -SW "$T/evp-nort" | awk '$2 == "patchsite_event_sites" { print $4 }')
inside=0
for r in $(readelf -rW "$T/evp-nort" | awk '$1 ~ /^[0-9a-f]+$/ { print $1 }'); do
	[ $((0x$r)) -ge $((0x$lo)) ] && [ $((0x$r)) -lt $((0x$lo + 16 * n)) ] && inside=$((inside + 1))
done
if [ -n "$lo" ] && [ $inside = 0 ]; then
	pass "site table kept, no dynamic relocation in it"
else
	fail "site table kept ($lo), $inside dynamic relocations in it"
fi

# No runtime: nothing evaluated (also C++ and clang, whose runtime-free build is the same).
check "no runtime: arguments never evaluated" "$T/evp-nort" nort
for cxx in $CXX_BUILT; do
	check "$cxx, no runtime: arguments never evaluated" "$T/evp-$cxx" nort
	check "$cxx, runtime that enables nothing: none evaluated" \
		env LD_PRELOAD="$PRELOAD" "$T/evp-$cxx" nort
done

check "side effects: none while disabled, once per hit enabled" "$T/evp" sidefx 1000
# No trace directory: hits go to the in-memory buffer; those it had no room for are said at exit
# (200,000 hits of 32 bytes cannot fit the default 1 MiB: the arithmetic is the oracle).
"$T/evp" sidefx 200000 >"$T/out" 2>"$T/err"
if grep -q '^patchsite: warning: [0-9]* static trace event hits not recorded: the in-memory buffer was full' "$T/err"; then
	pass "hits the in-memory buffer could not hold are said at exit: $(grep -o '[0-9]* static' "$T/err")"
else
	fail "lost hits not said" "$T/err"
fi
check "probes: priority order" "$T/evp" prio
check "threads: switched live, exact counts in steady phases" "$T/evp" threads 4 40
check "dlopen: rule applies to a library loaded later" \
	env PATCHSITE_EVENTS='evlib:*' PATCHSITE_DATA="$T/dl" "$T/evp" dlopen "$T/libevlib.so"
n=$("$PS" replay --no-sched -d "$T/dl" 2>"$T/err" | grep -c ': evlib:hello: x=')
[ "$n" = 2000 ] && pass "dlopen, dlclose, dlopen: 2000 events recorded" || fail "dlopen: $n events recorded, not 2000" "$T/err"

# Control files, filter, every field type: replay, Chrome, and the second reader.
check "record: control files and filter" env PATCHSITE_DATA="$T/rec" "$T/evp" record
"$PS" replay --no-sched -d "$T/rec" 2>"$T/err" | grep ': [a-z]*:[a-z]*: ' |
	sed -E 's/^ *[^ ]+-[0-9]+ +\[[0-9]+\] +[0-9]+\.[0-9]+: //' >"$T/replay"
X=$(printf 'x%.0s' $(seq 256))
cat >"$T/replay.want" <<EOF
netsim:send: len=2000 host=a.b
netsim:send: len=3000 host=a.b
netsim:poll: n=7
netsim:tick: i=-5 thread=3
types:all: s8=-100 s16=-30000 s64=-1234567890123 u32=4000000000 ptr=0x1234 dbl=2.5 str=hello "world" raw=de:ad:be:ef
types:all: s8=127 s16=1 s64=1 u32=0 ptr=0x0 dbl=-0.125 str=$X[cut] raw=de:ad:be:ef
EOF
if diff -u "$T/replay.want" "$T/replay" >"$T/diff"; then pass "replay: every field type"; else fail "replay: every field type" "$T/diff"; fi
"$PS" dump -d "$T/rec" --chrome >"$T/chrome.json" 2>"$T/err"
if python3 - "$T/chrome.json" "$X" >"$T/err" 2>&1 <<'EOF'
import json, sys
ev = [e for e in json.load(open(sys.argv[1]))["traceEvents"] if e.get("cat") == "event"]
want = [("netsim:send", {"len": 2000, "host": "a.b"}), ("netsim:send", {"len": 3000, "host": "a.b"}),
        ("netsim:poll", {"n": 7}), ("netsim:tick", {"i": -5, "thread": 3}),
        ("types:all", {"s8": -100, "s16": -30000, "s64": -1234567890123, "u32": 4000000000,
                       "ptr": "0x1234", "dbl": 2.5, "str": 'hello "world"', "raw": "de:ad:be:ef"}),
        ("types:all", {"s8": 127, "s16": 1, "s64": 1, "u32": 0, "ptr": "0x0", "dbl": -0.125,
                       "str": sys.argv[2] + "[cut]", "raw": "de:ad:be:ef"})]
got = [(e["name"], e["args"]) for e in ev]
if got != want or any(e["ph"] != "i" for e in ev):
    print(got)
    sys.exit(1)
EOF
then pass "chrome: typed args"; else fail "chrome: typed args" "$T/err"; fi
if python3 tests/patchsite/oracles/check_events.py "$T/rec" >"$T/err" 2>&1; then
	pass "format file decodes the records (second reader)"
else
	fail "format file decodes the records (second reader)" "$T/err"
fi
"$PS" info -d "$T/rec" >"$T/info" 2>&1
if grep -Eq '^ +netsim:send +2$' "$T/info" && grep -Eq '^ +types:all +2$' "$T/info"; then
	pass "info: counts per event"
else
	fail "info: counts per event" "$T/info"
fi

# PATCHSITE_EVENTS with globs and !, and no tracer; C++ too.
for prog in evp $CXX_BUILT; do
	p="$T/evp-$prog"
	[ $prog = evp ] && p="$T/evp"
	rm -rf "$T/env"
	PATCHSITE_EVENTS='netsim:*,!netsim:poll' PATCHSITE_DATA="$T/env" LD_PRELOAD="$PRELOAD" \
		"$p" env >/dev/null 2>"$T/err"
	"$PS" replay --no-sched -d "$T/env" >"$T/env.txt" 2>>"$T/err"
	# env: emit_send(1000) in the API-free build, then emit_all (5 sends, 1 poll, 1 tick).
	want=5
	[ $prog = evp ] || want=1005
	s=$(grep -c ': netsim:send: ' "$T/env.txt")
	if [ "$s" = $want ] && ! grep -q 'netsim:poll' "$T/env.txt" && grep -q ': netsim:tick: i=-5' "$T/env.txt"; then
		pass "PATCHSITE_EVENTS='netsim:*,!netsim:poll' ($prog)"
	else
		fail "PATCHSITE_EVENTS ($prog): $s sends, want $want" "$T/err"
	fi
done

# PATCHSITE_OUTPUT: rendered by the runtime at exit, text and Chrome.
for fmt in ftrace chrome; do
	PATCHSITE_TRACER=function PATCHSITE_FORMAT=$fmt PATCHSITE_OUTPUT="$T/out.$fmt" \
		PATCHSITE_EVENTS='types:all' LD_PRELOAD="$PRELOAD" "$T/evp" env >/dev/null 2>"$T/err"
	case $fmt in
	ftrace) n=$(grep -c ': types:all: s8=' "$T/out.$fmt") ;;
	chrome) n=$(grep -c '"name":"types:all","ph":"i".*"args":{"s8":' "$T/out.$fmt") ;;
	esac
	[ "$n" = 2 ] && pass "PATCHSITE_OUTPUT ($fmt): both types:all events" ||
		fail "PATCHSITE_OUTPUT ($fmt): $n types:all events, want 2" "$T/out.$fmt"
done

# Inside function_graph: a comment in the calling function's block.
PATCHSITE_TRACER=function_graph PATCHSITE_EVENTS='netsim:poll' PATCHSITE_DATA="$T/graph" \
	LD_PRELOAD="$PRELOAD" "$T/evp-pg" env >/dev/null 2>"$T/err"
"$PS" replay --no-sched -d "$T/graph" >"$T/graph.txt" 2>>"$T/err"
if awk '/emit_all\(\) \{/ { d = index($0, "emit_all") }
	d && /\/\* netsim:poll: n=7 \*\// { if (index($0, "/*") > d) ok = 1 }
	END { exit !ok }' "$T/graph.txt"; then
	pass "function_graph: /* netsim:poll: n=7 */ inside emit_all()"
else
	fail "function_graph: event comment" "$T/graph.txt"
fi

echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
