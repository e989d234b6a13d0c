#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# make check-docs: the manual a newcomer finds (issue 39).
#   sh tests/docs/run.sh BUILD_DIR plain|san
# - every verb main.c dispatches has man/patchsite-VERB.1, and the verbs with
#   a page are the ones main.c dispatches;
# - patchsite help VERB opens that page (man's own rendering, its title line
#   the oracle), from the tree and from a make install into a scratch
#   DESTDIR, where man -M finds it as man patchsite-VERB; without man, one
#   line saying so and the usage; an unknown verb exits 2;
# - README.md: each command of its quick start is run exactly as printed, in
#   a scratch directory holding build/ and testdata/, and its output compared
#   with the block under it (tests/docs/readme.py), then the commands of the
#   block after it on the same trace (each exits 0 and writes something);
#   each `patchsite VERB
#   --option` it names is on VERB's page;
# - every path of the tree README, docs/*.md and bench/RESULTS.md name
#   exists (a doc cannot name a file that moved).
set -u
. tests/patchsite/lib.sh
suite_init docs "${1:-build}" "${2:-plain}"
TOP=$PWD

# The verbs main.c dispatches (its strcmp(verb, "NAME") lines, help and the
# --help spellings aside) against the pages man/ holds.
sed -n 's/.*strcmp(verb, "\([a-z]*\)").*/\1/p' patchsite/cmd/main.c | grep -vx help | sort >"$T/verbs"
ls man/patchsite-*.1 | sed 's,man/patchsite-\(.*\)\.1,\1,' | sort >"$T/pages"
if [ -s "$T/verbs" ] && diff -u "$T/verbs" "$T/pages" >"$T/vp.diff"; then
	pass "one page per verb: $(tr '\n' ' ' <"$T/verbs")"
else
	fail "verbs of main.c and man/patchsite-*.1 differ" "$T/vp.diff"
fi

# help VERB from the tree: man's rendering starts with the page's title.
for v in $(cat "$T/verbs"); do
	V=$(echo "$v" | tr a-z A-Z)
	"$PS" help "$v" >"$T/help.$v" 2>&1
	if head -n 1 "$T/help.$v" | grep -q "^PATCHSITE-$V(1) "; then
		pass "help $v opens patchsite-$v(1)"
	else
		fail "help $v" "$T/help.$v"
	fi
done
"$PS" help nosuch >"$T/nosuch.out" 2>"$T/nosuch.err"; rc=$?
if [ $rc = 2 ] && [ ! -s "$T/nosuch.out" ] && grep -q "help: 'nosuch'" "$T/nosuch.err"; then
	pass "help of an unknown verb: exit 2, named"
else
	fail "help nosuch: exit $rc" "$T/nosuch.err"
fi
# Without man (a PATH where there is none): one line, then the usage.
PATH=/nonexistent "$PS" help record >"$T/noman.out" 2>"$T/noman.err"; rc=$?
if [ $rc = 0 ] && [ "$(wc -l <"$T/noman.err")" = 1 ] && grep -q 'cannot run man' "$T/noman.err" &&
	head -n 1 "$T/noman.out" | grep -q '^usage: patchsite record'; then
	pass "help without man: one line, the usage"
else
	fail "help without man: exit $rc" "$T/noman.err"
fi

# Installed: man -M finds patchsite-VERB, and the installed command's help
# opens the installed page (a scratch DESTDIR; B as this suite's).
if make --no-print-directory -s install $([ "$MODE" = san ] && echo SAN=1) DESTDIR="$T/inst" PREFIX=/usr >"$T/inst.log" 2>&1; then
	bad=
	for v in $(cat "$T/verbs"); do
		V=$(echo "$v" | tr a-z A-Z)
		man -M "$T/inst/usr/share/man" "patchsite-$v" 2>&1 | head -n 1 | grep -q "^PATCHSITE-$V(1) " ||
			bad="$bad man:$v"
		"$T/inst/usr/bin/patchsite" help "$v" 2>&1 | head -n 1 | grep -q "^PATCHSITE-$V(1) " ||
			bad="$bad help:$v"
	done
	if [ -z "$bad" ]; then pass "installed: man patchsite-VERB and help VERB"; else fail "installed:$bad"; fi
else
	fail "make install into a scratch DESTDIR" "$T/inst.log"
fi

# README's options: each `patchsite VERB ... --opt` it names is on VERB's page.
python3 tests/docs/readme.py options README.md man >"$T/opts.out" 2>&1 &&
	pass "README's patchsite options are on their verbs' pages ($(cat "$T/opts.out"))" ||
	fail "README names options its verbs' pages do not give" "$T/opts.out"

# The files README, docs/ and bench/RESULTS.md name are in the tree.
python3 tests/docs/readme.py paths README.md docs/*.md bench/RESULTS.md >"$T/paths.out" 2>&1 &&
	pass "the docs' paths exist ($(cat "$T/paths.out"))" ||
	fail "the docs name paths that are not in the tree" "$T/paths.out"

# README's quick start, run as printed.  The runtime the command preloads is
# the plain build's: a sanitizer runtime would need its libraries preloaded
# into the program, which the README does not print.
if [ "$MODE" = san ]; then
	echo "SKIP README quick start under san: its commands run against the plain build (make check-docs)"
else
	mkdir "$T/qs" && ln -s "$TOP/$B" "$T/qs/build" && ln -s "$TOP/testdata" "$T/qs/testdata"
	python3 tests/docs/readme.py commands README.md >"$T/cmds" 2>"$T/cmds.err" ||
		fail "README quick start: no commands" "$T/cmds.err"
	i=0
	while IFS= read -r cmd; do
		i=$((i + 1))
		(cd "$T/qs" && env -u PATCHSITE_LIB sh -c "$cmd") >"$T/qs.out.$i" 2>"$T/qs.err.$i" ||
			{ fail "README command $i exits $?: $cmd" "$T/qs.err.$i"; continue; }
		if python3 tests/docs/readme.py compare README.md "$i" "$T/qs.out.$i" >"$T/cmp.$i" 2>&1; then
			pass "README command $i as printed, output alike: $cmd"
		else
			fail "README command $i: output unlike README's: $cmd" "$T/cmp.$i"
		fi
	done <"$T/cmds"
	# The block after it, on the same trace: each command as printed exits 0
	# and writes something (to its redirection's file, or to stdout).
	python3 tests/docs/readme.py more README.md >"$T/more"
	i=0
	while IFS= read -r cmd; do
		i=$((i + 1))
		to=$(echo "$cmd" | sed -n 's/.*>\([^ ]*\).*/\1/p')
		if (cd "$T/qs" && rm -f "${to:-/nonexistent}" && env -u PATCHSITE_LIB sh -c "$cmd") \
			>"$T/more.out.$i" 2>"$T/more.err.$i" &&
			{ [ -s "$T/more.out.$i" ] || { [ -n "$to" ] && [ -s "$T/qs/$to" ]; }; }; then
			pass "README next step as printed: $cmd"
		else
			fail "README next step: $cmd" "$T/more.err.$i"
		fi
	done <"$T/more"
	[ -s "$T/more" ] || fail "README: no block after the quick start"
fi

echo "$PASS passed, $FAIL failed"
[ "$FAIL" = 0 ]
