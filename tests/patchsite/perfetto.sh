#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# dump --perfetto, Perfetto's protobuf trace: usage  perfetto.sh BUILD_DIR plain|san
#
# Oracles:
# - the counts: the sample program (testdata/patchsite/ending.c) prints how many
#   calls of fib it made, and `ending N threads` makes N calls of leaf in each of
#   4 threads; every call must be one slice begun and ended on its thread's sequence;
# - the wire format and the structure: check_perfetto.py, a protobuf decoder written
#   from the encoding rules alone, with Perfetto's published field numbers
#   (each with its .proto file); and, where protoc is installed, `protoc --decode_raw`;
# - the schema: `protoc --decode=perfetto.protos.Trace` with tests/patchsite/
#   perfetto_min.proto, the messages dump --perfetto writes as Perfetto publishes them
#   (names, numbers, types), or with Perfetto's whole perfetto_trace.proto where one is
#   given (PERFETTO_PROTO=FILE).  Under the schema no field may be unknown and the
#   begun slices must equal the oracle's calls.
set -u
. tests/patchsite/lib.sh	# suite_init, pass, fail
suite_init perfetto "${1:-build}" "${2:-plain}"
CHECK="$PWD/tests/patchsite/oracles/check_perfetto.py"
SANFLAGS=
[ "$MODE" = san ] && SANFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all"
# The program's own calls are the oracle: library calls (record's default) not traced.
record() { LD_PRELOAD="$SANPRE" "$PS" record --no-libcall "$@"; }

SCHEMA=$PWD/tests/patchsite/oracles/perfetto_min.proto
[ -n "${PERFETTO_PROTO:-}" ] && SCHEMA=$PERFETTO_PROTO
command -v protoc >/dev/null 2>&1 || SCHEMA=none

$CC -O2 -g -pg -mfentry -mrecord-mcount -c testdata/patchsite/ending.c -o "$T/ending.o" \
	>"$T/build.log" 2>&1 && $CC -o "$T/ending" "$T/ending.o" -pthread >>"$T/build.log" 2>&1 ||
	{ fail "build ending" "$T/build.log"; echo "0 passed, 1 failed"; exit 1; }
for s in feat livemark; do
	$CC -O2 -g -pg -mfentry -mrecord-mcount -c testdata/patchsite/$s.c -o "$T/$s.o" \
		>>"$T/build.log" 2>&1 && $CC -o "$T/$s" "$T/$s.o" -pthread -ldl >>"$T/build.log" 2>&1 ||
		{ fail "build $s" "$T/build.log"; echo "0 passed, 1 failed"; exit 1; }
done
# evprog links the runtime: built with the sanitizers when the runtime is (as events.sh does).
$CC -O2 -g -Wall -Wextra -Werror $SANFLAGS -Iinclude -Itestdata/patchsite/drivers testdata/patchsite/drivers/evprog.c \
	-o "$T/evp" "$PATCHSITE_LIB" -Wl,-rpath,"$PWD/$B" -pthread -ldl >>"$T/build.log" 2>&1 ||
	{ fail "build evprog" "$T/build.log"; echo "0 passed, 1 failed"; exit 1; }
cd "$T" || exit 1

# fib(22): every call a slice, nested, none left open; the size against the JSON.
record -d d -- ./ending 22 fib >out 2>err
want=$(sed -n 's/^fib=[0-9]* calls=//p' out)
"$PS" dump -d d --perfetto >t.pftrace 2>derr
rc=$?
if [ $rc -eq 0 ] && [ ! -s derr ] && python3 "$CHECK" t.pftrace fib="$want" main=1 >check 2>&1 &&
   grep -q "threads=1 begins=$((want + 1)) ends=$((want + 1)) instants=0 open=0 " check; then
	pass "fib(22): $(cat check)"
else
	fail "fib(22): $want calls expected (exit $rc)" check
fi
"$PS" dump -d d --chrome >t.json 2>/dev/null
pb=$(stat -c %s t.pftrace)
js=$(stat -c %s t.json)
calls=$((want + 1))
if [ $((pb * 4)) -le "$js" ]; then
	pass "size: $((pb / calls)).$((pb * 10 / calls % 10)) bytes per call, JSON $((js / calls)).$((js * 10 / calls % 10)) ($((pb * 100 / js))% of the JSON's $js bytes)"
