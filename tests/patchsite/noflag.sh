#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# No-flag sites (issue 37): a program built at -O2 without any tracing flag
# (testdata/noflag_rt/nfprog.c), traced from a proof file through out-of-line stubs.
# usage  noflag.sh BUILD_DIR plain|san
#
# The proof file is written here, by tests/patchsite/oracles/noflag_proof.py from `objdump -d -w`
# of the program (not by patchverify): objdump is the oracle of the displaced bytes, the
# instruction lengths, the rip-relative operands and the branch targets.  Form a is taken
# only where the first instruction is 5 bytes or more and no branch target lies inside it;
# form b only through pushes and `sub $N,%rsp`, and each form b record's DEPTH is checked
# by hand through gdb: stopped at the site, the word DEPTH bytes above the stack pointer
# must be the return address gdb's unwinder gives frame 1.
#
# Oracles:
#   - the untraced run: a traced run prints the same and exits with the same status
#     (the program's output depends on every value it computes: a register, flag or
#     xmm register the tracer changed across live()'s calls of leaf() (-fipa-ra keeps
#     rcx, rdx, rsi, r8-r11 live there) or fsum()'s of fscale() would change it);
#   - gdb: each function's call count is the hit count of a breakpoint at its entry,
#     ignored 2^30 times, read at exit;
#     carry_in() takes the carry flag as an input, as only hand-written code does;
#   - the program's own structure for function_graph's nesting (live() { leaf() leaf() },
#     fsum() { fscale() fscale() }, walk() 21 deep).
set -u
. tests/patchsite/lib.sh	# suite_init, record, pass, fail, nesting
suite_init noflag "${1:-build}" "${2:-plain}"
SRC="$PWD/testdata/noflag_rt/nfprog.c"
GEN="$PWD/tests/patchsite/oracles/noflag_proof.py"
SPIN="$PWD/testdata/patchsite/ctlspin.c"
FORK="$PWD/testdata/patchsite/forktree.c"
PWD_SRC=$PWD
PV="$PWD/$B/patchverify"
FUNCS="mix bump leaf fscale live fsum walk carry_in main"
run() { LD_PRELOAD="$SANPRE" "$@"; }

only_x86_64 noflag.sh "no-flag sites: x86-64 only for now"
for tool in gdb objdump python3; do
	command -v $tool >/dev/null || { echo "noflag.sh: needs $tool"; exit 1; }
done
cd "$T" || exit 1

$CC -O2 -o nfprog "$SRC" >build.log 2>&1 || { fail "build nfprog" build.log; exit 1; }
objdump -d -w nfprog > dump.txt
bid=$(readelf -n nfprog | sed -n 's/.*Build ID: //p')
# callhook too: its site is `call *hook(%rip)`, which the runtime must refuse by name.
python3 "$GEN" dump.txt "$bid" "$(stat -c %s nfprog)" "$T/nfprog" $FUNCS callhook > p.proof 2>gen.log ||
	{ fail "proof from objdump" gen.log; exit 1; }
nsites=$(grep -c '^site ' p.proof)
if [ "$nsites" -ge 6 ] && grep -q '^site [0-9a-f]* b .* live$' p.proof &&
   grep -q ':rip@' p.proof && grep -q ':call@1' p.proof; then
	pass "proof from objdump: $nsites sites, a form b with a call, rip-relative ones"
else
	fail "proof from objdump: $nsites sites" p.proof
fi

