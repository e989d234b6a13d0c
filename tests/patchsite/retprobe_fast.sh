#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Return probes' fast path (x86-64: events/probe_fast.c hooks the return,
# arch/x86_64/retprobe_tramp.S records it from the return trampoline):
# usage  retprobe_fast.sh BUILD_DIR plain|san
#
# A program calls f_ret(a, b, c, d, e) 300 times, a u8, an s16, an s64 and a
# u32 among the arguments, and every 7th call leaves it by longjmp (from a
# callee).  The probe f_ret%return keeps the five arguments at the entry and
# records them with the s64 return value.  The oracle is gdb (the program
# alone, no runtime): at each entry it reads the arguments by their DWARF
# names, and a FinishBreakpoint reads the return value; a call left by
# longjmp never finishes, and must show no return line either.  Three runs:
#   probes alone: the recorded lines equal gdb's, and gdb (the runtime
#     preloaded) counts the returns at ps_retprobe_fast_exit (the fast record)
#     and at ps_graph_exit_slow (graph.c's C path): nearly all fast;
#   function_graph too: the generic path, the same lines;
#   a filter on the event: the C path, the lines gdb's values keep.
# The program's output (the sum of the returned values) is the same as
# without the runtime in each.  Then 4 threads at once, probes alone (below).
set -u

. tests/patchsite/lib.sh
suite_init retprobe_fast "$@"
LIB=$PATCHSITE_LIB
PRELOAD="${SANPRE:+$SANPRE }$LIB"	# the program runs with the runtime preloaded

only_x86_64 retprobe_fast.sh "the fast path is x86-64's"
if ! command -v gdb >/dev/null 2>&1; then
	echo "SKIP retprobe_fast.sh: gdb (the oracle) is not installed (scripts/deps.sh installs it)"
	exit 0
fi

cat >"$T/ret.c" <<'EOF'
#include <setjmp.h>
#include <stdio.h>

static jmp_buf jb;

__attribute__((noinline)) void jump_out(unsigned e)
{
	if (e % 7 == 3)
		longjmp(jb, 1);
	__asm__ volatile("");
}

__attribute__((noinline)) long f_ret(int a, unsigned char b, short c, long d, unsigned e)
{
	jump_out(e);
	return a * 3L - b + c + d / 2 + (long)e;
}

int main(void)
{
	static const int as[] = { 0, 1, -1, 2147483647, -2147483647 - 1 };
	volatile long s = 0;

	for (volatile int i = 0; i < 300; i++)
		if (!setjmp(jb))
			s += f_ret(as[i % 5], (unsigned char)(i * 37), (short)(-i * 33),
				   (long)i * -1000000007L, 4294967295u - (unsigned)i);
	printf("%ld\n", s);
	return 0;
}
EOF
cat >"$T/oracle.py" <<'EOF'
# At each entry of f_ret, its caller (the return address, as function+offset: gdb's info
# symbol) and its arguments by name; at its return the kernel's line for the probe below,
# "@@ (main+0x3c <- f_ret) r=value a=... e=..." (the function's size is nm's, checked apart).
import gdb

pending = [None]


class Finish(gdb.FinishBreakpoint):
    def __init__(self, caller, args):
        if pending[0] is not None and pending[0].is_valid():
            pending[0].delete()     # the call before was left by longjmp
        super().__init__(gdb.newest_frame(), internal=True)
        self.caller = caller
        self.args = args
        pending[0] = self

    def stop(self):
        print("@@ (%s <- f_ret) r=%d %s" % (self.caller, int(self.return_value), self.args))
        pending[0] = None
        return False

    def out_of_scope(self):
        pass


class Entry(gdb.Breakpoint):
    def stop(self):
        f = gdb.newest_frame()
        ret = int(gdb.parse_and_eval("*(unsigned long *)$sp"))
        where = gdb.execute("info symbol %d" % ret, to_string=True).split(" in section")[0]
        name, _, off = where.partition(" + ")
        Finish("%s+0x%x" % (name, int(off or 0)),
               " ".join("%s=%d" % (n, int(f.read_var(n))) for n in "abcde"))
        return False


Entry("*f_ret", internal=True)
EOF
if ! $CC -O2 -g -pg -mfentry -mrecord-mcount "$T/ret.c" -o "$T/ret" >"$T/build.log" 2>&1; then
	fail "build" "$T/build.log"
	echo "$PASS passed, $FAIL failed"
	exit 1
