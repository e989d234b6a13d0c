#!/bin/sh
# Install what building and testing need, on Debian 12, if it is missing.
# Run as root (as CI and a fresh machine are); otherwise it says what to install.
set -e
PKGS="build-essential pkg-config libelf-dev libcapstone-dev check binutils python3 gcc libtsan2 groff-base man-db binutils-riscv64-linux-gnu liblzma-dev libzstd-dev zlib1g-dev xz-utils zstd gzip clang"
# man-db: patchsite help VERB opens the verb's page with man, and make check-docs checks that it does.
# less: patchsite(1)'s example `patchsite replay | less`, run as printed by check-docs (a minbase
# Debian has no pager).
PKGS="$PKGS less"
# uftrace: the oracle of tests/patchsite/feat.sh's arguments (and bench/patchsite/compare.sh).
PKGS="$PKGS uftrace"
# libpatchsite for aarch64: cross compiler and C library, qemu-user to run its tests.
PKGS="$PKGS gcc-aarch64-linux-gnu g++-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user-static"
# libpatchsite for riscv64 (issue 29): cross compiler and C library; qemu-user-static above runs it.
PKGS="$PKGS gcc-riscv64-linux-gnu g++-riscv64-linux-gnu libc6-dev-riscv64-cross"
# tests/patchsite/libcall.sh: library calls of programs linked by lld as well as ld.bfd.
PKGS="$PKGS lld"
# tests/bad/interrupt.sh: kills and write errors at every system call of an in-place update.
PKGS="$PKGS strace"
# The patchsite command reads DWARF (probe names, types and locations) with libdw; the runtime never does.
PKGS="$PKGS libdw-dev"
# tests/patchsite/probes.sh: gdb is the oracle of the probes' values; gdb-multiarch
# (through qemu's gdbstub) counts calls for tests/patchsite-qemu.
PKGS="$PKGS gdb gdb-multiarch"
# tests/patchsite/perfetto.sh: protoc --decode_raw reads dump --perfetto's output, and
# --decode under tests/patchsite/oracles/perfetto_min.proto (Perfetto's field numbers).
PKGS="$PKGS protobuf-compiler"
# tests/patchsite/flamegraph.sh: the flame graph as a browser draws it (a headless screenshot).
PKGS="$PKGS chromium"
# tests/patchsite/dumpgraph.sh: graphviz's dot parses dump --graphviz's DOT (and uftrace's),
# and draws the man page's examples.
PKGS="$PKGS graphviz"
# The real programs the tests build with our flags (issue 43), from sources Debian ships:
# readelf from binutils-source (/usr/src/binutils) and googletest's samples from googletest
# (/usr/src/googletest), for tests/patchsite/realprobes.sh, libc_args_real.sh and the aarch64
# realprobes.sh.
PKGS="$PKGS binutils-source googletest"
# make bench-events: SDT and LTTng-UST probes to compare with, LTTng's session daemon, callgrind.
PKGS="$PKGS systemtap-sdt-dev liblttng-ust-dev lttng-tools babeltrace valgrind"
# patchsite script (and tests/patchsite/script.sh): the Python it dlopens at run time,
# libpython3.11.so.1.0 (no headers: the command declares the few C API functions it calls).
PKGS="$PKGS libpython3.11"
# uftrace script (the oracle of tests/patchsite/script.sh and uftconf.sh) dlopens the unversioned
# libpython3.11.so, which only the -dev package has: without it, it says "failed to init python
# scripting" and the comparison fails (found by make check-fresh with FRESH_TARGETS="demo check").
PKGS="$PKGS libpython3.11-dev"
# tests/verify/noflag.sh: patchverify --noflag proves Debian's own binaries as shipped
# (ls, xz from xz-utils above, sqlite3, libc.so.6).
PKGS="$PKGS sqlite3"
# tests/patchsite/noflag_real.sh: Debian's programs and libraries as shipped, traced through
# no-flag sites (bzip2 with libbz2, jq with libjq; gzip, grep, sed, xz, tar, find, diff and
# sort are in every Debian system or above).
PKGS="$PKGS bzip2 jq"
if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
	# Not Debian: nothing here can check or install packages; a machine
	# that has them all (under its own names) builds all the same.
	echo "deps: not a Debian system (no dpkg-query/apt-get): cannot check or install" \
		"the build dependencies; install the equivalents of: $PKGS" >&2
	command -v "${CC:-cc}" >/dev/null 2>&1 && exit 0
	echo "deps: and there is no C compiler (${CC:-cc}): stopping" >&2
	exit 1
fi
if [ -r /etc/debian_version ] && ! grep -q '^12' /etc/debian_version; then
	echo "deps: note: Debian $(cat /etc/debian_version), not 12 (bookworm): package names may differ" >&2
fi
missing=""
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "ok installed"; }
for p in $PKGS; do have_pkg "$p" || missing="$missing $p"; done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "deps: missing packages:$missing" >&2
	echo "deps: not root, so not installed: run 'make deps' as root, or: sudo apt-get install$missing" >&2
	exit 1
fi
echo "deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q || { echo "deps: apt-get update failed: the package lists above could not be read" >&2; exit 1; }
apt-get install -y -q $missing || { echo "deps: apt-get install failed for:$missing" >&2; exit 1; }
