#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# recordmcount's rewrite is all or nothing.  On a large object (thousands of
# -ffunction-sections functions, made here with gcc):
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
command -v gcc >/dev/null 2>&1 || { echo "skip  interrupt tests: no gcc"; echo "0 passed, 0 failed"; exit 0; }
here=$(pwd)
work=$(mktemp -d /tmp/check-interrupt.XXXXXX) || exit 2
mounts=
cleanup() {
	cd /
	for m in $mounts; do umount "$m" 2>/dev/null; done
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 2' INT TERM

pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok    $1"; }
nok() { fail=$((fail + 1)); echo "FAIL  $1: $2"; }

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
	case $rc in
	0) finished=$((finished + 1)) ;;
	137) killed=$((killed + 1)) ;;
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
	nok "SIGKILL at random points" "$why"
elif [ $killed -lt $((KILLS / 5)) ]; then
	nok "SIGKILL at random points" "only $killed of $KILLS runs were interrupted"
else
	ok "SIGKILL at random points: always the original or the result"
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
	if [ -n "$why" ]; then nok "full disk" "$why"; else ok "full disk: original intact: $(cat err)"; fi
else
	echo "skip  full disk: needs root (mount -t tmpfs)"
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
if [ -n "$why" ]; then nok "concurrent runs" "$why"; else ok "concurrent runs: 20 rounds of 4, no collision"; fi

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
if [ -n "$why" ]; then nok "planted symlinks" "$why"; else ok "planted symlinks never followed"; fi

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
