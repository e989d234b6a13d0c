#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Dynamic probes (dynamic_events, PATCHSITE_PROBES, record --probe):
# usage  probes.sh BUILD_DIR plain|san
#
# The oracle is gdb: a breakpoint at each probed function's first
# instruction (break *FUNC) prints `info args` (and, for the fields a probe
# reads through a pointer, h->port, h->name, counter, the word at $sp) at
# every hit; check_probes.py compares them, hit by hit, with the values
# `patchsite replay` shows for the same run of testdata/patchsite/probes.c
# (every fetch type, their limits, strings NULL, empty, longer than the
# cap, unmapped).  Built -O0 and -O2 -g by gcc, and by clang when present.
set -u
. tests/patchsite/lib.sh	# suite_init, pass, fail
suite_init probes "${1:-build}" "${2:-plain}"

only_x86_64 probes.sh "the gdb comparison is written for x86-64's registers (%xmm0)"
if ! command -v gdb >/dev/null 2>&1; then
	echo "SKIP probes.sh: gdb (the oracle) is not installed (scripts/deps.sh installs it)"
	exit 0
fi

# One probe per type; x8, x16, x64 share functions with u8, u16, u64 (two probes on one site).
PROBES='f:t/u8 f_u8 a=$arg1:u8
f:t/x8 f_u8 a=$arg1:x8
f:t/s8 f_s8 a=$arg1:s8
f:t/u16 f_u16 a=$arg1:u16
f:t/x16 f_u16 a=$arg1:x16
f:t/s16 f_s16 a=$arg1:s16
f:t/u32 f_u32 a=$arg1:u32
f:t/s32 f_s32 a=$arg1:s32
f:t/x32 f_x32 a=$arg1:x32
f:t/u64 f_u64 a=$arg1:u64
f:t/x64 f_u64 a=$arg1:x64
f:t/s64 f_s64 a=$arg1:s64
f:t/char f_char c=$arg1:char
f:t/str f_str s=+0($arg1):string
f:t/float f_float x=%xmm0:float
f:t/double f_double x=%xmm0:double
f:t/many f_many a1=$arg1:s64 a6=$arg6:s64 a7=$arg7:s64 a8=$arg8:s64 ret=$stack0:x64
f:t/send send_msg port=+0($arg1):s32 host=+0(+8($arg1)):string len=$arg2:u32 counter=@counter:s64'

