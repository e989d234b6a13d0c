#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# No-flag sites on real programs (issue 37): Debian's own binaries and libraries as shipped
# (stripped, built without any tracing flag), proven by `patchverify --noflag --proof` here,
# then traced by `patchsite record --noflag-proof` on a real job each, through every site
# form the proof has (a, b, c, p).
# usage  noflag_real.sh BUILD_DIR plain|san
#
# Each case: PROGRAM, the objects proven (the program, and a library it loads), the job.
# Oracles, per case:
#   - the untraced run: traced with function_graph and with function, stdout, stderr and the
#     exit status are byte for byte the untraced run's (PATCHSITE_LOG=0: the runtime's own
#     warnings, which name every form c/p site it does not arm, are silenced so the program's
#     stderr is compared alone); jobs that exit 1 (grep with no match, diff, gzip -t of a
#     damaged file) included;
#   - gdb: the call counts (function and function_graph) of the traced functions called at most LIMIT times (up to NPICK of
#     them, most called first, from every proven object) are the hit counts of breakpoints at
#     their entries (tests/patchsite/oracles/noflag_count_gdb.py) on the same job, untraced; the
#     traced runs have address randomisation off (setarch -R) as gdb's runs have: find's
#     comparator of a hash table of pointers runs 269 or 270 times as the heap moves;
#   - the file: at the traced program's exit, its code in memory differs from the file's bytes
#     only inside the first 5 bytes of a site of the proof (the jump to its stub; forms c and
#     p, windows of several instructions, are armed at start-up like a and b):
#     nothing is written where nothing was proven (tests/patchsite/oracles/noflag_written_gdb.py);
#   - replay (-F the picked functions) and report read the trace: non-empty, with functions of
#     each proven object.
# A program or library that is not installed is skipped by name (scripts/deps.sh installs them).
set -u
. tests/patchsite/lib.sh	# suite_init, record, pass, fail
suite_init noflag_real "${1:-build}" "${2:-plain}"
PV="$PWD/$B/patchverify"
COUNT_GDB="$TESTS/oracles/noflag_count_gdb.py"
WRITTEN_GDB="$TESTS/oracles/noflag_written_gdb.py"
LIB=/lib/x86_64-linux-gnu
LIMIT=300
NPICK=6

if [ "$(uname -m)" != x86_64 ]; then
	echo "noflag_real.sh: no-flag sites: x86-64 only for now: skipped"
	exit 0
fi
for tool in gdb python3; do
	command -v $tool >/dev/null || { echo "noflag_real.sh: needs $tool"; exit 1; }
done
cd "$T" || exit 1

# The jobs' inputs: fixed contents, so each run does the same work.
seq 1 60000 > in.txt
i=1
while [ $i -le 30 ]; do
	mkdir -p tree/d$((i % 5))
	seq $i 3 $((i * 300)) > tree/d$((i % 5))/f$i.txt
	i=$((i + 1))
done
printf 'hello world\nfoo bar\n' > tree/h.txt
gzip -9 -c in.txt | head -c 2000 > damaged.gz
printf '[{"a":1,"b":[1,2,3]},{"a":2,"b":[4,5],"c":"x"}]\n' > in.json
# Python: an exception through 30 frames, a signal handler run, exit status 3.
cat > job.py <<'PY'
import os, signal, sys
class E(Exception): pass
def f(n):
    if n == 0: raise E("bottom")
    return f(n - 1)
try: f(30)
except E as e: print("caught", e)
signal.signal(signal.SIGUSR1, lambda *a: print("signal"))
os.kill(os.getpid(), signal.SIGUSR1)
print(sorted({"k%d" % i: i * i for i in range(50)}.items())[:5])
sys.exit(3)
PY

# The untraced run: under san with the sanitizers' runtimes preloaded as in the traced runs
# (they change what some programs do: sort exits 1 under them; their allocator moves the
# heap, and with it how often a hash table of pointers compares), so each run has the
# same allocator and only the tracer differs.
untraced() { LD_PRELOAD="$SANPRE" "$@"; }

