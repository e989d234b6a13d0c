#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Golden tests for recordmcount.
#
#   sh tests/golden/run.sh BUILD_DIR [ARCH/CASE...]
#
# For every committed object testdata/obj/<arch>/<case>.o (or .o.xz) with an
# expected table testdata/expected/<arch>/<case>.sites (or .sites.xz), in a
# fresh temporary directory:
#   1. run BUILD_DIR/recordmcount on a copy: exit status 0;
#   2. tests/mcloc.py --strict on the result (one absolute-word relocation
#      per table word, RELA words 0) and `diff -u` with the expected table;
#   3. the section headers (tests/golden/check.py headers): __mcount_loc
#      PROGBITS, flags A, align = entsize = word; .rel[a]__mcount_loc of the
#      object's kind, link .symtab, info __mcount_loc; the last two sections;
#   4. the NOPs of <case>.nops: bytes and R_*_NONE relocation;
#   5. no other code byte changed; on RISC-V, no table entry spans code the
#      linker may relax (check.py relax);
#   6. a second run leaves the file byte-identical (exit 0);
#   7. a run on a second copy gives the same bytes;
#   8. -w gives the same bytes and names every untraced section with calls.
# Cases marked "untouched" (the object already has a table) must exit 0 and
# leave the file unchanged; cases marked "expect: failure" must exit non-zero,
# say why, and leave the file unchanged.  Then two multi-file runs: "multi",
# three arches in one call (each must come out as when run alone), and
# "multi-bad", a bad file in the middle (the others are still processed, exit
# status non-zero).  ARCH/CASE arguments are shell patterns (x86_64/\*, multi).
#
# Each expected file says in its header which oracle made it (gcc's
# -mrecord-mcount table or the relocation list, never our tool) and how the
# kernel's recordmcount compares; testdata/build.sh made them.
#
# Environment:
#   RECORDMCOUNT=path   test another binary, e.g. the kernel's
#                       /usr/lib/linux-kbuild-6.1/scripts/recordmcount
#   GOLDEN_KERNEL_OK=1  only the cases where the kernel's tool is right
#                       (header "kernel recordmcount ...: agrees")
#   GOLDEN_VERBOSE=1    print every failure in full
# Output: one line per case, then "N passed, M failed"; exit 1 on a failure.
set -u

