#!/bin/sh
# Run each fuzz harness in turn for a bounded time (never two at once: the
# machine is shared), niced, and print its executions per second and total.
#   tests/fuzz/run.sh FUZZ_DIR SECONDS SAMPLE.o HARNESS...
# Seeds: the golden objects of every arch, the unit tests' sample, a linked
# executable and a shared library (for patchverify), patchverify's test
# inputs (linked aarch64 and arm files among them), and every kept bad
# input.  A finding stops that harness and leaves its input in
# FUZZ_DIR/artifacts/; the script then exits 1.
# FUZZ_CI=RUNS: the bounded run CI does instead: a fixed seed, RUNS
# executions from the seeds alone in a fresh corpus (SECONDS only caps it),
# so it fails only on a real bug.  Not the same run on every machine:
# libFuzzer orders equal-sized seeds as the directory lists them, so CI
# once found (lib/arch/aarch64.c, a negative adrp) what runs here missed;
# keep such a finding as a unit case or in testdata/bad/.
# Not a suite (no suite_init): it counts executions, not checks, and its corpus and
# artifacts outlive the run, so no temporary directory of lib.sh's.
set -u
dir=$1 secs=$2 sample=$3
ci=${FUZZ_CI:-}
shift 3
seeds=$dir/seeds
mkdir -p "$seeds" "$dir/artifacts"
for f in testdata/obj/*/*.o testdata/recordmcount/*.o testdata/verify/*.o \
	 testdata/verify/*-exe* testdata/verify/*-pie testdata/verify/*.so "$sample" \
	 testdata/patchsite/branches.seed testdata/patchsite/profile.seed testdata/patchsite/probe*.seed; do
	[ -f "$f" ] && cp "$f" "$seeds/$(echo "$f" | tr / _)"
done
for f in testdata/bad/*; do
	case $f in *.txt|*README*) continue ;; esac
	[ -f "$f" ] && cp "$f" "$seeds/bad_${f##*/}"
done
if command -v gcc >/dev/null 2>&1 && [ ! -f "$seeds/linked.exe" ]; then
	gcc -O2 -pg -mfentry -mrecord-mcount testdata/demo/sample.c -o "$seeds/linked.exe" 2>/dev/null
	gcc -O2 -shared -fPIC -pg -mfentry -mrecord-mcount testdata/demo/sample.c \
		-o "$seeds/linked.so" 2>/dev/null
	gcc -O2 -fpatchable-function-entry=5 -c testdata/demo/sample.c \
		-o "$seeds/patchable.o" 2>/dev/null
fi
status=0
for h in "$@"; do
	corpus=$dir/corpus/$h
	bound=
	if [ -n "$ci" ]; then
		corpus=$dir/ci-corpus/$h
		rm -rf "$corpus"
		runs=$ci
		# The trace reader writes a directory per run: fewer runs.
		[ "$h" = psread ] && runs=${FUZZ_CI_PSREAD_RUNS:-20000}
		[ "$h" = ctlproto ] && runs=${FUZZ_CI_CTLPROTO_RUNS:-100000}
		bound="-seed=1 -runs=$runs"
	fi
	mkdir -p "$corpus"
	log=$dir/$h${ci:+-ci}.log
	echo "fuzz_$h: ${secs}s${ci:+ at most, $runs runs, seed 1}"
	nice -n 19 "$dir/fuzz_$h" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$dir/artifacts/$h-" $bound \
		"$corpus" "$seeds" >"$log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
	echo "fuzz_$h: ${runs:-?} executions, ${rate:-?}/s, corpus $(ls "$corpus" | wc -l)"
	if [ $rc -ne 0 ]; then
		echo "fuzz_$h: FINDING (exit $rc), see $log:"
		grep -E 'ERROR|SUMMARY|runtime error|Test unit written' "$log" | head -5
		status=1
	fi
done
exit $status
