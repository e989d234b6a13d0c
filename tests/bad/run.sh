#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Hostile input for recordmcount: every case is one deliberately broken file
# (or a file the tool may not read or replace) on a command line between two
# good objects, and must give
#   - the documented exit status (1 rejected input, 2 I/O or system error),
#   - exactly one diagnostic line, "recordmcount: FILE: error: ...", holding
#     the expected words,
#   - the broken file byte-identical afterwards, no temporary file left,
#   - both good objects still processed (they get their __mcount_loc);
# broken content is also tried alone with -o (no output may appear).
# The broken objects are made from the unit tests' sample (x86-64), an
# i386 and a ppc64 golden object by tests/bad/mkbad.py; fixed inputs, among
# them every fuzzing finding, live in testdata/bad/ (see its README).
# When patchverify is built, every input also goes through it once, as
# text and as --json: a documented exit status, valid JSON, no crash.
#
#   sh tests/bad/run.sh BUILD_DIR      (root runs the permission and
#                                       read-only file system cases too)
# RMC=... and PV=... run other builds or wrappers (make check-valgrind).
set -u
B=${1:-build}
RMC=${RMC:-$B/recordmcount}
RMC_OPTS=	# options for every run of check()
PV=${PV:-$B/patchverify}
SAMPLE=$B/tests/sample.o
for f in "$RMC" "$SAMPLE"; do
	[ -f "$f" ] || { echo "tests/bad: $f is missing (make all $SAMPLE)" >&2; exit 2; }
done
. tests/patchsite/lib.sh	# suite_init, on_exit, pass, fail, skip, summary
suite_init bad "$B"
work=$T
chmod 755 "$work"
mounts=
on_exit 'for m in $mounts; do umount "$m" 2>/dev/null; done'
on_exit 'command -v chattr >/dev/null 2>&1 && chattr -R -i "$work" 2>/dev/null'

root=false
[ "$(id -u)" = 0 ] && root=true
# Root ignores mode bits: the permission cases run as nobody through setpriv.
as_user=
if $root && command -v setpriv >/dev/null 2>&1; then
	as_user="setpriv --reuid=65534 --regid=65534 --clear-groups"
	# A copy nobody can run: the tree may be where only root can go (a clone in /root).
	cp "$RMC" "$work/rmc-as-user" && chmod 755 "$work/rmc-as-user"
fi

# A good object was processed when it became what a lone run makes of it.
processed() {
	cmp -s "$1" "$work/ref.o"
}

# Any dot file in these directories is a temporary someone left behind.
temps_left() {
	find "$@" -maxdepth 1 -name '.*' -type f 2>/dev/null | head -1
}

