#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# A real server's own test suite under tracing (issue 23):  valkey.sh BUILD_DIR [UNIT...]
#
# Valkey (a release, VALKEY_TAG, default 8.0.1) is built twice from the same source with the
# same flags: plain (gcc) and traceable (BUILD_DIR/patchsite-cc, -pg -mfentry on the server's
# own files).  A subset of valkey's own suite (its tcl harness, untouched: ./runtest --single
# UNIT) runs against the plain build, then against the traceable one under
#   patchsite record --tracer=function_graph -- ./runtest ...
# which preloads the runtime into the harness and every server it starts.
#
# Oracles: valkey's own harness ([ok]/[err]/[exception] per test, "All tests passed"), the
# plain build's run as the reference (the same tests pass, none fails, in both); readelf for
# the traced server's site table; each thread file's header magic read here (PSTHRD1), and
# `patchsite info` saying no file skipped.
#
# Source: VALKEY_SRC, a valkey source tree or a git repository holding the tag; else a shallow
# clone from github.  No source and no network: one line, exit 2.  Builds and runs are kept in
# FIELD_DIR (default BUILD_DIR/field); a build is reused while its server binary is there.
# FIELD_OVERWRITE=KB records in flight-recorder mode (--overwrite --buffer-kb=KB) instead.
# The trace (FIELD_DIR/trace) is removed after a run that passed, unless FIELD_KEEP=1.
set -u