# A proof per object, once: proof file named after the object's file.
prove() {
	p=proof.$(basename "$1")
	[ -s "$p" ] && return 0
	"$PV" --noflag --proof "$p" "$1" > "pv.$(basename "$1").log" 2>&1 ||
		{ fail "patchverify --noflag --proof $1" "pv.$(basename "$1").log"; return 1; }
}

# real [--no-count WHY] NAME OBJECT[,OBJECT...] CMD ARG...: the checks above on one job;
# --no-count: the calls' counts depend on timing (threads), gdb's are not compared.
real() {
	nocount=
	[ "$1" = --no-count ] && { nocount=$2; shift 2; }
	name=$1 objs=$2
	shift 2
	set -f
	for o in $(echo "$objs" | tr , ' '); do
		if [ ! -e "$o" ]; then
			echo "SKIP $name: $o is not installed"
			set +f
			return 0
		fi
	done
	args= nfenv= : > objs.txt
	for o in $(echo "$objs" | tr , ' '); do
		prove "$o" || { set +f; return 0; }
		args="$args --noflag-proof proof.$(basename "$o")"
		nfenv="$nfenv${nfenv:+:}$T/proof.$(basename "$o")"
		echo "$o" >> objs.txt
	done
	set +f
	untraced "$@" > want.out 2> want.err
	want_rc=$?
	for tracer in function_graph function; do
		PATCHSITE_LOG=0 LD_PRELOAD="$SANPRE" setarch -R "$PS" record -d "tr.$name.$tracer" --tracer=$tracer \
			$args -- "$@" > got.out 2> got.err
		rc=$?
		if [ $rc = $want_rc ] && cmp -s want.out got.out && cmp -s want.err got.err; then
			pass "$name $tracer: stdout, stderr and exit status ($rc) as untraced"
		else
			{ echo "exit $rc, untraced $want_rc"; diff want.out got.out | head -5
			  diff want.err got.err | head -5; } > diff.txt
			fail "$name $tracer: not as untraced" diff.txt
		fi
	done
	d="tr.$name.function"
	"$PS" report -d "$d" --json > rep.json 2> rep.err
	# Names of the proven objects' functions: the proof's, else OBJECT+0xENTRY.
	python3 - rep.json $(cat objs.txt) > picked.txt 2> pick.err <<PY
import json, os, sys
calls = {f["name"]: f["calls"] for f in json.load(open(sys.argv[1]))}
seen, rows = set(), []
for obj in sys.argv[2:]:
    base = os.path.basename(obj)
    hit = 0
    for line in open("proof." + base):
        f = line.split()
        if f[0] != "site":
            continue
        name = f[-1] if f[-1] != "-" else "%s+0x%s" % (base, f[1])
        n = calls.get(name, 0)
        hit += n > 0
        if 0 < n <= $LIMIT and name not in seen:
            seen.add(name)
            rows.append((n, obj, f[1], name))
    print("traced", base, hit)
rows.sort(key=lambda r: (-r[0], r[3]))
for n, obj, entry, name in rows[:$NPICK]:
    print("pick", obj, entry, name, n)
PY
	# function_graph's trace replayed for the picked functions (-F: the reader still decodes
	# every event; jq's whole replay is 9.7 million lines).
	set -f
	"$PS" replay -d "tr.$name.function_graph" $(awk '$1 == "pick" { printf "-F %s ", $4 }' picked.txt) \
		> replay.txt 2> replay.err
	rrc=$?
	set +f
	nobj=$(wc -l < objs.txt)
	hitobj=$(awk '$1 == "traced" && $3 > 0' picked.txt | wc -l)
	if [ -s rep.json ] && [ $rrc = 0 ] && [ -s replay.txt ] && [ "$hitobj" = "$nobj" ]; then
		pass "$name: report and replay read the trace; functions of each proven object traced ($(awk '$1 == "traced" { printf "%s %s ", $2, $3 }' picked.txt))"
	else
		cat rep.err replay.err pick.err picked.txt > rr.txt 2>/dev/null
		fail "$name: report/replay (replay exit $rrc)" rr.txt
	fi
	# gdb's counts of the picked functions, on the same job, untraced.
	awk '$1 == "pick" { print $2, $3, $4 }' picked.txt > count.in
	awk '$1 == "pick" { print $4, $5 }' picked.txt | sort > ps.counts
	# function_graph's from its replay, one entry a line ("f() {" or "f();"): report counts
	# finished calls, and gzip's exit path (gzip -t) calls exit() from inside its functions.
	python3 -c 'import collections, sys
calls = collections.Counter()
for line in open(sys.argv[1]):
    f = line.rsplit("|", 1)[-1].strip()
    if f.endswith("() {") or f.endswith("();"):
        calls[f[:f.rindex("(")]] += 1
for line in open(sys.argv[2]):
    n = line.split()[0]
    print(n, calls[n])' replay.txt ps.counts > psg.counts 2>> rep.err
	NF_COUNT=$T/count.in NF_OUT=$T/gdb.out ASAN_OPTIONS=detect_leaks=0 gdb -batch \
		-ex "set environment LD_PRELOAD=$SANPRE" -x "$COUNT_GDB" --args "$@" > count.out 2>&1
	awk '$1 == "count" { print $2, $3 }' count.out | sort > gdb.counts
	# Counts that differ: those that change when the runtime is merely loaded (tracer nop,
	# nothing armed) depend on where memory is, not on the tracer (diff's 0x14f20: 76 calls
	# untraced, 108 with the runtime loaded and idle): named and left out.
	moved=
	if [ -z "$nocount" ] && ! { cmp -s gdb.counts ps.counts && cmp -s gdb.counts psg.counts; }; then
		NF_COUNT=$T/count.in NF_OUT=$T/gdb2.out ASAN_OPTIONS=detect_leaks=0 gdb -batch \
			-ex "set environment LD_PRELOAD=$SANPRE $PATCHSITE_LIB" \
			-ex "set environment PATCHSITE_TRACER=nop" \
			-ex "set environment PATCHSITE_LOG=0" \
			-x "$COUNT_GDB" --args "$@" > count2.out 2>&1
		awk '$1 == "count" { print $2, $3 }' count2.out | sort > gdb2.counts
		moved=$(join gdb.counts gdb2.counts | awk '$2 != $3 { printf "%s ", $1 }')
		for f in $moved; do
			for c in gdb ps psg; do
				grep -v "^$f " $c.counts > c.tmp
				mv c.tmp $c.counts
			done
		done
	fi
	if [ -n "$nocount" ]; then
		echo "SKIP $name: call counts against gdb: $nocount"
	elif [ -s ps.counts ] && cmp -s gdb.counts ps.counts && cmp -s gdb.counts psg.counts &&
	     cmp -s want.out gdb.out; then
		pass "$name: call counts of $(wc -l < ps.counts) functions (function, function_graph) are gdb's ($(awk '{ printf "%s:%s ", $1, $2 }' ps.counts | cut -c1-120))${moved:+; left out, moved by the runtime merely loaded: $moved}"
	else
		{ cmp want.out gdb.out; diff gdb.counts ps.counts; echo "function_graph:"
		  diff gdb.counts psg.counts; tail -5 count.out; } > counts.diff
		fail "$name: call counts differ from gdb's (< gdb, > patchsite)" counts.diff
	fi
	# The code in memory at exit: changed only at proven sites, and at every one of them (all
	# wanted: function tracer, no filter; every form is armed at start-up) but those the
	# runtime refused by name on stderr for a check of their instructions.
	NF_WRITTEN=$T/objs.txt NF_OUT=$T/written.prog ASAN_OPTIONS=detect_leaks=0 gdb -batch \
		-ex "set environment LD_PRELOAD=$SANPRE $PATCHSITE_LIB" \
		-ex "set environment PATCHSITE_NOFLAG=$nfenv" \
		-ex "set environment PATCHSITE_TRACER=function" \
		-ex "set environment PATCHSITE_DATA=$T/wdata" \
		-x "$WRITTEN_GDB" --args "$@" > written.out 2>&1
	python3 - written.out written.prog.err $(cat objs.txt) > written.res <<'PY'
import os, re, sys
owner, nsites = {}, 0
for obj in sys.argv[3:]:
    for line in open("proof." + os.path.basename(obj)):
        f = line.split()
        if f[0] == "site":
            at = int(f[3], 16)
            nsites += 1
            for a in range(at, at + 5):
                owner[(os.path.realpath(obj), a)] = at
bad, hit, compared = [], set(), 0
for line in open(sys.argv[1]):
    f = line.split()
    if f[:1] == ["changed"]:
        at, n = int(f[2], 16), int(f[3])
        for a in range(at, at + n):
            if (f[1], a) in owner:
                hit.add((f[1], owner[(f[1], a)]))
            else:
                bad.append("%s+0x%x" % (os.path.basename(f[1]), a))
    elif f[:1] == ["compared"]:
        compared += 1
# Refused by a check of its instructions (indirect-call-in-window, ...), never for its form.
refused = sum(bool(re.match(r"patchsite: warning: .* \(site 0x[0-9a-f]+\): (?!form-)[a-z-]+.*: "
                            r"not traced$", l)) for l in open(sys.argv[2]))
print(compared, len(hit), nsites - refused, " ".join(bad[:8]) or "ok")
PY
	set -- $(cat written.res)
	if [ "${1:-0}" = "$nobj" ] && [ "${2:-0}" -gt 0 ] && [ "$2" = "${3:-}" ] && [ "${4:-}" = ok ]; then
		pass "$name: code at exit as in the file but for the jumps of all $2 sites armed (the proof's less those refused by name), each in its site"
	else
		cat written.res >> written.out
		fail "$name: code at exit: objects, sites written, sites to write, outside: $(cat written.res)" written.out
	fi
}