# check NAME EXIT WORDS BAD GOODDIR MODE [COMMAND PREFIX...]
#   MODE content: also try BAD alone with -o; place: in place only.
#   GOODDIR gets a.o and z.o, run before and after BAD.
check() {
	name=$1 want=$2 words=$3 bad=$4 good=$5 mode=$6
	shift 6
	snap=$work/snap.$$
	rm -f "$snap"
	[ -f "$bad" ] && cp "$bad" "$snap"
	cp "$SAMPLE" "$good/a.o" && cp "$SAMPLE" "$good/z.o"
	rmc=$RMC
	[ $# -gt 0 ] && chown 65534:65534 "$good/a.o" "$good/z.o" && rmc=$work/rmc-as-user
	"$@" timeout 20 "$rmc" $RMC_OPTS "$good/a.o" "$bad" "$good/z.o" >"$work/out" 2>"$work/err"
	rc=$?
	why=
	lines=$(wc -l <"$work/err")
	line=$(head -1 "$work/err")
	if [ $rc -ne "$want" ]; then
		why="exit $rc, expected $want: $line"
	elif [ "$want" = 0 ] && [ -z "$words" ] && [ "$lines" -ne 0 ]; then
		why="$lines lines on stderr: $line"
	elif { [ "$want" != 0 ] || [ -n "$words" ]; } && [ "$lines" -ne 1 ]; then
		why="$lines lines on stderr: $(tr '\n' '|' <"$work/err")"
	fi
	if [ -z "$why" ] && [ "$want" = 0 ] && [ -n "$words" ]; then
		case $line in
		"recordmcount: $bad: warning: "*"$words"*) ;;
		*) why="message: $line" ;;
		esac
	elif [ -z "$why" ] && [ "$want" != 0 ]; then
		case $line in
		"recordmcount: $bad: error: "*"$words"*) ;;
		*) why="message: $line" ;;
		esac
	fi
	if [ -z "$why" ] && [ -f "$snap" ] && [ "$want" != 0 ] && ! cmp -s "$snap" "$bad"; then
		why="the input changed"
	fi
	[ -z "$why" ] && ! processed "$good/a.o" && why="the good object before it was not processed"
	[ -z "$why" ] && ! processed "$good/z.o" && why="the good object after it was not processed"
	t=$(temps_left "$(dirname "$bad")" "$good")
	[ -z "$why" ] && [ -n "$t" ] && why="temporary file left: $t"
	if [ -z "$why" ] && [ "$mode" = content ]; then
		rm -f "$good/out.o"
		timeout 20 "$RMC" -o "$good/out.o" "$bad" >/dev/null 2>"$work/err"
		rc=$?
		[ $rc -ne "$want" ] && why="-o: exit $rc, expected $want"
		[ -z "$why" ] && [ "$want" != 0 ] && [ -e "$good/out.o" ] && why="-o: output written"
		[ -z "$why" ] && [ "$want" != 0 ] && [ "$(wc -l <"$work/err")" -ne 1 ] &&
			why="-o: $(wc -l <"$work/err") lines on stderr"
		# --json between two fresh good objects: the same status (but for
		# write errors: --json writes nothing); the JSON is checked at the end.
		cp "$SAMPLE" "$good/a.o" && cp "$SAMPLE" "$good/z.o"
		timeout 20 "$RMC" --json "$good/a.o" "$bad" "$good/z.o" \
			>"$work/json/$name.json" 2>/dev/null
		rc=$?
		[ "$want" = 2 ] && want=0
		[ -z "$why" ] && [ $rc -ne "$want" ] && why="--json: exit $rc, expected $want"
	fi
	rm -f "$good/a.o" "$good/z.o" "$good/out.o" "$snap"
	if [ -n "$why" ]; then fail "$name: $why"; else pass "$name"; fi
}

# patchverify NAME FILE: documented status, one line when it refuses; the
# --json output is kept for one python3 run at the end (python3 may be slow
# to start).
pv_check() {
	name=$1 f=$2
	timeout 20 "$PV" "$f" >/dev/null 2>"$work/pverr"
	rc=$?
	why=
	case $rc in
	0|1) ;;
	2) [ "$(wc -l <"$work/pverr")" -eq 1 ] || why="refused with $(wc -l <"$work/pverr") lines" ;;
	*) why="exit $rc: $(grep -m1 -E 'ERROR|runtime error|Sanitizer' "$work/pverr")" ;;
	esac
	grep -q -E 'runtime error|Sanitizer|LeakSanitizer' "$work/pverr" &&
		why="sanitizer: $(grep -m1 -E 'runtime error|Sanitizer' "$work/pverr")"
	if [ -z "$why" ]; then
		timeout 20 "$PV" --json "$f" 2>"$work/pverr" >"$work/pvjson/$name.json"
		jrc=$?
		[ $jrc -ne $rc ] && why="--json: exit $jrc, text mode $rc"
	fi
	if [ -n "$why" ] && echo " $pv_open " | grep -qF " $name "; then
		echo "open  patchverify $name: $why (known, not counted)"
	elif [ -n "$why" ]; then
		fail "patchverify $name: $why"
	else
		pass "patchverify $name"
	fi
}
# patchverify findings reported to its owner and not fixed yet: shown, not
# counted.  Take a name out when its fix lands.
pv_open=""

# --- Broken content, made from clean objects --------------------------------
gen=$work/gen
python3 tests/bad/mkbad.py "$gen" "$SAMPLE" testdata/obj/i386/pg.o testdata/obj/ppc64/pg.o ||
	{ echo "tests/bad: mkbad.py failed" >&2; exit 2; }
mkdir -p "$work/good" "$work/json"
cp "$SAMPLE" "$work/ref.o" && "$RMC" "$work/ref.o" || { echo "tests/bad: $SAMPLE fails" >&2; exit 2; }

