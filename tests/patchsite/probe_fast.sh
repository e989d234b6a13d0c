#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The probes' fast path (events/probe_fast.c, x86-64): usage  probe_fast.sh BUILD_DIR plain|san
#
# A program calls f_mix(a, b, c, d, e, x) 1000 times with arguments it
# computes from the loop index (ints at their limits, an unsigned char, a
# negative short, a negative long, a u32 near its top, a 64-bit pattern),
# probed with one integer field of each size.  The oracle is the C source:
# awk computes the same arguments, and each recorded call must show them,
# in order, every call recorded.  Twice: with probes alone, where gdb (the
# second oracle) counts 1000 stops at the probe trampoline
# (arch/x86_64/probe_tramp.S, which records the common probe itself) and a
# few at most at its C path (ps_probe_fast_hit) and at the generic
# dispatcher, and with the function tracer on too, where the generic path
# records them.
set -u

. tests/patchsite/lib.sh
suite_init probe_fast "$@"
LIB=$PATCHSITE_LIB
PRELOAD="${SANPRE:+$SANPRE }$LIB"	# the program runs with the runtime preloaded

only_x86_64 probe_fast.sh "the fast path is x86-64's"

cat >"$T/mix.c" <<'EOF'
#include <stdio.h>

__attribute__((noinline)) long f_mix(int a, unsigned char b, short c, long d, unsigned e,
				     unsigned long long x)
{
	__asm__ volatile("");
	return a + b + c + d + e + (long)x;
}

int main(void)
{
	static const int as[] = { 0, 1, -1, 2147483647, -2147483647 - 1 };
	long s = 0;

	for (int i = 0; i < 1000; i++)
		s += f_mix(as[i % 5], (unsigned char)(i * 37), (short)(-i * 33),
			   (long)i * -1000000007L, 4294967295u - (unsigned)i,
			   0xfedcba9876543210ull + (unsigned long long)i);
	printf("%ld\n", s);
	return 0;
}
EOF
# The arguments as the source computes them (awk's doubles hold every value but x exactly).
awk 'BEGIN {
	split("0 1 -1 2147483647 -2147483648", as, " ")
	for (i = 0; i < 1000; i++) {
		c = (-i * 33) % 65536
		if (c < -32768) c += 65536
		printf "f_mix(a=%s, b=%d, c=%d, d=%.0f, e=%.0f, x=0xfedcba98%08x)\n",
			as[i % 5 + 1], (i * 37) % 256, c, i * -1000000007 + 0, 4294967295 - i, 1985229328 + i
	}
}' >"$T/want"
PROBE='f:t/mix f_mix a=$arg1:s32 b=$arg2:u8 c=$arg3:s16 d=$arg4:s64 e=$arg5:u32 x=$arg6:x64'
if ! $CC -O2 -g -pg -mfentry -mrecord-mcount "$T/mix.c" -o "$T/mix" >"$T/build.log" 2>&1; then
	fail "build" "$T/build.log"
	echo "$PASS passed, $FAIL failed"
	exit 1
fi

# run NAME TRACER: the recorded calls against the source's
run() {
	rm -rf "$T/rec"
	if ! env PATCHSITE_TRACER="$2" PATCHSITE_FILTER=f_mix PATCHSITE_PROBES="$PROBE" \
		PATCHSITE_DATA="$T/rec" LD_PRELOAD="$PRELOAD" "$T/mix" >"$T/out" 2>"$T/err"; then
		fail "$1: run" "$T/err"
		return
	fi
	"$PS" replay --no-sched -d "$T/rec" 2>"$T/err" | sed -n 's/.*t:mix: //p' >"$T/got"
	if diff "$T/want" "$T/got" >"$T/diff"; then
		pass "$1: 1000 of 1000 calls recorded with the source's arguments"
	else
		fail "$1: recorded arguments differ from the source's ($(wc -l <"$T/got") lines)" "$T/diff"
	fi
}
run "probes alone (fast path)" nop
run "function tracer too (generic path)" function