B=${1:-build}
shift 2>/dev/null
UNITS=${*:-unit/type/string unit/type/incr unit/type/hash unit/type/list unit/type/set unit/keyspace unit/multi}
TAG=${VALKEY_TAG:-8.0.1}
TOP=$PWD
PS="$TOP/$B/patchsite"
W=${FIELD_DIR:-$TOP/$B/field}
SRC=$W/valkey-$TAG
PASS=0
FAIL=0
pass() { PASS=$((PASS + 1)); echo "PASS $1"; }
fail() { FAIL=$((FAIL + 1)); echo "FAIL $1"; [ $# -gt 1 ] && sed 's/^/    /' "$2" | head -30; }
say() { echo "valkey.sh: $*" >&2; }

mkdir -p "$W" || exit 2
# The source, once.
if [ ! -f "$SRC/src/server.c" ]; then
	rm -rf "$SRC.tmp" && mkdir -p "$SRC.tmp" || exit 2
	if [ -n "${VALKEY_SRC:-}" ] && git --git-dir="$VALKEY_SRC" rev-parse -q --verify "$TAG^{commit}" \
	   >/dev/null 2>&1; then
		git --git-dir="$VALKEY_SRC" archive "$TAG" | tar x -C "$SRC.tmp"
	elif [ -n "${VALKEY_SRC:-}" ] && git -C "$VALKEY_SRC" rev-parse -q --verify "$TAG^{commit}" \
	     >/dev/null 2>&1; then
		git -C "$VALKEY_SRC" archive "$TAG" | tar x -C "$SRC.tmp"
	elif [ -n "${VALKEY_SRC:-}" ] && [ -f "$VALKEY_SRC/src/server.c" ]; then
		cp -a "$VALKEY_SRC/." "$SRC.tmp/"
	elif [ -n "${VALKEY_SRC:-}" ]; then
		say "VALKEY_SRC=$VALKEY_SRC: neither a valkey source tree nor a git repository with tag $TAG"
		exit 2
	elif ! git clone -q --depth 1 --branch "$TAG" https://github.com/valkey-io/valkey "$SRC.tmp" \
	     >"$W/clone.log" 2>&1; then
		say "no valkey source: VALKEY_SRC is unset and github.com is unreachable ($(tail -1 "$W/clone.log"))"
		exit 2
	fi
	rm -rf "$SRC" && mv "$SRC.tmp" "$SRC" || exit 2
fi
command -v tclsh >/dev/null || { say "valkey's harness needs tclsh (apt-get install tcl)"; exit 2; }

# build FORM CC EXTRA-CFLAGS: the tree W/FORM, built once (the same flags but the sites').
# OPTIMIZATION=-O2: valkey's default -O3 adds -flto=auto; patchsite-cc traces LTO builds
# (tests/patchsite/lto.sh), but this suite compares with the issue's -O2 figures.
build() {
	d=$W/$1
	[ -x "$d/src/valkey-server" ] && return 0
	rm -rf "$d" && cp -a "$SRC" "$d" || return 1
	echo "building valkey $TAG ($1; about 10 minutes on 2 cores; log $d/build.log)"
	nice make -C "$d" -j2 CC="$2" SERVER_CFLAGS="$3" OPTIMIZATION=-O2 MALLOC=libc BUILD_TLS=no \
		>"$d/build.log" 2>&1 || { tail -20 "$d/build.log"; return 1; }
}
build plain gcc "" || { fail "valkey $TAG: plain build" ; exit 1; }
build traced "$TOP/$B/patchsite-cc" "-pg -mfentry" || { fail "valkey $TAG: traceable build"; exit 1; }
if readelf -SW "$W/traced/src/valkey-server" | grep -q -E ' __mcount_loc(_pcrel)? ' &&
   ! readelf -SW "$W/plain/src/valkey-server" | grep -q -E ' __mcount_loc(_pcrel)? '; then
	pass "valkey-server: a site table in the traceable build, none in the plain one (readelf)"
else
	fail "valkey-server: site tables (readelf -S)"
fi

# run FORM LOG [record ARGS...]: the units, in the tree of FORM, with the harness as shipped.
run() {
	form=$1 log=$2
	shift 2
	args=
	for u in $UNITS; do args="$args --single $u"; done
	# (--clients 2: two cores; the harness's own timeouts are left as they are)
	[ $form = traced ] && args="$args --dont-clean"
	(cd "$W/$form" && "$@" ./runtest --clients 2 $args) >"$log" 2>&1
}
results() {	# LOG: one line per test outcome, "ok NAME" / "err NAME", sorted
	sed -n 's/\x1b\[[0-9;]*m//g; s/^\[\(ok\|err\|exception\|skip\|ignore\)\]: \(.*\)/\1 \2/p' "$1" |
		sed 's/ ([0-9]* ms)$//' | sort
}

echo "valkey $TAG: $UNITS"
t0=$(date +%s)
run plain "$W/plain.log" env
t1=$(date +%s)
rm -rf "$W/trace" "$W/trace.old"
rec="--tracer=function_graph"
[ -n "${FIELD_OVERWRITE:-}" ] && rec="$rec --overwrite --buffer-kb=$FIELD_OVERWRITE"
# (--dont-clean: the servers' logs stay in tests/tmp, for the kills they saw)
rm -rf "$W"/traced/tests/tmp/*
run traced "$W/traced.log" "$PS" record -d "$W/trace" $rec -- env
killed=$(cat "$W"/traced/tests/tmp/*/stdout 2>/dev/null | grep -c 'terminated by signal 9$')
t2=$(date +%s)
results "$W/plain.log" >"$W/plain.res"
results "$W/traced.log" >"$W/traced.res"
nok=$(grep -c '^ok ' "$W/plain.res")
if grep -q 'All tests passed without errors' "$W/plain.log" && [ "$nok" -gt 0 ]; then
	pass "plain build: $nok tests ok, none failed ($((t1 - t0)) s)"
else
	fail "plain build: its own suite fails (not a tracing matter)" "$W/plain.res"
fi
if grep -q 'All tests passed without errors' "$W/traced.log" && cmp -s "$W/plain.res" "$W/traced.res"; then
	pass "under function_graph: the same $nok tests ok, none failed ($((t2 - t1)) s)"
else
	diff "$W/plain.res" "$W/traced.res" >"$W/res.diff"
	tail -5 "$W/traced.log" >>"$W/res.diff"
	fail "under function_graph: results differ from the plain build's (< plain, > traced)" "$W/res.diff"
fi

# The trace: every server that ran recorded, every thread file has its header, info skips none.
"$PS" info -d "$W/trace" >"$W/info" 2>"$W/info.err"
irc=$?
nproc=$(awk '$3 != "-"' "$W/trace/session" 2>/dev/null | wc -l)
# (flight recorder: each file at most its ring and the 4 KiB header, on disk: st_blocks)
python3 - "$W/trace" "${FIELD_OVERWRITE:-0}" >"$W/headers.bad" <<'EOF'
import glob, os, sys
ring = int(sys.argv[2]) * 1024
for f in sorted(glob.glob(sys.argv[1] + "/*/thread.*")):
    b = open(f, "rb").read(8)
    if os.path.getsize(f) < 4096 or b != b"PSTHRD1\0":
        print(f, os.path.getsize(f), "no header")
    if ring and os.stat(f).st_blocks * 512 > ring + 4096:
        print(f, os.stat(f).st_blocks * 512, "bytes on disk: more than the ring")
EOF
nthr=$(ls "$W"/trace/*/ 2>/dev/null | grep -c '^thread\.')
# Every thread's events kept (growing mode: nothing lost), every process ended cleanly.
[ -z "${FIELD_OVERWRITE:-}" ] && grep -E ' lost [1-9]' "$W/info" >>"$W/headers.bad"
# Some tests SIGKILL a server's RDB child (set.tcl: `exec kill -9 $pid1`): "abnormal" is the
# truth for those, as many as the servers' logs say "terminated by signal 9"; no other.
abnormal=$(grep -c -E '^  end: +abnormal: no clean end written$' "$W/info")
grep -E '^  end: ' "$W/info" | grep -v -E 'end: +(exit [0-9]+|normal exit|abnormal: no clean end written)$' \
	>>"$W/headers.bad"
[ "$abnormal" = "$killed" ] ||
	echo "$abnormal processes without a clean end, $killed killed by signal 9 (servers' logs)" >>"$W/headers.bad"
if [ "$irc" = 0 ] && [ "$nproc" -gt 0 ] && [ ! -s "$W/headers.bad" ] && ! grep -qi 'skipp' "$W/info.err" "$W/info"; then
	pass "trace: $nproc processes ended cleanly but the $killed the tests killed, $nthr thread files, each with its header, none lost an event; info skips none ($(du -sh "$W/trace" | cut -f1))"
else
	cat "$W/info.err" >>"$W/headers.bad"
	fail "trace: info exit $irc, $nproc processes" "$W/headers.bad"
fi
# The trace is large (1.6 GB for the default units): kept when asked, or to look at a failure.
[ "$FAIL" -eq 0 ] && [ -z "${FIELD_KEEP:-}" ] && rm -rf "$W/trace"
echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
