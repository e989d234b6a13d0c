#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Attach at the worst moments, many times, beside a load on both cores (issue 44):
#   attach_stress.sh BUILD_DIR [N]      (make check-attach-stress; .ci/run runs it)
#
# N fresh processes (default 1000), each attached to once: every attachable build form
# in turn (-pg -mfentry -mrecord-mcount as a PIE and not, -mnop-mcount, plain -pg
# linked without -pg) of two programs: attachstress.c (in
# malloc, in a SIGALRM handler running its own code, in dlopen/dlclose, and a spinning
# thread, all the time) and attachtrap.c (a SIGTRAP handler of its own and an int3 of
# its own every millisecond).  The attach comes 0 to 90 ms after the exec (while the
# loader runs, at main, in the loops); then the tracer goes on and off again (two live
# changes of every site), and the program is told to end.  The oracle is the program:
# each must exit 0 on its own, print its "ok" line, and have a SIGTRAP handler in place
# after the attach (SigCgt); a death, a hang (30 s) or a failed ctl is counted and shown.
# Two busy loops run beside it the whole time.  Prints the count and the time.
set -u
. tests/patchsite/lib.sh	# suite_init, fail, summary; only_x86_64, build_form
only_x86_64 attach_stress.sh "attach is implemented for x86-64 only"
suite_init attachstress "${1:-build}" plain
N=${2:-1000}
trap 'exit 1' INT TERM HUP	# the loads (BG) go too when it is stopped
# A loaded machine may run none of a target's threads for seconds (as attach.sh).
export PATCHSITE_ATTACH_WAIT=30000
FORMS=${STRESS_FORMS:-"pie nopie nop pg"}
for form in $FORMS; do
	case $form in	# lib.sh's name of the form
	nopie) lf=nonpie ;;
	pg) lf=pgpie ;;
	*) lf=$form ;;
	esac
	for prog in attachstress attachtrap; do
		build_form "$T/$prog-$form" $lf testdata/patchsite/$prog.c -- -pthread ||
			{ fail "build $prog-$form" "$T/build.log"; summary; exit 1; }
	done
done
cd "$T" || exit 1
FAIL_LINES=12
for _ in 1 2; do
	sh -c 'while :; do :; done' &
	BG="$BG $!"
done
t0=$(date +%s)
i=0 ok=0 deaths=0 hangs=0 ctlfail=0 nohandler=0
set -- $FORMS
while [ $i -lt "$N" ]; do
	nf=$#
	form=$(eval echo "\${$((i % nf + 1))}")
	if [ $((i / nf % 2)) = 0 ]; then
		prog=attachstress args="30 spin"
	else
		prog=attachtrap args=own
	fi
	# shellcheck disable=SC2086
	env -i ./$prog-$form $args >out 2>&1 &
	P=$!
	# from the exec of the program (not of env, nor the shell's fork before it)
	for _ in $(seq 1000); do
		case $(readlink /proc/$P/exe 2>/dev/null) in */$prog-$form) break ;; esac
	done
	sleep "0.0$((i % 10))"
	"$PS" ctl $P current_tracer function >ctl 2>&1 && c1=0 || c1=1
	cgt=$(sed -n 's/^SigCgt:[[:space:]]*//p' /proc/$P/status 2>/dev/null)
	"$PS" ctl $P current_tracer nop >>ctl 2>&1 && c2=0 || c2=1
	# its SIGUSR2 handler is set before "ready" (an attach may come before its main)
	for _ in $(seq 300); do grep -q '^ready' out && break; sleep 0.1; done
	kill -USR2 $P 2>/dev/null
	for _ in $(seq 300); do kill -0 $P 2>/dev/null || break; sleep 0.1; done
	hung=0
	if kill -0 $P 2>/dev/null; then
		hung=1
		kill -9 $P
	fi
	wait $P; st=$?
	what=
	if [ $hung = 1 ]; then
		hangs=$((hangs + 1)) what="hung"
	elif [ $st -ne 0 ]; then
		deaths=$((deaths + 1)) what="status $st"
	elif ! grep -q '^ok ' out; then
		deaths=$((deaths + 1)) what="no ok line"
	elif [ $c1 != 0 ] || [ $c2 != 0 ]; then
		ctlfail=$((ctlfail + 1)) what="ctl failed"
	elif [ $(( 0x${cgt:-0} >> 4 & 1 )) != 1 ]; then
		nohandler=$((nohandler + 1)) what="no SIGTRAP handler after the attach (SigCgt ${cgt:-none})"
	else
		ok=$((ok + 1))
	fi
	if [ -n "$what" ]; then
		fail "attach $i ($prog-$form, $((i % 10 * 10)) ms): $what" ctl out
	fi
	i=$((i + 1))
done
secs=$(($(date +%s) - t0))
echo "attach stress: $N attaches in $secs s beside 2 busy loops: $ok exited 0 with their output," \
	"$deaths deaths, $hangs hangs, $ctlfail failed ctl, $nohandler without a SIGTRAP handler"
PASS=$ok FAIL=$((N - ok))
summary
