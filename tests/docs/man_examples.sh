#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# make check-docs (part of it): every command the man pages print in their
# example blocks is run exactly as printed (issue 40).
#   sh tests/docs/man_examples.sh BUILD_DIR plain|san
# tests/docs/manex.py reads each page's .nf/.fi blocks and tells commands
# from output samples (its docstring gives the rule); each page's blocks run
# in order as one shell script, in a scratch directory where the files the
# examples name exist (fixture_PAGE below builds them from testdata/), with
# the tree installed as a user installs it (make install PREFIX=scratch:
# its bin on PATH, its lib on LD_LIBRARY_PATH and PKG_CONFIG_PATH, its
# include on C_INCLUDE_PATH, its Python module on PYTHONPATH), and build/
# beside them for the pages that name it.
# Each command must exit 0 (non-zero when the lines under it are an error),
# and the lines the page prints under it must be in what it printed, numbers
# masked (tests/docs/readme.py's mask; "..." stands for anything).
# Commands that cannot run here are listed in SKIPS, by exact text, with the
# reason, and printed as SKIP lines.
set -u
. tests/patchsite/lib.sh
suite_init man-examples "${1:-build}" "${2:-plain}"
TOP=$PWD
SRC=$TOP/testdata/patchsite

# Under san the installed tree is the sanitizers' build: patchverify and
# recordmcount carry them; the patchsite command runs as the suites' record
# runs it (a PATH shim preloads the sanitizer runtimes, which the programs
# it traces then get beside the runtime); manex.py leaves out the commands
# that preload or link the runtime into a program of their own.

