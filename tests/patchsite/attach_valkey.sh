#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Attach to a real server under load (issue #26): usage
#   attach_valkey.sh BUILD_DIR VALKEY_SRC     (make check-attach-valkey VALKEY=DIR; not in make check)
#
# VALKEY_SRC is a valkey source tree built with the sites the runtime reads:
#   make MALLOC=libc BUILD_TLS=no OPT=-O2 CFLAGS="-pg -mfentry -mrecord-mcount"
# (OPT=-O2: valkey's default -O3 -flto=auto keeps no __mcount_loc entry of its own objects, only
# of the deps built without LTO: 740 sites, none of the server's functions.)
# valkey-server is started with an empty environment (no runtime), two valkey-benchmarks load it
# with 50 clients each (INCR on one key; SET and GET on random keys); meanwhile `patchsite record -p` attaches, records
# the function tracer on processCommand and lookupKey* for 1 s and leaves, twice.  Oracles: the
# server's own counter (INCR on one key N times: exactly N), valkey-benchmark's exit status and
# its error lines (none), the server answering PING after, exiting 0 on SHUTDOWN; the trace holds
# processCommand calls.
set -u
B=${1:-build}
V=${2:-}
if [ -z "$V" ] || [ ! -x "$V/src/valkey-server" ] || [ ! -x "$V/src/valkey-benchmark" ]; then
	echo "SKIP attach_valkey.sh: no valkey build given (VALKEY=DIR with src/valkey-server and src/valkey-benchmark)"
	exit 0
fi
if ! readelf -S "$V/src/valkey-server" | grep -q __mcount_loc; then
	echo "FAIL attach_valkey.sh: $V/src/valkey-server has no __mcount_loc (build it with CFLAGS=\"-pg -mfentry -mrecord-mcount\")"
	exit 1
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/patchsite-valkey.XXXXXX")
SPID=
cleanup() {
	[ -n "$SPID" ] && kill "$SPID" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
PS="$PWD/$B/patchsite"
PORT=$((20000 + $$ % 20000))
N=${VALKEY_N:-20000}
PASS=0
FAIL=0
pass() { PASS=$((PASS + 1)); echo "PASS $1"; }
fail() { FAIL=$((FAIL + 1)); echo "FAIL $1"; [ $# -gt 1 ] && sed 's/^/    /' "$2" | head -30; }
cli() { "$V/src/valkey-cli" -p "$PORT" "$@"; }

cd "$T" || exit 2
env -i "$V/src/valkey-server" --port "$PORT" --save "" --appendonly no --dir "$T" \
	--io-threads 2 >server.log 2>&1 &
SPID=$!
for _ in $(seq 100); do [ "$(cli ping 2>/dev/null)" = PONG ] && break; sleep 0.1; done
[ "$(cli ping 2>/dev/null)" = PONG ] || { fail "valkey-server did not start" server.log; exit 1; }

# The load: INCR on one key N times (-r not given: the key is literally counter:__rand_int__),
# and beside it SET and GET on random keys, 50 clients each.
"$V/src/valkey-benchmark" -p "$PORT" -c 50 -n "$N" -t incr -q >bench.out 2>bench.err &
BPID=$!
"$V/src/valkey-benchmark" -p "$PORT" -c 50 -n "$N" -r 10000 -t set,get -q >bench2.out 2>bench2.err &
B2PID=$!
sleep 0.5
ok=0
for round in 1 2; do
	kill -0 "$BPID" 2>/dev/null || break
	if "$PS" record -p "$SPID" -d data --tracer=function -F processCommand -F 'lookupKey*' \
		--duration=1 2>rec$round.err; then
		ok=$((ok + 1))
	else
		cat rec$round.err >>rec.err
	fi
done
wait $BPID
brc=$?
wait $B2PID || brc=$((brc + 100))
cat bench2.out >>bench.out
cat bench2.err >>bench.err
count=$(cli get counter:__rand_int__)
"$PS" replay --no-sched -d data >replay.txt 2>>rec.err
nf=$(grep -c 'processCommand' replay.txt)
if [ "$ok" -ge 1 ] && [ $brc -eq 0 ] && ! grep -qi 'error' bench.out bench.err && [ "$count" = "$N" ] &&
   [ "$nf" -gt 0 ] && [ "$(cli ping)" = PONG ]; then
	pass "valkey-server attached $ok times under load (2 x 50 clients): INCR counted exactly $N, no request failed; $nf processCommand calls recorded"
else
	{ echo "attached $ok, benchmark exit $brc, counter $count of $N, $nf processCommand lines"; cat bench.err rec.err; } >why.txt
	fail "valkey under load" why.txt
fi
tr '\r' '\n' <bench.out | grep 'requests per second' | sed 's/^/    /'
cli shutdown nosave >/dev/null 2>&1
wait "$SPID"
st=$?
SPID=
if [ $st -eq 0 ]; then pass "valkey-server: SHUTDOWN after the detach: exit 0"
else echo "exit $st" >>server.log; fail "valkey-server exit" server.log; fi
echo "$PASS passed, $FAIL failed"
[ $FAIL -eq 0 ]