real gzip /usr/bin/gzip gzip -9 -c in.txt
real gzip-t /usr/bin/gzip gzip -t damaged.gz
real grep /usr/bin/grep,$LIB/libpcre2-8.so.0 grep -rnP '^1[0-9]*7$' tree
real grep-nomatch /usr/bin/grep grep -r nomatchzzz tree
real sed /usr/bin/sed sed -e 's/1/one/g' -e '/5/d' -e 300q in.txt
real --no-count "two threads: how often lzma_code runs depends on when the worker is done" \
	xz-T2 /usr/bin/xz,$LIB/liblzma.so.5 xz -T2 -6 -c in.txt
xz -6 -c in.txt > in.xz
real xz-d /usr/bin/xz,$LIB/liblzma.so.5 xz -d -c in.xz
real bzip2 /usr/bin/bzip2,$LIB/libbz2.so.1.0 bzip2 -c in.txt
real diff /usr/bin/diff diff -u tree/d1/f11.txt tree/d2/f12.txt
real tar /usr/bin/tar tar --sort=name --mtime=@0 --owner=0 --group=0 -cf - tree
real find /usr/bin/find find tree -name '*1*.txt' -size +1k
real sort /usr/bin/sort sort -r -k1,1n tree/d3/f13.txt
real jq /usr/bin/jq,$LIB/libjq.so.1 jq -S '.[].b' in.json
# ET_EXEC, 7,000 entries.  Under san without leak checking: Python leaves memory at exit, which
# LeakSanitizer reports with the process id (untraced and traced alike); the runtime's own
# leaks are checked by the other cases.
keep_asan=${ASAN_OPTIONS:-}
[ "$MODE" = san ] && export ASAN_OPTIONS=detect_leaks=0
real python3.11 /usr/bin/python3.11 /usr/bin/python3.11 -S job.py
[ "$MODE" = san ] && export ASAN_OPTIONS="$keep_asan"