fi
(cd "$T" && ./ret >"$T/plain.out" 2>&1)
# A gdb run whose program printed another sum than plain.out did not run the program as
# it runs: with gdb's displaced stepping (over the finish breakpoint in main, stepped in a
# buffer at the program's entry) one call's d became an address there, and its return was
# computed from it.  Displaced stepping is off; a run that still differs is not an oracle,
# and gdb runs again, at most three times, saying so.
for try in 1 2 3; do
	(cd "$T" && gdb -batch -nx -ex 'set pagination off' -ex 'set confirm off' \
		-ex 'set displaced-stepping off' \
		-ex "source $T/oracle.py" -ex run ./ret >"$T/gdb.log" 2>&1)
	grep -qxF -e "$(cat "$T/plain.out")" "$T/gdb.log" && break
	echo "NOTE gdb oracle, run $try: the program's sum under gdb is not plain.out's; again"
done
sed -n 's/^@@ //p' "$T/gdb.log" >"$T/want"
n=$(wc -l <"$T/want")
if [ "$n" -ne 257 ]; then	# 300 calls less the 43 left by longjmp (e % 7 == 3)
	fail "gdb oracle: $n returns seen, want 257" "$T/gdb.log"
	echo "$PASS passed, $FAIL failed"
	exit 1
fi
MAINSZ=$(nm -S "$T/ret" | awk '$4 == "main" { sub(/^0+/, "", $2); print $2 }')
PROBE='f:t/ret f_ret%return r=$retval:s64 a=$arg1:s32 b=$arg2:u8 c=$arg3:s16 d=$arg4:s64 e=$arg5:u32'

# run NAME TRACER [FILTER]: the recorded lines against gdb's (those the filter keeps)
run() {
	rm -rf "$T/rec"
	if ! (cd "$T" && env PATCHSITE_TRACER="$2" PATCHSITE_FILTER=f_ret PATCHSITE_PROBES="$PROBE" \
		PATCHSITE_DATA="$T/rec" LD_PRELOAD="$PRELOAD" ./ret >"$T/out" 2>"$T/err"); then
		fail "$1: run" "$T/err"
		return
	fi
	cmp -s "$T/plain.out" "$T/out" || fail "$1: the program's output changed" "$T/out"
	"$PS" replay --no-sched -d "$T/rec" 2>"$T/err" | sed -n 's/.*t:ret: //p' | sed 's, \*/$,,' >"$T/got.sz"
	if grep -v "^(main+0x[0-9a-f]*/0x$MAINSZ <- f_ret) " "$T/got.sz" | head -3 >"$T/badsz" &&
	   [ -s "$T/badsz" ]; then
		fail "$1: a caller not main+OFF/0x$MAINSZ (nm -S)" "$T/badsz"
	fi
	sed 's,/0x[0-9a-f]* <- , <- ,' "$T/got.sz" >"$T/got"
	if [ -n "${3:-}" ]; then
		grep -- "$3" "$T/want" >"$T/want.f"
	else
		cp "$T/want" "$T/want.f"
	fi
	if diff "$T/want.f" "$T/got" >"$T/diff"; then
		pass "$1: $(wc -l <"$T/got") returns recorded with gdb's arguments and values"
	else
		fail "$1: recorded lines differ from gdb's ($(wc -l <"$T/got") lines)" "$T/diff"
	fi
}
run "probes alone (fast path)" nop
run "function_graph too (generic path)" function_graph

# The event's filter keeps the C path: the calls with a = 0, as gdb saw them.
rm -rf "$T/rec"
if (cd "$T" && env PATCHSITE_TRACER=nop PATCHSITE_PROBES="$PROBE if a == 0" \
	PATCHSITE_DATA="$T/rec" LD_PRELOAD="$PRELOAD" ./ret >"$T/out" 2>"$T/err"); then
	"$PS" replay --no-sched -d "$T/rec" 2>"$T/err" | sed -n 's/.*t:ret: //p' |
		sed 's, \*/$,,; s,/0x[0-9a-f]* <- , <- ,' >"$T/got"
	grep -- ' a=0 ' "$T/want" >"$T/want.f"
	if [ -s "$T/want.f" ] && diff "$T/want.f" "$T/got" >"$T/diff"; then
		pass "filter a == 0 (C path): $(wc -l <"$T/got") returns, gdb's"
	else
		fail "filter a == 0: recorded lines differ from gdb's" "$T/diff"
	fi
else
	fail "filter: run" "$T/err"
fi

