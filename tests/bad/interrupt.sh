#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# recordmcount's rewrite is all or nothing.  An object it updates in place
# (a 300-function object, made here with gcc), under strace's fault
# injection at every system call, one run per call:
#   - SIGKILL before each call: the object is the original, the original
#     with bytes after its end that nothing names (the tail is written
#     before the ELF header that points to it), or the result; a run after
#     the kill always completes the job;
#   - each write failing (ENOSPC), and the cut-back failing too: one clear
#     error, exit 2, the original as it was (or, when even the cut-back
#     failed, the original with its unnamed tail: still the old object);
#   - a hard link (the other name keeps the original) and a symlink (its
#     target is not written) are replaced, not written into.
# On a large object (thousands of -ffunction-sections functions, whose old
# header table would leave too much behind, so it is replaced):
#   - SIGKILL at random points: the object is always either the original or
#     the finished result.  The new file is unnamed (O_TMPFILE) until just
#     before the rename, so only a kill between linkat() and rename() (or,
#     where O_TMPFILE is missing, between mkstemp() and rename()) can leave
#     the temporary ".NAME.XXXXXX"; the next run must not be confused by
#     it, and it never replaces NAME;
#   - a full disk (a small tmpfs): the original intact, one clear error, no
#     temporary left;
#   - concurrent runs on different objects of one directory never collide;
#   - symlinks planted at the names a naive tool would use are never
#     followed, nor is a symlink given as the -o output.
#
#   sh tests/bad/interrupt.sh BUILD_DIR [KILLS]     (default 100 kills)
set -u
B=${1:-build}
KILLS=${2:-100}
RMC=$(cd "$B" && pwd)/recordmcount
[ -x "$RMC" ] || { echo "tests/bad: $RMC is missing" >&2; exit 2; }
. tests/patchsite/lib.sh	# suite_init, on_exit, pass, fail, skip, summary
suite_init interrupt "$B"
command -v gcc >/dev/null 2>&1 || { skip "interrupt tests: no gcc"; summary; exit 0; }
here=$(pwd)
work=$T
mounts=
on_exit 'cd /; for m in $mounts; do umount "$m" 2>/dev/null; done'

cd "$work" || exit 2
sh "$here/testdata/src/genbig.sh" 3000 >big.c
gcc -O1 -pg -mfentry -fno-pie -ffunction-sections -c big.c -o orig.o || exit 2
cp orig.o ref.o && "$RMC" ref.o || { echo "tests/bad: the large object fails" >&2; exit 2; }
cmp -s orig.o ref.o && { echo "tests/bad: recordmcount changed nothing" >&2; exit 2; }

# How long one run takes, in microseconds (the kill points spread over 1.5x that).
t0=$(date +%s%N)
for i in 1 2 3 4 5; do cp orig.o t.o && "$RMC" t.o; done
t1=$(date +%s%N)
span=$(( (t1 - t0) / 5000 * 3 / 2 ))
[ "$span" -lt 1000 ] && span=1000
rm -f t.o