# A signal: seq killed by SIGPIPE when head has gone (bash's PIPESTATUS says 141 0, traced as
# untraced); its trace ends there and is read, with seq's own functions in it.
if [ -e /usr/bin/seq ] && prove /usr/bin/seq; then
	untraced bash -c 'seq 1 1000000 | head -2; echo "${PIPESTATUS[*]}"' > want.out 2> want.err
	PATCHSITE_LOG=0 record -d tr.seq --noflag-proof proof.seq -- \
		bash -c 'seq 1 1000000 | head -2; echo "${PIPESTATUS[*]}"' > got.out 2> got.err
	rc=$?
	"$PS" replay -d tr.seq > replay.txt 2> replay.err
	n=$(grep -c 'seq-[0-9]* .*seq+0x' replay.txt)
	if [ $rc = 0 ] && [ "$(tail -1 got.out)" = "141 0" ] && cmp -s want.out got.out &&
	   cmp -s want.err got.err && [ "$n" -gt 0 ] &&
	   grep -q '^# process [0-9]* ended abnormally' replay.txt; then
		pass "seq killed by SIGPIPE: output and statuses as untraced (141 0), $n calls of seq's own read back"
	else
		{ echo "exit $rc, $n calls"; cat got.out got.err replay.err; } > diff.txt
		fail "seq killed by SIGPIPE" diff.txt
	fi
