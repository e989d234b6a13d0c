#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# make check-fresh: README's first command on a fresh Debian 12 machine.
#
#   sh scripts/check-fresh.sh [TARGET...]      (as root; default target: demo)
#
# A machine that already has a compiler proves nothing about the install
# step, so this makes one that has nothing: a minbase Debian 12 chroot with
# only make, git and ca-certificates, clones this repository's HEAD into it
# (committed work only, as a new user gets it) and runs `make demo` there as
# root.  FRESH_TARGETS="demo check" (or arguments) runs more.
#
# The chroot's template is made once by debootstrap and kept as a tarball
# (FRESH_CACHE, default /var/tmp/patchsite-fresh), so a second run only
# unpacks it.  The mirror is the one this machine's own apt sources name.
# Exit status: the targets' (1 when one fails), 2 when the chroot cannot be made.
set -eu

REPO=$(git rev-parse --show-toplevel)
CACHE=${FRESH_CACHE:-/var/tmp/patchsite-fresh}
SUITE=bookworm
TEMPLATE=$CACHE/$SUITE-minbase.tar
TARGETS=${*:-${FRESH_TARGETS:-demo}}

say() { echo "check-fresh: $*" >&2; }
die() { say "$*"; exit 2; }

[ "$(id -u)" = 0 ] || die "needs root (debootstrap, chroot and mounts); run it as root"
command -v apt-get >/dev/null || die "needs Debian's apt-get to install debootstrap"
if ! command -v debootstrap >/dev/null; then
	say "installing debootstrap"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap >/dev/null ||
		{ apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap >/dev/null; } ||
		die "cannot install debootstrap"
fi

# The first Debian mirror this machine's apt sources name (deb822 or one-line form).
mirror() {
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk '/^URIs:/ { for (i = 2; i <= NF; i++) if ($i !~ /security/) { print $i; exit } }' "$f"
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		awk '$1 == "deb" && $0 ~ / '"$SUITE"' / { for (i = 2; i <= NF; i++) if ($i ~ /:\/\//) { print $i; exit } }' "$f"
	done
}
MIRROR=$(mirror | grep -v security | head -n 1)
[ -n "$MIRROR" ] || die "no Debian mirror in /etc/apt/sources.list{,.d}"

# This machine's apt settings that only tune fetching (Acquire::...), so that
# apt in the chroot reaches the mirror as apt here does.
acquire_confs() {
	for f in /etc/apt/apt.conf.d/*; do
		[ -f "$f" ] || continue
		if ! sed -e 's,//.*,,' -e '/^[[:space:]]*$/d' "$f" | grep -qv '^[[:space:]]*Acquire::'; then
			echo "$f"
		fi
	done
}

if [ ! -s "$TEMPLATE" ]; then
	say "making the $SUITE minbase template (once) from $MIRROR"
	mkdir -p "$CACHE"
	rm -rf "$CACHE/root.tmp"
	debootstrap --variant=minbase --include=make,git,ca-certificates "$SUITE" "$CACHE/root.tmp" \
		"$MIRROR" >"$CACHE/debootstrap.log" 2>&1 ||
		{ tail -n 20 "$CACHE/debootstrap.log" >&2; die "debootstrap failed (log: $CACHE/debootstrap.log)"; }
	tar -C "$CACHE/root.tmp" -cf "$TEMPLATE.tmp" . && mv "$TEMPLATE.tmp" "$TEMPLATE"
	rm -rf "$CACHE/root.tmp"
fi

ROOT=$(mktemp -d "$CACHE/root.XXXXXX")
MOUNTS=""
cleanup() {
	for m in $MOUNTS; do umount -R "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || :; done
	rm -rf --one-file-system "$ROOT"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

tar -C "$ROOT" -xf "$TEMPLATE"
for f in $(acquire_confs); do cp "$f" "$ROOT/etc/apt/apt.conf.d/"; done
cp /etc/resolv.conf "$ROOT/etc/resolv.conf" 2>/dev/null || :
# Nothing but the template has been installed: say so, so the log proves it.
have=$(chroot "$ROOT" sh -c 'for t in cc gcc make git; do command -v $t >/dev/null && printf "%s " $t; done')
say "the chroot has: ${have:-none of cc, gcc, make, git}"
case " $have " in *" cc "*|*" gcc "*) die "the template has a compiler: it is not a fresh machine";; esac

mount -t proc proc "$ROOT/proc" && MOUNTS="$ROOT/proc $MOUNTS"
mount -t sysfs sys "$ROOT/sys" && MOUNTS="$ROOT/sys $MOUNTS"
mount --rbind /dev "$ROOT/dev" && mount --make-rslave "$ROOT/dev" && MOUNTS="$ROOT/dev $MOUNTS"
mount -t tmpfs tmpfs "$ROOT/tmp" && MOUNTS="$ROOT/tmp $MOUNTS"

git clone -q "$REPO" "$ROOT/src"
say "clean clone of $(git -C "$REPO" rev-parse --short HEAD) in /src; running: make $TARGETS"
status=0
for t in $TARGETS; do
	if chroot "$ROOT" env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		TERM=dumb sh -c "cd /src && make $t"; then
		say "make $t: passed on a fresh $SUITE"
	else
		say "make $t: FAILED on a fresh $SUITE"
		status=1
		break
	fi
done
exit $status