else
	fail "size: $pb bytes against the JSON's $js: more than a quarter"
fi

if [ "$SCHEMA" = none ]; then
	echo "SKIP protoc --decode_raw and the schema: protoc not installed (apt-get install protobuf-compiler)"
else
	if protoc --decode_raw <t.pftrace >raw 2>rerr; then
		pass "protoc --decode_raw reads it ($(grep -c '^1 {' raw) packets)"
	else
		fail "protoc --decode_raw" rerr
	fi
	if protoc -I"$(dirname "$SCHEMA")" --decode=perfetto.protos.Trace "$SCHEMA" <t.pftrace \
		>dec 2>derr; then
		# Less the off-CPU slices a preemption during the run adds (check_perfetto.py
		# tells them by name; sched.sh tests them).
		off=$(sed -n 's/.* offcpu=\([0-9]*\).*/\1/p' check)
		b=$(($(grep -c 'type: TYPE_SLICE_BEGIN' dec) - ${off:-0}))
		e=$(($(grep -c 'type: TYPE_SLICE_END' dec) - ${off:-0}))
		# A field the schema does not know is printed by its number.
		unknown=$(grep -cE '^ *[0-9]+[:{ ]' dec)
		if [ "$b" -eq "$calls" ] && [ "$e" -eq "$calls" ] && [ "$unknown" -eq 0 ] &&
		   grep -q 'is_incremental: true' dec && grep -q 'thread_name: "ending"' dec &&
		   grep -q 'sequence_flags: 1' dec; then
			pass "the schema ($(basename "$SCHEMA")): $b slices begun and ended, no unknown field"
		else
			fail "the schema: $b begun, $e ended of $calls, $unknown unknown fields" dec
		fi
	else
		fail "protoc --decode=perfetto.protos.Trace" derr
	fi
fi

# Threads: one sequence and one thread track each, every call on its own thread.
rm -rf d
record -d d -- ./ending 2000 threads >out 2>err
"$PS" dump -d d --perfetto >t.pftrace 2>derr
if python3 "$CHECK" t.pftrace leaf=8000 >check 2>&1 &&
   grep -q '^sequences=6 threads=5 .* open=0 ' check; then
	pass "4 threads x 2000 calls: $(cat check)"
else
	fail "threads" check
fi

# Losses (a 2 MB file size limit stops the recording): said in the trace and on stderr.
rm -rf d
(ulimit -f 4096 && record -d d -- ./ending 300000 normal >out 2>err)
"$PS" info -d d >info 2>/dev/null
lost=$(sed -n 's/^# events: [0-9]* recorded, \([0-9]*\) lost$/\1/p' info)
"$PS" dump -d d --perfetto >t.pftrace 2>derr
if [ -n "$lost" ] && [ "$lost" -gt 0 ] &&
   python3 "$CHECK" t.pftrace "LOST $lost EVENTS=1" >check 2>&1 &&
   grep -q "LOST $lost EVENTS" derr && grep -q 'RECORDING STOPPED' derr; then
	pass "losses: an instant 'LOST $lost EVENTS' in the trace, and on stderr: $(head -1 derr)"
else
	fail "losses ($lost lost)" check
fi

# Static trace events: instants with their fields as typed debug annotations.  The values
# are testdata/patchsite/drivers/evprog.c's (as events.sh writes them out from its source).
env PATCHSITE_DATA=rec ./evp record >out 2>&1
"$PS" dump -d rec --perfetto >ev.pftrace 2>derr
python3 "$CHECK" --events ev.pftrace >events 2>&1
X=$(printf 'x%.0s' $(seq 256))
cat >events.want <<EOF
('netsim:send', {'len': 2000, 'host': 'a.b'})
('netsim:send', {'len': 3000, 'host': 'a.b'})
('netsim:poll', {'n': 7})
('netsim:tick', {'i': -5, 'thread': 3})
('types:all', {'s8': -100, 's16': -30000, 's64': -1234567890123, 'u32': 4000000000, 'ptr': '0x1234', 'dbl': 2.5, 'str': 'hello "world"', 'raw': 'de:ad:be:ef'})
('types:all', {'s8': 127, 's16': 1, 's64': 1, 'u32': 0, 'ptr': '0x0', 'dbl': -0.125, 'str': '$X[cut]', 'raw': 'de:ad:be:ef'})
EOF
if diff -u events.want events >diff; then
	pass "static trace events: 6 instants, every field type as a typed debug annotation"