else
	echo "SKIP seq: /usr/bin/seq is not installed"
fi

# A tracer turned on after start-up (ctl, the process waiting on its input): windows of several
# instructions (forms c and p) are then refused (window-after-start-up: said by the log, which
# the control channel's thread keeps quiet), since a thread could be inside one; single-
# instruction sites (a, b) are armed then.  Oracle: the proof's forms of the functions the
# report shows (none c or p), and the untraced output.
if [ -e /usr/bin/jq ] && [ -e $LIB/libjq.so.1 ] && prove /usr/bin/jq && prove $LIB/libjq.so.1; then
	untraced jq -c '.[] | .b' in.json > want.out 2>&1
	rm -f in.fifo
	mkfifo in.fifo
	XDG_RUNTIME_DIR=$T/xdg LD_PRELOAD="$SANPRE" "$PS" record --tracer=nop -d tr.late \
		--noflag-proof proof.jq --noflag-proof proof.libjq.so.1 -- jq -c '.[] | .b' \
		< in.fifo > got.out 2> late.err &
	RPID=$!
	exec 3> in.fifo
	ok=
	for _ in $(seq 200); do
		SPID=$(awk 'NR == 1 { print $1 }' tr.late/session 2>/dev/null)
		[ -n "$SPID" ] && "$PS" ctl "$SPID" current_tracer function > ctl.err 2>&1 &&
			{ ok=1; break; }
		sleep 0.1
	done
	cat in.json >&3
	exec 3>&-
	wait $RPID
	rc=$?
	"$PS" report -d tr.late --json > rep.json 2>&1
	python3 - rep.json proof.jq proof.libjq.so.1 > late.res <<'PY'
import json, sys
form = {}
for p in sys.argv[2:]:
    base = p[len("proof."):]
    for line in open(p):
        f = line.split()
        if f[0] == "site":
            form[f[-1] if f[-1] != "-" else "%s+0x%s" % (base, f[1])] = f[2]
got = [f["name"] for f in json.load(open(sys.argv[1])) if f["name"] in form]
print(len(got), sum(form[n] in "cp" for n in got))
PY
	set -- $(cat late.res)
	if [ -n "$ok" ] && [ $rc = 0 ] && cmp -s want.out got.out && [ "${1:-0}" -gt 0 ] &&
	   [ "${2:-x}" = 0 ]; then
		pass "tracer on after start-up: $1 functions traced, all through forms a/b, no window (c, p) written; output as untraced"
	else
		{ echo "ctl ${ok:-failed}, exit $rc, traced/windows: $(cat late.res)"
		  cat ctl.err; diff want.out got.out; head -5 late.err; } > diff.txt
		fail "tracer on after start-up" diff.txt
	fi
fi