# Fields that fit beside the id: the packed record (PSD_EXT_EVENT_PACKED,
# patchsite-data(5): kind 16 in bits 2-9 of the mark word, its payload
# words in bits 10-31), read back by replay as the source's arguments.
# The mark words counted in the raw thread file, as the man page lays
# them out, say that the packed form was written (24 and 16 bytes).
packed() {	# NAME PROBE AWK-FORMAT WORDS
	rm -rf "$T/rec"
	if ! env PATCHSITE_PROBES="$2" PATCHSITE_DATA="$T/rec" LD_PRELOAD="$PRELOAD" \
		"$T/mix" >"$T/out" 2>"$T/err"; then
		fail "$1: run" "$T/err"
		return
	fi
	awk -v fmt="$3" 'BEGIN {
		split("0 1 -1 2147483647 -2147483648", as, " ")
		for (i = 0; i < 1000; i++) {
			c = (-i * 33) % 65536
			if (c < -32768) c += 65536
			printf fmt "\n", as[i % 5 + 1], 4294967295 - i, c
		}
	}' >"$T/pwant"
	"$PS" replay --no-sched -d "$T/rec" 2>"$T/err" | sed -n 's/.*t:mix: //p' >"$T/pgot"
	marks=$(od -An -v -w8 -t x8 "$T"/rec/*/thread.* |
		awk -v m="$(printf '%08x' $(($4 << 10 | 16 << 2 | 3)))" '$1 ~ m "$" { n++ } END { print n + 0 }')
	if ! diff "$T/pwant" "$T/pgot" >"$T/diff"; then
		fail "$1: recorded arguments differ from the source's ($(wc -l <"$T/pgot") lines)" "$T/diff"
	elif [ "$marks" -lt 990 ]; then
		fail "$1: $marks packed records of $4 payload words in the file (want most of 1000)"
	else
		pass "$1: 1000 of 1000 calls as the source's, $marks packed records"
	fi
}
packed "packed, 3 fields" 'f:t/mix f_mix a=$arg1:s32 e=$arg5:u32 c=$arg3:s16' \
	'f_mix(a=%s, e=%.0f, c=%d)' 2
packed "packed, 1 field" 'f:t/mix f_mix a=$arg1:s32' 'f_mix(a=%s)' 1

# gdb: where the probe's hits went with probes alone.
if command -v gdb >/dev/null 2>&1 && [ "$MODE" = plain ]; then
	rm -rf "$T/rec"
	gdb -batch -nx -ex 'set breakpoint pending on' -ex 'set pagination off' \
		-ex 'set startup-with-shell off' \
		-ex "set environment LD_PRELOAD=$LIB" -ex "set environment PATCHSITE_PROBES=$PROBE" \
		-ex "set environment PATCHSITE_DATA=$T/rec" -ex 'set environment PATCHSITE_TRACER=nop' \
		-ex 'break ps_x86_64_probe_fast' -ex 'ignore 1 1000000' \
		-ex 'break ps_probe_fast_hit' -ex 'ignore 2 1000000' \
		-ex 'break ps_dispatch' -ex 'ignore 3 1000000' -ex run -ex 'info breakpoints' \
		"$T/mix" >"$T/gdb.log" 2>&1
	hits() {	# FUNC: how often its breakpoint was hit
		awk -v f="$1" '/^[0-9]+ +breakpoint/ { cur = ($0 ~ " <?" f "[+>]" || $0 ~ " in " f " ") }
			cur && /already hit/ { print $4; exit }' "$T/gdb.log"
	}
	tramp=$(hits ps_x86_64_probe_fast)
	c=$(hits ps_probe_fast_hit)
	gen=$(hits ps_dispatch)
	# The thread's first call (its ring set up), and the first of a new time stretch
	# (a mark written), go on to the C path and the generic one: a few, never most.
	if [ "${tramp:-0}" = 1000 ] && [ "${c:-0}" -lt 10 ] && [ "${gen:-0}" -lt 10 ]; then
		pass "gdb: 1000 calls reach the probe trampoline, ${c:-0} its C path, ${gen:-0} ps_dispatch"
	else
		fail "gdb: trampoline ${tramp:-0} stops, C path ${c:-0}, ps_dispatch ${gen:-0} (want 1000, < 10, < 10)" \
			"$T/gdb.log"
	fi
else
	echo "SKIP gdb count: gdb missing or a sanitizer build"
fi

echo "$PASS passed, $FAIL failed"
[ $FAIL = 0 ]