# NAME-PATTERN  EXIT  WORDS IN THE MESSAGE
table=$work/table
cat >"$table" <<'EOF'
empty                       1 is empty, not an ELF object
not-elf                     1 is not an ELF file
elf-magic-only              1 is not an ELF file: it ends inside the ELF header (4 bytes)
bad-class                   1 is not an ELF file
bad-data                    1 is not an ELF file
archive.a                   1 is an ar archive, not an ELF object
trunc-ehdr-*                1 is not an ELF file: it ends inside the ELF header
trunc-shdr-*                1 section header table extends past the end of the file
trunc-sec-*                 1 section header table extends past the end of the file
sec-offset-past-eof         1 section .text extends past the end of the file
sec-size-past-eof           1 section .text extends past the end of the file
sec-size-wraps              1 section .text extends past the end of the file
symtab-past-eof             1 section .symtab extends past the end of the file
shoff-past-eof              1 section header table extends past the end of the file
overlap-sections            1 section .rela.text overlaps section .text
overlap-ehdr                1 section .text overlaps the ELF header
overlap-shdrs               1 section .strtab overlaps the section header table
rel-link-range              1 section .rela.text: sh_link out of range
rel-info-range              1 section .rela.text: sh_info out of range
symtab-link-range           1 section .symtab: sh_link out of range
symtab-link-not-strtab      1 symbol table does not link to a string table
shstrndx-range              1 section name table index out of range
shentsize-bad               1 bad section header size
rel-sym-range               1 relocation section .rela.text: symbol index out of range
rel-offset-past-section     1 R_X86_64_PLT32 against __fentry__ is no room for a call
rel-offset-huge             1 R_X86_64_PLT32 against __fentry__ is no room for a call
sec-name-range              1 a section name offset is out of range
strtab-unterminated         1 the symbol string table does not end in a NUL byte
shstrtab-unterminated       1 the section name table does not end in a NUL byte
shnum0-bogus-count          1 bad section count (e_shnum 0
shstrndx-xindex-bogus       1 section name table index out of range
exec-type                   1 not a relocatable object (e_type 2)
unknown-machine             1 unsupported architecture
class32-of-64               1 unsupported architecture: x32
class64-of-32               1 bad section count (e_shnum 0
big-endian-lie              1 section header table extends past the end of the file
little-endian-lie           1 section header table extends past the end of the file
be-rel-offset-past-section  1 R_PPC64_REL24 against _mcount is a call that runs past the end
be-sec-size-past-eof        1 section .text extends past the end of the file
elf32-rel-sym-range         1 relocation section .rel.text: symbol index out of range
elf32-sec-offset-past-eof   1 section .text extends past the end of the file
EOF

used=$work/used
: >"$used"
for f in "$gen"/*; do
	name=${f##*/}
	name=${name%.o}
	found=
	while read -r pat want words; do
		# shellcheck disable=SC2254
		case $name in
		$pat) found=1; echo "$pat" >>"$used"; check "$name" "$want" "$words" "$f" \
			"$work/good" content; break ;;
		esac
	done <"$table"
	[ -n "$found" ] || fail "$name: no expectation in the table"
done
while read -r pat want words; do
	grep -qxF "$pat" "$used" || fail "$pat: in the table but no such case was made"
done <"$table"