# Attach (record -p --noflag-proof): Debian's xz as shipped, started untraced, compressing its
# standard input from a FIFO; liblzma's functions traced by -F 'lzma_*' through the proof's single-
# instruction sites (forms a, b: written through the breakpoint protocol while the program runs),
# then detached (SIGINT) before the input ends, and xz finishes untraced.  Oracles:
#   - the untraced run of xz on the same input: the compressed output, stderr and exit status;
#   - gdb: lzma_code's calls with action LZMA_RUN (0, the second argument: the calls before the
#     input ends) are the hits of `break lzma_code if $rsi == 0` on the same job from a file (xz
#     reads whole buffers from a pipe too, so the calls are the same); the trace, made while xz
#     took in the whole input and before its end, has exactly those (the calls at the end, with
#     LZMA_FINISH, run after the detach);
#   - the proof (patchverify's): its lzma_* sites of forms c and p, which a running process cannot
#     have written (a thread may be inside the window), are refused by name in info
#     (window-at-attach) and counted on record's stderr.
# The waits are bounded by what the programs say (xz blocked in poll with its pipe drained,
# record's "recording" line), not by time.
state_of() { awk '{ print $3 }' /proc/$1/stat 2>/dev/null; }
syscall_of() { cut -d' ' -f1 /proc/$1/syscall 2>/dev/null; }
blocked_in_poll() { [ "$(state_of $1)" = S ] && [ "$(syscall_of $1)" = 7 ]; }
LZMA=$LIB/liblzma.so.5
if [ -e /usr/bin/xz ] && [ -e $LZMA ] && prove $LZMA; then
	seq 1 300000 > big.txt
	untraced xz -c < big.txt > want.xz 2> want.err
	want_rc=$?
	cat > count.gdb <<'GDB'