else
	fail "static trace events" diff
fi

# Arguments and return values (testdata/patchsite/feat.c `args`: leaf2(i, 2i) = 3i for
# i = 1..3, leaf(7), main returns 0, by construction): debug annotations of the slices,
# and of the function tracer's instants.
ARGS='leaf2@arg1,arg2,retval;leaf@arg1 main@retval'
PATCHSITE_ARGS=$ARGS record --tracer=function_graph -d fa -- ./feat args >out 2>err
"$PS" dump -d fa --perfetto >fa.pftrace 2>derr
python3 "$CHECK" --annotated fa.pftrace >got 2>&1
cat >want <<EOF
('leaf2', {'arg1': 1, 'arg2': 2, 'retval': 3})
('leaf2', {'arg1': 2, 'arg2': 4, 'retval': 6})
('leaf2', {'arg1': 3, 'arg2': 6, 'retval': 9})
('leaf', {'arg1': 7})
('main', {'retval': 0})
EOF
if diff -u want got >diff && [ ! -s derr ]; then
	pass "arguments and return values: debug annotations of leaf2 (x3), leaf and main's slices"
else
	fail "arguments and return values" diff
fi
PATCHSITE_ARGS=$ARGS record --tracer=function -d fb -- ./feat args >out 2>err
"$PS" dump -d fb --perfetto >fb.pftrace 2>derr
python3 "$CHECK" --annotated fb.pftrace >got 2>&1
head -4 want | sed 's/, .retval.: [0-9]*//' >want.f
if diff -u want.f got >diff && [ ! -s derr ]; then
	pass "function tracer: instants with their arguments (leaf2 x3, leaf)"
else
	fail "function tracer arguments" diff
fi

# The debug annotations of every type, under the schema: each field where it declares it.
if [ "$SCHEMA" != none ]; then
	for f in ev fa; do
		if protoc -I"$(dirname "$SCHEMA")" --decode=perfetto.protos.Trace "$SCHEMA" \
			<$f.pftrace >dec.$f 2>derr && ! grep -qE '^ *[0-9]+[:{ ]' dec.$f &&
		   grep -q 'debug_annotations {' dec.$f; then
			pass "the schema on $f.pftrace: $(grep -c 'debug_annotations {' dec.$f) debug annotations, no unknown field"
		else
			cat derr >>dec.$f
			fail "the schema on $f.pftrace" dec.$f
		fi
	done
fi

# The function tracer's calls as instants, and trace_marker lines (testdata/patchsite/
# livemark.c: N threads x M leaf() calls; markers "start", one of 1100 bytes cut at 1024,
# "via ctl" through the control file, "end").
record -d fm --tracer=function -F leaf -- ./livemark 2 3000 >out 2>err
"$PS" dump -d fm --perfetto >fm.pftrace 2>derr
big="$(printf '%01024d' 0 | tr 0 x) [cut: 1024 of 1100 bytes]"
if python3 "$CHECK" fm.pftrace leaf=6000 start=1 "via ctl=1" end=1 "$big=1" >check 2>&1 &&
   grep -q ' begins=0 ends=0 instants=6004 ' check && [ ! -s derr ]; then
	pass "function tracer and markers: $(sed 's/ x*xxx.*//' check) and the cut one"
else
	fail "function tracer and markers" check
fi

# Usage.
"$PS" dump -d d >out 2>err
rc=$?
if [ $rc -eq 2 ] && grep -q -- '--perfetto' err; then
	pass "dump without a format: exit 2, $(head -1 err)"
else
	fail "dump without a format (exit $rc)" err
fi

# Binary to a terminal: refused (script(1) gives it one), exit 2.
if command -v script >/dev/null 2>&1; then
	script -qec "$PS dump -d d --perfetto" /dev/null >tty.out 2>&1
	rc=$?
	if [ $rc -eq 2 ] && grep -q '^patchsite: dump --perfetto: the trace is binary' tty.out; then
		pass "to a terminal: refused, exit 2, $(head -1 tty.out | tr -d '\r')"
	else
		fail "to a terminal (exit $rc)" tty.out
	fi
else
	echo "SKIP dump --perfetto to a terminal: no script(1)"
fi

echo "$PASS passed, $FAIL failed"
[ $FAIL -eq 0 ]