# Commands that cannot run on a Debian 12 machine set up by scripts/deps.sh:
# exact text, a tab, why.
cat >"$T/skips" <<'SKIPS'
patchsite dump --folded | flamegraph.pl >flame.svg	flamegraph.pl (Brendan Gregg's FlameGraph) is not packaged in Debian 12; dump --flamegraph is its stand-in
LD_PRELOAD=build/libpatchsite.so PATCHSITE_TRACER=function_graph PATCHSITE_FORMAT=folded PATCHSITE_OUTPUT=out.folded ./prog && flamegraph.pl out.folded >flame.svg	flamegraph.pl is not packaged in Debian 12
patchverify fs/open.o	a built kernel tree (make check-kernel builds Linux 6.1 from linux-source-6.1 for tens of minutes and runs patchverify on its objects)
patchverify --summary --jobs 2 /lib/modules/$(uname -r)	no /lib/modules here (a container: the running kernel is the host's); a built kernel tree (make check-kernel builds Linux 6.1 from linux-source-6.1 for tens of minutes and runs patchverify on its objects)
patchverify --system-map /boot/System.map-6.1.0-56-amd64 vmlinux	no /boot here, and no vmlinux: a built kernel tree (make check-kernel builds Linux 6.1 from linux-source-6.1 for tens of minutes and runs patchverify on its objects)
patchverify --json --list --expect-sorted vmlinux	no vmlinux: a built kernel tree (make check-kernel builds Linux 6.1 from linux-source-6.1 for tens of minutes and runs patchverify on its objects)
SKIPS

make --no-print-directory -s install $([ "$MODE" = san ] && echo SAN=1) PREFIX="$T/inst" >"$T/inst.log" 2>&1 ||
	{ fail "make install PREFIX=scratch" "$T/inst.log"; echo "$PASS passed, $FAIL failed"; exit 1; }
export PATH="$T/inst/bin:$PATH" LD_LIBRARY_PATH="$T/inst/lib" PKG_CONFIG_PATH="$T/inst/lib/pkgconfig" \
	C_INCLUDE_PATH="$T/inst/include" LIBRARY_PATH="$T/inst/lib" \
	PYTHONPATH="$T/inst/lib/$(python3 -c 'import sys; print("python%d.%d" % sys.version_info[:2])')/dist-packages"
unset PATCHSITE_LIB
if [ "$MODE" = san ]; then
	mkdir "$T/shim" &&
	printf '#!/bin/sh\nLD_PRELOAD="%s${LD_PRELOAD:+ $LD_PRELOAD}" exec "%s" "$@"\n' \
		"$SANPRE" "$T/inst/bin/patchsite" >"$T/shim/patchsite" && chmod +x "$T/shim/patchsite"
	export PATH="$T/shim:$PATH"
	# patchsite script dlopens libpython, which keeps memory until the process
	# ends (as tests/patchsite/script.sh): only leaks through it are let pass.
	printf 'leak:libpython3\n' >"$T/lsan.supp"
	export LSAN_OPTIONS="suppressions=$T/lsan.supp"
fi

pg() { $CC -O2 -g -pg -mfentry -mrecord-mcount "$@" -pthread; }
fixture_patchsite_1() { cp "$SRC/basic.c" prog.c; }
fixture_patchsite_7() {
	cp "$SRC/basic.c" prog.c && pg -o basic prog.c && pg -o probes "$SRC/probes.c" -rdynamic &&
	pg -fPIC -shared -o libwork.so "$SRC/libwork.c" &&
	pg -o uselib "$SRC/uselib.c" ./libwork.so -Wl,-rpath,"$PWD" &&
	printf 'app: prog.c\n\t$(CC) $(CFLAGS) -o $@ prog.c\n' >Makefile &&
	pg -o server "$SRC/server.c"
}
fixture_libpatchsite_3() { cp "$SRC/basic.c" prog.c; }
fixture_patchsite_event_3() { cp "$SRC/branchdoc.c" prog.c; }
fixture_patchsite_record_1() { pg -o readtrig "$SRC/readtrig.c" && pg -o server "$SRC/server.c"; }
fixture_patchsite_ctl_1() { pg -o server "$SRC/server.c"; }
fixture_patchsite_script_1() {
	cp "$SRC/scripted.c" . &&
	# calls.py is the page's own script (its first block, set in CR).
	sed -n '/^\.ft CR$/,/^\.ft R$/p' "$TOP/man/patchsite-script.1" | sed '1d;$d' >calls.py
}
fixture_patchsite_replay_1() {
	pg -o feat "$SRC/feat.c" && PATCHSITE_TRIGGER='leaf:snapshot:2' patchsite record -- ./feat trig
}
fixture_patchsite_dump_1() { pg -o basic "$SRC/basic.c" && patchsite record -- ./basic; }
fixture_patchsite_pipe_1() { pg -o basic "$SRC/basic.c" && patchsite record -- ./basic; }
fixture_patchsite_report_1() {
	pg -o server "$SRC/server.c" && patchsite record -d yesterday -- ./server 50 &&
	patchsite record -d today -- ./server 100 && patchsite record -- ./server 100
}
fixture_recordmcount_1() { printf 'int g(int);\nint f(int x) { return g(x) + 1; }\n' >f.c; }
fixture_patchverify_1() {
	# bad.o: the page's misaligned entry, one byte into gfun's call.
	printf '.text\n.globl gfun\n.type gfun,@function\ngfun: call __fentry__\nret\n.size gfun,.-gfun\n.section __mcount_loc,"a"\n.quad gfun+1\n' >bad.s &&
	$CC -c bad.s -o bad.o
}

for page in man/*.[0-9]; do
	name=$(basename "$page")
	W="$T/$name" MX="$T/$name.mx"
	mkdir -p "$W" "$MX"
	python3 tests/docs/manex.py script "$page" "$MX" "$T/skips" "$MODE" || { fail "$name: manex.py"; continue; }
	[ -s "$MX/cmds" ] || continue
	ln -s "$TOP/$B" "$W/build"
	fx=fixture_$(echo "$name" | tr .- __)
	if ! (cd "$W" && $fx) >"$MX/fixture.log" 2>&1; then
		fail "$name: the files its examples name ($fx)" "$MX/fixture.log"
		continue
	fi
	(cd "$W" && MX="$MX" timeout 120 sh "$MX/run.sh") >"$MX/run.log" 2>&1
	while IFS='	' read -r k want cmd why; do
		if [ "$want" = skip ]; then
			echo "SKIP $name: $cmd: $why"
			continue
		fi
		rc=$(sed -n "s/^$k //p" "$MX/rc" 2>/dev/null)
		case "$want:$rc" in
		0:0 | nz:[1-9]* | bg:0) ;;
		*:) fail "$name: not reached: $cmd" "$MX/run.log"; continue ;;
		*) fail "$name: exit $rc, the page implies ${want#nz}: $cmd" "$MX/o.$k"; continue ;;
		esac
		if python3 tests/docs/manex.py compare "$MX/exp.$k" "$MX/o.$k" >"$MX/cmp.$k" 2>&1; then
			pass "$name: $cmd"
		else
			cat "$MX/o.$k" >>"$MX/cmp.$k"
			fail "$name: output unlike the page's: $cmd" "$MX/cmp.$k"
		fi
	done <"$MX/cmds"
done

echo "$PASS passed, $FAIL failed"
[ "$FAIL" = 0 ]