set pagination off
set confirm off
set breakpoint pending on
break lzma_code if $rsi == 0
commands
silent
continue
end
run < big.txt > gdb.xz
info breakpoints
GDB
	ASAN_OPTIONS=detect_leaks=0 gdb -batch -x count.gdb --args xz -c > gdb.out 2>&1
	gdbn=$(sed -n 's/.*breakpoint already hit \([0-9]*\) time.*/\1/p' gdb.out)
	rm -f xz.fifo tr.attach/session
	mkfifo xz.fifo
	PRE="$SANPRE" sh -c 'LD_PRELOAD="$PRE" xz -c < xz.fifo > got.xz 2> got.err; echo $? > xz.rc' &
	SH=$!
	exec 3> xz.fifo
	XP=
	for _ in $(seq 300); do
		XP=$(pgrep -P $SH -x xz) && blocked_in_poll $XP && break
		XP=
		sleep 0.1
	done
	"$PS" record -p "${XP:-0}" --tracer=function --noflag-proof proof.liblzma.so.5 \
		-F 'lzma_*' -d tr.attach > att.out 2> att.err &
	RP=$!
	on=
	for _ in $(seq 600); do
		grep -q ": recording (function)" att.err && { on=1; break; }
		kill -0 $RP 2>/dev/null || break
		sleep 0.1
	done
	cat big.txt >&3
	for _ in $(seq 600); do
		blocked_in_poll "${XP:-0}" && break
		sleep 0.1
	done
	kill -INT $RP
	wait $RP
	att_rc=$?
	exec 3>&-
	wait $SH
	rc=$(cat xz.rc 2>/dev/null)
	"$PS" report -d tr.attach --json > rep.json 2> rep.err
	tracen=$(python3 -c 'import json, sys
print(sum(f["calls"] for f in json.load(open(sys.argv[1])) if f["name"] == "lzma_code"))' rep.json 2>> rep.err)
	if [ -n "$on" ] && [ "$att_rc" = 0 ] && [ "$rc" = "$want_rc" ] && cmp -s want.xz got.xz &&
	   cmp -s want.err got.err && cmp -s want.xz gdb.xz; then
		pass "attach to xz: traced, detached; output, stderr and exit status ($rc) as untraced"
	else
		{ echo "recording ${on:-never said}, record exit $att_rc, xz exit $rc (untraced $want_rc)"
		  cmp want.xz got.xz; cmp want.err got.err; cmp want.xz gdb.xz; cat att.err; } > diff.txt
		fail "attach to xz: not as untraced" diff.txt
	fi
	if [ -n "$gdbn" ] && [ "$gdbn" -gt 10 ] && [ "$tracen" = "$gdbn" ]; then
		pass "attach to xz: lzma_code's LZMA_RUN calls traced $tracen times, gdb's count"
	else
		{ echo "traced ${tracen:-none}, gdb ${gdbn:-none}"; tail -5 gdb.out; cat rep.err; } > diff.txt
		fail "attach to xz: lzma_code's count is not gdb's" diff.txt
	fi
	# The proof's lzma_* windows (forms c, p), in the proof's order of sites, against info's.
	awk '$1 == "site" && ($3 == "c" || $3 == "p") && $NF ~ /^lzma_/ { printf "%s%s", s, $NF; s = ", " }
	     END { print "" }' proof.liblzma.so.5 > want.win
	nwin=$(tr ',' '\n' < want.win | grep -c .)
	"$PS" info -d tr.attach > info.txt 2>&1
	sed -n 's/^ *window-at-attach ([0-9]*): //p' info.txt > got.win
	if [ "$nwin" -gt 0 ] && cmp -s want.win got.win &&
	   grep -q "^patchsite: record: pid $XP: warning: liblzma.so.5: $nwin no-flag sites of several instructions (forms c, p) refused: window-at-attach " att.err
	then
		pass "attach to xz: the proof's $nwin lzma_* windows refused by name (info) and counted (stderr)"
	else
		{ echo "want $nwin: $(cat want.win)"; echo "got: $(cat got.win)"; grep refused att.err; } > diff.txt
		fail "attach to xz: windows not refused as the proof has them" diff.txt
	fi
fi

# The C library and the dynamic linker run the runtime itself: a proof of either is refused by
# name (before, a proof of libc.so.6 made gzip die of SIGSEGV at start-up: libc's syscall(),
# which the runtime calls, was armed), the program's own sites are traced, and nothing of
# libc.so.6 is written (gdb reads its code at exit against the file).
libc=$(readlink -f $LIB/libc.so.6)
if prove /usr/bin/gzip && prove $LIB/libc.so.6 && prove /lib64/ld-linux-x86-64.so.2; then
	untraced gzip -c in.txt > want.out
	record -d tr.libc --tracer=function --noflag-proof proof.gzip --noflag-proof proof.libc.so.6 \
		--noflag-proof proof.ld-linux-x86-64.so.2 -- gzip -c in.txt > got.out 2> got.err
	rc=$?
	"$PS" report -d tr.libc --json > rep.json 2>&1
	n=$(grep -c '"name":"gzip+0x' rep.json)
	if [ $rc = 0 ] && cmp -s want.out got.out && [ "$n" -gt 0 ] &&
	   grep -q '^patchsite: warning: libc.so.6: no-flag sites of the C library, which patchsite itself runs on: not armed (proof.libc.so.6 not used)$' got.err &&
	   grep -q '^patchsite: warning: ld-linux-x86-64.so.2: no-flag sites of the dynamic linker, which patchsite itself runs on: not armed (proof.ld-linux-x86-64.so.2 not used)$' got.err
	then
		pass "proofs of libc.so.6 and ld.so refused by name; gzip's own $n functions traced, output as untraced"
	else
		echo "exit $rc" >> got.err
		fail "proofs of libc.so.6 and ld.so: not refused as said" got.err
	fi
	echo $libc > objs.txt
	NF_WRITTEN=$T/objs.txt NF_OUT=$T/written.prog ASAN_OPTIONS=detect_leaks=0 gdb -batch \
		-ex "set environment LD_PRELOAD=$SANPRE $PATCHSITE_LIB" \
		-ex "set environment PATCHSITE_NOFLAG=$T/proof.gzip:$T/proof.libc.so.6" \
		-ex "set environment PATCHSITE_TRACER=function" \
		-ex "set environment PATCHSITE_LOG=0" \
		-ex "set environment PATCHSITE_DATA=$T/wdata" \
		-x "$WRITTEN_GDB" --args gzip -c in.txt > written.out 2>&1
	if grep -q "^compared $libc [1-9]" written.out && ! grep -q '^changed' written.out; then
		pass "libc.so.6's code at gzip's exit is the file's: nothing written"
	else
		fail "libc.so.6's code changed or not read" written.out
	fi
fi

echo "$PASS passed, $FAIL failed"
[ "$FAIL" = 0 ]