# --- In place: a kill or a failed write at every system call ------------------
# Oracles: cmp against the input and a finished run's output; readelf's view
# of the object (section contents, symbols, relocations, without file
# offsets) for "the same object" where only the placement may differ.
view() {
	{ readelf -W -s -r "$1" | sed 's/ at offset 0x[0-9a-f]*//'; objdump -s "$1" | tail -n +3; } 2>&1
}
# strace: LeakSanitizer cannot run under ptrace (a SAN build), so not at exit.
st() { ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace "$@"; }
if command -v strace >/dev/null 2>&1 && strace -o /dev/null -e inject=none:error=EIO true 2>/dev/null; then
	sh "$here/testdata/src/genbig.sh" 300 >small.c
	gcc -O1 -pg -mfentry -fno-pie -c small.c -o sorig.o || exit 2
	ssize=$(stat -c %s sorig.o)
	cp sorig.o sref.o
	st -o trace -e trace=openat,pwrite64,rename "$RMC" sref.o || exit 2
	why=
	grep -q 'O_TMPFILE\|rename(' trace && why="not updated in place: $(grep 'O_TMPFILE\|rename(' trace | head -1)"
	grep -q "pwrite64(.*, $ssize) = " trace || why="${why:-the tail is not written at the old end ($ssize)}"
	# Every system call of a run, as NAME:N (its Nth call of that name): strace
	# counts each name on its own, so each kill point is one such pair.
	cp sorig.o s.o && st -o trace "$RMC" s.o || exit 2
	points=$(sed -n 's/^\([a-z_0-9]*\)(.*/\1/p' trace | awk '{ print $1 ":" ++n[$1] }')
	nsys=$(echo "$points" | wc -l)
	[ -z "$why" ] && ! cmp -s s.o sref.o && why="two runs on the same input differ"
	views=$(view sref.o)
	states=
	for p in $points; do
		[ -n "$why" ] && break
		cp sorig.o s.o
		st -o /dev/null -e inject=${p%:*}:signal=KILL:when=${p#*:} "$RMC" s.o 2>/dev/null
		if cmp -s s.o sorig.o; then state=original
		elif cmp -s s.o sref.o; then state=finished
		elif cmp -s -n "$ssize" s.o sorig.o && [ "$(view s.o)" = "$(view sorig.o)" ]; then
			state=original+tail
		else why="killed before $p: s.o is neither the original nor the result"; break
		fi
		case " $states " in *" $state "*) ;; *) states="$states $state" ;; esac
		"$RMC" s.o 2>err || { why="after a kill before $p ($state): exit $?: $(head -1 err)"; break; }
		[ "$(view s.o)" = "$views" ] || why="after a kill before $p ($state): the next run's object differs"
	done
	case $states in *original+tail*) ;; *) why="${why:-no kill fell between the tail and the header: states$states}" ;; esac
	if [ -n "$why" ]; then fail "in place: SIGKILL before each of $nsys calls: $why"
	else pass "in place: SIGKILL before each of $nsys calls: original, original+tail or finished; the next run completes"; fi

	why=
	for n in 1 2; do	# the tail's write, then the header's
		cp sorig.o s.o
		st -o /dev/null -e inject=pwrite64:error=ENOSPC:when=$n "$RMC" s.o 2>err
		rc=$?
		[ $rc -eq 2 ] || why="pwrite $n failing: exit $rc"
		[ -z "$why" ] && { [ "$(wc -l <err)" -ne 1 ] ||
			! grep -q "^recordmcount: s.o: error: cannot write: No space left on device" err; } &&
			why="pwrite $n failing: stderr: $(tr '\n' '|' <err)"
		[ -z "$why" ] && ! cmp -s s.o sorig.o && why="pwrite $n failing: the object was not cut back"
		[ -n "$why" ] && break
	done
	if [ -z "$why" ]; then
		cp sorig.o s.o
		st -o /dev/null -e inject=pwrite64:error=ENOSPC:when=2 -e inject=ftruncate:error=EIO \
			"$RMC" s.o 2>err
		rc=$?
		[ $rc -eq 2 ] || why="cut-back failing: exit $rc"
		[ -z "$why" ] && ! grep -q "cannot cut back what was appended: Input/output error" err &&
			why="cut-back failing: stderr: $(tr '\n' '|' <err)"
		[ -z "$why" ] && [ "$(view s.o)" != "$(view sorig.o)" ] &&
			why="cut-back failing: the object is not the original one"
	fi
	if [ -n "$why" ]; then fail "in place: failed writes: $why"
	else pass "in place: a failed write leaves the original (cut back; if that fails too, still the old object)"; fi

	why=
	cp sorig.o h1.o && ln h1.o h2.o && "$RMC" h1.o 2>err || why="hard link: exit $?: $(head -1 err)"
	[ -z "$why" ] && ! cmp -s h2.o sorig.o && why="the other hard link changed"
	[ -z "$why" ] && ! cmp -s h1.o sref.o && why="the hard-linked object is not the result"
	cp sorig.o target.o && ln -s target.o link.o
	[ -z "$why" ] && { "$RMC" link.o 2>err || why="symlink: exit $?: $(head -1 err)"; }
	[ -z "$why" ] && ! cmp -s target.o sorig.o && why="the symlink's target was written"
	[ -z "$why" ] && { [ -L link.o ] || ! cmp -s link.o sref.o; } && why="the symlink was not replaced by the result"
	if [ -n "$why" ]; then fail "in place: hard link and symlink replaced: $why"
	else pass "in place: a hard link and a symlink are replaced, never written through"; fi
	rm -f s.o h1.o h2.o target.o link.o trace count err