# --- Fixed inputs: bitcode and every fuzzing finding (testdata/bad) ----------
# FILE  EXIT  WORDS; EXIT "rerun": processed in place twice, silently, exit 0;
# EXIT 0 with WORDS: one warning holding them; "warns": exit 0, every line a
# warning holding WORDS, and in place the same bytes as -o; "open": a known
# finding not fixed yet, shown and not counted (see testdata/bad/README).
cat >"$table" <<'EOF'
lto-bitcode.o               1 is LLVM bitcode (LTO), not an ELF object
huge-alignment.o            0
rerun-untraced-only.o       rerun
rerun-untraced-only-fuzz.o  rerun
pv-empty-calls-qsort.o      0
no-sections-bad-shstrndx.o  1 section name table index out of range
riscv-stale-relax-spots.o   0
pv-null-plus-zero.o         0 __mcount_loc already exists; left unchanged
pv-report-null-code-segv.o  1 not a relocatable object (e_type 3)
rmc-two-relsecs-one-site.o  1 two relocations call _mcount at one place
pv-sled-nobits.o            0
pv-pfx-wrapping-size.o      0 __mcount_loc already exists; left unchanged
rmc-shstrtab-huge-align.o   0
rmc-rw-copy-unchanged.o     warns in untraced code left live
EOF
for f in testdata/bad/*; do
	name=${f##*/}
	case $name in README*) continue ;; esac
	line=$(grep "^$name " "$table") || { fail "$name: testdata/bad file with no expectation"; continue; }
	set -- $line
	want=$2
	shift 2
	cp "$f" "$work/$name"
	if [ "$want" = open ]; then
		"$RMC" -o "$work/open.o" "$work/$name" 2>/dev/null
		rc=$?
		"$RMC" -n "$work/open.o" 2>"$work/err"
		echo "open  $name: first run exit $rc, rerun on its output: exit $?: $(head -1 "$work/err")"
		rm -f "$work/open.o"
	elif [ "$want" = rerun ]; then
		why=
		for run in first second; do
			"$RMC" "$work/$name" 2>"$work/err"
			rc=$?
			[ -z "$why" ] && { [ $rc -ne 0 ] || [ -s "$work/err" ]; } &&
				why="$run run: exit $rc: $(head -1 "$work/err")"
		done
		if [ -n "$why" ]; then fail "$name: $why"; else pass "$name"; fi
	elif [ "$want" = warns ]; then
		rm -f "$work/out.o"
		"$RMC" -o "$work/out.o" "$work/$name" 2>/dev/null
		"$RMC" "$work/$name" 2>"$work/err"
		rc=$?
		why=
		[ $rc -eq 0 ] || why="exit $rc"
		[ -z "$why" ] && [ ! -s "$work/err" ] && why="no warning"
		[ -z "$why" ] && grep -v "^recordmcount: $work/$name: warning: .*$*" "$work/err" >/dev/null &&
			why="not a warning with '$*': $(grep -v "warning: .*$*" "$work/err" | head -1)"
		[ -z "$why" ] && ! cmp -s "$work/$name" "$work/out.o" && why="in place and -o differ"
		if [ -n "$why" ]; then fail "$name: $why"; else pass "$name"; fi
	else
		check "$name" "$want" "$*" "$work/$name" "$work/good" content
	fi
	rm -f "$work/$name"
done

# --- Not a regular file -------------------------------------------------------
mkdir "$work/dir.o"
check directory 1 "is a directory" "$work/dir.o" "$work/good" place
mkfifo "$work/fifo.o"
check "FIFO (no hang)" 1 "is not a regular file" "$work/fifo.o" "$work/good" place
check "missing file" 2 "No such file or directory" "$work/missing.o" "$work/good" place
ln -s "$work/nowhere.o" "$work/dangling.o"
check "dangling symlink" 2 "No such file or directory" "$work/dangling.o" "$work/good" place

# --- Permissions ------------------------------------------------------------------
# A good object (it needs a table) that may not be read or replaced.
perm=$work/perm
mkdir -m 777 "$perm" "$work/pgood"
chmod 777 "$work/pgood"
if ! $root; then
	cp "$SAMPLE" "$perm/noread.o" && chmod 000 "$perm/noread.o"
	check "no read permission" 2 "Permission denied" "$perm/noread.o" "$work/pgood" place
	cp "$SAMPLE" "$perm/nowrite.o" && chmod 444 "$perm/nowrite.o"
	check "no write permission" 2 "cannot write: Permission denied" "$perm/nowrite.o" \
		"$work/pgood" place
elif [ -n "$as_user" ]; then
	cp "$SAMPLE" "$perm/noread.o" && chmod 000 "$perm/noread.o"
	check "no read permission (as nobody)" 2 "Permission denied" "$perm/noread.o" \
		"$work/pgood" place $as_user
	cp "$SAMPLE" "$perm/nowrite.o" && chmod 444 "$perm/nowrite.o"
	check "no write permission (as nobody)" 2 "cannot write: Permission denied" \
		"$perm/nowrite.o" "$work/pgood" place $as_user
	mkdir -m 555 "$work/rodir" && cp "$SAMPLE" "$work/rodir/x.o" &&
		chown 65534:65534 "$work/rodir/x.o"
	# In place needs no new name in the directory; --replace does.
	check "read-only directory (as nobody), in place" 0 "" \
		"$work/rodir/x.o" "$work/pgood" place $as_user
	if processed "$work/rodir/x.o"; then pass "read-only directory: updated in place"
	else fail "read-only directory: x.o was not updated in place"; fi
	cat "$SAMPLE" >"$work/rodir/x.o"
	RMC_OPTS=--replace
	check "read-only directory (as nobody), --replace" 2 \
		"cannot create a temporary file: Permission denied" \
		"$work/rodir/x.o" "$work/pgood" place $as_user
	RMC_OPTS=