# Where gdb stops in FUNC: its first instruction (optimised code: the locations hold
# there), or (-O0, at=) its closing brace, once the prologue stored the arguments in the
# stack slots -O0 reads them from (gdb's own prologue skip stops before that with -pg).
bp() {
	if [ -n "$at" ]; then
		echo "*$1"
	else
		echo "probes.c:$(awk -v f="$1" '$0 ~ "^F .* " f "\\(" { s = 1 } s && /^}/ { print NR; exit }' \
			testdata/patchsite/probes.c)"
	fi
}

# gdb's side: a breakpoint in each probed function printing what each probe of it reads.
gdbcmds() {
	printf 'set pagination off\nset confirm off\nset print elements 1000\n'
	printf 'set print repeats unlimited\nset width 0\n'
	for fe in f_u8:u8,x8 f_s8:s8 f_u16:u16,x16 f_s16:s16 f_u32:u32 f_s32:s32 f_x32:x32 \
		  f_u64:u64,x64 f_s64:s64 f_char:char f_str:str f_float:float f_double:double; do
		printf 'break %s\ncommands\nsilent\n' "$(bp "${fe%%:*}")"
		for ev in $(echo "${fe#*:}" | tr , ' '); do
			printf 'printf "@@ %s\\n"\ninfo args\n' "$ev"
		done
		printf 'continue\nend\n'
	done
	cat <<G
break $(bp f_many)
commands
silent
printf "@@ many\n"
info args
python print("ret=%d" % int(gdb.selected_frame().older().pc()))
continue
end
break $(bp send_msg)
commands
silent
printf "@@ send\n"
printf "port=%d\n", h->port
printf "host = "
output h->name
echo \n
printf "counter=%ld\n", counter
info args
continue
end
run
G
}

# variant CC FLAGS: build, record with the probes, run under gdb, compare.
variant() {
	cc=$1
	shift
	name="$cc $*"
	exe="$T/probes-$cc$(echo "$*" | tr -d ' -')"
	# clang has no -mrecord-mcount: its sites are -fpatchable-function-entry's.
	sites="-pg -mfentry -mrecord-mcount"
	[ "$cc" = clang ] && sites=-fpatchable-function-entry=5
	if ! $cc "$@" -g $sites -rdynamic testdata/patchsite/probes.c \
		-o "$exe" >"$T/build.log" 2>&1; then
		fail "$name: build" "$T/build.log"
		return
	fi
	rm -rf "$T/rec"
	if ! LD_PRELOAD="$SANPRE" "$PS" record -d "$T/rec" --tracer=nop \
		"--probe=$(echo "$PROBES" | head -1)" "$exe" >"$T/out" 2>"$T/err"; then
		fail "$name: record --probe" "$T/err"
		return
	fi
	rm -rf "$T/rec"
	# No address randomisation, as under gdb: $stack0 (the return address) compares.
	if ! setarch -R env PATCHSITE_PROBES="$PROBES" PATCHSITE_DATA="$T/rec" \
		LD_PRELOAD="$SANPRE${SANPRE:+ }$PATCHSITE_LIB" "$exe" >"$T/out" 2>"$T/err" ||
	   [ -s "$T/err" ]; then
		fail "$name: PATCHSITE_PROBES run" "$T/err"
		return
	fi
	"$PS" replay --no-sched -d "$T/rec" >"$T/replay" 2>"$T/err" || { fail "$name: replay" "$T/err"; return; }
	at='*'
	[ "$1" = -O0 ] && at=
	gdbcmds >"$T/cmds.gdb"
	gdb -batch -nx -x "$T/cmds.gdb" "$exe" >"$T/gdb.log" 2>&1
	if python3 tests/patchsite/oracles/check_probes.py "$T/replay" "$T/gdb.log" >"$T/cmp" 2>&1; then
		pass "$name: values equal gdb's ($(tail -1 "$T/cmp"))"
	else
		fail "$name: values differ from gdb's" "$T/cmp"
	fi
}

# cond CC FLAGS: a condition on the arguments keeps exactly the calls gdb's conditional
# breakpoint stops at (the same condition, on the parameters' names).
cond() {
	cc=$1
	shift
	exe="$T/cond-$cc"
	$cc "$@" -g -pg -mfentry -mrecord-mcount -rdynamic testdata/patchsite/probes.c -o "$exe" \
		2>"$T/build.log" || { fail "condition: build" "$T/build.log"; return; }
	rm -rf "$T/crec"
	LD_PRELOAD="$SANPRE" "$PS" record -d "$T/crec" --tracer=nop \
		--probe='f:t/big send_msg len=$arg2:u32 port=+0($arg1):s32 if len > 1000 && port < 10' \
		"$exe" >/dev/null 2>"$T/err" || { fail "condition: record" "$T/err"; return; }
	got=$("$PS" replay --no-sched -d "$T/crec" 2>>"$T/err" | grep -c ' t:big: ')
	printf 'break *send_msg if len > 1000 && h->port < 10\ncommands\nsilent\nprintf "@@\\n"\ncontinue\nend\nrun\n' \
		>"$T/cond.gdb"
	want=$(gdb -batch -nx -x "$T/cond.gdb" "$exe" 2>&1 | grep -c '^@@')
	if [ "$got" = "$want" ] && [ "$want" -gt 0 ] && [ "$want" -lt 14 ]; then
		pass "$cc $*: 'if len > 1000 && port < 10': $got of 14 calls, as gdb's condition"
	else
		fail "condition: $got recorded, gdb stopped $want times" "$T/err"
	fi
}

# record -A/-R in uftrace's spelling against uftrace -A/-R on the same binary (uftrace
# reads the registers itself: an independent reader); values compared call by call.
spelling() {
	exe="$T/ua"
	gcc -O2 -g -pg -mfentry -mrecord-mcount -rdynamic testdata/patchsite/probes.c -o "$exe" \
		2>"$T/build.log" || { fail "-A/-R: build" "$T/build.log"; return; }
	set -- -A 'f_s32@arg1/i32' -A 'f_str@arg1/s' -A 'f_double@fparg1' \
		-A 'f_many@arg1,arg7,arg8/x' -R send_msg@retval
	LD_PRELOAD="$SANPRE" "$PS" record -d "$T/arec" "$@" -F f_s32 -F f_str -F f_double \
		-F f_many -F send_msg "$exe" >/dev/null 2>"$T/err" || { fail "-A/-R: record" "$T/err"; return; }
	"$PS" replay --no-sched -d "$T/arec" >"$T/ours" 2>>"$T/err"
	if ! command -v uftrace >/dev/null 2>&1; then
		echo "SKIP -A/-R against uftrace: not installed (scripts/deps.sh installs it)"
		return
	fi
	(cd "$T" && uftrace record --no-event "$@" "$exe" >/dev/null 2>>"$T/err" &&
		uftrace replay >"$T/theirs" 2>>"$T/err") || { fail "-A/-R: uftrace" "$T/err"; return; }
	if python3 tests/patchsite/oracles/check_uftrace_args.py "$T/ours" "$T/theirs" f_s32 f_str f_double \
		f_many send_msg >"$T/cmp" 2>&1; then
		pass "record -A/-R as uftrace's: $(tail -1 "$T/cmp")"
	else
		fail "record -A/-R differ from uftrace's" "$T/cmp"
	fi
}

# A number read through a pointer that cannot be read (f_str(NULL), f_str((char *)16) of
# its 7 calls, from the sample's source): those 2 records are counted lost, 5 written.
faults() {
	exe="$T/fl"
	gcc -O2 -g -pg -mfentry -mrecord-mcount -rdynamic testdata/patchsite/probes.c -o "$exe" 2>/dev/null
	LD_PRELOAD="$SANPRE" "$PS" record -d "$T/flrec" --tracer=nop \
		--probe='f:t/deref f_str c=+0($arg1):s8' "$exe" >/dev/null 2>"$T/err"
	got=$("$PS" replay --no-sched -d "$T/flrec" 2>>"$T/err" | grep -c ' t:deref: ')
	if [ "$got" = 5 ] && "$PS" info -d "$T/flrec" 2>>"$T/err" | grep -q '^# events: 5 recorded, 2 lost'
	then pass "unreadable memory: 5 of 7 calls recorded, 2 counted lost (info)"
	else fail "unreadable memory: $got recorded" "$T/err"; fi
}

# A NULL char * against a string that reads "(null)": f_str("hello world"), f_str(""),
# f_str(NULL), f_str("(null)") are the sample's first four f_str calls (its source is the
# oracle; gdb's 0x0 and "(null)" for the same calls are compared in variant above).
# replay shows NULL unquoted, dump --chrome a JSON null, dump --perfetto a 0 pointer.
nulls() {
	exe="$T/nl"
	gcc -O2 -g -pg -mfentry -mrecord-mcount -rdynamic testdata/patchsite/probes.c -o "$exe" 2>/dev/null
	LD_PRELOAD="$SANPRE" "$PS" record -d "$T/nlrec" --tracer=nop \
		--probe='f:t/str f_str s=+0($arg1):string' "$exe" >/dev/null 2>"$T/err"
	"$PS" replay --no-sched -d "$T/nlrec" 2>>"$T/err" | sed -n 's/.* t:str: f_str(\(.*\))$/\1/p' |
		head -4 | tr '\n' ' ' >"$T/nl.text"
	"$PS" dump --chrome -d "$T/nlrec" 2>>"$T/err" | python3 -c '
import json, sys
print(" ".join([json.dumps(e["args"]["s"]) for e in json.load(sys.stdin)["traceEvents"]
                if e.get("name") == "t:str"][:4]))' >"$T/nl.chrome" 2>>"$T/err"
	"$PS" dump --perfetto -d "$T/nlrec" >"$T/nl.pb" 2>>"$T/err"
	python3 tests/patchsite/oracles/check_perfetto.py --events "$T/nl.pb" >"$T/nl.ev" 2>>"$T/err"
	head -4 "$T/nl.ev" | tr '\n' ' ' >"$T/nl.pf"
	if [ "$(cat "$T/nl.text")" = 's="hello world" s="" s=NULL s="(null)" ' ] &&
	   [ "$(cat "$T/nl.chrome")" = '"hello world" "" null "(null)"' ] &&
	   [ "$(cat "$T/nl.pf")" = "('t:str', {'s': 'hello world'}) ('t:str', {'s': ''}) ('t:str', {'s': '0x0'}) ('t:str', {'s': '(null)'}) " ]
	then pass "a NULL string apart from \"(null)\": replay NULL, Chrome null, Perfetto a 0 pointer"
	else cat "$T/nl.text" "$T/nl.chrome" "$T/nl.pf" >>"$T/err"; fail "NULL strings" "$T/err"; fi
}

variant gcc -O0
variant gcc -O2
cond gcc -O2
spelling
faults
nulls
if command -v clang >/dev/null 2>&1; then
	variant clang -O2
else
	echo "SKIP clang: not installed"
fi

# Refusals: one line naming what and why, before the command runs (exit 2) or at start-up.
cc -O2 -g -pg -mfentry -mrecord-mcount -rdynamic testdata/patchsite/probes.c -o "$T/p" 2>/dev/null
"$PS" record -d "$T/bad" --probe='f:t/x f_u8 a=$arg1:u33' "$T/p" >/dev/null 2>"$T/err"
rc=$?
if [ $rc = 2 ] && grep -q "no such type 'u33'" "$T/err"; then pass "record --probe: a bad type is refused (exit 2)"
else fail "record --probe: bad type: exit $rc" "$T/err"; fi
for bad in 'f:t/x no_such_function:no traceable function matches' \
	   'f:t/x f_u8%return $arg1 $arg2 $arg3 $arg4 $arg5 $arg6:keeps at most 5 values' \
	   'f:t/x f_u8 len:names are resolved from DWARF' \
	   'f:t/x f_u8 r=%rbx:not a register saved' \
	   'f:t/x f_u8 v=@no_such_symbol:no such symbol'; do
	def=${bad%%:*}:${bad#*:}
	def=${def%:*}
	want=${bad##*:}
	PATCHSITE_PROBES="$def" PATCHSITE_DATA="$T/bad" LD_PRELOAD="$SANPRE${SANPRE:+ }$PATCHSITE_LIB" \
		"$T/p" >/dev/null 2>"$T/err"
	if [ "$(grep -c "PATCHSITE_PROBES: .*$want" "$T/err")" = 1 ]; then pass "refused: $def"
	else fail "refused: $def (want '$want')" "$T/err"; fi
done

# The control file: defined disabled, enabled through events/, listed, removed; the
# oracle of whether f_u8 calls the trampoline is its first instruction's bytes (the x86-64
# encoding: call rel32 or the 5-byte NOP), with no tracer: a call only while enabled.
cat >"$T/ctl.c" <<'EOF2'
#include <stdio.h>
#include <string.h>
#include "patchsite.h"
void f_u8(unsigned char a);
/* The x86-64 encoding: e8 is call rel32, 0f 1f the NOP -mfentry's site becomes. */
static const char *site(void)
{
	const unsigned char *p = (const unsigned char *)f_u8;

	return p[0] == 0xe8 ? "call" : p[0] == 0x0f && p[1] == 0x1f ? "nop" : "?";
}
int main(void)
{
	char buf[4096];
	int n;

	if (patchsite_ctl_write("dynamic_events", "f:t/u8 f_u8 a=$arg1:u8", 0) ||
	    patchsite_ctl_write("dynamic_events", "f:t/s f_u8 a=+0(%rdi):u8", 1))
		return 1;
	n = patchsite_ctl_read("dynamic_events", buf, sizeof(buf));
	fputs(buf, stdout);
	printf("f_u8: %s\n", site());	/* disabled: the NOP */
	f_u8(7);	/* disabled: not recorded */
	if (patchsite_ctl_write("events/t/u8/enable", "1", 0))
		return 2;
	printf("f_u8: %s\n", site());
	f_u8(9);
	if (patchsite_ctl_write("dynamic_events", "-:t/u8", 1))
		return 3;
	printf("f_u8: %s\n", site());
	f_u8(11);	/* removed: not recorded */
	n = patchsite_ctl_read("dynamic_events", buf, sizeof(buf));
	fputs(buf, stdout);
	return n < 0;
}
EOF2
if sed 's/^int main(void)$/int probes_main(void)/' testdata/patchsite/probes.c >"$T/lib.c" &&
   cc -O2 -g -pg -mfentry -mrecord-mcount -Iinclude "$T/ctl.c" "$T/lib.c" -o "$T/ctl" \
	"$PATCHSITE_LIB" -Wl,-rpath,"$PWD/$B" >"$T/build.log" 2>&1; then
	PATCHSITE_TRACER=nop PATCHSITE_DATA="$T/ctlrec" LD_PRELOAD="$SANPRE" "$T/ctl" >"$T/out" \
		2>"$T/err"
	rc=$?
	cat >"$T/want" <<'EOF2'
f:t/u8 f_u8 a=$arg1:u8
f:t/s f_u8 a=+0(%rdi):u8
f_u8: nop
f_u8: call
f_u8: nop
f:t/s f_u8 a=+0(%rdi):u8
EOF2
	"$PS" replay --no-sched -d "$T/ctlrec" 2>>"$T/err" | grep -o 't:u8: .*' >"$T/ev"
	if [ $rc = 0 ] && diff -u "$T/want" "$T/out" >"$T/diff" && [ "$(cat "$T/ev")" = "t:u8: f_u8(a=9)" ]
	then pass "dynamic_events: listed, enabled through events/ (only then its site called), removed"
	else echo "exit $rc; events: $(cat "$T/ev")" >>"$T/diff"; cat "$T/err" >>"$T/diff"; fail "dynamic_events control file" "$T/diff"; fi
else
	fail "dynamic_events: build" "$T/build.log"
fi

# A fetch through a NULL pointer in a thread that records nothing else: each such call
# is an event lost, counted in the thread's file (made for it) and said by record on
# stderr.  The oracle is the program's own count of its calls, printed at the end.
cat >"$T/null.c" <<'EOF2'
#include <stdio.h>
struct s { int x; };
static volatile int calls;
__attribute__((noipa)) int f_null(struct s *p) { calls++; return p ? p->x : 0; }
int main(void) { for (int i = 0; i < 12; i++) f_null(0); printf("%d\n", calls); return 0; }
EOF2
if cc -O2 -g -pg -mfentry -mrecord-mcount "$T/null.c" -o "$T/null" >"$T/build.log" 2>&1; then
	LD_PRELOAD="$SANPRE" "$PS" record -d "$T/nullrec" --tracer=nop --no-libcall \
		--probe='f:t/null f_null x=+0($arg1):s32' "$T/null" >"$T/out" 2>"$T/err"
	n=$(cat "$T/out")
	lost=$("$PS" info -d "$T/nullrec" 2>/dev/null | sed -n 's/^# events: [0-9]* recorded, \([0-9]*\) lost$/\1/p')
	if [ -n "$n" ] && [ "$lost" = "$n" ] && grep -q ": $n events lost" "$T/err"; then
		pass "a fetch through NULL: $n calls, $lost events lost in info, said by record"
	else
		{ echo "calls $n, info lost '$lost'"; cat "$T/err"; } >"$T/diff"
		fail "a fetch through NULL: the loss is not counted or said" "$T/diff"
	fi
else
	fail "null: build" "$T/build.log"
fi

# A signal handler's calls while its thread is inside the runtime (the probe's ops, the
# dispatcher's recursion guard held) cannot be recorded: counted lost, said by info.  gdb stops
# the thread in probe_hit at outer()'s first call and delivers SIGUSR1 there.  Oracle: the
# handler's own count of its inner() calls, plus its own call (on_usr1 is traced too).
if $CC -O2 -g -pg -mfentry -mrecord-mcount testdata/patchsite/sigprobe.c -o "$T/sigprobe" \
	>"$T/build.log" 2>&1; then
	cat >"$T/sig.gdb" <<GDB
set pagination off
set breakpoint pending on
set environment LD_PRELOAD=$SANPRE $PATCHSITE_LIB
set environment PATCHSITE_TRACER=function
set environment PATCHSITE_PROBES=f:t/o outer
set environment PATCHSITE_DATA=$T/sigrec
break probe_hit
run
delete
signal SIGUSR1
GDB
	ASAN_OPTIONS=detect_leaks=0 gdb -batch -x "$T/sig.gdb" "$T/sigprobe" >"$T/sig.out" 2>&1
	n=$(sed -n 's/^handled \([0-9]*\)$/\1/p' "$T/sig.out")
	lost=$("$PS" info -d "$T/sigrec" 2>"$T/sig.err" | sed -n 's/^# events: [0-9]* recorded, \([0-9]*\) lost$/\1/p')
	if [ -n "$n" ] && [ "$n" -gt 0 ] && [ "$lost" = $((n + 1)) ] && [ ! -s "$T/sig.err" ]; then
		pass "a signal handler inside the runtime: its $((n + 1)) calls counted lost in info"
	else
		{ echo "handled '$n', info lost '$lost'"; cat "$T/sig.err" "$T/sig.out"; } >"$T/diff"
		fail "a signal handler inside the runtime: its calls not counted lost" "$T/diff"
	fi
else
	fail "sigprobe: build" "$T/build.log"
fi

echo "$PASS passed, $FAIL failed"
[ $FAIL = 0 ]
