#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# patchverify --noflag (issue 37) on Debian's own files as installed: CPU
# seconds (user + sys, best of 3) per 100,000 entries and fragments, against
# the issue's target of 1 s.
#
#   sh bench/verify/noflag.sh BUILD_DIR
set -eu
P=$(cd "$1" && pwd)/patchverify
libc=$(ldd /bin/ls | awk '$1 == "libc.so.6" { print $3 }')
for f in "$libc" /usr/bin/python3.11 /usr/lib/x86_64-linux-gnu/libcrypto.so.3 /usr/bin/sqlite3; do
	[ -f "$f" ] || { echo "--noflag: $f not installed: skipped"; continue; }
	n=$("$P" --noflag --json "$f" | python3 -c 'import json, sys
d = json.load(sys.stdin)["files"][0]; print(d["entries"] + d["fragments"])')
	best=
	for i in 1 2 3; do
		t=$( { /usr/bin/time -f '%U %S' "$P" --noflag "$f" >/dev/null; } 2>&1 | tail -n 1 |
			awk '{ print $1 + $2 }')
		if [ -z "$best" ] || [ "$(echo "$t < $best" | bc)" = 1 ]; then best=$t; fi
	done
	per=$(echo "scale=2; $best * 100000 / $n" | bc)
	echo "--noflag ${f##*/}: $n entries and fragments, $best s CPU: $per s per 100,000" \
		"(target 1 s: $( [ "$(echo "$per <= 1" | bc)" = 1 ] && echo met || echo MISSED))"
done
