#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# readelf, a real C program nobody here wrote, from Debian's binutils-source
# (/usr/src/binutils/binutils-2.40.tar.xz, as shipped; scripts/deps.sh installs it), for
# the real-program tests (realprobes.sh, libc_args_real.sh, aarch64's realprobes.sh):
#   build_readelf.sh CACHE NAME 'CC' 'FLAGS' [HOST]
# compiles readelf, the parts of libsframe and libiberty it calls and the tarball's zlib
# with CC FLAGS (the tracing flags: every function the DWARF defines has a site, as
# record -a wants), into CACHE/NAME:
#   readelf.o  main's unit;   lib.a  the rest
# which the caller links as it needs (an arena, -z lazy).  HOST (aarch64-linux-gnu) is a
# cross build.  Only readelf's files are built (no bfd, no opcodes: readelf reads ELF by
# itself; bfd.h and bfdver.h are made from their templates as bfd's own Makefile does),
# and libiberty's against binutils/configure's config.h (libiberty's own configure takes
# as long as the whole build): about 30 s of CPU.  Kept: a second call with the same
# NAME and FLAGS only prints CACHE/NAME.  Concurrent calls wait for each other (flock).
# Not a suite (no suite_init): a build step the suites call, with no checks of its own; its
# cache outlives the caller, so no temporary directory of lib.sh's.
set -eu
CACHE=$1 NAME=$2 BCC=$3 FLAGS=$4 HOST=${5:-}
TAR=/usr/src/binutils/binutils-2.40.tar.xz
if [ ! -r "$TAR" ]; then
	echo "build_readelf.sh: no $TAR (Debian's binutils-source: scripts/deps.sh installs it)" >&2
	exit 2
fi
mkdir -p "$CACHE"
CACHE=$(cd "$CACHE" && pwd)
exec 9>"$CACHE/.lock"
flock 9
S=$CACHE/binutils-2.40
OUT=$CACHE/$NAME
# Kept by NAME and FLAGS: the compiler is NAME's (the wrapper's path differs between the
# plain and the sanitized build directories, which share the cache).
want="$FLAGS | $HOST | zlib traced"
if [ -f "$OUT/done" ] && [ "$(cat "$OUT/done")" = "$want" ]; then
	echo "$OUT"
	exit 0
fi

# The sources readelf is made of, once.
if [ ! -f "$S/.unpacked" ]; then
	rm -rf "$S"
	tar -xJf "$TAR" -C "$CACHE" binutils-2.40/include binutils-2.40/binutils \
		binutils-2.40/bfd/bfd-in2.h binutils-2.40/bfd/version.h binutils-2.40/bfd/development.sh \
		binutils-2.40/libiberty binutils-2.40/libsframe binutils-2.40/libctf/swap.h \
		binutils-2.40/zlib binutils-2.40/config binutils-2.40/config.guess \
		binutils-2.40/config.sub binutils-2.40/install-sh binutils-2.40/bfd/configure.host binutils-2.40/bfd/config.bfd \
		binutils-2.40/mkinstalldirs binutils-2.40/missing
	# bfd.h for a 64-bit host without plugins; bfdver.h for release 2.40 (bfd/Makefile's rules).
	mkdir -p "$S/gen"
	sed -e 's/@supports_plugins@/0/' -e 's/@wordsize@/64/' -e 's/@bfd_default_target_size@/64/' \
		-e 's/@bfd_file_ptr@/int64_t/' -e 's/@bfd_ufile_ptr@/uint64_t/' \
		"$S/bfd/bfd-in2.h" >"$S/gen/bfd.h"
	sed -e 's/@bfd_version@/240000000/' -e 's/@bfd_version_string@/"2.40"/' \
		-e 's/@bfd_version_package@/"(Debian binutils-source) "/' \
		-e 's|@report_bugs_to@|"<https://sourceware.org/bugzilla/>"|' \
		"$S/bfd/version.h" >"$S/gen/bfdver.h"
	touch "$S/.unpacked"
fi

# binutils' config.h for the host, once per host (by its gcc: the same facts for clang).
CFG=$CACHE/config-${HOST:-native}
if [ ! -f "$CFG/config.h" ]; then
	rm -rf "$CFG"
	mkdir -p "$CFG"
	(cd "$CFG" && "$S/binutils/configure" -q ${HOST:+--host=$HOST} CC="${HOST:+$HOST-}gcc" \
		--disable-nls --without-zstd --disable-libctf --without-debuginfod --without-msgpack \
		>configure.log 2>&1) || { tail -20 "$CFG/configure.log" >&2; exit 1; }
fi

rm -rf "$OUT"
mkdir -p "$OUT/o" "$OUT/z"
INC="-DHAVE_CONFIG_H -I$CFG -I$S/binutils -I$S/include -I$S/gen -I$S/libsframe -I$S/libctf"
# compile 'CC ARGS' DIR SRC...: each SRC into DIR, two at a time.
compile() {
	c_cmd=$1 c_dir=$2
	shift 2
	printf '%s\n' "$@" | xargs -P2 -I{} sh -c \
		'$0 -c "$1" -o "$2/$(basename "$1" .c).o"' "$c_cmd" {} "$c_dir"
}
B=$S/binutils L=$S/libiberty F=$S/libsframe Z=$S/zlib
compile "$BCC $FLAGS $INC" "$OUT/o" $B/readelf.c $B/version.c $B/unwind-ia64.c $B/dwarf.c \
	$B/demanguse.c $B/elfcomm.c $F/sframe.c $F/sframe-error.c $F/sframe-dump.c \
	$L/safe-ctype.c $L/concat.c $L/cplus-dem.c $L/cp-demangle.c $L/rust-demangle.c \
	$L/d-demangle.c $L/argv.c $L/dwarfnames.c $L/lbasename.c $L/lrealpath.c $L/xmalloc.c \
	$L/xexit.c $L/xstrdup.c
compile "$BCC $FLAGS -I$Z" "$OUT/z" $Z/adler32.c $Z/crc32.c $Z/inflate.c $Z/inffast.c \
	$Z/inftrees.c $Z/zutil.c $Z/uncompr.c
for o in "$OUT"/o/*.o "$OUT"/z/*.o; do [ -s "$o" ] || { echo "build_readelf.sh: $o not built" >&2; exit 1; }; done
mv "$OUT/o/readelf.o" "$OUT/readelf.o"
${HOST:+$HOST-}ar rcs "$OUT/lib.a" "$OUT"/o/*.o "$OUT"/z/*.o
echo "$want" >"$OUT/done"
echo "$OUT"