else
	skip "in place under fault injection: no strace with -e inject"
fi

# --- SIGKILL at random points ------------------------------------------------
killed=0 finished=0 leftovers=0 why=
i=0
while [ $i -lt "$KILLS" ]; do
	i=$((i + 1))
	cp orig.o big.o
	delay=$(awk -v s="$span" -v seed="$i$$" 'BEGIN { srand(seed); printf "%.6f", rand() * s / 1e6 }')
	"$RMC" big.o 2>err &
	pid=$!
	sleep "$delay"
	kill -9 $pid 2>/dev/null
	{ wait $pid; } 2>/dev/null	# no "Killed" from the shell
	rc=$?
	# The span follows the machine: a run that finished first shortens it, a kill lengthens it a
	# little, so a load that changes during the test (other jobs) still leaves kills to check.
	case $rc in
	0) finished=$((finished + 1)); span=$((span * 4 / 5)); [ "$span" -lt 1000 ] && span=1000 ;;
	137) killed=$((killed + 1)); span=$((span * 21 / 20)) ;;
	*) why="run $i: exit $rc: $(head -1 err)"; break ;;
	esac
	if cmp -s big.o orig.o; then state=original
	elif cmp -s big.o ref.o; then state=finished
	else why="run $i (killed after ${delay}s): big.o is neither the original nor the result"; break
	fi
	left=$(ls -A | grep '^\.big\.o\.' || true)
	if [ -n "$left" ]; then
		[ $rc = 137 ] || { why="run $i finished and left $left"; break; }
		leftovers=$((leftovers + 1))
		# The leftover is mkstemp's: ".big.o." and six random characters.
		case $left in .big.o.??????) ;; *) why="run $i: odd leftover name $left"; break ;; esac
	fi
	# The next run is not confused by a leftover and completes the job.
	"$RMC" big.o 2>err
	rc=$?
	if [ $rc -ne 0 ] || ! cmp -s big.o ref.o; then
		why="run $i: the run after a kill ($state) gave exit $rc: $(head -1 err)"
		break
	fi
	if [ -n "$left" ] && [ "$(ls -A | grep '^\.big\.o\.')" != "$left" ]; then
		why="run $i: the leftover $left changed or another appeared"
		break
	fi
	rm -f .big.o.??????
done
echo "      $i runs: $killed killed, $finished finished before the kill, $leftovers left a temporary"
if [ -n "$why" ]; then
	fail "SIGKILL at random points: $why"
elif [ $killed -lt $((KILLS / 5)) ]; then
	fail "SIGKILL at random points: only $killed of $KILLS runs were interrupted"
else
	pass "SIGKILL at random points: always the original or the result"
fi

