#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Nothing in the tree may depend on one machine or on code fetched from elsewhere (issue 43):
#   sh tests/tree/paths.sh [DIR]
# reads every text file of DIR (default: the checkout's tracked files; a directory that is
# no git checkout: all its files but build/) and fails, printing FILE:LINE: TEXT and what it
# is, on
#   a path of one machine      under /work, /root or /home, or a repository mirror (a
#                              directory named mirror with a dot)
#   a clone from elsewhere     cloning (git) an http, https or git address, or a host by ssh
#   a source tree named by env  a variable *_GIT (naming a snapshot of a repository on one machine)
# The real programs the tests build come from Debian's archive (/usr/src: binutils-source,
# googletest), which every machine the project runs on can install.  The patterns are
# written in two pieces, so that this file does not match itself.
set -u
# Not a suite (no suite_init): the checker itself, which tests/tree/selftest.sh (a suite)
# runs on planted trees and judges by its status and its FAIL lines.
DIR=${1:-.}
W='/wo''rk/' R='/ro''ot/' H='/ho''me/' M='\.mir''ror\b'
C='git +clo''ne\b.*((https?|git)://|git@)'
E='\b[A-Z][A-Z0-9_]*_G''IT\b'
PAT="$W|$R|$H|$M|$C|$E"
list() {
	if git -C "$DIR" rev-parse --show-toplevel >/dev/null 2>&1 &&
	   [ "$(cd "$DIR" && pwd -P)" = "$(git -C "$DIR" rev-parse --show-toplevel)" ]; then
		git -C "$DIR" ls-files -z
	else
		(cd "$DIR" && find . -path ./build -prune -o -path ./.git -prune -o -type f -print0)
	fi
}
found=$(list | (cd "$DIR" && xargs -0 grep -I -n -E "$PAT" /dev/null) 2>/dev/null)
if [ -n "$found" ]; then
	printf '%s\n' "$found" | while IFS= read -r line; do
		what="a path of one machine"
		printf '%s\n' "$line" | grep -qE "$C" && what="a clone from a public repository"
		printf '%s\n' "$line" | grep -qE "$E" && what="a source tree named by an env variable"
		echo "FAIL tree: $line  ($what)"
	done
	echo "tests/tree/paths.sh: the tree names what only one machine has, or fetched code:" \
		"use Debian's archive (scripts/deps.sh)" >&2
	exit 1
fi
echo "PASS tree: no path of one machine, no clone from a public repository, no *_GIT source tree" \
	"($(list | tr -cd '\0' | wc -c) files)"