# Each form b DEPTH, by hand through gdb: at the site, [rsp + DEPTH] is frame 1's pc.
# Addresses from the load bias gdb finds for main (objdump's address of main less).
main_at=$(awk '/^[0-9a-f]+ <main>:$/ { print $1 }' dump.txt)
{
	echo "set pagination off"
	echo "set backtrace past-main on"
	echo "starti"
	echo "set \$bias = (unsigned long)&main - 0x$main_at"
	grep '^site [0-9a-f]* b ' p.proof | while read -r _ entry _ site depth _ _ name; do
		echo "break *(\$bias + 0x$site)"
		echo "commands"
		echo "silent"
		echo "printf \"depth $name %lx \", *(unsigned long *)(\$sp + 0x$depth)"
		echo "up-silently"
		printf '%s\n' 'printf "%lx\n", $pc'
		echo "continue"
		echo "end"
	done
	echo "continue"
} > depth.gdb
gdb -batch -x depth.gdb --args ./nfprog 3 > depth.out 2>&1
nb=$(grep -c '^site [0-9a-f]* b ' p.proof)
ok=$(awk '/^depth / { n[$2]++; if ($3 != $4) bad[$2]++ }
	END { for (f in n) if (!bad[f]) k++; print k + 0 }' depth.out)
if [ "$nb" -ge 2 ] && [ "$ok" = "$nb" ]; then
	pass "form b: DEPTH of $nb sites is where gdb's unwinder finds the return address"
else
	fail "form b: $ok of $nb functions' depths match gdb at every stop" depth.out
fi

./nfprog > want.out
want_rc=$?

# gdb's counts: "NAME HITS" for each function (addresses as above: a name could be
# looked up again in every library gdb loads).
{
	echo "set pagination off"
	echo "starti"
	echo "set \$bias = (unsigned long)&main - 0x$main_at"
	n=0
	for f in $FUNCS; do
		n=$((n + 1))
		at=$(awk -v f="$f" '$2 == "<" f ">:" { print $1 }' dump.txt)
		echo "break *(\$bias + 0x$at)"
		echo "ignore $n 1073741824"
		printf 'echo bp %s %s\\n\n' "$n" "$f"
	done
	echo "continue"
	echo "info breakpoints"
} > count.gdb
gdb -batch -x count.gdb --args ./nfprog > count.out 2>&1
awk '$1 == "bp" { name[$2] = $3 } /^[0-9]+ +breakpoint +keep/ { f = name[$1] }
     /already hit/ { print f, $4 }' count.out | sort > gdb.counts

for tracer in function function_graph; do
	record -d tr --tracer=$tracer --no-libcall --noflag-proof p.proof ./nfprog > got.out 2>err.txt
	rc=$?
	if [ $rc = $want_rc ] && cmp -s want.out got.out &&
	   grep -q '^patchsite: warning: nfprog: callhook (site 0x[0-9a-f]*): indirect-call-in-window: not traced$' err.txt
	then
		pass "$tracer: output and exit status ($rc) as untraced; callhook refused by name"
	else
		fail "$tracer: exit $rc (untraced $want_rc), output differs" err.txt
	fi
	"$PS" report -d tr --json > rep.json
	python3 - rep.json $FUNCS > ps.counts <<'PY'
import json, sys
calls = {f["name"]: f["calls"] for f in json.load(open(sys.argv[1]))}
for n in sorted(sys.argv[2:]):
    print(n, calls.get(n, 0))
PY
	if [ -s gdb.counts ] && cmp -s gdb.counts ps.counts; then
		pass "$tracer: call counts are gdb's ($(tr '\n' ' ' < ps.counts))"
	else
		diff gdb.counts ps.counts > counts.diff
		fail "$tracer: call counts differ from gdb's (< gdb, > patchsite)" counts.diff
	fi
done

# function_graph's nesting, run with 3 iterations of the first loop.
record -d tg --no-libcall --noflag-proof p.proof ./nfprog 3 > /dev/null 2>err.txt
"$PS" replay -d tg > graph.txt 2>&1
nesting graph.txt | grep -v "/\*" > nest.txt	# not the scheduler's comments
{
	echo "0 main() {"
	for i in 1 2 3; do echo "1 mix();"; echo "1 bump();"; done
	i=0
	while [ $i -lt 50 ]; do
		printf '1 live() {\n2 leaf();\n2 leaf();\n1 }\n1 fsum() {\n2 fscale();\n2 fscale();\n1 }\n'
		i=$((i + 1))
	done
	for i in 1 2 3 4 5 6 7 8; do echo "1 carry_in();"; done
	d=1
	while [ $d -le 20 ]; do echo "$d walk() {"; d=$((d + 1)); done
	echo "21 walk();"
	d=20
	while [ $d -ge 0 ]; do echo "$d }"; d=$((d - 1)); done
} > nest.want
if cmp -s nest.want nest.txt; then
	pass "function_graph: nesting as the program calls (live/leaf, fsum/fscale, walk 21 deep)"
else
	diff nest.want nest.txt > nest.diff
	fail "function_graph: nesting differs (< expected, > replay)" nest.diff
fi

# A filter: only leaf and walk traced (the others armed and idle).
record -d tf --tracer=function --no-libcall -F 'leaf walk' --noflag-proof p.proof ./nfprog \
	> got.out 2>err.txt
rc=$?
"$PS" report -d tf --json > rep.json
names=$(python3 -c 'import json,sys; print(" ".join(sorted(f["name"] + ":" + str(f["calls"]) for f in json.load(open(sys.argv[1])))))' rep.json)
if [ $rc = $want_rc ] && cmp -s want.out got.out && [ "$names" = "leaf:100 walk:21" ]; then
	pass "filter -F 'leaf walk': only those, counts 100 and 21, output unchanged"
else
	echo "$names" >> err.txt
	fail "filter -F 'leaf walk': exit $rc, report: $names" err.txt
fi

# Functions never traced are never written: with -F 'leaf walk', at the program's exit (gdb
# stopped at exit_group), only leaf's and walk's SITEs hold a jump (e9); every other SITE
# holds the proof's bytes, as objdump read them from the file.
{
	echo "set pagination off"
	echo "set environment LD_PRELOAD=$SANPRE $PATCHSITE_LIB"
	echo "set environment PATCHSITE_NOFLAG=$T/p.proof"
	echo "set environment PATCHSITE_TRACER=function"
	echo "set environment PATCHSITE_FILTER=leaf walk"
	echo "set environment PATCHSITE_OUTPUT=/dev/null"
	echo "catch syscall exit_group"
	echo "run"
	echo "set \$bias = (unsigned long)&main - 0x$main_at"
	grep '^site ' p.proof | while read -r _ _ _ site _ _ _ name; do
		printf 'printf "site %s %%02x%%02x%%02x%%02x%%02x\\n", ' "$name"
		printf '*(unsigned char *)($bias + 0x%s), *(unsigned char *)($bias + 0x%s + 1), ' "$site" "$site"
		printf '*(unsigned char *)($bias + 0x%s + 2), *(unsigned char *)($bias + 0x%s + 3), ' "$site" "$site"
		printf '*(unsigned char *)($bias + 0x%s + 4)\n' "$site"
	done
} > written.gdb
ASAN_OPTIONS=detect_leaks=0 gdb -batch -x written.gdb ./nfprog > written.out 2>&1
awk 'NR == FNR { if ($1 == "site") want[$8] = substr($6, 1, 10); next }
     $1 == "site" { n++; w = ($2 == "leaf" || $2 == "walk"); got = $3
	if ((w && substr(got, 1, 2) != "e9") || (!w && got != want[$2])) bad = bad " " $2 }
     END { print n + 0, (bad == "" ? "ok" : "changed:" bad) }' p.proof written.out > written.res
if [ "$(cat written.res)" = "$(grep -c '^site ' p.proof) ok" ]; then
	pass "-F 'leaf walk': only leaf's and walk's SITEs written (a jump); the others as built"
else
	cat written.res >> written.out
	fail "-F 'leaf walk': SITEs written: $(cat written.res)" written.out
fi

# Probes: on a form a site (mix) the argument registers are the entry's; the values must be
# the program's (x = h + i, h = mix's result: computed here as the C does); on a form b site
# (walk) they may be changed before it, so a fetch argument there is refused by name.
record -d tp --tracer=function --no-libcall --noflag-proof p.proof \
	--probe='f:nf/m mix x=%rdi:u32' ./nfprog 3 > /dev/null 2>err.txt
"$PS" replay -d tp 2>&1 | sed -n 's/.* nf:m: mix(x=\([0-9]*\))$/\1/p' > probe.got
python3 -c 'h = 1
for i in range(3):
    x = (h + i) & 0xffffffff
    print(x)
    h = (x * 2654435761 + (x >> 7)) & 0xffffffff' > probe.want
if [ -s probe.got ] && cmp -s probe.want probe.got; then
	pass "probe on a form a site: mix's x=%rdi as the program computes it ($(tr '\n' ' ' < probe.got))"
else
	diff probe.want probe.got >> err.txt
	fail "probe on a form a site: mix's x" err.txt
fi
record -d tq --tracer=function --no-libcall --noflag-proof p.proof \
	--probe='f:nf/w walk n=%rdi' ./nfprog 3 > got.out 2>err.txt
if grep -q 'dynamic_events: walk: built without any flag, its site is in its entry block.*form b' err.txt
then
	pass "probe with a fetch argument on a form b site (walk): refused by name"
else
	fail "probe on a form b site (walk): not refused" err.txt
fi

# A proof whose bytes are not the program's: that site refused by name, the others traced.
sed 's/^\(site [0-9a-f]* a [0-9a-f]* 0 \)69c7\(.* mix\)$/\16ac7\2/' p.proof > wrong.proof
record -d tw --tracer=function --no-libcall --noflag-proof wrong.proof ./nfprog > got.out \
	2>err.txt
rc=$?
"$PS" report -d tw --json > rep.json
names=$(python3 -c 'import json,sys; print(" ".join(sorted(f["name"] for f in json.load(open(sys.argv[1])))))' rep.json)
if ! cmp -s wrong.proof p.proof && [ $rc = $want_rc ] && cmp -s want.out got.out &&
   grep -q 'nfprog: mix (site 0x[0-9a-f]*): bytes-changed (the proof has 6a c7' err.txt &&
   [ "$names" = "bump carry_in fscale fsum leaf live main walk" ]; then
	pass "bytes-changed: mix refused by name, the others traced, output unchanged"
else
	echo "report: $names" >> err.txt
	fail "bytes-changed: exit $rc" err.txt
fi

# ... and info names them with their checks (the proof's sites: all armed but those two).
"$PS" info -d tw > info.txt 2>&1
n=$(grep -c '^site ' wrong.proof)
if grep -q "^      no-flag sites from wrong.proof: $n proven, $((n - 2)) armed, 2 refused$" info.txt &&
   grep -q '^        bytes-changed (1): mix$' info.txt &&
   grep -q '^        indirect-call-in-window (1): callhook$' info.txt; then
	pass "info: $n proven, $((n - 2)) armed, mix refused as bytes-changed, callhook by its check"
else
	fail "info: no-flag sites not said" info.txt
fi
# A proof of the C library, which the runtime itself runs on: none of it used, said by info
# with the proof's count of sites (the file patchverify wrote).
LIBC=$(ldd ./nfprog | awk '/libc\.so/ { print $3 }')
"$PV" --noflag --proof libc.proof "$LIBC" > pv.out 2>&1
n=$(grep -c '^site ' libc.proof)
record -d tl --no-libcall --noflag-proof p.proof --noflag-proof libc.proof ./nfprog > /dev/null \
	2>err.txt
"$PS" info -d tl > info.txt 2>>err.txt
if [ "$n" -gt 0 ] &&
   grep -q "^      no-flag sites from libc.proof: $n proven, none used: runtime-object$" info.txt; then
	pass "info: a proof of libc ($n sites) said unused, runtime-object"
else
	cat info.txt >> err.txt
	fail "info: the proof of libc not said" err.txt
fi
# A damaged line of the noflag file: info says the file and line in one line, shows none of it.
cp -r tw twd
nf=$(ls twd/*/noflag)
sed -i '2s/ 0x/ zz/' "$nf"
"$PS" info -d twd > info.txt 2>err.txt
rc=$?
if [ $rc = 1 ] && [ "$(wc -l < err.txt)" = 1 ] && ! grep -q 'no-flag' info.txt &&
   grep -q "^patchsite: $nf: line 2: damaged no-flag record: none of the file used$" err.txt; then
	pass "damaged noflag file: info says file and line once, uses none of it, exit 1"
else
	cat info.txt >> err.txt
	fail "damaged noflag file: exit $rc" err.txt
fi

# A damaged proof: one line naming the file and line; the command stops before CMD runs.
sed '3s/^site \([0-9a-f]*\) a/site \1 z/' p.proof > bad.proof
record -d tb --noflag-proof bad.proof ./nfprog > got.out 2>err.txt
rc=$?
if [ $rc = 2 ] && [ ! -s got.out ] && [ "$(wc -l < err.txt)" = 1 ] &&
   grep -q '^patchsite: record: --noflag-proof bad.proof: line 3: bad site record$' err.txt; then
	pass "damaged proof: record says file and line, exit 2, CMD not run"
else
	fail "damaged proof: exit $rc" err.txt
fi
# ... and the runtime alone (PATCHSITE_NOFLAG set by hand): one line, nothing armed, runs on.
LD_PRELOAD="$SANPRE $PATCHSITE_LIB" PATCHSITE_NOFLAG="$T/bad.proof" PATCHSITE_TRACER=function \
	PATCHSITE_OUTPUT=/dev/null ./nfprog > got.out 2>err.txt
rc=$?
if [ $rc = $want_rc ] && cmp -s want.out got.out &&
   [ "$(grep -c 'PATCHSITE_NOFLAG' err.txt)" = 1 ] &&
   grep -q "PATCHSITE_NOFLAG: $T/bad.proof: line 3: bad site record: nothing armed from it" err.txt
then
	pass "damaged proof, runtime: one line naming file and line, program unchanged"
else
	fail "damaged proof, runtime: exit $rc" err.txt
fi

# Arming while threads run the code: testdata/patchsite/ctlspin.c built -O2 without flags,
# started untraced (record --tracer=nop), its 4 threads spinning through alpha, beta and
# gamma_leaf while `ctl` turns the function tracer on for beta and gamma_leaf: their SITEs
# are written then, through the live protocol.  Oracle: the sample's own counts: the trace
# holds at least the steady phase after that ("run 100": every thread 100 calls of each),
# at most every call made (spin and run), beta as often as gamma_leaf, and no alpha
# (never wanted, never written).
NTH=4
$CC -O2 -o ctlspin "$SPIN" -pthread >build.log 2>&1 || fail "build ctlspin" build.log
objdump -d -w ctlspin > cdump.txt
python3 "$GEN" cdump.txt "$(readelf -n ctlspin | sed -n 's/.*Build ID: //p')" \
	"$(stat -c %s ctlspin)" "$T/ctlspin" alpha beta gamma_leaf > c.proof 2>gen.log
# start_spin DIR PROOF THREADS: ctlspin THREADS recorded (tracer nop) from PROOF into DIR, held
# on the fifo `in` (fd 3) until stop_spin; RPID the record, SPID the program; stop_spin sets st,
# record's status.
start_spin() {
	rm -f in
	mkfifo in
	XDG_RUNTIME_DIR=$T/xdg LD_PRELOAD="$SANPRE" "$PS" record --tracer=nop -d "$1" \
		--noflag-proof "$2" -- ./ctlspin "$3" <in >out 2>err &
	RPID=$!
	exec 3>in
	wait_for out '^ready'
	SPID=$(awk 'NR == 1 { print $1 }' "$1/session" 2>/dev/null)
}
stop_spin() {
	echo quit >&3
	wait "$RPID"; st=$?
	exec 3>&-
}
start_spin spin c.proof $NTH
echo spin >&3
sleep 0.3
"$PS" ctl "$SPID" set_ftrace_filter "beta gamma_leaf" >>err 2>&1 &&
	"$PS" ctl "$SPID" current_tracer function >>err 2>&1
phase stop stopped
Bs=$BB
phase "run 100" done
A1=$A B1=$((BB + Bs)) C1=$((C + Bs))
"$PS" ctl "$SPID" current_tracer nop >>err 2>&1
stop_spin
"$PS" report -d spin --json > rep.json 2>>err
got=$(python3 -c 'import json,sys; c = {f["name"]: f["calls"] for f in json.load(open(sys.argv[1]))}
print(c.get("alpha", 0), c.get("beta", 0), c.get("gamma_leaf", 0))' rep.json 2>>err)
set -- $got
if [ $st = 0 ] && [ "${1:-x}" = 0 ] && [ "${2:-0}" -ge $((NTH * 100)) ] && [ "${2:-0}" -le "$B1" ] &&
   [ "${3:-0}" -ge $((NTH * 100)) ] && [ "${3:-0}" -le "$C1" ] && [ "$B1" = "$C1" ]; then
	pass "armed while $NTH threads ran them: exit 0, beta $2 and gamma_leaf $3 traced (made $B1), alpha never"
else
	echo "status $st; traced alpha beta gamma: $got; made $A1 $B1 $C1" >> err
	fail "arming while threads run" err
fi

# Forms c and p are written only at start-up: a tracer ctl turns on later refuses them, and
# info names each.  The proof here is patchverify's (the oracle script writes forms a and b
# only); which functions are c or p is read from it, and none of those is ever written.
"$PV" --noflag --proof v.proof ctlspin > pv.out 2>&1
# (info lists them by site address.)
cp_sites=$(python3 -c 'import sys
s = [l.split() for l in open(sys.argv[1]) if l.startswith("site ")]
print(" ".join(r[-1] for r in sorted(s, key=lambda r: int(r[3], 16)) if r[2] in "cp"))' v.proof)
want=$(echo "$cp_sites" | sed 's/ /, /g')
start_spin late v.proof 2
"$PS" ctl "$SPID" set_ftrace_filter "$cp_sites beta" >>err 2>&1 &&
	"$PS" ctl "$SPID" current_tracer function > ctl.out 2>&1
stop_spin
"$PS" info -d late > info.txt 2>>err
n=$(echo $cp_sites | wc -w)
said=0
for f in $cp_sites; do
	grep -q "^patchsite: ctl: pid $SPID: warning: ctlspin: $f (site 0x[0-9a-f]*): window-after-start-up " \
		ctl.out && said=$((said + 1))
done
if [ $st = 0 ] && [ "$n" -ge 1 ] && grep -q "^        window-after-start-up ($n): $want$" info.txt &&
   [ "$said" = "$n" ] && [ "$(wc -l < ctl.out)" = "$((n + 1))" ] &&
   grep -q "^patchsite: ctl: pid $SPID: warning: ctlspin: $n no-flag sites of several instructions (forms c, p) refused: window-after-start-up " ctl.out; then
	pass "ctl after start-up: the $n form c/p sites ($want) named in info and by ctl as window-after-start-up, and counted"
else
	cat ctl.out info.txt >> err
	fail "ctl after start-up: form c/p sites ($cp_sites) not named" err
fi

# The noflag file on a full disk (/dev/full behind its name, after start-up): the lines the same
# ctl writes are lost, said once on the program's stderr and counted for info.  Oracle: the
# form c/p sites patchverify's proof has (each refused, a line each) and beta armed (a line).
start_spin full v.proof 2
nf=$(ls full/*/noflag)
rm -f "$nf" && ln -s /dev/full "$nf"
"$PS" ctl "$SPID" set_ftrace_filter "$cp_sites beta" >>err 2>&1 &&
	"$PS" ctl "$SPID" current_tracer function > ctl.out 2>&1
rm -f "$nf"	# (readers would read /dev/full's zeros for ever)
stop_spin
"$PS" info -d full > info.txt 2>>err
if [ $st = 0 ] && [ "$(grep -c 'noflag: writing it failed' err)" = 1 ] &&
   grep -q "^patchsite: $nf: writing it failed: No space left on device: 1 lines lost" err &&
   grep -q "^  lost:     $((n + 1)) lines of noflag " info.txt; then
	pass "noflag file on a full disk: said once on stderr, info counts its $((n + 1)) lines lost"
else
	cat info.txt >> err
	fail "noflag file on a full disk: exit $st" err
fi

# A forked child's noflag file has its proof too: the child's directory is new, so what the
# parent's file was told is not the child's (it was: the child's noflag file stayed empty).
# Oracle: the proof's sites, from objdump, in both processes' info; forktree.c's fork.
$CC -O2 -o forktree "$FORK" >build.log 2>&1 || fail "build forktree" build.log
objdump -d -w forktree > fdump.txt
python3 "$GEN" fdump.txt "$(readelf -n forktree | sed -n 's/.*Build ID: //p')" \
	"$(stat -c %s forktree)" "$T/forktree" leaf work spawn main > f.proof 2>gen.log
n=$(grep -c '^site ' f.proof)
record -d fk --tracer=function --no-libcall --noflag-proof f.proof ./forktree fork >/dev/null \
	2>err.txt
"$PS" info -d fk > info.txt 2>>err.txt
said=$(grep -c "^      no-flag sites from f.proof: $n proven, $n armed, 0 refused$" info.txt)
if [ "$n" -ge 3 ] && [ "$(grep -c '^process ' info.txt)" = 2 ] && [ "$said" = 2 ]; then
	pass "fork: both processes' info has the proof's $n sites"
else
	cat info.txt >> err.txt
	fail "fork: the proof in $said of 2 processes' info" err.txt
fi

# An object dlopened after start-up (testdata/noflag_rt/nfdl.c, loaded by nfdlmain.c once main
# runs): its proof is taken then.  Its one-instruction site (nf_work, form b in the proof) is
# written through the breakpoint protocol; its window (nf_leaf, form c: 4 + 1 bytes) is refused
# by name (window-after-start-up), counted and named on stderr and in info.  Oracles: the
# untraced run; gdb's hit counts of breakpoints at the entries (set once gdb stops at the
# library's load); the proof's forms (patchverify's, checked against objdump's lengths here).
# nf_leaf is still counted, as a library call: nf_work calls it through the PLT (a thunk).
$CC -O2 -fPIC -shared -o libnfdl.so "$PWD_SRC/testdata/noflag_rt/nfdl.c" > build.log 2>&1 &&
	$CC -O2 -o nfdlmain "$PWD_SRC/testdata/noflag_rt/nfdlmain.c" >> build.log 2>&1 ||
	fail "build nfdlmain" build.log
"$PV" --noflag --proof dl.proof libnfdl.so > pv.out 2>&1
run ./nfdlmain > want.out 2>&1
want_rc=$?
record -d tdl --tracer=function -F 'nf_*:mod:libnfdl.so' --noflag-proof dl.proof ./nfdlmain \
	> got.out 2> err.txt
rc=$?
"$PS" report -d tdl --json > rep.json 2>> err.txt
"$PS" info -d tdl > info.txt 2>> err.txt
cat > dl.gdb <<'GDB'
set pagination off
set confirm off
catch load libnfdl
run > gdb.run
delete 1
break *nf_work
commands
silent
continue
end
break *nf_leaf
commands
silent
continue
end
continue
info breakpoints
GDB
gdb -batch -x dl.gdb ./nfdlmain > dl.gdb.out 2>&1
awk '/<nf_work/ { f = "nf_work" } /<nf_leaf/ { f = "nf_leaf" }
     /breakpoint already hit/ { print f, $4 }' dl.gdb.out | sort > gdb.counts
python3 -c 'import json, sys
c = {f["name"]: f["calls"] for f in json.load(open(sys.argv[1]))}
print("nf_leaf", c.get("nf_leaf", 0)); print("nf_work", c.get("nf_work", 0))' rep.json > ps.counts 2>> err.txt
leaf=$(objdump -d libnfdl.so | awk '/<nf_leaf>:/ { on = 1; next } on && NF == 0 { exit }
	on { n++ } END { print n }')
if [ $rc = $want_rc ] && cmp -s want.out got.out && cmp -s want.out gdb.run &&
   grep -q '^site [0-9a-f]* b .* nf_work$' dl.proof && grep -q '^site [0-9a-f]* c .* 4,1 nf_leaf$' dl.proof &&
   [ "$leaf" -ge 2 ] && cmp -s gdb.counts ps.counts &&
   [ "$(awk '$1 == "nf_work" { print $2 }' gdb.counts)" = 3 ] &&
   grep -q 'libnfdl.so: nf_leaf (site 0x[0-9a-f]*): window-after-start-up ' err.txt &&
   grep -q 'libnfdl.so: 1 no-flag sites of several instructions (forms c, p) refused: window-after-start-up ' err.txt &&
   grep -q '^        window-after-start-up (1): nf_leaf$' info.txt; then
	pass "dlopened later: nf_work (form b) traced as often as gdb counts ($(tr '\n' ' ' < ps.counts)); nf_leaf's window refused by name; output as untraced"
else
	{ echo "exit $rc (untraced $want_rc); gdb: $(cat gdb.counts | tr '\n' ' '); traced: $(cat ps.counts)"
	  diff want.out got.out; grep nf_ dl.proof; cat info.txt; } >> err.txt
	fail "dlopened later: not as the proof and gdb say" err.txt
fi

echo "$PASS passed, $FAIL failed"
[ "$FAIL" = 0 ]