# --- Full disk -------------------------------------------------------------------
size=$(stat -c %s orig.o)
mkdir full
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=$(( (size + 65536) / 1024 ))k tmpfs full 2>/dev/null
then
	mounts="$work/full $mounts"
	cp orig.o full/big.o
	"$RMC" full/big.o 2>err
	rc=$?
	why=
	[ $rc -eq 2 ] || why="exit $rc, expected 2"
	[ -z "$why" ] && [ "$(wc -l <err)" -ne 1 ] && why="$(wc -l <err) lines on stderr"
	[ -z "$why" ] && ! grep -q "^recordmcount: full/big.o: error: .*No space left on device" err &&
		why="message: $(head -1 err)"
	[ -z "$why" ] && ! cmp -s full/big.o orig.o && why="the original changed"
	[ -z "$why" ] && [ -n "$(ls -A full | grep -v '^big.o$')" ] && why="left $(ls -A full)"
	if [ -n "$why" ]; then fail "full disk: $why"; else pass "full disk: original intact: $(cat err)"; fi
else
	skip "full disk: needs root (mount -t tmpfs)"
fi

# --- Concurrent runs in one directory ---------------------------------------------
mkdir conc
why=
i=0
while [ $i -lt 20 ] && [ -z "$why" ]; do
	i=$((i + 1))
	for n in 1 2 3 4; do cp orig.o conc/o$n.o; done
	for n in 1 2 3 4; do "$RMC" conc/o$n.o 2>conc.err$n & done
	wait
	for n in 1 2 3 4; do
		cmp -s conc/o$n.o ref.o || why="round $i: o$n.o is not the result: $(head -1 conc.err$n)"
	done
	[ -z "$why" ] && [ "$(ls -A conc | wc -l)" -ne 4 ] && why="round $i: left $(ls -A conc)"
done
if [ -n "$why" ]; then fail "concurrent runs: $why"; else pass "concurrent runs: 20 rounds of 4, no collision"; fi

# --- Planted symlinks ---------------------------------------------------------------
mkdir plant
echo "do not touch" >victim
cp orig.o plant/a.o
for n in a.o.tmp .a.o.tmp a.o~ a.o.new .a.o.XXXXXX .a.o.000000 a.o.o; do
	ln -s "$work/victim" "plant/$n"
done
"$RMC" plant/a.o 2>err
rc=$?
why=
[ $rc -eq 0 ] || why="exit $rc: $(head -1 err)"
[ -z "$why" ] && [ "$(cat victim)" != "do not touch" ] && why="the symlinks' target was written"
[ -z "$why" ] && ! cmp -s plant/a.o ref.o && why="a.o not processed"
[ -z "$why" ] && [ "$(find plant -type l | wc -l)" -ne 7 ] && why="a planted link was replaced"
# The temporary is either unnamed (O_TMPFILE) and then named with linkat,
# which fails on an existing name instead of following it, or opened
# O_CREAT|O_EXCL (mkstemp, where O_TMPFILE is missing): a link there fails.
if [ -z "$why" ] && command -v strace >/dev/null 2>&1; then
	cp orig.o plant/b.o
	strace -f -e trace=open,openat,linkat -o trace "$RMC" plant/b.o 2>/dev/null
	if grep -q '"plant/".*O_TMPFILE' trace; then
		grep -q 'linkat(.*"plant/\.b\.o\.[A-Za-z0-9]\{6\}"' trace ||
			why="the unnamed temporary is not named with linkat: $(grep linkat trace)"
	else
		grep -q 'plant/\.b\.o\.[A-Za-z0-9]\{6\}".*O_CREAT|O_EXCL' trace ||
			why="the temporary is not opened O_CREAT|O_EXCL: $(grep 'plant/\.b' trace)"
	fi
fi
# A symlink as the -o output is replaced, never written through.
ln -s "$work/victim" plant/out.o
[ -z "$why" ] && { "$RMC" -o plant/out.o orig.o 2>err || why="-o: exit $?: $(head -1 err)"; }
[ -z "$why" ] && [ "$(cat victim)" != "do not touch" ] && why="-o wrote through a symlink"
[ -z "$why" ] && { [ -L plant/out.o ] || ! cmp -s plant/out.o ref.o; } && why="-o output wrong"
if [ -n "$why" ]; then fail "planted symlinks: $why"; else pass "planted symlinks never followed"; fi

summary