if [ $# -lt 1 ]; then
	echo "usage: sh tests/golden/run.sh BUILD_DIR [ARCH/CASE...]" >&2
	exit 2
fi
B=$1
shift
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
TOOL=${RECORDMCOUNT:-$B/recordmcount}
case $TOOL in /*) ;; *) TOOL=$(pwd)/$TOOL ;; esac
TD=$root/testdata
PY=${PYTHON:-python3}
# Resolve the interpreter once: version-manager shims cost a shell per call.
PY=$($PY -c 'import sys; print(sys.executable)' 2>/dev/null) || PY=python3
MCLOC="$PY $root/tests/mcloc.py"
CHECK="$PY $here/check.py"
export LC_ALL=C
# No __pycache__ next to the sources.
export PYTHONDONTWRITEBYTECODE=1
TIMEOUT=
command -v timeout >/dev/null 2>&1 && TIMEOUT="timeout 300"

. "$root/tests/patchsite/lib.sh"	# suite_init, pass, fail, summary
suite_init golden "$B"
tmp=$T
# A failure shows its first 40 lines of findings (GOLDEN_VERBOSE=1: all of them).
FAIL_LINES=40
[ "${GOLDEN_VERBOSE:-0}" = 1 ] && FAIL_LINES=1000000000

# Keep the case when no ARCH/CASE arguments were given, or one matches.
wanted() {
	[ $# -gt 1 ] || return 0
	n=$1
	shift
	for p in "$@"; do
		# shellcheck disable=SC2254
		case $n in $p) return 0 ;; esac
	done
	return 1
}

# unpack SRC DST: copy a file, or uncompress SRC.xz.
unpack() {
	if [ -f "$1" ]; then
		cp "$1" "$2"
	elif [ -f "$1.xz" ]; then
		xz -dc "$1.xz" >"$2"
	else
		return 1
	fi
}

# tool DIR ARGS...: run the tool in DIR; output in DIR/out, status in $rc.
tool() {
	td=$1
	shift
	# An inner shell waits for the tool, so that its notice of a crash
	# ("Segmentation fault") lands in DIR/out too, and exits with its status.
	# shellcheck disable=SC2016,SC2086
	sh -c 'cd "$1" && shift && "$@"; exit $?' sh "$td" $TIMEOUT "$TOOL" "$@" >"$td/out" 2>&1
	rc=$?
}

err() {
	echo "$*" >>"$errs"
}

# errfile FILE TITLE: add a file's lines, indented, to the failure report.
errfile() {
	echo "$2" >>"$errs"
	if [ -s "$1" ]; then
		sed 's/^/    /' "$1" >>"$errs"
	else
		echo "    (nothing)" >>"$errs"
	fi
}

report() {
	if [ -s "$errs" ]; then
		fail "$1" "$errs"
		[ "$(wc -l <"$errs")" -le "$FAIL_LINES" ] || echo "    ... (GOLDEN_VERBOSE=1 shows all)"
	else
		pass "$1"
	fi
}

# check_table OBJ EXPECTED DIR: the table and the file's shape.
check_table() {
	if ! $MCLOC --strict "$1" >"$3/got" 2>"$3/strict"; then
		errfile "$3/strict" "tests/mcloc.py --strict: the table is malformed:"
	fi
	if ! diff -u --label expected --label got "$2" "$3/got" >"$3/diff"; then
		errfile "$3/diff" "table differs from the expected one (diff -u expected got):"
	fi
	# The normalizer's two ways to read relocations must agree (a check of
	# tests/mcloc.py itself; the big objects use --raw anyway).
	if [ "$(wc -c <"$1")" -lt 1000000 ]; then
		$MCLOC --raw "$1" >"$3/got.raw" 2>/dev/null
		cmp -s "$3/got" "$3/got.raw" ||
			err "tests/mcloc.py: --raw and readelf -rW read the table differently"
	fi
}

run_case() {
	arch=$1 name=$2
	d=$tmp/$arch-$name
	mkdir -p "$d/a" "$d/b" "$d/w"
	errs=$d/errs
	: >"$errs"
	unpack "$TD/expected/$arch/$name.sites" "$d/expected.full"
	if ! unpack "$TD/obj/$arch/$name.o" "$d/orig.o"; then
		fail "$arch/$name: no object testdata/obj/$arch/$name.o[.xz]"
		return
	fi
	grep -v '^#' "$d/expected.full" >"$d/expected"
	tag=$(sed -n 's/^# tag: //p' "$d/expected.full")
	untraced=$(sed -n 's/^# untraced: //p' "$d/expected.full")
	nops=$TD/expected/$arch/$name.nops
	[ -f "$nops" ] || nops=
	label="$arch/$name (oracle: ${tag:-?})"

	cp "$d/orig.o" "$d/a/t.o"
	tool "$d/a" t.o
	if grep -q '^# expect: failure' "$d/expected.full"; then
		[ $rc -ne 0 ] || err "exit status 0, but the tool must refuse this object ($(sed -n 's/^# expect: failure: //p' "$d/expected.full"))"
		cmp -s "$d/orig.o" "$d/a/t.o" || err "the refused object was changed"
		[ -s "$d/a/out" ] || err "refused without a message"
		report "$label [refused]"
		return
	fi
	[ $rc -eq 0 ] || errfile "$d/a/out" "exit status $rc, expected 0; output:"

	if grep -q '^# untouched: yes' "$d/expected.full"; then
		cmp -s "$d/orig.o" "$d/a/t.o" || err "the object already had __mcount_loc but was changed"
		check_table "$d/a/t.o" "$d/expected" "$d"
		report "$label [untouched]"
		return
	fi

	check_table "$d/a/t.o" "$d/expected" "$d"
	# Section headers, NOPs of expected/$arch/$name.nops, other code bytes,
	# RISC-V relaxation.
	# shellcheck disable=SC2086
	$CHECK all "$d/orig.o" "$d/a/t.o" $nops >"$d/check" ||
		errfile "$d/check" "tests/golden/check.py all (headers, nops, code, relax):"

	# 6. A second run finds the table and leaves the file alone.
	cp "$d/a/t.o" "$d/b/again.o"
	tool "$d/b" again.o
	[ $rc -eq 0 ] || errfile "$d/b/out" "second run: exit status $rc, expected 0; output:"
	cmp -s "$d/a/t.o" "$d/b/again.o" || err "second run changed the file"

	# 7. Same input, same bytes.
	cp "$d/orig.o" "$d/b/t.o"
	tool "$d/b" t.o
	cmp -s "$d/a/t.o" "$d/b/t.o" || err "two runs on identical copies gave different files"

	# 8. -w warns about each untraced section and changes nothing else.
	cp "$d/orig.o" "$d/w/t.o"
	tool "$d/w" -w t.o
	[ $rc -eq 0 ] || errfile "$d/w/out" "-w: exit status $rc, expected 0; output:"
	cmp -s "$d/a/t.o" "$d/w/t.o" || err "-w gave a different file than without -w"
	for s in $untraced; do
		grep -qF -- "$s" "$d/w/out" || err "-w did not name untraced section $s"
	done
	report "$label"
}

# Several files in one call: each must come out as when processed alone.
run_multi() {
	d=$tmp/multi
	mkdir -p "$d/one"
	errs=$d/errs
	: >"$errs"
	set -- x86_64/fentry aarch64/pg ppc64le/pg
	i=0
	files=
	for c in "$@"; do
		i=$((i + 1))
		unpack "$TD/obj/$c.o" "$d/m$i.o"
		files="$files m$i.o"
	done
	# shellcheck disable=SC2086
	tool "$d" $files
	[ $rc -eq 0 ] || errfile "$d/out" "exit status $rc, expected 0; output:"
	i=0
	for c in "$@"; do
		i=$((i + 1))
		unpack "$TD/expected/$c.sites" "$d/e$i.full"
		grep -v '^#' "$d/e$i.full" >"$d/e$i"
		if ! $MCLOC "$d/m$i.o" >"$d/g$i" 2>&1 ||
			! diff -u --label expected --label got "$d/e$i" "$d/g$i" >"$d/diff$i"; then
			errfile "$d/diff$i" "file $i ($c): table differs from the expected one:"
		fi
		unpack "$TD/obj/$c.o" "$d/one/t.o"
		tool "$d/one" t.o
		cmp -s "$d/one/t.o" "$d/m$i.o" || err "file $i ($c): differs from a run on it alone"
	done
	report "multi: x86_64/fentry aarch64/pg ppc64le/pg in one call (oracle: their expected tables)"
}

# A file the tool must reject does not stop the others.  Same arch on both
# sides, so that the kernel's tool (which leaks state between arches) passes.
run_multibad() {
	d=$tmp/multibad
	mkdir -p "$d"
	errs=$d/errs
	: >"$errs"
	unpack "$TD/obj/x86_64/fentry.o" "$d/m1.o"
	echo "not an ELF object" >"$d/m2.o"
	unpack "$TD/obj/x86_64/pg.o" "$d/m3.o"
	tool "$d" m1.o m2.o m3.o
	[ $rc -ne 0 ] || err "exit status 0, although m2.o is not an object"
	for p in 1:x86_64/fentry 3:x86_64/pg; do
		i=${p%%:*}
		c=${p#*:}
		grep -v '^#' "$TD/expected/$c.sites" >"$d/e$i"
		$MCLOC "$d/m$i.o" >"$d/g$i" 2>&1
		diff -u --label expected --label got "$d/e$i" "$d/g$i" >"$d/diff$i" ||
			errfile "$d/diff$i" "file $i ($c): table differs from the expected one:"
	done
	report "multi: a bad file between two good ones (oracle: their expected tables)"
}

if [ ! -x "$TOOL" ]; then
	fail "no executable $TOOL (run make first)"
	summary
	exit 1
fi

for f in "$TD"/expected/*/*.sites "$TD"/expected/*/*.sites.xz; do
	[ -f "$f" ] || continue
	arch=$(basename "$(dirname "$f")")
	name=$(basename "$f")
	name=${name%.xz}
	name=${name%.sites}
	wanted "$arch/$name" "$@" || continue
	if [ "${GOLDEN_KERNEL_OK:-0}" = 1 ]; then
		if [ "${f%.xz}" != "$f" ]; then
			xz -dc "$f" | head -n 20 | grep -q '^# kernel recordmcount .*: agrees' || continue
		else
			grep -q '^# kernel recordmcount .*: agrees' "$f" || continue
		fi
	fi
	run_case "$arch" "$name"
done
# The kernel's tool leaks per-file state between files: not kernel-OK.
if wanted multi "$@" && [ "${GOLDEN_KERNEL_OK:-0}" != 1 ]; then
	run_multi
fi
if wanted multi-bad "$@"; then
	run_multibad
fi

summary