else
	skip "no read/write permission: root without setpriv ignores mode bits"
fi
if $root && cp "$SAMPLE" "$perm/immutable.o" && chattr +i "$perm/immutable.o" 2>/dev/null; then
	check "immutable file (chattr +i)" 2 "cannot write: Operation not permitted" \
		"$perm/immutable.o" "$work/pgood" place
	mkdir "$work/idir" && cp "$SAMPLE" "$work/idir/x.o" && chattr +i "$work/idir"
	RMC_OPTS=--replace
	check "immutable directory (chattr +i), --replace" 2 \
		"cannot create a temporary file: Operation not permitted" "$work/idir/x.o" \
		"$work/pgood" place
	RMC_OPTS=
	check "immutable directory (chattr +i), in place" 0 "" "$work/idir/x.o" "$work/pgood" place
	processed "$work/idir/x.o" && pass "immutable directory: its file updated in place" ||
		fail "immutable directory: x.o was not updated in place"
	chattr -i "$perm/immutable.o" "$work/idir"
else
	skip "immutable file and directory: needs root and chattr"
fi

# --- Read-only file systems ---------------------------------------------------------
robind=$work/robind
mkdir "$robind" && cp "$SAMPLE" "$robind/x.o"
if $root && mount --bind "$robind" "$robind" 2>/dev/null; then
	mounts="$robind $mounts"
	if mount -o remount,bind,ro "$robind" 2>/dev/null; then
		check "read-only bind mount" 2 "cannot write: Read-only file system" "$robind/x.o" \
			"$work/pgood" place
	else
		skip "read-only bind mount: cannot remount read-only"
	fi
else
	skip "read-only bind mount: needs root (mount --bind)"
fi
rofs=$work/rofs
mkdir "$rofs"
if $root && mount -t tmpfs -o size=1m tmpfs "$rofs" 2>/dev/null; then
	mounts="$rofs $mounts"
	cp "$SAMPLE" "$rofs/x.o"
	if mount -o remount,ro "$rofs" 2>/dev/null; then
		check "read-only file system (tmpfs)" 2 "cannot write: Read-only file system" \
			"$rofs/x.o" "$work/pgood" place
	else
		skip "read-only file system: cannot remount read-only"
	fi
else
	skip "read-only file system: needs root (mount -t tmpfs)"
fi

badjson=$(python3 - "$work"/json/*.json <<'EOF'
import json, sys
for p in sys.argv[1:]:
    try:
        d = json.load(open(p))
        assert len(d['files']) >= 2, 'the good objects are missing'
    except (ValueError, KeyError, AssertionError) as e:
        print(p.rsplit('/', 1)[1][:-5], e)
EOF
)
if [ -n "$badjson" ]; then fail "recordmcount --json: $badjson"
else pass "recordmcount --json: valid JSON around every broken input"; fi

# --- patchverify over the same inputs --------------------------------------------
if [ -x "$PV" ]; then
	mkdir "$work/pvjson"
	for f in "$gen"/* testdata/bad/*; do
		case $f in *README*) continue ;; esac
		pv_check "${f##*/}" "$f"
	done
	badjson=$(python3 - "$work"/pvjson/*.json <<'EOF'
import json, sys
for p in sys.argv[1:]:
    try:
        json.load(open(p))
    except ValueError as e:
        print(p.rsplit('/', 1)[1][:-5], e)
EOF
)
	if [ -n "$badjson" ]; then fail "patchverify --json: not valid JSON: $badjson"
	else pass "patchverify --json: valid JSON for every input"; fi
else
	skip "patchverify: $PV is not built"
fi

summary