# gdb, the runtime preloaded: where the returns were recorded with probes alone.
if [ "$MODE" = plain ]; then
	rm -rf "$T/rec"
	(cd "$T" && gdb -batch -nx -ex 'set breakpoint pending on' -ex 'set pagination off' \
		-ex 'set startup-with-shell off' \
		-ex "set environment LD_PRELOAD=$LIB" -ex "set environment PATCHSITE_PROBES=$PROBE" \
		-ex "set environment PATCHSITE_DATA=$T/rec" -ex 'set environment PATCHSITE_TRACER=nop' \
		-ex 'break ps_retprobe_fast_exit' -ex 'ignore 1 1000000' \
		-ex 'break ps_graph_exit_slow' -ex 'ignore 2 1000000' -ex run -ex 'info breakpoints' \
		./ret >"$T/gdb2.log" 2>&1)
	hits() {	# FUNC: how often its breakpoint was hit
		awk -v f="$1" '/^[0-9]+ +breakpoint/ { cur = ($0 ~ " in " f " ") } cur && /already hit/ {
			print $4; exit }' "$T/gdb2.log"
	}
	fast=$(hits ps_retprobe_fast_exit)
	slow=$(hits ps_graph_exit_slow)
	# The thread's first call goes through the generic trampoline, whose frame
	# returns through C; a new time stretch's return too (a mark): a few.
	if [ "${fast:-0}" -ge 250 ] && [ "${slow:-0}" -lt 8 ]; then
		pass "gdb: $fast of 257 returns reach ps_retprobe_fast_exit, ${slow:-0} ps_graph_exit_slow"
	else
		fail "gdb: ps_retprobe_fast_exit ${fast:-0} stops, ps_graph_exit_slow ${slow:-0} (want >= 250, < 8)" \
			"$T/gdb2.log"
	fi
else
	echo "SKIP gdb count: a sanitizer build"
fi

# Threads: 4 threads each return from thr(k, i) 5000 times at once, each
# thread with its own shadow stack and ring.  The oracle is the source:
# thr returns k * 1000003 + i * 7, so each recorded line's value is known
# from its arguments, and every (k, i) must be recorded once (none lost,
# none doubled or mixed between threads).
cat >"$T/thr.c" <<'EOF'
#include <pthread.h>
#include <stdio.h>

__attribute__((noinline)) long thr(int k, int i)
{
	__asm__ volatile("");
	return k * 1000003L + i * 7L;
}

static void *run(void *a)
{
	volatile long s = 0;

	for (int i = 0; i < 5000; i++)
		s += thr((int)(long)a, i);
	return (void *)s;
}

int main(void)
{
	pthread_t t[4];
	long s = 0;
	void *r;

	for (long k = 0; k < 4; k++)
		pthread_create(&t[k], NULL, run, (void *)k);
	for (int k = 0; k < 4; k++) {
		pthread_join(t[k], &r);
		s += (long)r;
	}
	printf("%ld\n", s);
	return 0;
}
EOF
rm -rf "$T/rec"
if ! $CC -O2 -pg -mfentry -mrecord-mcount -pthread "$T/thr.c" -o "$T/thr" >"$T/build.log" 2>&1; then
	fail "threads: build" "$T/build.log"
elif ! (cd "$T" && env PATCHSITE_TRACER=nop \
	PATCHSITE_PROBES='f:t/thr thr%return r=$retval:s64 k=$arg1:s32 i=$arg2:s32' \
	PATCHSITE_DATA="$T/rec" LD_PRELOAD="$PRELOAD" ./thr >"$T/out" 2>"$T/err"); then
	fail "threads: run" "$T/err"
else
	"$PS" replay --no-sched -d "$T/rec" 2>"$T/err" | sed -n 's/.*t:thr: //p' | sed 's, \*/$,,' >"$T/got"
	# "(run+OFF/SIZE <- thr) r=R k=K i=I": lines whose R is not the source's or whose caller
	# is not run, then (k, i) seen twice or never
	bad=$(awk -F'[= ]+' '{ r = $5; k = $7; i = $9
		if ($1 !~ /^\(run\+0x/ || $3 != "thr)") { print "caller: " $0; next }
		if (r != k * 1000003 + i * 7) { print "wrong: " $0; next }
		if (seen[k, i]++) print "twice: " $0 }
		END { for (k = 0; k < 4; k++) for (i = 0; i < 5000; i++)
			if (!((k, i) in seen)) { print "missing: k=" k ", i=" i; exit } }' "$T/got")
	want=$(awk 'BEGIN { s = 0; for (k = 0; k < 4; k++) for (i = 0; i < 5000; i++) s += k * 1000003 + i * 7; printf "%.0f\n", s }')
	if [ -z "$bad" ] && [ "$(wc -l <"$T/got")" -eq 20000 ] && [ "$(cat "$T/out")" = "$want" ]; then
		pass "threads: 4 x 5000 returns, each once with the source's value"
	else
		echo "$bad" | head -5 >"$T/bad"
		fail "threads: $(wc -l <"$T/got") lines (want 20000), output $(cat "$T/out") (want $want)" "$T/bad"
	fi
fi

echo "$PASS passed, $FAIL failed"
[ $FAIL = 0 ]
